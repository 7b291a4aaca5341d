"""An agent's campaign waits for its agent: `rudder mcp` with no limit fuzzes
for as long as the client holds the session and ends when it leaves; with
--test-limit it stops fuzzing at the limit and goes on serving. Driven by the
official Python `mcp` client over stdio, as an agent host launches rudder.

usage: agent_session.py RUDDER_BIN WORKDIR
Exits non-zero (with a message) on the first failed check.
"""
import asyncio
import os
import re
import sys
import time

import mcp.client.stdio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from common import answer, is_error

RUDDER, WORK = sys.argv[1], sys.argv[2]
TARGET = "contracts/out/Token.json"
HOLD = 3.0  # seconds of wall time the agent holds the session in (a)
EXIT_BOUND = 30.0  # seconds rudder may take to exit once the client left

# When the client leaves, stdio_client closes rudder's stdin, waits
# PROCESS_TERMINATION_TIMEOUT (2 s in mcp 1.30 and 2.3) and then SIGTERMs it. Wait
# past the bound instead, so that what is measured is rudder noticing the
# client left on its own, not the client's SIGTERM.
mcp.client.stdio.PROCESS_TERMINATION_TIMEOUT = EXIT_BOUND + 5

# The spawned process, kept to read its exit code (stdio_client does not
# hand it out).
_spawned = []
_create = mcp.client.stdio._create_platform_compatible_process


async def _create_and_keep(*args, **kwargs):
    process = await _create(*args, **kwargs)
    _spawned.append(process)
    return process

mcp.client.stdio._create_platform_compatible_process = _create_and_keep


def check(cond, what):
    if not cond:
        raise SystemExit(f"FAILED: {what}")


async def call(session, name, args):
    r = await session.call_tool(name, args)
    v = answer(r)
    check(not is_error(r), f"{name} {args} refused: {v}")
    return v


def params(out, *extra):
    return StdioServerParameters(
        command=RUDDER,
        args=["mcp", TARGET, "--workers", "1", *extra, "--out-dir", os.path.join(WORK, out)],
        cwd=os.getcwd(),
    )


async def injections_executed(session, injection_id, want, seconds=10):
    """How many InjectionExecuted events name `injection_id`, waiting (up to
    `seconds`) for `want` of them. (Filtered here rather than by read_logs'
    eventType: builds before the filter took every kind refuse that one.)"""
    deadline = time.monotonic() + seconds
    while True:
        logs = await call(session, "read_logs", {"count": 2500})
        n = sum(1 for e in logs["events"]
                if e["eventType"] == "InjectionExecuted" and e["data"].get("injection") == injection_id)
        if n >= want or time.monotonic() > deadline:
            return n
        await asyncio.sleep(0.05)


