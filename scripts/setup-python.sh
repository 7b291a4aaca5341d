#!/usr/bin/env bash
# Creates .venv with the official MCP Python client (pinned), for the
# end-to-end tests, and moto's S3 server (pinned) for the shared-campaign
# test (tests/e2e/shared_s3.py). Idempotent; prints the venv's python path last.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
MCP_VERSION=1.30.0
MOTO_VERSION=5.2.5
# One setup at a time: concurrent callers would race creating the venv.
exec 9>".venv.lock"
flock 9
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv >&2
fi
if ! .venv/bin/python -c "import mcp, importlib.metadata as m; assert m.version('mcp') == '$MCP_VERSION'" 2>/dev/null; then
  .venv/bin/pip install --quiet --disable-pip-version-check "mcp==$MCP_VERSION" >&2
fi
if ! .venv/bin/python -c "import moto.server, importlib.metadata as m; assert m.version('moto') == '$MOTO_VERSION'" 2>/dev/null; then
  .venv/bin/pip install --quiet --disable-pip-version-check "moto[server]==$MOTO_VERSION" >&2
fi
echo "$(pwd)/.venv/bin/python"
