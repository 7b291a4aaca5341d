/**
 * Conformance of rudder's MCP tools with the official TypeScript SDK
 * (@modelcontextprotocol/sdk), over stdio and over streamable HTTP.
 *
 * usage: node tests/e2e/conformance/conformance.mjs RUDDER_BIN [WORKDIR]
 *        (after scripts/setup-node.sh; WORKDIR defaults to a fresh temporary one)
 *
 * tools.json (next to this file) lists every tool with a call that must
 * succeed and a call that must be refused. For each transport this script
 * starts rudder on contracts/out/Token.json with every tool family, and checks:
 *
 * - tools/list and tools.json name the same tools (a tool served but not
 *   listed, or listed but not served, is a failure);
 * - the valid call succeeds, its structuredContent validates against the
 *   tool's outputSchema with an independent validator (ajv, draft-07,
 *   strict: false, with formats), and the SDK's own output validation
 *   (Client.callTool, McpError -32602 on a mismatch) accepts it;
 * - the refused call is an error result (isError, no structuredContent, one
 *   text block whose text is the JSON error body of the family's shape) with
 *   the expected code, naming the expected field.
 *
 * Every failure is collected and printed (tool, transport, what went wrong);
 * the exit status is 1 if there was any. conformance.py makes the same checks
 * with the official Python SDK.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import Ajv from "ajv";
import addFormats from "ajv-formats";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "../../..");
const TARGET = "contracts/out/Token.json";
// One worker and a bounded campaign: the machine stays responsive, so the
// 100 ms tool budget holds; --keep-alive keeps the server up afterwards.
// --output-schemas: every answer is checked against its advertised schema.
const RUDDER_ARGS = ["--tools", "all", "--output-schemas", "--workers", "1", "--seed", "7", "--test-limit", "5000"];
const CALL_TIMEOUT_MS = 30_000;
const TIMEOUT_CODES = new Set(["EXECUTION_TIMEOUT", "TIMEOUT"]);
const SDK = "typescript";

// ---------------------------------------------------------------- the listing

/** tools.json as a Map tool -> entry, each entry carrying its family's
 *  errorShape and refusedCode unless it names its own. */
function loadListing(file = path.join(HERE, "tools.json")) {
  const { families } = JSON.parse(fs.readFileSync(file, "utf8"));
  const listing = new Map();
  for (const [family, f] of Object.entries(families)) {
    for (const [name, entry] of Object.entries(f.tools)) {
      if (listing.has(name)) throw new Error(`tools.json: ${name} listed in ${listing.get(name).family} and ${family}`);
      listing.set(name, { family, errorShape: f.errorShape, refusedCode: f.refusedCode, ...entry });
    }
  }
  return listing;
}

// ------------------------------------------------------------------- failures

/** Failures of every transport. */
class Report {
  failures = [];

  fail(transport, tool, what) {
    this.failures.push(`${SDK} ${transport}: ${tool}: ${what}`);
  }
}

// ------------------------------------------------------- JSON Schema checking

/** An ajv of its own (draft-07, not the SDK's instance). */
function makeAjv() {
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: true });
  addFormats(ajv);
  return ajv;
}

const AJV = makeAjv();
const compiled = new WeakMap();

/** Every way `instance` fails `schema` (draft-07), as "path: message". */
function schemaProblems(schema, instance) {
  let validate = compiled.get(schema);
  try {
    validate ??= AJV.compile(schema);
  } catch (e) {
    return [`schema does not compile as draft-07: ${e.message}`];
  }
  compiled.set(schema, validate);
  if (validate(instance)) return [];
  return validate.errors.map((e) => {
    const at = e.instancePath || "/";
    const value = JSON.stringify(valueAt(instance, e.instancePath));
    return `${at}: ${e.message} (value ${truncate(value, 80)}; schema ${e.schemaPath})`;
  });
}

function valueAt(doc, pointer) {
  try {
    return jsonPointer(doc, pointer);
  } catch {
    return undefined;
  }
}

function truncate(s, n) {
  return s !== undefined && s.length > n ? `${s.slice(0, n)}…` : s;
}

// ------------------------------------------------------------- the wire tap

