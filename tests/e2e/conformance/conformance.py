"""Conformance of rudder's MCP tools with the official Python `mcp` client,
over stdio and over streamable HTTP.

usage: conformance.py RUDDER_BIN [WORKDIR]
       (after scripts/setup-python.sh; WORKDIR defaults to a fresh temporary one)

tools.json (next to this file) lists every tool with a call that must
succeed and a call that must be refused. For each transport this script
starts rudder on contracts/out/Token.json with every tool family, and checks:

* tools/list and tools.json name the same tools (a tool served but not
  listed, or listed but not served, is a failure);
* the valid call succeeds, its structuredContent validates against the
  tool's outputSchema with an independent validator (jsonschema,
  Draft7Validator), and the SDK's own output validation accepts it;
* the refused call is an error result (isError, no structuredContent, one
  text block whose text is the JSON error body of the family's shape) with
  the expected code, naming the expected field.

Every failure is collected and printed (tool, transport, what went wrong);
the exit status is 1 if there was any. The same checks, with the official
TypeScript SDK, are in conformance.mjs.
"""
import asyncio
import datetime
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.dirname(HERE))
# tests/e2e/common.py, with what differs between mcp 1.x and 2.x
from common import free_port, http_client, input_schema, output_schema, read_timeout, stop  # noqa: E402

TARGET = "contracts/out/Token.json"
# One worker and a bounded campaign: the machine stays responsive, so the
# 100 ms tool budget holds; --keep-alive keeps the server up afterwards.
# --output-schemas: every answer is checked against its advertised schema.
RUDDER_ARGS = ["--tools", "all", "--output-schemas", "--workers", "1", "--seed", "7", "--test-limit", "5000"]
CALL_TIMEOUT = read_timeout(30)
TIMEOUT_CODES = {"EXECUTION_TIMEOUT", "TIMEOUT"}
SDK = "python"


# ---------------------------------------------------------------- the listing

def _unique_keys(pairs):
    """A JSON object's pairs as a dict, refusing a key given twice (json
    would keep the last silently: a tool's second entry would hide its first)."""
    keys = [k for k, _ in pairs]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    if dupes:
        raise ValueError(f"tools.json: {', '.join(dupes)} given twice in one object")
    return dict(pairs)


def load_listing(path=os.path.join(HERE, "tools.json")):
    """tools.json as {tool: entry}, each entry carrying its family's
    errorShape and refusedCode unless it names its own."""
    with open(path) as f:
        families = json.load(f, object_pairs_hook=_unique_keys)["families"]
    listing = {}
    for family_name, family in families.items():
        for name, entry in family["tools"].items():
            if name in listing:
                raise ValueError(f"tools.json: {name} listed in {listing[name]['family']} and {family_name}")
            listing[name] = {
                "family": family_name,
                "errorShape": family["errorShape"],
                "refusedCode": family["refusedCode"],
                **entry,
            }
    return listing


# ------------------------------------------------------------------- failures

@dataclass
class Report:
    """Every failure, of every transport, as one line each."""
    failures: list = field(default_factory=list)

    def fail(self, transport, tool, what):
        self.failures.append(f"{SDK} {transport}: {tool}: {what}")


# ------------------------------------------------------- JSON Schema checking

def _date_time(value):
    """RFC 3339 date-time (jsonschema checks it only with an extra package)."""
    if not isinstance(value, str):
        return True
    datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return "T" in value.upper()


FORMATS = jsonschema.FormatChecker()
FORMATS.checks("date-time", raises=ValueError)(_date_time)


def schema_problems(schema, instance):
    """Every way `instance` fails `schema` (draft-07), as 'path: message'."""
    try:
        jsonschema.Draft7Validator.check_schema(schema)
    except jsonschema.SchemaError as e:
        return [f"outputSchema is not a valid draft-07 schema: {e.message}"]
    validator = jsonschema.Draft7Validator(schema, format_checker=FORMATS)
    problems = []
    for e in sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path))):
        path = "/" + "/".join(map(str, e.absolute_path))
        problems.append(f"{path}: {e.message} (schema {'/'.join(map(str, e.absolute_schema_path))})")
    return problems


