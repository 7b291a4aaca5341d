#!/usr/bin/env bash
# Creates .venv with the official MCP Python client (pinned), for the
# end-to-end tests, and moto's S3 server (pinned) for the shared-campaign
# test (tests/e2e/shared_s3.py), and xmlschema for the JUnit report's check.
# Idempotent; prints the venv's python path last.
#
# --current: .venv-current instead, with the client's current major release
# (mcp 2.x, pinned), on which tests/e2e_python.rs runs examples/steer.py and
# tests/e2e/mcp_client.py too (tests/e2e/common.py bridges the two APIs).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
VENV=.venv
MCP_VERSION=1.30.0
case "${1:-}" in
  "") ;;
  --current) VENV=.venv-current; MCP_VERSION=2.3.0 ;;
  *) echo "usage: scripts/setup-python.sh [--current]" >&2; exit 2 ;;
esac
MOTO_VERSION=5.2.5
# Validates --format junit against tests/e2e/junit.xsd (tests/e2e/junit_check.py).
XMLSCHEMA_VERSION=4.3.2
# One setup at a time: concurrent callers would race creating the venv.
exec 9>"$VENV.lock"
flock 9
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV" >&2
fi
if ! "$VENV/bin/python" -c "import mcp, importlib.metadata as m; assert m.version('mcp') == '$MCP_VERSION'" 2>/dev/null; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "mcp==$MCP_VERSION" >&2
fi
if ! "$VENV/bin/python" -c "import moto.server, importlib.metadata as m; assert m.version('moto') == '$MOTO_VERSION'" 2>/dev/null; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "moto[server]==$MOTO_VERSION" >&2
fi
if ! "$VENV/bin/python" -c "import xmlschema, importlib.metadata as m; assert m.version('xmlschema') == '$XMLSCHEMA_VERSION'" 2>/dev/null; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "xmlschema==$XMLSCHEMA_VERSION" >&2
fi
echo "$(pwd)/$VENV/bin/python"
