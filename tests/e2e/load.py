"""Load on the MCP control plane over loopback HTTP: CLIENTS concurrent
official-`mcp` clients for SECONDS, mixing reads (read_logs, status,
get_corpus_size, show_coverage, inspect_corpus_transactions) with injections,
against a campaign whose workers keep both cores busy.

usage: load.py RUDDER_BIN WORKDIR CLIENTS SECONDS
Prints one JSON summary line (errors, server-side read latency percentiles
from each result's `_meta.latencyUs`, calls/s before and under load) and
exits non-zero if any call failed or got no answer.
"""
import asyncio
import json
import os
import socket
import subprocess
import sys
import time

from mcp import ClientSession

from common import answer, free_port, http_client, is_error, stop, structured, wait_for_port

RUDDER, WORK, CLIENTS, SECONDS = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
TARGET = "contracts/out/Token.json"
READS = [
    ("read_logs", {"count": 20}),
    ("status", {}),
    ("get_corpus_size", {}),
    ("show_coverage", {}),
    ("inspect_corpus_transactions", {"limit": 5}),
]


def pct(xs, p):
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


async def calls_per_second(url, seconds):
    async with http_client(url) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            a = structured(await s.call_tool("status", {}))["calls"]
            t0 = time.monotonic()
            await asyncio.sleep(seconds)
            b = structured(await s.call_tool("status", {}))["calls"]
            return (b - a) / (time.monotonic() - t0)


async def main():
    port = free_port()
    proc = subprocess.Popen(
        [RUDDER, "fuzz", TARGET, "--workers", "2", "--seed", "7", "--keep-alive",
         "--test-limit", "1000000000000", "--timeout", str(int(SECONDS + 120)),
         "--out-dir", os.path.join(WORK, "load"), "--mcp-http", f"127.0.0.1:{port}",
         "--mcp-max-sessions", str(CLIENTS + 16)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    stats = {"calls": 0, "errors": [], "busy": 0, "latency_us": [], "injections": 0,
             "answered": [0] * CLIENTS}
    try:
        await wait_for_port(proc, port)
        before = await calls_per_second(url, 3)

        async def client(i):
            async with http_client(url) as (read, write):
                async with ClientSession(read, write) as s:
                    await s.initialize()
                    end = time.monotonic() + SECONDS
                    n = 0
                    while time.monotonic() < end:
                        n += 1
                        if n % 20 == 0:
                            name, args = "inject_transaction", {"sequence": [f"transfer(0x0000000000000000000000000000000000010000, {i})"]}
                        else:
                            name, args = READS[(i + n) % len(READS)]
                        try:
                            r = await asyncio.wait_for(s.call_tool(name, args), timeout=30)
                        except Exception as e:  # no answer is an error
                            stats["errors"].append(f"{name}: {type(e).__name__}: {e}")
                            continue
                        stats["calls"] += 1
                        stats["answered"][i] += 1
                        v = answer(r)
                        if is_error(r):
                            if v.get("error", {}).get("details", {}).get("reason") == "busy":
                                stats["busy"] += 1
                            else:
                                stats["errors"].append(f"{name}: {v}")
                            continue
                        if name == "inject_transaction":
                            stats["injections"] += 1
                        elif r.meta and "latencyUs" in r.meta:
                            stats["latency_us"].append(r.meta["latencyUs"])

        load_task = asyncio.gather(*(client(i) for i in range(CLIENTS)))
        await asyncio.sleep(min(2.0, SECONDS / 3))
        during = await calls_per_second(url, max(1.0, SECONDS / 3))
        await load_task
        lat = stats["latency_us"]
        summary = {
            "clients": CLIENTS, "seconds": SECONDS, "tool_calls": stats["calls"],
            # Clients that had at least one call answered, and the fewest any had.
            "clients_answered": sum(1 for n in stats["answered"] if n > 0),
            "fewest_answers": min(stats["answered"]),
            "errors": len(stats["errors"]), "busy_refusals": stats["busy"],
            "injections": stats["injections"],
            "read_latency_us": {"p50": pct(lat, 50), "p95": pct(lat, 95), "p99": pct(lat, 99), "max": max(lat) if lat else None},
            "campaign_calls_per_s": {"before": round(before), "under_load": round(during),
                                      "drop_percent": round(100 * (1 - during / before), 1) if before else None},
        }
        print(json.dumps(summary))
        if stats["errors"]:
            raise SystemExit("FAILED: " + "; ".join(stats["errors"][:5]))
    finally:
        stop(proc)


asyncio.run(main())
