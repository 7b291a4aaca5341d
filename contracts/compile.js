// Compiles one Solidity file to solc standard-JSON output (used by build.sh).
// usage: node compile.js <path to solc package> <contracts/File.sol>
'use strict';
const fs = require('fs');
const solc = require(process.argv[2]);
const file = process.argv[3];
const input = {
  language: 'Solidity',
  sources: { [file]: { content: fs.readFileSync(file, 'utf8') } },
  settings: {
    optimizer: { enabled: false, runs: 200 },
    evmVersion: 'cancun',
    metadata: { bytecodeHash: 'none' },
    outputSelection: {
      '*': {
        '': ['ast'],
        '*': [
          'abi',
          'evm.bytecode.object',
          'evm.bytecode.sourceMap',
          'evm.deployedBytecode.object',
          'evm.deployedBytecode.sourceMap',
          'evm.deployedBytecode.immutableReferences',
          'evm.methodIdentifiers',
        ],
      },
    },
  },
};
const out = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (out.errors || []).filter((e) => e.severity === 'error');
if (errors.length) {
  for (const e of errors) process.stderr.write(e.formattedMessage + '\n');
  process.exit(1);
}
out.compiler = { name: 'solc', version: solc.version() };
process.stdout.write(JSON.stringify(out, null, 1) + '\n');
