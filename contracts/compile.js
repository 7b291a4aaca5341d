// Compiles one Solidity file to solc standard-JSON output (used by build.sh).
// usage: node compile.js <path to solc package> <contracts/File.sol> [--optimize] [--via-ir] [--build-info]
// --build-info writes Foundry's build-info shape ({id, solcVersion, input, output}).
'use strict';
const fs = require('fs');
const solc = require(process.argv[2]);
const file = process.argv[3];
const flags = new Set(process.argv.slice(4));
const version = solc.version();
const [major, minor, patch] = version.split(/[.+-]/).map(Number);
const atLeast = (a, b, c) => major > a || (major === a && (minor > b || (minor === b && patch >= c)));
const bytecodeOutputs = [
  'abi',
  'evm.bytecode.object',
  'evm.bytecode.sourceMap',
  'evm.bytecode.linkReferences',
  'evm.deployedBytecode.object',
  'evm.deployedBytecode.sourceMap',
  'evm.methodIdentifiers',
];
if (atLeast(0, 6, 5)) bytecodeOutputs.push('evm.deployedBytecode.immutableReferences');
const settings = {
  optimizer: { enabled: flags.has('--optimize'), runs: 200 },
  outputSelection: { '*': { '': ['ast'], '*': bytecodeOutputs } },
};
if (atLeast(0, 8, 0)) settings.evmVersion = 'cancun';
if (atLeast(0, 6, 0)) settings.metadata = { bytecodeHash: 'none' };
if (flags.has('--via-ir')) settings.viaIR = true;
const input = {
  language: 'Solidity',
  sources: { [file]: { content: fs.readFileSync(file, 'utf8') } },
  settings,
};
const compile = atLeast(0, 5, 0) ? solc.compile : solc.compileStandardWrapper;
const out = JSON.parse(compile(JSON.stringify(input)));
const errors = (out.errors || []).filter((e) => e.severity === 'error');
if (errors.length) {
  for (const e of errors) process.stderr.write(e.formattedMessage + '\n');
  process.exit(1);
}
if (flags.has('--build-info')) {
  const doc = { id: 'rudder-' + file.replace(/[^A-Za-z0-9]/g, '_'), solcVersion: version.split('+')[0], solcLongVersion: version, input, output: out };
  process.stdout.write(JSON.stringify(doc, null, 1) + '\n');
} else {
  out.compiler = { name: 'solc', version };
  process.stdout.write(JSON.stringify(out, null, 1) + '\n');
}