async def unlimited():
    """(a) No limit: fuzzing goes on while the agent holds the session; the
    process exits soon after the agent leaves."""
    os.makedirs(WORK, exist_ok=True)
    err_path = os.path.join(WORK, "a-stderr.txt")
    _spawned.clear()
    with open(err_path, "w") as errlog:
        async with stdio_client(params("a"), errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                st = await call(session, "status", {})
                first = st["calls"]
                check(st["fuzzing"] is True, f"(a) fuzzing at the start: {st.get('fuzzing')!r}")
                check("endReason" not in st, f"(a) endReason while fuzzing: {st.get('endReason')!r}")
                check(st["config"]["testLimit"] == "unlimited",
                      f"(a) config.testLimit: {st['config'].get('testLimit')!r}")

                v = await call(session, "inject_transaction", {"sequence": ["transfer(?, 7)"], "repeat": 5})
                check(v.get("success") is True and v.get("injectedCount") == 1,
                      f"(a) wildcard injection: {v}")
                injection = v["injectionId"]

                # Hold the session for HOLD seconds of wall time, reading
                # status along the way: calls never fall, fuzzing goes on.
                t0 = time.monotonic()
                last, reads = first, 1
                while time.monotonic() - t0 < HOLD:
                    await asyncio.sleep(0.5)
                    st = await call(session, "status", {})
                    reads += 1
                    check(st["fuzzing"] is True and "endReason" not in st,
                          f"(a) still fuzzing after {time.monotonic() - t0:.1f}s: "
                          f"fuzzing={st.get('fuzzing')!r} endReason={st.get('endReason')!r}")
                    check(st["calls"] >= last, f"(a) calls fell: {last} -> {st['calls']}")
                    last = st["calls"]
                held = time.monotonic() - t0
                check(last > first, f"(a) calls did not rise over {held:.1f}s: {first} -> {last}")
                print(f"agent_session: calls rose from {first} to {last} over {held:.1f}s "
                      f"({reads} status reads, still fuzzing)")

                # The ? was drawn anew for each of the five runs.
                n = await injections_executed(session, injection, 5)
                check(n == 5, f"(a) repeat 5 ran {n} times (InjectionExecuted in read_logs)")
                # Leave: ClientSession and stdio_client close rudder's stdin.
                left = time.monotonic()
        exited = time.monotonic() - left
    process = _spawned[-1]
    check(exited < EXIT_BOUND, f"(a) rudder took {exited:.1f}s to exit after the client left")
    check(process.returncode == 0, f"(a) rudder exit code {process.returncode} (it was terminated?)")
    print(f"agent_session: process exited {exited:.2f} s after the client left (exit code 0)")

    with open(err_path) as f:
        report = f.read()
    m = re.search(r"(\d+) calls in", report)
    check(m, f"(a) the stderr report names the calls:\n{report}")
    check(int(m.group(1)) >= last, f"(a) report says {m.group(1)} calls, status said {last}:\n{report}")
    print(f"agent_session: report: {report.splitlines()[0]}")


async def limited():
    """(b) --test-limit 2000: fuzzing ends at the limit, the server goes on
    answering and accepting injections."""
    with open(os.path.join(WORK, "b-stderr.txt"), "w") as errlog:
        await limited_session(errlog)


async def limited_session(errlog):
    async with stdio_client(params("b", "--test-limit", "2000"), errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            t0 = time.monotonic()
            while True:
                st = await call(session, "status", {})
                if st["fuzzing"] is False:
                    break
                check(time.monotonic() - t0 < 30,
                      f"(b) still fuzzing 30 s into a 2000-call campaign: calls {st['calls']}")
                await asyncio.sleep(0.1)
            check(st.get("endReason") == "testLimit", f"(b) endReason: {st.get('endReason')!r}")
            check(st["calls"] >= 2000, f"(b) ended at {st['calls']} calls, below the limit")
            check(str(st["config"]["testLimit"]) == "2000", f"(b) config.testLimit: {st['config']['testLimit']!r}")
            print(f"agent_session: --test-limit 2000 ended after {time.monotonic() - t0:.2f}s "
                  f"at {st['calls']} calls, endReason testLimit")

            await asyncio.sleep(0.5)
            st = await call(session, "status", {})
            check(st["fuzzing"] is False and st.get("endReason") == "testLimit",
                  f"(b) status after the end: fuzzing={st.get('fuzzing')!r} endReason={st.get('endReason')!r}")
            v = await call(session, "inject_transaction", {"sequence": ["transfer(?, 7)"], "repeat": 5})
            check(v.get("success") is True and v.get("injectedCount") == 1,
                  f"(b) injection after the limit: {v}")
            # Accepted and run: the workers serve injections after the limit.
            n = await injections_executed(session, v["injectionId"], 5)
            check(n == 5, f"(b) the injection after the limit ran {n} of 5 times")
            st = await call(session, "status", {})
            check(st["fuzzing"] is False and st.get("endReason") == "testLimit",
                  f"(b) status after the injection: fuzzing={st.get('fuzzing')!r} endReason={st.get('endReason')!r}")
            print(f"agent_session: after the limit status still answers and the injection ran 5 times "
                  f"(calls {st['calls']})")


def run(coroutine):
    """Runs a part; a failed check inside the client's task groups arrives
    wrapped in exception groups, and is unwrapped to its message."""
    try:
        asyncio.run(coroutine)
    except BaseExceptionGroup as group:
        def leaves(g):
            for e in g.exceptions:
                yield from leaves(e) if isinstance(e, BaseExceptionGroup) else [e]
        for e in leaves(group):
            if isinstance(e, SystemExit):
                raise e from group
        raise


run(unlimited())
run(limited())
print("agent_session: all checks passed")