# ------------------------------------------------------------- the wire tap

class WireTap:
    """Wraps a transport's read stream and keeps the last result that looks
    like a tools/call answer, exactly as it came off the wire: the
    independent checks read it even when the SDK refuses the answer."""

    def __init__(self, stream):
        self._stream = stream
        self.last_result = None

    async def __aenter__(self):
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc):
        return await self._stream.__aexit__(*exc)

    def __aiter__(self):
        return self

    async def __anext__(self):
        message = await self._stream.__anext__()
        # The JSON-RPC message: under `.root` in mcp 1.x (a RootModel), itself in 2.x.
        jsonrpc = getattr(message, "message", None)
        result = getattr(getattr(jsonrpc, "root", jsonrpc), "result", None)
        if isinstance(result, dict) and "content" in result:
            self.last_result = result
        return message

    async def receive(self):
        return await self.__anext__()

    @property
    def last_context(self):
        """mcp 2.x's HTTP read stream hands the session the sender's contextvars."""
        return getattr(self._stream, "last_context", None)

    async def aclose(self):
        await self._stream.aclose()


@dataclass
class Outcome:
    """One tools/call: the raw result (None if none came) and what the SDK
    said about it (None if it accepted it)."""
    raw: dict | None
    sdk_error: str | None


class Caller:
    """A session and its tap: calls a tool, returning both verdicts."""

    def __init__(self, session, tap):
        self.session = session
        self.tap = tap

    async def call(self, name, args):
        self.tap.last_result = None
        try:
            await self.session.call_tool(name, args, read_timeout_seconds=CALL_TIMEOUT)
            sdk_error = None
        except Exception as e:  # the SDK's own validation, or a protocol error
            sdk_error = f"{type(e).__name__}: {e}".splitlines()[0]
        return Outcome(self.tap.last_result, sdk_error)


# --------------------------------------------------------------- placeholders

def json_pointer(doc, pointer):
    """The value at an RFC 6901 pointer, or KeyError."""
    for part in pointer[1:].split("/") if pointer else []:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(doc, list):
            if not part.isdigit() or int(part) >= len(doc):
                raise KeyError(pointer)
            doc = doc[int(part)]
        elif isinstance(doc, dict) and part in doc:
            doc = doc[part]
        else:
            raise KeyError(pointer)
    return doc


async def resolve(caller, value, seconds=10):
    """`value` with its placeholders replaced: `$cwd`, and
    `$first:TOOL:/pointer` (TOOL called with {}, retried until the pointer
    exists or `seconds` pass: traces appear a moment after the start)."""
    if isinstance(value, dict):
        return {k: await resolve(caller, v, seconds) for k, v in value.items()}
    if isinstance(value, list):
        return [await resolve(caller, v, seconds) for v in value]
    if value == "$cwd":
        return os.getcwd()
    if isinstance(value, str) and value.startswith("$first:"):
        _, tool, pointer = value.split(":", 2)
        deadline = time.monotonic() + seconds
        while True:
            outcome = await caller.call(tool, {})
            structured = (outcome.raw or {}).get("structuredContent")
            try:
                return json_pointer(structured, pointer)
            except KeyError:
                if time.monotonic() > deadline:
                    raise LookupError(f"{value}: {tool} answered {json.dumps(outcome.raw)[:300]}")
                await asyncio.sleep(0.2)
    return value


# ------------------------------------------------------------------- checks

def valid_problems(tool, outcome):
    """What is wrong with the answer to a call that must succeed."""
    raw = outcome.raw
    problems = [f"SDK rejected the answer: {outcome.sdk_error}"] if outcome.sdk_error else []
    if raw is None:
        return problems + ["no tools/call result"]
    if raw.get("isError"):
        return problems + [f"refused a valid call: {text_of(raw)[:400]}"]
    structured = raw.get("structuredContent")
    if not isinstance(structured, dict):
        return problems + ["no structuredContent object"]
    problems += [f"outputSchema: {p}" for p in schema_problems(output_schema(tool), structured)]
    return problems


