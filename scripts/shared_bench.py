"""Shared campaigns, measured (BENCHMARKS.md, "Campaigns past one machine").

  .venv/bin/python scripts/shared_bench.py [--seconds S] [--reps R] [--short] [--maze JSON]

(scripts/setup-python.sh makes .venv with moto; target/release/rudder or
$RUDDER is the binary.) Prints markdown tables:

  1. overhead: calls/s of one node with sync on (moto's S3 on loopback, and
     a file:// store) against sync off, the runs alternated, same seconds;
  1b. paired: sync on (S3) and off in the same run, one single-worker node of each
     at once, each pinned to its own core (swapped every run), moto at nice 19;
  2. scaling: two single-worker nodes sharing a campaign against one, on
     Maze1 or --maze (a generated maze's artifact; every node fuzzes the same
     maze): calls/s summed, the time to falsify each maze site by the first
     node that does, and per site each run's time (the hard sites' table);
  3. requests per node per sync as the corpus grows, and with 1 to 4 nodes,
     from the nodes' heartbeats (`syncs`, `requests`);
  4. joining late, with and without pruning: two nodes sync every 100 ms for
     the run's seconds (a file:// store), then a third joins with one call;
     the batches left in the store and the joiner's requests (its heartbeat).
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
from common import start_moto  # noqa: E402

RUDDER = os.environ.get("RUDDER", os.path.join(ROOT, "target", "release", "rudder"))
MAZE = os.path.join(ROOT, "contracts", "out", "Maze1.json")
BUCKET = "bench"


def start_moto_with_bucket():
    p, port = start_moto()
    import boto3
    boto3.client("s3", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
                 aws_access_key_id="x", aws_secret_access_key="x").create_bucket(Bucket=BUCKET)
    return p, port


def env(port):
    e = dict(os.environ, AWS_ACCESS_KEY_ID="x", AWS_SECRET_ACCESS_KEY="x", AWS_REGION="us-east-1",
             AWS_ALLOW_HTTP="true")
    if port:
        e["AWS_ENDPOINT_URL"] = f"http://127.0.0.1:{port}"
    return e


def launch(work, name, seconds, workers, shared=None, port=None, seed=1, sync_ms=2000, mode="property",
           extra=(), cpu=None):
    out = os.path.join(work, name)
    pin = ["taskset", "-c", str(cpu)] if cpu is not None else []
    args = pin + [RUDDER, "fuzz", MAZE, "--no-ui", "--format", "json", "--workers", str(workers),
            "--seed", str(seed), "--timeout", str(seconds), "--test-limit", "18446744073709551615",
            "--test-mode", mode, "--out-dir", out]
    if shared:
        args += ["--shared", shared, "--node-id", name, "--shared-sync-ms", str(sync_ms)]
    args += list(extra)
    p = subprocess.Popen(args, env=env(port), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return p, out


def report(p):
    out, _ = p.communicate(timeout=600)
    return json.loads(out)


def thread_cpu(pid, workers):
    """CPU seconds the process's threads have used so far: the workers'
    (`workers` true) or every other thread's (sync, its runtime's blocking
    pool, journal, disk writer, sampler, main)."""
    total = 0
    for task in glob.glob(f"/proc/{pid}/task/*"):
        try:
            with open(f"{task}/comm") as f:
                if f.read().strip().startswith("rudder-worker") != workers:
                    continue
            with open(f"{task}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except OSError:
            pass
    return total / os.sysconf("SC_CLK_TCK")


def report_with_sync_cpu(p):
    """The report, and the CPU seconds of every thread but the workers,
    read just before the end."""
    cpu = 0.0
    while p.poll() is None:
        cpu = max(cpu, thread_cpu(p.pid, False))
        time.sleep(0.25)
    return report(p), cpu


def calls_per_second(r):
    return r["calls"] / max(r["elapsedSecs"], 1e-9)


def falsify_times(out):
    """{test: seconds from the node's start} for each test its journal says it falsified."""
    times = {}
    for path in glob.glob(os.path.join(out, "journal", "run-*.jsonl")):
        start = None
        with open(path) as f:
            for line in f:
                e = json.loads(line)
                t = _ms(e["timestamp"])
                if start is None:
                    start = t
                if e.get("eventType") == "PropertyFalsified":
                    name = e["data"].get("property")
                    times.setdefault(name, (t - start) / 1000)
    return times


def _ms(ts):
    from datetime import datetime
    return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() * 1000


def process_cpu(pid):
    """CPU seconds process `pid` has used so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def overhead(work, seconds, reps, port, moto_pid):
    rows = {"off": [], "file": [], "s3": []}
    cpu = {"off": [], "file": [], "s3": []}
    server = []
    for rep in range(reps):
        order = ["off", "file", "s3"] if rep % 2 == 0 else ["s3", "file", "off"]
        for kind in order:
            shared = {"off": None, "file": f"file://{work}/store-{rep}",
                      "s3": f"s3://{BUCKET}/overhead-{rep}"}[kind]
            p, _ = launch(work, f"o-{kind}-{rep}", seconds, 2, shared, port if kind == "s3" else None,
                          seed=rep + 1, sync_ms=1000, mode="exploration")
            before = process_cpu(moto_pid)
            r, c = report_with_sync_cpu(p)
            if kind == "s3":
                server.append(process_cpu(moto_pid) - before)
            rows[kind].append(calls_per_second(r))
            cpu[kind].append(c)
    off = statistics.median(rows["off"])
    print(f"\n### Sync on vs off (Maze1, exploration, 2 workers, {seconds} s, {reps} runs each, alternated; sync every 1 s)\n")
    print("| store | calls/s (median) | runs | × off | CPU of the threads other than workers per run (s) |")
    print("|---|---|---|---|---|")
    for kind in ("off", "file", "s3"):
        med = statistics.median(rows[kind])
        c = statistics.median(cpu[kind])
        print(f"| {kind} | {med:,.0f} | {', '.join(f'{x:,.0f}' for x in rows[kind])} | {med / off:.3f} | "
              f"{c:.2f} ({c / seconds * 100:.1f}% of a core) |")
    print(f"\nmoto's server (same machine) used {statistics.median(server):.2f} s of CPU per S3 run (median),"
          f" {statistics.median(server) / seconds * 100:.0f}% of a core.")


def paired(work, seconds, reps, port, moto_pid):
    """Sync on (S3) and off in the same run: two single-worker nodes at once,
    each pinned to its own core (swapped every run), so that what the VM's
    host takes from one it takes from the other. moto's server runs at nice
    19: it answers when a core is idle, and takes what it needs from neither
    node's share (workers never wait for the store; only the sync thread
    does). The ratio that matters is per run; calls per CPU-second of the
    worker thread shows whether a worker itself got slower."""
    import boto3
    s3 = boto3.client("s3", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
                      aws_access_key_id="x", aws_secret_access_key="x")
    os.setpriority(os.PRIO_PROCESS, moto_pid, 19)
    rows, stored = [], []
    try:
        for rep in range(reps):
            on_cpu, off_cpu = (0, 1) if rep % 2 == 0 else (1, 0)
            on, _ = launch(work, f"p-on-{rep}", seconds, 1, f"s3://{BUCKET}/paired-{rep}", port,
                           seed=rep + 1, sync_ms=1000, mode="exploration", cpu=on_cpu)
            off, _ = launch(work, f"p-off-{rep}", seconds, 1, None, None,
                            seed=rep + 1, mode="exploration", cpu=off_cpu)
            wcpu = {on.pid: 0.0, off.pid: 0.0}
            while on.poll() is None or off.poll() is None:
                for p in (on, off):
                    if p.poll() is None:
                        wcpu[p.pid] = max(wcpu[p.pid], thread_cpu(p.pid, True))
                time.sleep(0.25)
            r_on, r_off = report(on), report(off)
            stored.append(s3.list_objects_v2(Bucket=BUCKET, Prefix=f"paired-{rep}/corpus/")["KeyCount"])
            rows.append((on_cpu, calls_per_second(r_on), calls_per_second(r_off),
                         r_on["calls"] / max(wcpu[on.pid], 1e-9), r_off["calls"] / max(wcpu[off.pid], 1e-9)))
    finally:
        os.setpriority(os.PRIO_PROCESS, moto_pid, 0)
    print(f"\n### Sync on (S3) and off in the same run (Maze1, exploration, one worker each, each node "
          f"pinned to one core, swapped every run; {seconds} s, {reps} runs; sync every 1 s; moto at nice 19)\n")
    print("| run | core of the S3 node | calls/s sync on | calls/s sync off | on / off | calls per worker "
          "CPU-second on | off | on / off |")
    print("|---|---|---|---|---|---|---|---|")
    for i, (c, a, b, wa, wb) in enumerate(rows):
        print(f"| {i + 1} | {c} | {a:,.0f} | {b:,.0f} | {a / b:.3f} | {wa:,.0f} | {wb:,.0f} | {wa / wb:.3f} |")
    ratio = statistics.median(a / b for _, a, b, _, _ in rows)
    wratio = statistics.median(wa / wb for _, _, _, wa, wb in rows)
    print(f"\nMedian of the per-run ratios: calls/s {ratio:.3f}, calls per worker CPU-second {wratio:.3f}. "
          f"Corpus entries the S3 node put in the store per run: {', '.join(map(str, stored))}.")


def scaling(work, seconds, reps, port, store):
    one, two, sites1, sites2 = [], [], [], []
    for rep in range(reps):
        p, out = launch(work, f"s1-{rep}", seconds, 1, seed=rep + 1)
        r = report(p)
        one.append(calls_per_second(r))
        sites1.append(falsify_times(out))
        url = f"s3://{BUCKET}/scale-{rep}" if store == "s3" else f"file://{work}/scale-{rep}"
        a = launch(work, f"s2a-{rep}", seconds, 1, url, port, seed=rep + 1, sync_ms=1000)
        b = launch(work, f"s2b-{rep}", seconds, 1, url, port, seed=rep + 2, sync_ms=1000)
        ra, rb = report(a[0]), report(b[0])
        two.append(calls_per_second(ra) + calls_per_second(rb))
        ta, tb = falsify_times(a[1]), falsify_times(b[1])
        sites2.append({k: min(v for v in (ta.get(k), tb.get(k)) if v is not None) for k in set(ta) | set(tb)})
    where = "moto's S3 on loopback, on the same 2 cores" if store == "s3" else "a file:// store"
    maze = os.path.basename(MAZE).removesuffix(".json")
    print(f"\n### One node against two ({maze}, property mode, 1 worker per node, {seconds} s, {reps} runs; {where})\n")
    print("| nodes | calls/s summed (median) | runs | sites falsified (median) | median time to a site (s) |")
    print("|---|---|---|---|---|")
    for label, cps, sites in (("1", one, sites1), ("2", two, sites2)):
        counts = [len(s) for s in sites]
        times = [t for s in sites for t in s.values()]
        print(f"| {label} | {statistics.median(cps):,.0f} | {', '.join(f'{x:,.0f}' for x in cps)} | "
              f"{statistics.median(counts):.0f} | {statistics.median(times) if times else float('nan'):.1f} |")
    print(f"\ntwo / one: {statistics.median(two) / statistics.median(one):.2f}x calls/s")
    # Per site, each run's time to falsify it ("-": not within the run).
    sites = sorted(set().union(*sites1, *sites2),
                   key=lambda k: -max([x.get(k, float("inf")) for x in sites1 + sites2]))
    print("\n| site | 1 node: time per run (s) | 2 nodes: time per run (s) |")
    print("|---|---|---|")
    cell = lambda runs, k: ", ".join(f"{r[k]:.1f}" if k in r else "-" for r in runs)
    for k in sites:
        print(f"| {k} | {cell(sites1, k)} | {cell(sites2, k)} |")


def requests(work, seconds, port):
    import boto3
    s3 = boto3.client("s3", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
                      aws_access_key_id="x", aws_secret_access_key="x")
    print(f"\n### Requests per node per sync (sync every 1 s, {seconds} s, 1 worker per node; S3 on loopback)\n")
    print("| nodes | requests per sync per node | corpus entries in the store at the end |")
    print("|---|---|---|")
    growth = []
    for n in (1, 2, 3, 4):
        url = f"s3://{BUCKET}/req-{n}"
        procs = [launch(work, f"r{n}-{i}", seconds, 1, url, port, seed=i + 1, sync_ms=1000) for i in range(n)]
        samples = []
        t_end = time.monotonic() + seconds
        while time.monotonic() < t_end and n == 1:
            h = _get(s3, f"req-1/nodes/r1-0/heartbeat.json")
            if h:
                samples.append((h["corpus"], h["syncs"], h["requests"]))
            time.sleep(1)
        for p, _ in procs:
            report(p)
        per = []
        for i in range(n):
            h = _get(s3, f"req-{n}/nodes/r{n}-{i}/heartbeat.json")
            per.append(h["requests"] / max(h["syncs"], 1))
        entries = len(s3.list_objects_v2(Bucket=BUCKET, Prefix=f"req-{n}/corpus/").get("Contents", []))
        print(f"| {n} | {statistics.mean(per):.1f} | {entries} |")
        if n == 1:
            growth = samples
    if len(growth) >= 3:
        print("\nOne node as its corpus grows (per window between heartbeats read a second apart):\n")
        print("| corpus entries | requests per sync in the window |")
        print("|---|---|")
        for (c0, s0, r0), (c1, s1, r1) in zip(growth, growth[1:]):
            if s1 > s0:
                print(f"| {c1} | {(r1 - r0) / (s1 - s0):.1f} |")


def joining(work, seconds):
    print(f"\n### Joining late, with and without pruning (2 nodes, sync every 100 ms, {seconds} s; "
          "then a third node with one call; a file:// store)\n")
    print("| sharedCompactAfter | batches written | batches left | generations left | "
          "joiner's requests | joiner's wall time (s) |")
    print("|---|---|---|---|---|---|")
    for compact in (0, 20):
        store = os.path.join(work, f"join-{compact}")
        url = f"file://{store}"
        extra = ["--shared-compact-after", str(compact)]
        nodes = [launch(work, f"j{compact}-{i}", seconds, 1, url, seed=i + 1, sync_ms=100, extra=extra)
                 for i in range(2)]
        for p, _ in nodes:
            report(p)
        written = sum(json.load(open(os.path.join(store, "nodes", f"j{compact}-{i}", "heartbeat.json")))["batches"]
                      for i in range(2))
        left = len(glob.glob(os.path.join(store, "nodes", "*", "batches", "*.json")))
        gens = len(glob.glob(os.path.join(store, "generations", "*.json")))
        t0 = time.monotonic()
        args = [RUDDER, "fuzz", MAZE, "--no-ui", "--format", "json", "--workers", "1", "--test-limit", "1",
                "--out-dir", os.path.join(work, f"j{compact}-late"), "--shared", url, "--node-id", "late",
                "--shared-compact-after", str(compact)]
        # Exit 1 is fine: the joiner takes the falsified tests of the others.
        subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.monotonic() - t0
        h = json.load(open(os.path.join(store, "nodes", "late", "heartbeat.json")))
        print(f"| {compact or 'never'} | {written} | {left} | {gens} | {h['requests']} | {wall:.2f} |")


def _get(s3, key):
    try:
        return json.loads(s3.get_object(Bucket=BUCKET, Key=key)["Body"].read())
    except Exception:
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--short", action="store_true", help="CI: 3 s runs, one rep, overhead only")
    ap.add_argument("--scale-store", choices=["file", "s3"], default="file",
                    help="the store of the one-vs-two table (moto's server takes CPU from the nodes)")
    ap.add_argument("--only", choices=["overhead", "paired", "scaling", "requests", "joining"],
                    help="one table")
    ap.add_argument("--maze", help="the maze artifact to fuzz (default contracts/out/Maze1.json)")
    a = ap.parse_args()
    if a.maze:
        global MAZE
        MAZE = os.path.abspath(a.maze)
    work = tempfile.mkdtemp(prefix="rudder-shared-bench-")
    moto, port = start_moto_with_bucket()
    try:
        if a.short:
            overhead(work, 3, 1, port, moto.pid)
        else:
            print(f"machine: {os.cpu_count()} cores; rudder {RUDDER}")
            if a.only in (None, "overhead"):
                overhead(work, a.seconds, a.reps, port, moto.pid)
            if a.only in (None, "paired"):
                paired(work, a.seconds, a.reps, port, moto.pid)
            if a.only in (None, "scaling"):
                scaling(work, a.seconds, a.reps, port, a.scale_store)
            if a.only in (None, "requests"):
                requests(work, a.seconds, port)
            if a.only in (None, "joining"):
                joining(work, a.seconds)
    finally:
        moto.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