/** Wraps a connected transport's onmessage and keeps the last result that
 *  looks like a tools/call answer, exactly as it came off the wire: the
 *  independent checks read it even when the SDK refuses the answer. */
function tapTransport(transport) {
  const tap = { lastResult: undefined };
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (message && typeof message.result === "object" && message.result && "content" in message.result) {
      tap.lastResult = message.result;
    }
    deliver(message, extra);
  };
  return tap;
}

/** Calls a tool; returns {raw, sdkError}: the raw result (undefined if none
 *  came) and what the SDK said about it (undefined if it accepted it). */
async function callTool(client, tap, name, args) {
  tap.lastResult = undefined;
  let sdkError;
  try {
    await client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS });
  } catch (e) {
    sdkError = `${e.constructor.name}${e.code !== undefined ? ` ${e.code}` : ""}: ${e.message}`;
  }
  return { raw: tap.lastResult, sdkError };
}

// --------------------------------------------------------------- placeholders

/** The value at an RFC 6901 pointer; throws if absent. */
function jsonPointer(doc, pointer) {
  const parts = pointer ? pointer.slice(1).split("/") : [];
  for (const raw of parts) {
    const part = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (doc === null || typeof doc !== "object" || !Object.hasOwn(doc, part)) {
      throw new Error(`no ${pointer}`);
    }
    doc = doc[part];
  }
  return doc;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** `value` with its placeholders replaced: `$cwd`, and `$first:TOOL:/pointer`
 *  (TOOL called with {}, retried until the pointer exists or `seconds` pass:
 *  traces appear a moment after the start). */
async function resolve(client, tap, value, seconds = 10) {
  if (Array.isArray(value)) {
    const out = [];
    for (const v of value) out.push(await resolve(client, tap, v, seconds));
    return out;
  }
  if (value !== null && typeof value === "object") {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = await resolve(client, tap, v, seconds);
    return out;
  }
  if (value === "$cwd") return process.cwd();
  if (typeof value === "string" && value.startsWith("$first:")) {
    const [, tool, pointer] = value.match(/^\$first:([^:]+):(.*)$/);
    const deadline = Date.now() + seconds * 1000;
    for (;;) {
      const { raw } = await callTool(client, tap, tool, {});
      try {
        return jsonPointer(raw?.structuredContent, pointer);
      } catch {
        if (Date.now() > deadline) {
          throw new PlaceholderError(`${value}: ${tool} answered ${truncate(JSON.stringify(raw), 300)}`);
        }
        await sleep(200);
      }
    }
  }
  return value;
}

class PlaceholderError extends Error {}

// ------------------------------------------------------------------- checks

/** What is wrong with the answer to a call that must succeed. */
function validProblems(tool, { raw, sdkError }) {
  const problems = sdkError ? [`SDK rejected the answer: ${sdkError}`] : [];
  if (raw === undefined) return [...problems, "no tools/call result"];
  if (raw.isError) return [...problems, `refused a valid call: ${truncate(textOf(raw), 400)}`];
  const structured = raw.structuredContent;
  if (structured === null || typeof structured !== "object" || Array.isArray(structured)) {
    return [...problems, "no structuredContent object"];
  }
  return [...problems, ...schemaProblems(tool.outputSchema, structured).map((p) => `outputSchema: ${p}`)];
}

/** The text of a result's first content block ("" if none). */
function textOf(raw) {
  const first = (raw.content ?? [])[0];
  return typeof first?.text === "string" ? first.text : "";
}

/** What is wrong with a refused call's JSON error body: its shape (seed
 *  002's or seed 001's), its code, and the field it names. */
function errorBodyProblems(body, entry) {
  const error = body?.error;
  if (error === null || typeof error !== "object") {
    return [`error body has no \`error\` object: ${truncate(JSON.stringify(body), 300)}`];
  }
  const problems = [];
  if (entry.errorShape === "seed002") {
    if (body.success !== false) problems.push(`seed 002 shape needs success: false, got ${JSON.stringify(body.success)}`);
  } else {
    if ("success" in body) problems.push("seed 001 shape has no `success` key");
    const latency = body._metadata?.latency_ms;
    if (typeof latency !== "number") problems.push(`seed 001 shape needs _metadata.latency_ms, got ${JSON.stringify(latency)}`);
  }
  if (typeof error.message !== "string") problems.push("error.message is not a string");
  if (error.code !== entry.refusedCode) {
    problems.push(`code ${JSON.stringify(error.code)}, expected ${JSON.stringify(entry.refusedCode)}`);
  }
  const named = error.details?.field;
  const wanted = entry.refusedField;
  if (named !== wanted && !String(error.message ?? "").includes(wanted)) {
    problems.push(`names field ${JSON.stringify(named)} (message ${JSON.stringify(error.message)}), expected ${JSON.stringify(wanted)}`);
  }
  return problems;
}

/** What is wrong with the answer to a call that must be refused. */
function refusedProblems({ raw, sdkError }, entry) {
  const problems = sdkError ? [`SDK rejected the error result: ${sdkError}`] : [];
  if (raw === undefined) return [...problems, "no tools/call result"];
  if (raw.isError !== true) problems.push(`isError is ${JSON.stringify(raw.isError)}, expected true`);
  if ("structuredContent" in raw) problems.push("error result carries structuredContent (it must not)");
  const content = raw.content ?? [];
  if (content.length !== 1 || content[0]?.type !== "text") {
    return [...problems, `content must be one text block, got ${truncate(JSON.stringify(content), 300)}`];
  }
  let body;
  try {
    body = JSON.parse(content[0].text);
  } catch {
    return [...problems, `text content is not JSON: ${truncate(JSON.stringify(content[0].text), 300)}`];
  }
  return [...problems, ...errorBodyProblems(body, entry)];
}

// --------------------------------------------------------------------- walk

/** A call, repeated (at most `tries` times) while it answers the 100 ms
 *  budget's timeout: conformance is about shapes, not a loaded machine. */
async function callRetryingTimeouts(client, tap, name, args, tries = 3) {
  let outcome;
  for (let i = 0; i < tries; i++) {
    outcome = await callTool(client, tap, name, args);
    if (!outcome.raw?.isError) return outcome;
    let code;
    try {
      code = JSON.parse(textOf(outcome.raw))?.error?.code;
    } catch {
      return outcome;
    }
    if (!TIMEOUT_CODES.has(code)) return outcome;
    await sleep(200);
  }
  return outcome;
}

/** Makes the entry's `kind` call ("valid" or "refused"); records its
 *  problems; 1 if it had none. */
async function checkCall(client, tap, transport, tool, entry, kind, report) {
  if (kind === "valid" && entry.skipValid) {
    report.fail(transport, tool.name, `valid call skipped: ${entry.skipValid}`);
    return 0;
  }
  let args;
  try {
    args = await resolve(client, tap, entry[kind]);
  } catch (e) {
    if (!(e instanceof PlaceholderError)) throw e;
    report.fail(transport, tool.name, `${kind} call: placeholder unresolved: ${e.message}`);
    return 0;
  }
  let problems;
  if (kind === "valid") {
    for (const p of schemaProblems(tool.inputSchema, args)) {
      report.fail(transport, tool.name, `tools.json valid args fail the inputSchema: ${p}`);
    }
    problems = validProblems(tool, await callRetryingTimeouts(client, tap, tool.name, args));
  } else {
    problems = refusedProblems(await callTool(client, tap, tool.name, args), entry);
  }
  for (const p of problems) report.fail(transport, tool.name, `${kind} call: ${p}`);
  return problems.length === 0 ? 1 : 0;
}

/** Connects, checks the tool list against the listing, then every tool's
 *  valid and refused calls; prints the transport's summary line. */
async function walk(transport, label, listing, report) {
  const client = new Client({ name: "rudder-conformance", version: "1.0.0" });
  await client.connect(transport);
  try {
    const tap = tapTransport(transport);
    const { tools } = await client.listTools();
    const served = new Set(tools.map((t) => t.name));
    for (const name of [...served].filter((n) => !listing.has(n)).sort()) {
      report.fail(label, name, "served by rudder but has no entry in tools.json");
    }
    for (const name of [...listing.keys()].filter((n) => !served.has(n)).sort()) {
      report.fail(label, name, "listed in tools.json but not served by rudder");
    }
    let validOk = 0;
    let refusedOk = 0;
    for (const tool of tools) {
      const entry = listing.get(tool.name);
      if (!entry) continue;
      validOk += await checkCall(client, tap, label, tool, entry, "valid", report);
      refusedOk += await checkCall(client, tap, label, tool, entry, "refused", report);
    }
    console.log(`${SDK} ${label}: ${tools.length} tools, ${validOk} valid ok, ${refusedOk} refused ok`);
    if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession();
  } finally {
    await client.close();
  }
}

// --------------------------------------------------------------- transports

/** `rudder mcp` launched by the client. */
async function overStdio(rudder, work, listing, report) {
  const transport = new StdioClientTransport({
    command: rudder,
    args: ["mcp", TARGET, ...RUDDER_ARGS, "--out-dir", fs.mkdtempSync(path.join(work, `${SDK}-stdio-`))],
    cwd: process.cwd(),
    stderr: "inherit",
  });
  await walk(transport, "stdio", listing, report);
}

/** A free loopback port. */
function freePort() {
  return new Promise((resolvePort, reject) => {
    const srv = net.createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolvePort(port));
    });
  });
}