def text_of(raw):
    """The text of a result's first content block ('' if none)."""
    content = raw.get("content") or []
    return content[0].get("text", "") if content and isinstance(content[0], dict) else ""


def error_body_problems(body, entry):
    """What is wrong with a refused call's JSON error body: its shape (seed
    002's or seed 001's), its code, and the field it names."""
    problems = []
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return [f"error body has no `error` object: {json.dumps(body)[:300]}"]
    if entry["errorShape"] == "seed002":
        if body.get("success") is not False:
            problems.append(f"seed 002 shape needs success: false, got {json.dumps(body.get('success'))}")
    else:
        if "success" in body:
            problems.append("seed 001 shape has no `success` key")
        latency = (body.get("_metadata") or {}).get("latency_ms")
        if not isinstance(latency, (int, float)) or isinstance(latency, bool):
            problems.append(f"seed 001 shape needs _metadata.latency_ms, got {json.dumps(latency)}")
    if not isinstance(error.get("message"), str):
        problems.append("error.message is not a string")
    code = entry.get("refusedCode")
    if error.get("code") != code:
        problems.append(f"code {json.dumps(error.get('code'))}, expected {json.dumps(code)}")
    details = error.get("details") if isinstance(error.get("details"), dict) else {}
    wanted = entry["refusedField"]
    if details.get("field") != wanted and wanted not in str(error.get("message", "")):
        problems.append(
            f"names field {json.dumps(details.get('field'))} (message {json.dumps(error.get('message'))}),"
            f" expected {json.dumps(wanted)}")
    return problems


def refused_problems(outcome, entry):
    """What is wrong with the answer to a call that must be refused."""
    raw = outcome.raw
    problems = [f"SDK rejected the error result: {outcome.sdk_error}"] if outcome.sdk_error else []
    if raw is None:
        return problems + ["no tools/call result"]
    if raw.get("isError") is not True:
        problems.append(f"isError is {json.dumps(raw.get('isError'))}, expected true")
    if "structuredContent" in raw:
        problems.append("error result carries structuredContent (it must not)")
    content = raw.get("content") or []
    if len(content) != 1 or not isinstance(content[0], dict) or content[0].get("type") != "text":
        return problems + [f"content must be one text block, got {json.dumps(content)[:300]}"]
    try:
        body = json.loads(content[0]["text"])
    except (ValueError, KeyError):
        return problems + [f"text content is not JSON: {json.dumps(content[0].get('text', ''))[:300]}"]
    return problems + error_body_problems(body, entry)


# --------------------------------------------------------------------- walk

async def call_retrying_timeouts(caller, name, args, tries=3):
    """A call, repeated (at most `tries` times) while it answers the 100 ms
    budget's timeout: conformance is about shapes, not a loaded machine."""
    for _ in range(tries):
        outcome = await caller.call(name, args)
        raw = outcome.raw or {}
        if not raw.get("isError"):
            return outcome
        try:
            code = json.loads(text_of(raw)).get("error", {}).get("code")
        except (ValueError, AttributeError):
            return outcome
        if code not in TIMEOUT_CODES:
            return outcome
        await asyncio.sleep(0.2)
    return outcome


async def walk(session, tap, transport, listing, report):
    """Checks the tool list against the listing, then every tool's valid
    and refused calls; prints the transport's summary line."""
    await session.initialize()
    caller = Caller(session, tap)
    tools = (await session.list_tools()).tools
    served = {t.name for t in tools}
    for name in sorted(served - listing.keys()):
        report.fail(transport, name, "served by rudder but has no entry in tools.json")
    for name in sorted(listing.keys() - served):
        report.fail(transport, name, "listed in tools.json but not served by rudder")
    valid_ok = refused_ok = 0
    for tool in tools:
        entry = listing.get(tool.name)
        if entry is None:
            continue
        valid_ok += await check_call(caller, transport, tool, entry, "valid", report)
        refused_ok += await check_call(caller, transport, tool, entry, "refused", report)
    print(f"{SDK} {transport}: {len(tools)} tools, {valid_ok} valid ok, {refused_ok} refused ok",
          flush=True)


