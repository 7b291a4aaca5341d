// Hardhat 2 config for rudder's Hardhat fixture. The compiler is the solcjs
// pinned in package.json (node_modules/solc/soljson.js): the subtask override
// below keeps Hardhat from downloading a solc build.
const { subtask } = require("hardhat/config");
const { TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD } = require("hardhat/builtin-tasks/task-names");

const SOLC_VERSION = "0.8.30";

subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD, async ({ solcVersion }) => {
  if (solcVersion !== SOLC_VERSION) {
    throw new Error(`only solc ${SOLC_VERSION} is pinned here, not ${solcVersion}`);
  }
  const solc = require("solc");
  // "0.8.30+commit.73712a01.Emscripten.clang" -> "0.8.30+commit.73712a01",
  // the form Hardhat's own downloader reports.
  const longVersion = solc.version().replace(/\.Emscripten\.clang$/, "");
  if (!longVersion.startsWith(`${solcVersion}+`)) {
    throw new Error(`node_modules/solc is ${longVersion}, expected ${solcVersion}`);
  }
  return {
    compilerPath: require.resolve("solc/soljson.js"),
    isSolcJs: true,
    version: solcVersion,
    longVersion,
  };
});

/** @type import('hardhat/config').HardhatUserConfig */
module.exports = {
  solidity: {
    version: SOLC_VERSION,
    settings: {
      optimizer: { enabled: false, runs: 200 },
    },
  },
};
