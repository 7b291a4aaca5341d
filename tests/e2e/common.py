"""Helpers shared by the end-to-end scripts, and the few lines that let them
run on both official Python SDKs: mcp 1.x (.venv, scripts/setup-python.sh)
and mcp 2.x (.venv-current, scripts/setup-python.sh --current)."""
import asyncio
import contextlib
import importlib.metadata
import json
import os
import socket
import subprocess
import sys
import time
from datetime import timedelta

try:
    from mcp.client.streamable_http import streamable_http_client
except ImportError:  # 1.x before that name: the older one (which 2.x removed)
    from mcp.client.streamable_http import streamablehttp_client as streamable_http_client

MCP_MAJOR = int(importlib.metadata.version("mcp").split(".")[0])


# ------------------------------------------- mcp 1.x and 2.x, the differences
# 2.x names the models' fields in snake_case (1.x: camelCase, as on the
# wire), yields two streams from the HTTP transport (1.x: three, the third
# the session id's getter) and takes a read timeout in seconds (1.x: a
# timedelta). stdio_client, StdioServerParameters, ClientSession,
# initialize, list_tools().tools, call_tool and content[i].text are the same.

@contextlib.asynccontextmanager
async def http_client(url):
    """The SDK's streamable HTTP transport: (read, write) on both versions."""
    async with streamable_http_client(url) as streams:
        yield streams[0], streams[1]


def structured(result):
    """A tool result's structured content, None if it has none."""
    if hasattr(result, "structured_content"):  # 2.x
        return result.structured_content
    return result.structuredContent


def is_error(result):
    """Whether a tool result is an error (a refusal)."""
    return bool(result.is_error if hasattr(result, "is_error") else result.isError)


def input_schema(tool):
    """A listed tool's input schema."""
    return tool.input_schema if hasattr(tool, "input_schema") else tool.inputSchema


def output_schema(tool):
    """A listed tool's output schema, None if it has none."""
    return tool.output_schema if hasattr(tool, "output_schema") else tool.outputSchema


def read_timeout(seconds):
    """call_tool's read_timeout_seconds: seconds on 2.x, a timedelta on 1.x."""
    return float(seconds) if MCP_MAJOR >= 2 else timedelta(seconds=seconds)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def wait_for_port(proc, port, seconds=30):
    """Waits until rudder's HTTP server accepts connections on `port`."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            if proc.poll() is not None:
                raise SystemExit(f"FAILED: rudder exited: {proc.stderr.read()}")
            if time.monotonic() > deadline:
                raise SystemExit("FAILED: HTTP server did not start")
            await asyncio.sleep(0.05)


def stop(proc):
    """Terminates rudder, killing it if it does not exit within 20 s."""
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


def answer(result):
    """A tool result's JSON as an agent reads it: the structured content of a
    success, or the JSON text of a refusal (errors carry no structured
    content, so that clients do not check them against the success schema)."""
    if structured(result) is not None:
        return structured(result)
    for c in result.content:
        if getattr(c, "type", None) == "text":
            try:
                return json.loads(c.text)
            except ValueError:
                return {}
    return {}


def start_moto(extra_env=None):
    """Starts moto's S3 server (from .venv) on a free loopback port; returns
    (process, port) once it accepts connections."""
    port = free_port()
    env = dict(os.environ, **(extra_env or {}))
    p = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return p, port
        except OSError:
            if p.poll() is not None:
                raise SystemExit("FAILED: moto_server exited")
            if time.monotonic() > deadline:
                raise SystemExit("FAILED: moto_server did not start")
            time.sleep(0.1)