async def check_call(caller, transport, tool, entry, kind, report):
    """Makes the entry's `kind` call ("valid" or "refused"); records its
    problems; 1 if it had none."""
    if kind == "valid" and entry.get("skipValid"):
        report.fail(transport, tool.name, f"valid call skipped: {entry['skipValid']}")
        return 0
    try:
        args = await resolve(caller, entry[kind])
    except LookupError as e:
        report.fail(transport, tool.name, f"{kind} call: placeholder unresolved: {e}")
        return 0
    if kind == "valid":
        input_problems = schema_problems(input_schema(tool), args)
        for p in input_problems:
            report.fail(transport, tool.name, f"tools.json valid args fail the inputSchema: {p}")
        outcome = await call_retrying_timeouts(caller, tool.name, args)
        problems = valid_problems(tool, outcome)
    else:
        outcome = await caller.call(tool.name, args)
        problems = refused_problems(outcome, entry)
    for p in problems:
        report.fail(transport, tool.name, f"{kind} call: {p}")
    return 0 if problems else 1


# --------------------------------------------------------------- transports

async def wait_for_port(proc, port, log, seconds=30):
    """Waits until rudder's HTTP server accepts connections on `port`."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            if proc.poll() is not None:
                with open(log) as f:
                    raise RuntimeError(f"rudder exited ({proc.returncode}): {f.read()[-2000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"rudder's HTTP server did not start within {seconds} s")
            await asyncio.sleep(0.05)


async def over_stdio(rudder, work, listing, report):
    """`rudder mcp` launched by the client."""
    params = StdioServerParameters(
        command=rudder,
        args=["mcp", TARGET, *RUDDER_ARGS, "--out-dir", tempfile.mkdtemp(prefix=f"{SDK}-stdio-", dir=work)],
        cwd=os.getcwd(),
    )
    async with stdio_client(params) as (read, write):
        tap = WireTap(read)
        async with ClientSession(tap, write) as session:
            await walk(session, tap, "stdio", listing, report)


async def over_http(rudder, work, listing, report):
    """`rudder fuzz --mcp-http --keep-alive` on a free loopback port, as a
    shared campaign (a folder store), so `status` answers with `shared`."""
    port = free_port()
    out_dir = tempfile.mkdtemp(prefix=f"{SDK}-http-", dir=work)
    log = os.path.join(out_dir, "rudder.stderr")
    with open(log, "w") as stderr:
        proc = subprocess.Popen(
            [rudder, "fuzz", TARGET, *RUDDER_ARGS, "--keep-alive", "--timeout", "300",
             "--out-dir", out_dir, "--mcp-http", f"127.0.0.1:{port}",
             "--shared", "file://" + os.path.join(os.path.abspath(out_dir), "store")],
            stdout=subprocess.DEVNULL, stderr=stderr,
        )
    try:
        await wait_for_port(proc, port, log)
        async with http_client(f"http://127.0.0.1:{port}/mcp") as (read, write):
            tap = WireTap(read)
            async with ClientSession(tap, write) as session:
                await walk(session, tap, "http", listing, report)
    finally:
        stop(proc)


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    rudder = os.path.abspath(sys.argv[1])
    work = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="rudder-conformance-")
    os.makedirs(work, exist_ok=True)
    os.chdir(REPO)  # the target and `$cwd` are the repository's
    listing = load_listing()
    report = Report()
    for transport, run in [("stdio", over_stdio), ("http", over_http)]:
        try:
            asyncio.run(run(rudder, work, listing, report))
        except (Exception, SystemExit) as e:  # a transport that broke down
            report.fail(transport, "-", f"transport failed: {type(e).__name__}: {e}")
    if report.failures:
        print(f"conformance: {len(report.failures)} failures")
        for f in report.failures:
            print(f"FAIL {f}")
        sys.exit(1)
    print("conformance: all checks passed")


if __name__ == "__main__":
    main()