/** Resolves once something accepts connections on `port`. */
function canConnect(port) {
  return new Promise((ok) => {
    const s = net.connect({ port, host: "127.0.0.1" });
    s.once("connect", () => {
      s.destroy();
      ok(true);
    });
    s.once("error", () => ok(false));
  });
}

/** Waits until rudder's HTTP server accepts connections on `port`. */
async function waitForPort(proc, port, log, seconds = 30) {
  const deadline = Date.now() + seconds * 1000;
  while (!(await canConnect(port))) {
    if (proc.exitCode !== null) {
      throw new Error(`rudder exited (${proc.exitCode}): ${fs.readFileSync(log, "utf8").slice(-2000)}`);
    }
    if (Date.now() > deadline) throw new Error(`rudder's HTTP server did not start within ${seconds} s`);
    await sleep(50);
  }
}

/** Terminates rudder, killing it if it does not exit within 20 s. */
async function stop(proc) {
  if (proc.exitCode !== null) return;
  const exited = new Promise((r) => proc.once("exit", r));
  proc.kill("SIGTERM");
  const timer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
  await exited;
  clearTimeout(timer);
}

/** `rudder fuzz --mcp-http --keep-alive` on a free loopback port, as a
 * shared campaign (a folder store), so `status` answers with `shared`. */
