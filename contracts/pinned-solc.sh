# Sourced by the case sets' build scripts (contracts/steer, contracts/devset):
# sets SOLC to the pinned solcjs 0.8.30 of contracts/.tools, installing it from
# npm if it is missing (contracts/build.sh installs the same one).
CONTRACTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SOLC_VERSION=0.8.30
TOOLS="$CONTRACTS/.tools"
SOLC="$TOOLS/node_modules/solc"
if [ ! -f "$SOLC/package.json" ] ||
   [ "$(node -p "require('$SOLC/package.json').version")" != "$SOLC_VERSION" ]; then
  mkdir -p "$TOOLS"
  [ -f "$TOOLS/package.json" ] || echo '{"name":"rudder-contract-tools","private":true}' > "$TOOLS/package.json"
  (cd "$TOOLS" && npm install --no-audit --no-fund --silent "solc@$SOLC_VERSION" >&2)
fi
