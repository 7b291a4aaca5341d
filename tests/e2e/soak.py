"""Soak: long campaigns sampled every INTERVAL seconds for what grows with
time: the process's resident memory, the corpus and the journal on disk,
calls/s, and the MCP control plane's answer time while the workers run.

usage: soak.py RUDDER_BIN WORKDIR SECONDS INTERVAL NAME=TARGET[:CONTRACT] ...

Each target is one `rudder fuzz` process (one worker, exploration mode, so
that it fuzzes for the whole time, the journal on, MCP over loopback HTTP),
all of them at the same time. Every INTERVAL seconds the script reads
/proc/PID/status (VmRSS), sizes the files under the output directory (corpus
sequences, reproducers, journal: the database with its write-ahead log and
the JSONL) and calls five read tools with the official `mcp` client
(`status`, `read_logs`, `show_coverage`, `get_corpus_size`,
`get_events_by_type`), keeping the server's own answer time
(`_meta.latencyUs`). Prints one table per target and a JSON summary line per
target, with the verdicts of #64: RSS over the second half within 10% of
its value at half time, calls/s in the second half against the first,
the slowest answer against the 100 ms budget. Exits non-zero when a call
failed or a sample could not be taken; the verdicts are printed, not
enforced (a loaded machine moves them): `--enforce` makes them fail too.

The long mode (an hour, a Daedaluzz maze and the forge-std project) is
scripts/soak.sh; CI runs a short one (tests/it/e2e_python.rs).
"""
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time

from mcp import ClientSession

from common import answer, free_port, http_client, is_error, stop, wait_for_port

ARGS = [a for a in sys.argv[1:] if a != "--enforce"]
ENFORCE = "--enforce" in sys.argv
RUDDER, WORK, SECONDS, INTERVAL = ARGS[0], ARGS[1], float(ARGS[2]), float(ARGS[3])
TARGETS = []
for spec in ARGS[4:]:
    name, _, target = spec.partition("=")
    target, _, contract = target.partition(":")
    TARGETS.append((name, target, contract or None))
if not TARGETS:
    raise SystemExit(__doc__)
READS = [
    ("status", {}),
    ("read_logs", {"count": 50}),
    ("show_coverage", {}),
    ("get_corpus_size", {}),
    # The journal's query path (SQL over the run's events), the run id from `status`.
    ("get_events_by_type", {"eventType": "CoverageIncreased"}),
]
BUDGET_US = 100_000


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


def disk(out):
    """Bytes under `out` by kind: corpus sequences, reproducers, journal, other."""
    sizes = {"corpus": 0, "reproducers": 0, "journal": 0, "other": 0}
    for root, _, files in os.walk(out):
        for f in files:
            path = os.path.join(root, f)
            try:
                n = os.path.getsize(path)
            except OSError:  # written atomically: a temporary file renamed away
                continue
            rel = os.path.relpath(path, out)
            if "journal" in rel:
                sizes["journal"] += n
            elif f"{os.sep}reproducers{os.sep}" in f"{os.sep}{rel}":
                sizes["reproducers"] += n
            elif f"{os.sep}coverage{os.sep}" in f"{os.sep}{rel}":
                sizes["corpus"] += n
            else:
                sizes["other"] += n
    return sizes


