"""rudder's MCP prompts and resources through the official Python `mcp`
client, over stdio.

usage: prompts_resources.py RUDDER_BIN WORKDIR

Starts `rudder mcp` on contracts/out/Sequence.json with a one-call budget
(--keep-alive keeps the workers serving), injects the sequence that breaks
its property, and checks that a `notifications/resources/list_changed`
comes, then, once the falsified test is shrunk: every listed resource reads back
(its URI, its MIME type, text that is what it says: the report as JSON, the
LCOV, the shrunk sequence, the Foundry reproducer, the source); the
templates are listed; every prompt is got with valid arguments, its message
carrying the campaign's state; and the refusals: an unknown URI
(resource not found, -32002, naming the URI), an unknown prompt, a missing
and an unknown test (invalid params, -32602, naming the argument). The SDK
parses every answer into its typed models: an answer that does not match
the MCP schema fails here. Prints one summary line; exits 1 on a failure.
"""
import asyncio
import json
import os
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
try:
    from mcp.shared.exceptions import McpError
except ImportError:  # mcp 2.x
    from mcp.shared.exceptions import MCPError as McpError

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
TEST = "echidna_not_closed"
SEQUENCE = f"rudder://tests/{TEST}/sequence"


def field(obj, camel, snake):
    """A model's field on mcp 1.x (camelCase) and 2.x (snake_case)."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


async def refused(call, code, needle):
    try:
        await call
    except McpError as e:
        if e.error.code != code or needle not in e.error.message:
            raise SystemExit(f"FAILED: expected {code} naming {needle!r}, got {e.error.code} {e.error.message}")
        return
    raise SystemExit(f"FAILED: expected a refusal naming {needle!r}")


async def main(rudder, work):
    params = StdioServerParameters(
        command=rudder,
        args=["mcp", "contracts/out/Sequence.json", "--workers", "1", "--seed", "3",
              "--test-limit", "1", "--keep-alive", "--timeout", "120",
              "--out-dir", os.path.join(work, "python-prompts")],
        cwd=REPO,
    )
    changed = []

    async def on_message(message):
        n = getattr(message, "root", message)  # 1.x wraps notifications
        if getattr(n, "method", None) == "notifications/resources/list_changed":
            changed.append(n)

    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            init = await session.initialize()
            caps = init.capabilities
            if caps.prompts is None or caps.resources is None:
                raise SystemExit(f"FAILED: prompts or resources not advertised: {caps}")
            if not field(caps.resources, "listChanged", "list_changed"):
                raise SystemExit(f"FAILED: resources.listChanged not advertised: {caps.resources}")
            await session.call_tool("inject_transaction", {"sequence": ["open()", "turn(42)", "close()"]})
            # The test's resources are listed as soon as it is falsified;
            # its sequence is final once shrinking is done.
            deadline = time.monotonic() + 60
            while True:
                report = json.loads((await session.read_resource("rudder://report")).contents[0].text)
                if changed and any(t["name"] == TEST and t["status"] == "falsified" for t in report["tests"]):
                    break
                if time.monotonic() > deadline:
                    raise SystemExit(f"FAILED: {TEST} never shrunk ({len(changed)} list_changed): {report['tests']}")
                await asyncio.sleep(0.2)
            resources = (await session.list_resources()).resources
            uris = [str(r.uri) for r in resources]
            if SEQUENCE not in uris:
                raise SystemExit(f"FAILED: {SEQUENCE} not listed: {uris}")
            for r in resources:
                got = (await session.read_resource(r.uri)).contents
                if len(got) != 1 or str(got[0].uri) != str(r.uri):
                    raise SystemExit(f"FAILED: {r.uri}: contents {got}")
                c = got[0]
                mime = field(c, "mimeType", "mime_type")
                if mime != field(r, "mimeType", "mime_type") or not c.text:
                    raise SystemExit(f"FAILED: {r.uri}: mime {mime}, text {c.text[:80]!r}")
                uri = str(r.uri)
                if uri == "rudder://report" and json.loads(c.text)["contract"] != "Sequence":
                    raise SystemExit("FAILED: the report is not Sequence's")
                if uri == "rudder://coverage.lcov" and "SF:" not in c.text:
                    raise SystemExit("FAILED: the LCOV has no SF: record")
                if uri == SEQUENCE and c.text.split() != ["open()", "turn(42)", "close()"]:
                    raise SystemExit(f"FAILED: the sequence is {c.text!r}")
                if uri.endswith("/foundry") and "function test" not in c.text:
                    raise SystemExit(f"FAILED: the reproducer is {c.text[:200]!r}")
                if uri.startswith("rudder://sources/") and "contract" not in c.text:
                    raise SystemExit(f"FAILED: {uri} is not Solidity")
            templates = (await session.list_resource_templates())
            templates = field(templates, "resourceTemplates", "resource_templates")
            if len(templates) != 3:
                raise SystemExit(f"FAILED: templates {templates}")
            prompts = (await session.list_prompts()).prompts
            names = sorted(p.name for p in prompts)
            if names != ["investigate_uncovered_branch", "triage_falsified_test", "widen_coverage"]:
                raise SystemExit(f"FAILED: prompts {names}")
            wants = {
                "investigate_uncovered_branch": ({}, "graph_context_for_files"),
                "triage_falsified_test": ({"test": TEST}, "close()"),
                "widen_coverage": ({"contract": "Sequence"}, "contracts/Sequence.sol"),
            }
            for name, (args, needle) in wants.items():
                got = await session.get_prompt(name, args)
                text = got.messages[0].content.text
                if got.messages[0].role != "user" or needle not in text:
                    raise SystemExit(f"FAILED: prompt {name}: {text[:300]!r}")
            await refused(session.read_resource("rudder://nope"), -32002, "rudder://nope")
            await refused(session.get_prompt("nope", {}), -32602, "name")
            await refused(session.get_prompt("triage_falsified_test", {}), -32602, "arguments.test")
            await refused(session.get_prompt("triage_falsified_test", {"test": "x"}), -32602, "arguments.test")
            print(f"python prompts and resources: list_changed received, {len(resources)} resources read, "
                  f"{len(templates)} templates, {len(wants)} prompts got, 4 refusals ok")
    print("prompts and resources: all checks passed")


if __name__ == "__main__":
    asyncio.run(main(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])))
