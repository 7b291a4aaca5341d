"""Helpers shared by the end-to-end scripts."""
import asyncio
import json
import os
import socket
import subprocess
import sys
import time


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
    if result.structuredContent is not None:
        return result.structuredContent
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
