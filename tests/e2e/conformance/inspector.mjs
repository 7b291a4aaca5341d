/**
 * rudder's MCP server as the official MCP Inspector shows it, in CLI mode
 * (@modelcontextprotocol/inspector-cli, the `mcp-inspector-cli --cli`
 * command), over stdio.
 *
 * usage: node tests/e2e/conformance/inspector.mjs RUDDER_BIN [WORKDIR]
 *        (after scripts/setup-node.sh; WORKDIR defaults to a fresh temporary one)
 *
 * Each check is one Inspector CLI run that launches `rudder mcp
 * contracts/out/Token.json` itself and prints the method's result as JSON:
 *
 * - tools/list lists inject_transaction;
 * - tools/call inject_transaction with sequence ["nosuch(1)"] (a function
 *   the target does not have) is shown as a tool error: isError true, no
 *   structuredContent, one text block whose JSON names INVALID_INPUT and the
 *   field sequence[0] (the Inspector must not turn it into a protocol error
 *   or a crash);
 * - tools/call status is not an error.
 *
 * Prints one summary line and exits 0, or prints every failure and exits 1.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "../../..");
const TARGET = path.join(REPO, "contracts/out/Token.json");
const CLI_DIR = path.join(HERE, "node_modules/@modelcontextprotocol/inspector-cli/build");
const CLI = path.join(CLI_DIR, "cli.js");
// One worker and a bounded campaign, as in conformance.mjs.
const RUDDER_ARGS = ["--workers", "1", "--seed", "7", "--test-limit", "5000"];
const RUN_TIMEOUT_MS = 60_000;
const LABEL = "inspector cli stdio";

/**
 * Runs `mcp-inspector-cli --cli RUDDER mcp TARGET … --method METHOD ARGS…`
 * and returns the JSON it prints. The server command goes first and the
 * Inspector's options after it, as its README shows (`--tool-arg` takes
 * every value up to the next option, so it comes last).
 *
 * The working directory is the CLI's own build/ directory: inspector-cli
 * 1.0.3 looks for its package.json at `../package.json` relative to the
 * process's working directory but imports it relative to its module, and
 * fails with ERR_MODULE_NOT_FOUND from most other directories
 * (modelcontextprotocol/inspector#1334). Every path given to it is absolute.
 */
function inspect(rudder, work, method, ...args) {
  const outDir = fs.mkdtempSync(path.join(work, "inspector-"));
  const argv = [CLI, "--cli", rudder, "mcp", TARGET, ...RUDDER_ARGS, "--out-dir", outDir, "--method", method, ...args];
  const what = `mcp-inspector-cli --method ${method} ${args.join(" ")}`.trim();
  const run = spawnSync(process.execPath, argv, {
    cwd: CLI_DIR,
    encoding: "utf8",
    timeout: RUN_TIMEOUT_MS,
    killSignal: "SIGKILL",
  });
  if (run.error) throw new Error(`${what}: ${run.error.message}\nstderr:\n${run.stderr}`);
  if (run.status !== 0) {
    throw new Error(`${what}: exit ${run.status ?? run.signal}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
  }
  try {
    return JSON.parse(run.stdout);
  } catch (e) {
    throw new Error(`${what}: stdout is not JSON (${e.message}):\n${run.stdout}\nstderr:\n${run.stderr}`);
  }
}

/** Problems with the printed tools/list result. */
function checkList(result) {
  const names = (result?.tools ?? []).map((t) => t.name);
  return names.includes("inject_transaction")
    ? []
    : [`tools/list does not list inject_transaction (listed: ${names.join(", ") || "nothing"})`];
}

/** Problems with the printed result of the refused inject_transaction call. */
function checkRefused(result) {
  const shown = JSON.stringify(result);
  const problems = [];
  if (result?.isError !== true) problems.push(`isError is ${JSON.stringify(result?.isError)}, not true`);
  if (result?.structuredContent !== undefined) problems.push("has structuredContent");
  const content = result?.content ?? [];
  if (content.length !== 1 || content[0]?.type !== "text") {
    problems.push("content is not one text block");
  } else {
    let body;
    try {
      body = JSON.parse(content[0].text);
    } catch (e) {
      problems.push(`text is not JSON (${e.message})`);
    }
    if (body !== undefined) {
      if (body.success !== false) problems.push(`success is ${JSON.stringify(body.success)}, not false`);
      if (body.error?.code !== "INVALID_INPUT") problems.push(`error.code is ${JSON.stringify(body.error?.code)}, not "INVALID_INPUT"`);
      if (body.error?.details?.field !== "sequence[0]") {
        problems.push(`error.details.field is ${JSON.stringify(body.error?.details?.field)}, not "sequence[0]"`);
      }
    }
  }
  for (const needle of ["INVALID_INPUT", "sequence[0]"]) {
    if (!shown.includes(needle)) problems.push(`the printed result does not contain ${needle}`);
  }
  return problems.map((p) => `refused inject_transaction: ${p}; printed: ${shown}`);
}

/** Problems with the printed status result. */
function checkStatus(result) {
  const problems = [];
  if (result?.isError) problems.push(`status is an error: ${JSON.stringify(result)}`);
  if (!(result?.content ?? []).length) problems.push(`status has no content: ${JSON.stringify(result)}`);
  return problems;
}

async function main() {
  const [rudderArg, workArg] = process.argv.slice(2);
  if (!rudderArg) {
    console.error("usage: node tests/e2e/conformance/inspector.mjs RUDDER_BIN [WORKDIR]");
    process.exit(2);
  }
  if (!fs.existsSync(CLI)) {
    console.error(`${CLI} is missing: run scripts/setup-node.sh`);
    process.exit(2);
  }
  const rudder = path.resolve(rudderArg);
  const work = workArg ? path.resolve(workArg) : fs.mkdtempSync(path.join(os.tmpdir(), "rudder-inspector-"));
  fs.mkdirSync(work, { recursive: true });

  const checks = [
    ["tools/list", () => checkList(inspect(rudder, work, "tools/list"))],
    ["refused inject_transaction", () => checkRefused(
      inspect(rudder, work, "tools/call", "--tool-name", "inject_transaction", "--tool-arg", 'sequence=["nosuch(1)"]'),
    )],
    ["status", () => checkStatus(inspect(rudder, work, "tools/call", "--tool-name", "status"))],
  ];
  const failures = [];
  for (const [name, check] of checks) {
    try {
      failures.push(...check());
    } catch (e) {
      failures.push(`${name}: ${e.message}`);
    }
  }
  if (failures.length) {
    console.log(`${LABEL}: ${failures.length} failures`);
    for (const f of failures) console.log(`FAIL ${f}`);
    process.exit(1);
  }
  console.log(
    `${LABEL}: tools/list ok, refused inject_transaction shown as tool error INVALID_INPUT (sequence[0]), status ok`,
  );
}

await main();