async def soak(name, target, contract):
    port = free_port()
    out = os.path.join(WORK, name)
    cmd = [RUDDER, "fuzz", target, "--workers", "1", "--seed", "1", "--no-ui",
           "--test-mode", "exploration", "--test-limit", "1000000000000",
           "--timeout", str(int(SECONDS + 60)), "--out-dir", out,
           "--mcp-http", f"127.0.0.1:{port}"]
    if contract:
        cmd += ["--contract", contract]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    samples, errors = [], []
    try:
        await wait_for_port(proc, port, seconds=120)
        async with http_client(f"http://127.0.0.1:{port}/mcp") as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                t0 = time.monotonic()
                last_calls, last_t, run = 0, t0, None
                while True:
                    lat, calls = [], None
                    for tool, args in READS:
                        if tool == "get_events_by_type":
                            args = {**args, "runId": run}
                        try:
                            r = await asyncio.wait_for(s.call_tool(tool, args), timeout=30)
                        except Exception as e:  # no answer is an error
                            errors.append(f"{tool}: {type(e).__name__}: {e}")
                            continue
                        if is_error(r):
                            errors.append(f"{tool}: {answer(r)}")
                            continue
                        if r.meta and "latencyUs" in r.meta:
                            lat.append(r.meta["latencyUs"])
                        if tool == "status":
                            calls = answer(r)["calls"]
                            run = answer(r)["runId"]
                    now = time.monotonic()
                    if calls is None:
                        errors.append("status gave no calls")
                        calls = last_calls
                    samples.append({
                        "secs": round(now - t0),
                        "rss_mb": round(rss_kb(proc.pid) / 1024, 1),
                        "calls": calls,
                        "calls_per_s": round((calls - last_calls) / max(now - last_t, 1e-9)),
                        "max_answer_ms": round(max(lat) / 1000, 2) if lat else None,
                        **{f"{k}_kb": round(v / 1024) for k, v in disk(out).items()},
                    })
                    last_calls, last_t = calls, now
                    if now - t0 >= SECONDS:
                        break
                    await asyncio.sleep(max(0.0, t0 + len(samples) * INTERVAL - time.monotonic()))
    finally:
        stop(proc)
    return name, samples, errors


def verdict(samples):
    """The #64 figures over the samples (the first one, before any interval, left out)."""
    s = samples[1:]
    half = len(s) // 2
    if half < 1:
        return {"samples": len(samples)}
    mid = s[half - 1]
    late = s[half:]
    rss_growth = max(x["rss_mb"] for x in late) / mid["rss_mb"] - 1
    early_cps = statistics.median(x["calls_per_s"] for x in s[:half])
    late_cps = statistics.median(x["calls_per_s"] for x in late)
    answers = [x["max_answer_ms"] for x in s if x["max_answer_ms"] is not None]
    return {
        "samples": len(samples),
        "rss_mb_at_half": mid["rss_mb"],
        "rss_mb_max_second_half": max(x["rss_mb"] for x in late),
        "rss_growth_second_half_percent": round(100 * rss_growth, 1),
        "rss_flat": rss_growth <= 0.10,
        "calls_per_s_median_first_half": round(early_cps),
        "calls_per_s_median_second_half": round(late_cps),
        "calls_per_s_change_percent": round(100 * (late_cps / early_cps - 1), 1) if early_cps else None,
        "slowest_answer_ms": max(answers) if answers else None,
        "answers_within_budget": bool(answers) and max(answers) * 1000 < BUDGET_US,
        "disk_kb_end": {k: samples[-1][f"{k}_kb"] for k in ("corpus", "reproducers", "journal", "other")},
    }


async def main():
    os.makedirs(WORK, exist_ok=True)
    results = await asyncio.gather(*(soak(*t) for t in TARGETS))
    failed = []
    cols = ["secs", "rss_mb", "calls_per_s", "max_answer_ms", "corpus_kb", "reproducers_kb",
            "journal_kb", "other_kb", "calls"]
    for name, samples, errors in results:
        print(f"\n{name}")
        print(" ".join(f"{c:>14}" for c in cols))
        for x in samples:
            print(" ".join(f"{str(x[c]):>14}" for c in cols))
        v = verdict(samples)
        print(json.dumps({"target": name, **v, "errors": len(errors)}))
        if errors:
            failed.append(f"{name}: " + "; ".join(errors[:3]))
        if len(samples) < 2:
            failed.append(f"{name}: {len(samples)} samples")
        if ENFORCE and not (v.get("rss_flat") and v.get("answers_within_budget")):
            failed.append(f"{name}: verdict {v}")
    if failed:
        raise SystemExit("FAILED: " + " | ".join(failed))
    print("soak: all samples taken")


asyncio.run(main())
