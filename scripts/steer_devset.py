#!/usr/bin/env python3
"""Steering on the dev set (issue 65, part 5): blind against steered on the
handler-style protocols of contracts/devset (each property counted, not only
the first falsified), through examples/steer.py in both arms:

  blind    steer.py --sham: polls and reads as the policy does, never runs,
           injects or prioritizes anything;
  steered  steer.py: the policy.

Same binary (one copy taken at the start), same seeds, the same wall cap and
call budget for both arms (the budget counts every call the policy spends:
the campaign's, injected ones among them, and every run-once call), one
worker per run at nice 19, two runs at a time, a fresh output directory per
run, no stopOnFail (a run goes on after its first falsified property).

Per property: how many runs falsified it, and the Kaplan-Meier median of the
calls spent when it was first seen falsified (`steering.falsifiedAtCalls`),
censored at the run's spent calls. Per case: properties falsified per seed,
and the median over seeds. The verdict is the issue's: steered falsifies at
least 1.5x the properties blind does (summed over cases, median over seeds),
and on no case fewer (the case's median).

usage: python3 scripts/steer_devset.py [--cases Lending,Amm] [--seeds N]
           [--seconds S] [--budget N] [--jobs J] [--json FILE]
Needs contracts/devset/out (bash contracts/devset/build.sh) and the pinned
Python client (.venv, scripts/setup-python.sh). The markdown goes to stdout,
progress to stderr.
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEVSET = os.path.join(ROOT, "contracts", "devset")
sys.path.insert(0, HERE)
from steer_bench import km_median  # noqa: E402


def log(*parts):
    print("[steer_devset]", *parts, file=sys.stderr, flush=True)


def cases(only):
    out = []
    for f in sorted(os.listdir(DEVSET)):
        if f.endswith(".manifest.json"):
            m = json.load(open(os.path.join(DEVSET, f)))
            if only and m["case"] not in only:
                continue
            out.append(m)
    return out


def run_one(m, arm, seed, a, rudder, work):
    out = os.path.join(work, f"{m['case']}-{arm}-{seed}")
    cmd = ["nice", "-n", "19", a.python, os.path.join(ROOT, "examples", "steer.py"),
           os.path.join(DEVSET, "out", m["case"] + ".json"), "--contract", m["contract"],
           "--seed", str(seed), "--workers", "1", "--timeout", str(a.seconds),
           "--test-limit", "1000000000000", "--out-dir", out]
    if a.budget:
        cmd += ["--budget", str(a.budget)]
    if arm == "blind":
        cmd.append("--sham")
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT,
                       env=dict(os.environ, RUDDER=rudder), timeout=a.seconds + 300)
    shutil.rmtree(out, ignore_errors=True)
    try:
        report = json.loads(r.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"{m['case']} {arm} seed {seed}: no report\n{r.stderr[-2000:]}")
    s = report["steering"]
    falsified = {t["name"] for t in report["tests"] if t["status"] == "falsified"}
    at = s.get("falsifiedAtCalls", {})
    return {"case": m["case"], "arm": arm, "seed": seed, "spent": s["spentCalls"],
            "falsified": sorted(falsified),
            "at": {t: at.get(t, s["spentCalls"]) for t in falsified},
            "injected": s.get("injectedCalls", 0), "runOnce": s.get("runOnceCalls", 0)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", help="comma-separated case names (default: every manifest)")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--seconds", type=int, default=60, help="wall cap per run")
    ap.add_argument("--budget", type=int, help="calls per run, run-once included (default: none)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", help="write the raw runs here")
    ap.add_argument("--python", default=os.path.join(ROOT, ".venv", "bin", "python"))
    a = ap.parse_args()
    if a.seeds < 1 or a.seconds < 1 or a.jobs < 1 or (a.budget is not None and a.budget < 1):
        ap.error("--seeds, --seconds, --jobs and --budget must be positive")
    ms = cases(set(a.cases.split(",")) if a.cases else None)
    if not ms:
        ap.error(f"--cases: none of {a.cases} is a dev-set case")
    work = tempfile.mkdtemp(prefix="steer-devset-")
    rudder = os.path.join(work, "rudder")
    shutil.copy(os.environ.get("RUDDER", os.path.join(ROOT, "target", "release", "rudder")), rudder)
    jobs = [(m, arm, s) for s in range(1, a.seeds + 1) for m in ms for arm in ("blind", "steered")]
    runs = []
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futures = {pool.submit(run_one, m, arm, s, a, rudder, work): (m["case"], arm, s)
                   for m, arm, s in jobs}
        for f in concurrent.futures.as_completed(futures):
            r = f.result()
            runs.append(r)
            log(f"{r['case']} {r['arm']} seed {r['seed']}: {len(r['falsified'])} falsified")
    shutil.rmtree(work, ignore_errors=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(runs, f, indent=1)

    print(f"Dev set, {a.seeds} seeds, {a.seconds} s per run"
          f"{f', budget {a.budget:,} calls' if a.budget else ''}: properties falsified\n")
    print("| case | property | blind runs | steered runs | blind KM median calls | steered KM median calls |")
    print("|---|---|---|---|---|---|")
    per_case = {}
    for m in ms:
        c = m["case"]
        mine = [r for r in runs if r["case"] == c]
        for p in m["properties"]:
            name = p["name"]
            cells = []
            for arm in ("blind", "steered"):
                rs = [r for r in mine if r["arm"] == arm]
                km = km_median([(r["at"].get(name, r["spent"]), name in r["at"]) for r in rs])
                cells.append((sum(name in r["at"] for r in rs), len(rs), km))
            if cells[0][0] or cells[1][0] or p["expect"] != "holds":
                fmt = lambda km: f"{km:,}" if km is not None else "—"
                print(f"| {c} | {name} | {cells[0][0]}/{cells[0][1]} | {cells[1][0]}/{cells[1][1]} "
                      f"| {fmt(cells[0][2])} | {fmt(cells[1][2])} |")
        per_case[c] = {arm: [len(r["falsified"]) for r in sorted(mine, key=lambda r: r["seed"])
                             if r["arm"] == arm] for arm in ("blind", "steered")}
    print("\n| case | blind per seed (median) | steered per seed (median) |")
    print("|---|---|---|")
    for c, v in per_case.items():
        print(f"| {c} | {', '.join(map(str, v['blind']))} ({statistics.median(v['blind'])}) "
              f"| {', '.join(map(str, v['steered']))} ({statistics.median(v['steered'])}) |")
    sums = {arm: statistics.median([sum(per_case[c][arm][i] for c in per_case) for i in range(a.seeds)])
            for arm in ("blind", "steered")}
    worse = [c for c, v in per_case.items() if statistics.median(v["steered"]) < statistics.median(v["blind"])]
    met = sums["steered"] >= 1.5 * sums["blind"] and not worse
    print(f"\nsummed over cases, median over seeds: blind {sums['blind']}, steered {sums['steered']}; "
          f"cases where steered broke fewer: {', '.join(worse) or 'none'}; "
          f"the 1.5x bar is {'met' if met else 'not met'}")


if __name__ == "__main__":
    main()
