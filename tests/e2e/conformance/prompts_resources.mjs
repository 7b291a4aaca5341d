/**
 * rudder's MCP prompts and resources through the official TypeScript SDK
 * (@modelcontextprotocol/sdk), over stdio: the checks of
 * prompts_resources.py (a list_changed notification after an injected
 * sequence falsifies Sequence's property; every listed resource read back with its URI, MIME
 * type and text; the templates; every prompt got with valid arguments; an
 * unknown URI refused with -32002, an unknown prompt and a missing or
 * unknown test with -32602, each naming what was wrong). The SDK parses
 * every answer with its zod schemas: one that does not match fails here.
 *
 * usage: node tests/e2e/conformance/prompts_resources.mjs RUDDER_BIN WORKDIR
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "../../..");
const TEST = "echidna_not_closed";
const SEQUENCE = `rudder://tests/${TEST}/sequence`;

function fail(what) {
  console.log(`FAILED: ${what}`);
  process.exit(1);
}

async function refused(call, code, needle) {
  try {
    await call;
  } catch (e) {
    if (e.code !== code || !String(e.message).includes(needle)) {
      fail(`expected ${code} naming ${needle}, got ${e.code} ${e.message}`);
    }
    return;
  }
  fail(`expected a refusal naming ${needle}`);
}

async function main() {
  const [rudder, work] = process.argv.slice(2).map((p) => path.resolve(p));
  fs.mkdirSync(work, { recursive: true });
  const transport = new StdioClientTransport({
    command: rudder,
    args: ["mcp", "contracts/out/Sequence.json", "--workers", "1", "--seed", "3",
      "--test-limit", "1", "--keep-alive", "--timeout", "120",
      "--out-dir", path.join(work, "typescript-prompts")],
    cwd: REPO,
    stderr: "ignore",
  });
  const client = new Client({ name: "rudder-prompts-resources", version: "1.0.0" });
  let changed = 0;
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    changed += 1;
  });
  await client.connect(transport);
  try {
    const caps = client.getServerCapabilities();
    if (!caps?.prompts || !caps?.resources) fail(`prompts or resources not advertised: ${JSON.stringify(caps)}`);
    if (!caps.resources.listChanged) fail("resources.listChanged not advertised");
    await client.callTool({ name: "inject_transaction", arguments: { sequence: ["open()", "turn(42)", "close()"] } });
    const deadline = Date.now() + 60_000;
    for (;;) {
      const report = JSON.parse((await client.readResource({ uri: "rudder://report" })).contents[0].text);
      if (changed > 0 && report.tests.some((t) => t.name === TEST && t.status === "falsified")) break;
      if (Date.now() > deadline) fail(`${TEST} never shrunk (${changed} list_changed): ${JSON.stringify(report.tests)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const { resources } = await client.listResources();
    if (!resources.some((r) => r.uri === SEQUENCE)) fail(`${SEQUENCE} not listed`);
    for (const r of resources) {
      const { contents } = await client.readResource({ uri: r.uri });
      if (contents.length !== 1 || contents[0].uri !== r.uri) fail(`${r.uri}: contents ${JSON.stringify(contents)}`);
      const c = contents[0];
      if (c.mimeType !== r.mimeType || !c.text) fail(`${r.uri}: mime ${c.mimeType}`);
      if (r.uri === "rudder://report" && JSON.parse(c.text).contract !== "Sequence") fail("the report is not Sequence's");
      if (r.uri === "rudder://coverage.lcov" && !c.text.includes("SF:")) fail("the LCOV has no SF: record");
      if (r.uri === SEQUENCE && c.text.trim().split("\n").join(";") !== "open();turn(42);close()") fail(`the sequence is ${c.text}`);
      if (r.uri.endsWith("/foundry") && !c.text.includes("function test")) fail("the reproducer has no test");
      if (r.uri.startsWith("rudder://sources/") && !c.text.includes("contract")) fail(`${r.uri} is not Solidity`);
    }
    const { resourceTemplates } = await client.listResourceTemplates();
    if (resourceTemplates.length !== 3) fail(`templates ${JSON.stringify(resourceTemplates)}`);
    const { prompts } = await client.listPrompts();
    const names = prompts.map((p) => p.name).sort().join(",");
    if (names !== "investigate_uncovered_branch,triage_falsified_test,widen_coverage") fail(`prompts ${names}`);
    const wants = [
      ["investigate_uncovered_branch", {}, "graph_context_for_files"],
      ["triage_falsified_test", { test: TEST }, "close()"],
      ["widen_coverage", { contract: "Sequence" }, "contracts/Sequence.sol"],
    ];
    for (const [name, args, needle] of wants) {
      const got = await client.getPrompt({ name, arguments: args });
      const m = got.messages[0];
      if (m.role !== "user" || !m.content.text.includes(needle)) fail(`prompt ${name}: ${m.content.text.slice(0, 300)}`);
    }
    await refused(client.readResource({ uri: "rudder://nope" }), -32002, "rudder://nope");
    await refused(client.getPrompt({ name: "nope", arguments: {} }), -32602, "name");
    await refused(client.getPrompt({ name: "triage_falsified_test", arguments: {} }), -32602, "arguments.test");
    await refused(client.getPrompt({ name: "triage_falsified_test", arguments: { test: "x" } }), -32602, "arguments.test");
    console.log(`typescript prompts and resources: list_changed received, ${resources.length} resources read, ${resourceTemplates.length} templates, ${wants.length} prompts got, 4 refusals ok`);
  } finally {
    await client.close();
  }
  console.log("prompts and resources: all checks passed");
}

main().catch((e) => fail(e.stack || String(e)));
