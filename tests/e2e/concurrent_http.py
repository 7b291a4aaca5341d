"""N tool calls at once over loopback streamable HTTP, each in its own session
of the official `mcp` client (for `cargo bench --bench journal`).

usage: concurrent_http.py URL < calls.json
calls.json is a JSON list of [tool name, arguments]. Prints one JSON list:
per call, {"error": bool, "v": the answer (common.answer), "ms": latency of the call}.
"""
import asyncio
import json
import sys
import time

from mcp import ClientSession

from common import answer, http_client, is_error


async def one(url, name, args, ready, start, n):
    async with http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            ready.append(1)
            if len(ready) == n:
                start.set()
            await start.wait()
            t = time.perf_counter()
            r = await session.call_tool(name, args)
            ms = (time.perf_counter() - t) * 1e3
            return {"error": is_error(r), "v": answer(r), "ms": ms}


async def main():
    url = sys.argv[1]
    calls = json.load(sys.stdin)
    # Every session is opened first, then every call is sent at once.
    start, ready = asyncio.Event(), []
    tasks = [one(url, n, a, ready, start, len(calls)) for n, a in calls]
    print(json.dumps(await asyncio.gather(*tasks)))


asyncio.run(main())