async function overHttp(rudder, work, listing, report) {
  const port = await freePort();
  const outDir = fs.mkdtempSync(path.join(work, `${SDK}-http-`));
  const log = path.join(outDir, "rudder.stderr");
  const stderr = fs.openSync(log, "w");
  const proc = spawn(
    rudder,
    ["fuzz", TARGET, ...RUDDER_ARGS, "--keep-alive", "--timeout", "300",
      "--out-dir", outDir, "--mcp-http", `127.0.0.1:${port}`,
      "--shared", `file://${path.join(path.resolve(outDir), "store")}`],
    { stdio: ["ignore", "ignore", stderr] },
  );
  fs.closeSync(stderr);
  try {
    await waitForPort(proc, port, log);
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`));
    await walk(transport, "http", listing, report);
  } finally {
    await stop(proc);
  }
}

async function main() {
  const [rudderArg, workArg] = process.argv.slice(2);
  if (!rudderArg) {
    console.error("usage: node tests/e2e/conformance/conformance.mjs RUDDER_BIN [WORKDIR]");
    process.exit(2);
  }
  const rudder = path.resolve(rudderArg);
  const work = workArg ? path.resolve(workArg) : fs.mkdtempSync(path.join(os.tmpdir(), "rudder-conformance-"));
  fs.mkdirSync(work, { recursive: true });
  process.chdir(REPO); // the target and `$cwd` are the repository's
  const listing = loadListing();
  const report = new Report();
  for (const [label, run] of [["stdio", overStdio], ["http", overHttp]]) {
    try {
      await run(rudder, work, listing, report);
    } catch (e) {
      report.fail(label, "-", `transport failed: ${e.stack ?? e}`);
    }
  }
  if (report.failures.length) {
    console.log(`conformance: ${report.failures.length} failures`);
    for (const f of report.failures) console.log(`FAIL ${f}`);
    process.exit(1);
  }
  console.log("conformance: all checks passed");
}

await main();
