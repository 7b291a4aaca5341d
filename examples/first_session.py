"""A first steering session, as README.md's "Connecting an agent" walks it: the
same seven steps, run with the official Python client (`pip install mcp`, the
current 2.x release).

    python3 examples/first_session.py                       # stdio: launches `rudder mcp`
    python3 examples/first_session.py --http http://127.0.0.1:7878/mcp
                                                            # attaches to a running campaign

Over stdio it starts `rudder mcp contracts/out/Token.json` itself (`--rudder`
names the binary; default `rudder` on PATH); over HTTP it attaches to a
campaign started with `rudder fuzz contracts/out/Token.json --mcp-http
--keep-alive`. Each step prints what it read; a refused call stops the script
with exit code 1 and the error the tool gave. Run it from the repository's
root (the graph tool reads the sources under the current directory).
"""
import argparse
import asyncio
import json
import os
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

HOLDER = "0x0000000000000000000000000000000000010000"   # a sender with tokens
SPENDER = "0x0000000000000000000000000000000000020000"  # another sender
OTHER = "0x0000000000000000000000000000000000030000"


class Refused(Exception):
    pass


async def call(session, tool, args):
    """One tool call; its structured answer, or Refused with the tool's error."""
    result = await session.call_tool(tool, args)
    if result.is_error:
        raise Refused(f"{tool} {json.dumps(args)} was refused: {result.content[0].text}")
    return result.structured_content


def emitted(e):
    """An event a call emitted, as `Name(value, …)`."""
    return f"{e['name']}({', '.join(str(a['value']) for a in e['args'])})"


def step(n, text):
    print(f"\n{n}. {text}")


async def session_steps(session):
    await session.initialize()

    # 1. Connect: the tools; the campaign is already fuzzing.
    tools = (await session.list_tools()).tools
    step(1, f"connected: {len(tools)} tools")

    # 2. status: calls, coverage, the tests and whether it fuzzes.
    s = await call(session, "status", {})
    step(2, f"status: {s['calls']} calls, {s['lineCoverage']} lines covered, "
            f"fuzzing: {s['fuzzing']}")
    for t in s["tests"]:
        print(f"   {t['name']}: {t['status']}")

    # 3. target: the deployed contracts, their functions, the tests.
    t = await call(session, "target", {})
    fuzzed = [f["signature"] for f in t["functions"] if f.get("fuzzed", True)]
    step(3, f"target: {len(t['contracts'])} contract(s); fuzzed functions: {', '.join(fuzzed)}")

    # 4. graph_context_for_files: a function's uncovered branches and what
    #    they depend on (the project's root: the sources are under it).
    g = await call(session, "graph_context_for_files",
                   {"project_root": os.getcwd(), "files": ["transferFrom"]})
    gaps = [gap for c in g["contexts"] for gap in c.get("gaps", [])]
    step(4, f"graph_context_for_files: {len(gaps)} uncovered branch(es) of transferFrom")
    for gap in gaps[:3]:
        print(f"   {gap['file']}:{gap['line']} `{gap['condition']}` ({gap['missing']})")

    # 5. run_sequence: what each call returns, emits and reverts with, on a
    #    copy of the campaign's state (nothing is injected).
    r = await call(session, "run_sequence", {"sequence": [
        f"approve({SPENDER}, 5)",
        f"transferFrom{{from: {SPENDER}}}({HOLDER}, {OTHER}, 9)",
    ]})
    step(5, "run_sequence:")
    for c in r["calls"]:
        print(f"   {c['call']}\n     -> {c['outcome']}"
              f"{': ' + c['reason'] if c.get('reason') else ''}"
              f"{'; returns ' + json.dumps(c['returns']) if c.get('returns') else ''}"
              f"{'; emits ' + ', '.join(emitted(e) for e in c['events']) if c.get('events') else ''}")

    # 6. inject_transaction: every worker runs 20 transfers of 7 to drawn
    #    recipients (`?` is any value of its type).
    i = await call(session, "inject_transaction", {"sequence": ["transfer(?, 7)"], "repeat": 20})
    step(6, f"inject_transaction: injection {i['injectionId']}: {i['message']}")

    # 7. read_logs: the injection's summary once every worker ran it (runs,
    #    calls, new coverage, the values `?` took), then status.
    summary = None
    for _ in range(1200):
        logs = await call(session, "read_logs", {"eventType": "InjectionSummary", "count": 50})
        summary = next((e["data"] for e in logs["events"]
                        if str(e["data"].get("injection")) == str(i["injectionId"])), None)
        if summary:
            break
        await asyncio.sleep(0.1)
    if summary is None:
        raise Refused("read_logs: no InjectionSummary for the injection after 120 s")
    step(7, f"read_logs: {summary['runs']} runs, {summary['executed']} calls executed, "
            f"{summary['reverted']} reverted, {summary['newPoints']} new points")
    for h in summary["values"]:
        drawn = ", ".join(f"{v['value']} (x{v['times']})" for v in h["values"][:3])
        print(f"   call {h['call']} {h['function']} `{h['at']}` took {drawn}"
              f"{' …' if len(h['values']) > 3 or h['others'] else ''}")
    s = await call(session, "status", {})
    print(f"   status: {s['calls']} calls, {s['lineCoverage']} lines covered")


async def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--http", help="attach to a campaign serving MCP at this URL")
    ap.add_argument("--rudder", default="rudder", help="the rudder binary (stdio)")
    ap.add_argument("--target", default="contracts/out/Token.json")
    a = ap.parse_args()
    try:
        if a.http:
            async with streamable_http_client(a.http) as (read, write, *_):
                async with ClientSession(read, write) as session:
                    await session_steps(session)
        else:
            out = tempfile.mkdtemp(prefix="rudder-first-session-")
            server = StdioServerParameters(
                command=a.rudder, args=["mcp", a.target, "--out-dir", out, "--workers", "2"])
            async with stdio_client(server) as (read, write):
                async with ClientSession(read, write) as session:
                    await session_steps(session)
    except Refused as e:
        print(f"first_session: {e}", file=sys.stderr)
        sys.exit(1)
    print("\nfirst_session: every step ran")


if __name__ == "__main__":
    asyncio.run(main())
