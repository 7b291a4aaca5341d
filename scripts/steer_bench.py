#!/usr/bin/env python3
"""Steering, measured (issue 32, part 3): the blind campaign against
examples/steer.py on the steering cases of contracts/steer/manifest.json.

Both arms run `rudder mcp` through examples/steer.py, with the same binary
(one copy taken at the start, so a rebuild mid-benchmark changes nothing),
the same seeds, the same call budget, the same wall cap, one worker at
nice 19, stopOnFail (contracts/steer/stop-on-fail.yaml) and a fresh output
directory per run:

  blind    steer.py --sham: polls `status` at the policy's rate and makes the
           policy's reads on every plateau (graph_context_for_files,
           inspect_corpus_transactions, etg_query_similar_attempts), never
           runs, injects or prioritizes anything;
  steered  steer.py: the policy.

A run's calls are what it spent: the campaign's calls (rudder counts the
injected calls it runs among them) plus every call run_sequence ran once. A
run falsified the case's property within the budget when its report says so
and it spent no more than the budget; every other run is censored at what it
spent (calls) and at its elapsed time (seconds).

Per case: the Kaplan-Meier median (the smallest t with S(t) <= 0.5) of calls
and seconds to falsify; `>B` when the estimate never reaches 0.5. The ratio
blind/steered is of the medians restricted to the budget (an undefined median
counts as the budget), so where blind's median is censored the ratio is a
lower bound (`>`), where steered's is, an upper bound (`<`), where both are,
no ratio (counted as 1 in the geometric mean). Its 95% interval is the 2.5th
and 97.5th percentiles over bootstrap resamples (seeds drawn with
replacement, a seed's blind and steered runs together, from a seeded
generator). A case is significant when
the interval's lower bound is above 1 (sound with censoring: the restricted
blind median never exceeds the true one, and a resample where steered's
median is censored has a ratio of at most 1).

usage: scripts/steer_bench.sh [--short] [--easy | --cases A,B] [--seeds N | --seed-list 1,2]
                              [--budget N] [--timeout SECS] [--json FILE]
                              [--resamples N] [--boot-seed S] [--from-json FILE]

The markdown table goes to stdout, progress to stderr, raw runs to --json.
Exit status 1 when a run failed (no report), 2 on a usage error.
"""
import argparse
import hashlib
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFEST = os.path.join(ROOT, "contracts", "steer", "manifest.json")
CONFIG = os.path.join(ROOT, "contracts", "steer", "stop-on-fail.yaml")
STEER = os.path.join(ROOT, "examples", "steer.py")

# --short (CI): one hard case steer.py cracks, three seeds, a short budget.
SHORT_CASE = "DeepChain"
SHORT_SEEDS = [1, 2, 3]
SHORT_BUDGET = 100_000
SHORT_TIMEOUT = 60


def log(*parts):
    print("[steer_bench]", *parts, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- statistics

def km_median(runs):
    """Kaplan-Meier median of [(time, event)]: the smallest event time t
    with S(t) <= 0.5, or None when S stays above 0.5. Ties: events before
    censorings."""
    runs = sorted(runs, key=lambda r: (r[0], not r[1]))
    at_risk, s = len(runs), 1.0
    i = 0
    while i < len(runs):
        t = runs[i][0]
        d = c = 0
        while i < len(runs) and runs[i][0] == t:
            if runs[i][1]:
                d += 1
            else:
                c += 1
            i += 1
        if d:
            s *= 1 - d / at_risk
            if s <= 0.5 + 1e-12:
                return t
        at_risk -= d + c
    return None


def restricted(median, cap):
    return cap if median is None or median > cap else median


def bootstrap_ratio(pairs, cap, resamples, seed):
    """(2.5th, 97.5th) percentiles of restricted-median ratios blind/steered
    over resamples of the seeds: `pairs` holds one (blind run, steered run)
    per seed, each run (calls, falsified), and a resample draws seeds with
    replacement, both arms' runs of a seed together (a seed is the one
    thing the arms share; where they run alike, so do their resamples)."""
    rng = random.Random(seed)
    ratios = []
    for _ in range(resamples):
        draw = [rng.choice(pairs) for _ in pairs]
        rb = restricted(km_median([b for b, _ in draw]), cap)
        rs = restricted(km_median([s for _, s in draw]), cap)
        ratios.append(rb / rs if rs > 0 else math.inf)
    ratios.sort()
    lo = ratios[int(math.floor(0.025 * (len(ratios) - 1)))]
    hi = ratios[int(math.ceil(0.975 * (len(ratios) - 1)))]
    return lo, hi


def summarize(case, runs, budget, resamples, boot_seed):
    arms = {}
    for arm in ("blind", "steered"):
        rs = [r for r in runs if r["arm"] == arm and r.get("error") is None]
        calls = [(min(r["spentCalls"], budget), r["falsified"]) for r in rs]
        secs = [(r["seconds"], r["falsified"]) for r in rs]
        cost = {}
        for k in ("toolCalls", "runOnceCalls", "injectedCalls"):
            v = sorted(r["steering"].get(k, 0) for r in rs)
            cost[k] = v[len(v) // 2] if v else None
        arms[arm] = {
            "runs": len(rs), "falsified": sum(1 for r in rs if r["falsified"]),
            "medianCalls": km_median(calls), "medianSeconds": km_median(secs),
            "maxSeconds": max((t for t, _ in secs), default=0.0), "cost": cost, "_calls": calls,
        }
    b, s = arms["blind"], arms["steered"]
    out = {"case": case["name"], "kind": case.get("kind"), "set": case.get("set"),
           "blind": {k: v for k, v in b.items() if not k.startswith("_")},
           "steered": {k: v for k, v in s.items() if not k.startswith("_")}}
    if not b["_calls"] or not s["_calls"]:
        out.update(ratio=None, bound=None, ci=None, significant=False)
        return out
    rb, rs = restricted(b["medianCalls"], budget), restricted(s["medianCalls"], budget)
    bc, sc = b["medianCalls"] is None, s["medianCalls"] is None
    bound = "none" if bc and sc else "lower" if bc else "upper" if sc else "exact"
    per_seed = {}
    for r in runs:
        if r.get("error") is None:
            per_seed.setdefault(r["seed"], {})[r["arm"]] = (min(r["spentCalls"], budget), r["falsified"])
    pairs = [(a["blind"], a["steered"]) for _, a in sorted(per_seed.items()) if len(a) == 2]
    lo, hi = bootstrap_ratio(pairs, budget, resamples, boot_seed) if pairs else (0.0, math.inf)
    out.update(ratio=rb / rs, bound=bound, ci=[lo, hi], significant=lo > 1)
    # Pairs blind misses within the budget, and how many of them steered falsified.
    by_seed = {}
    for r in runs:
        if r.get("error") is None:
            by_seed.setdefault(r["seed"], {})[r["arm"]] = r["falsified"]
    missed = [sd for sd, a in by_seed.items() if a.get("blind") is False and "steered" in a]
    out["blindMissed"] = len(missed)
    out["steeredOnBlindMissed"] = sum(1 for sd in missed if by_seed[sd]["steered"])
    return out


# ---------------------------------------------------------------- formatting

def fmt_calls(median, budget):
    return f">{budget:,}" if median is None else f"{median:,}"


def fmt_secs(median, max_secs):
    return f">{max_secs:.1f}" if median is None else f"{median:.1f}"


def fmt_x(v):
    if v is None or math.isinf(v):
        return "∞"
    return f"{v:.1f}x" if v < 100 else f"{v:,.0f}x"


def ratio_cells(c):
    if c["ratio"] is None or c["bound"] == "none":
        return "n/a", "–"
    mark = {"lower": ">", "upper": "<", "exact": ""}[c["bound"]]
    lo, hi = c["ci"]
    if c["bound"] == "lower":
        return f">{fmt_x(c['ratio'])}", f"[>{fmt_x(lo)}, –]"
    return f"{mark}{fmt_x(c['ratio'])}", f"[{fmt_x(lo)}, {fmt_x(hi)}]"


def table(cases, summary, cfg):
    lines = [
        "| case | kind | blind falsified | steered falsified | blind calls (median) | steered calls (median) "
        "| blind/steered | 95% CI | blind s | steered s | tool calls (sham / steer) | run-once calls | injected calls |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in cases:
        b, s = c["blind"], c["steered"]
        r, ci = ratio_cells(c)
        if c["significant"]:
            ci += " *"
        lines.append(
            f"| {c['case']} | {c['kind'] or ''} | {b['falsified']}/{b['runs']} | {s['falsified']}/{s['runs']} "
            f"| {fmt_calls(b['medianCalls'], cfg['budget'])} | {fmt_calls(s['medianCalls'], cfg['budget'])} "
            f"| {r} | {ci} | {fmt_secs(b['medianSeconds'], b['maxSeconds'])} "
            f"| {fmt_secs(s['medianSeconds'], s['maxSeconds'])} "
            f"| {b['cost']['toolCalls']} / {s['cost']['toolCalls']} | {s['cost']['runOnceCalls']} "
            f"| {s['cost']['injectedCalls']} |")
    g = summary["geomean"]
    lines += [
        "",
        f"Geometric mean of per-case ratios (blind/steered): {summary['geomeanMark']}{fmt_x(g)} over "
        f"{summary['cases']} case{'s' if summary['cases'] != 1 else ''}; individually significant (95% CI lower bound > 1, marked *): "
        f"{summary['significant']} of {summary['cases']}; steered falsified "
        f"{summary['steeredOnBlindMissed']} of the {summary['blindMissed']} (case, seed) pairs blind missed.",
        "",
        f"Budget {cfg['budget']:,} calls per run (the campaign's calls, injected ones included, plus run-once "
        f"calls); seeds {','.join(map(str, cfg['seeds']))}; wall cap {cfg['timeout']} s; one worker at nice 19, "
        f"stopOnFail; blind = `steer.py --sham` (same polls and reads, no steering); medians are Kaplan-Meier "
        f"with runs unsolved at the budget censored (`>`); ratios of medians restricted to the budget "
        f"(`>`: a lower bound, blind censored; `<`: an upper bound, steered censored; n/a counted as 1 in the "
        f"geometric mean), intervals from {cfg['resamples']} bootstrap resamples of the seeds (paired; generator seed "
        f"{cfg['bootSeed']}); "
        f"steering cost columns are per-run medians; rudder {cfg['binarySha256'][:12]}.",
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------- running

def binary_copy(work):
    src = os.environ.get("RUDDER") or os.path.join(ROOT, "target", "release", "rudder")
    for _ in range(24):
        if os.path.isfile(src) and os.access(src, os.X_OK):
            break
        log(f"{src} missing (a rebuild?), waiting")
        time.sleep(5)
    else:
        sys.exit(f"steer_bench: no rudder binary at {src}")
    dst = os.path.join(work, "rudder")
    shutil.copy2(src, dst)
    h = hashlib.sha256()
    with open(dst, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return src, dst, h.hexdigest()


def run_one(case, arm, seed, cfg, work, rudder):
    out_dir = tempfile.mkdtemp(prefix=f"{case['name']}-{arm}-{seed}-", dir=work)
    artifact = os.path.join(ROOT, case["artifact"])
    cmd = ["nice", "-n", "19", sys.executable, STEER, artifact, "--seed", str(seed),
           "--budget", str(cfg["budget"]), "--timeout", str(cfg["timeout"]), "--workers", "1",
           "--config", CONFIG, "--out-dir", out_dir]
    if case.get("contract"):
        cmd += ["--contract", case["contract"]]
    if arm == "blind":
        cmd.append("--sham")
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=ROOT, env={**os.environ, "RUDDER": rudder}, capture_output=True,
                           text=True, timeout=cfg["timeout"] + 180)
        rc, stdout, stderr = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, stdout, stderr = None, e.stdout or "", (e.stderr or "") + "\n(steer.py did not end)"
        stdout = stdout.decode() if isinstance(stdout, bytes) else stdout
        stderr = stderr.decode() if isinstance(stderr, bytes) else stderr
    wall = time.monotonic() - t0
    shutil.rmtree(out_dir, ignore_errors=True)
    run = {"case": case["name"], "arm": arm, "seed": seed, "wallSeconds": round(wall, 2)}
    try:
        report = json.loads(stdout)
    except ValueError:
        run["error"] = f"exit {rc}, no JSON report; stderr tail: {stderr[-2000:]}"
        return run
    steering = report.get("steering", {})
    prop = case.get("property")
    tests = report.get("tests", [])
    hit = any(t["status"] == "falsified" and (prop is None or t["name"] == prop) for t in tests)
    spent = int(steering.get("spentCalls", report.get("calls") or 0))
    run.update({
        "error": None,
        "campaignCalls": report.get("calls"),
        "spentCalls": spent,
        "seconds": float(report.get("elapsedSecs") or 0.0),
        "reportedFalsified": hit,
        "falsified": hit and spent <= cfg["budget"],
        "sequence": next((t.get("sequence") for t in tests if t["status"] == "falsified"), None),
        "steering": {k: v for k, v in steering.items() if k != "unsolvedGaps"},
        "unsolvedGaps": steering.get("unsolvedGaps"),
    })
    return run


def measure(names, seeds, budget, timeout, opts, by_name):
    """Runs both arms on every case and seed; (config, runs)."""
    work = tempfile.mkdtemp(prefix="steer_bench-")
    try:
        src, rudder, sha = binary_copy(work)
        cfg = {"cases": names, "seeds": seeds, "budget": budget, "timeout": timeout, "workers": 1,
               "nice": 19, "config": os.path.relpath(CONFIG, ROOT), "resamples": opts.resamples,
               "bootSeed": opts.boot_seed, "binary": src, "binarySha256": sha, "short": opts.short}
        log(f"{len(names)} case(s) x {len(seeds)} seed(s) x 2 arms, budget {budget:,} calls, "
            f"wall cap {timeout} s, rudder {sha[:12]}")
        runs = []
        for n in names:
            case = by_name[n]
            for seed in seeds:
                # Arms alternate per seed, so drifting load hits both alike.
                for arm in ("blind", "steered"):
                    r = run_one(case, arm, seed, cfg, work, rudder)
                    runs.append(r)
                    if r["error"]:
                        log(f"{n} seed {seed} {arm}: FAILED: {r['error'][:500]}")
                        continue
                    st = r["steering"]
                    what = (f"falsified at {r['spentCalls']:,} calls" if r["falsified"] else
                            f"not falsified within the budget ({r['spentCalls']:,} calls spent)")
                    log(f"{n} seed {seed} {arm}: {what}, {r['seconds']:.1f} s; tool calls {st.get('toolCalls')}, "
                        f"run-once {st.get('runOnceCalls')}, injected {st.get('injectedCalls')} "
                        f"[{r['wallSeconds']:.1f} s wall]")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return cfg, runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--short", action="store_true",
                    help=f"CI mode: {SHORT_CASE}, seeds 1-3, budget {SHORT_BUDGET:,}, wall cap {SHORT_TIMEOUT} s")
    ap.add_argument("--easy", action="store_true", help="the manifest's easy cases")
    ap.add_argument("--cases", help="these cases (comma-separated names from the manifest)")
    ap.add_argument("--seeds", type=int, help="seeds 1..N (default 10)")
    ap.add_argument("--seed-list", help="these seeds (comma-separated)")
    ap.add_argument("--budget", type=int, help="calls per run (default 1,000,000)")
    ap.add_argument("--timeout", type=int, help="wall cap per run in seconds (default 300)")
    ap.add_argument("--json", help="write the raw runs and the summary here")
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--boot-seed", type=int, default=1)
    ap.add_argument("--from-json", help="no runs: the statistics and table again over an earlier --json file")
    opts = ap.parse_args()

    with open(MANIFEST) as f:
        manifest = json.load(f)
    by_name = {c["name"]: c for c in manifest["cases"]}
    if opts.cases:
        names = [n.strip() for n in opts.cases.split(",") if n.strip()]
        unknown = [n for n in names if n not in by_name]
        if unknown:
            ap.error(f"unknown case(s) {', '.join(unknown)}; the manifest has {', '.join(by_name)}")
    elif opts.short:
        names = [SHORT_CASE]
    else:
        want = "easy" if opts.easy else "hard"
        names = [c["name"] for c in manifest["cases"] if c.get("set") == want]
    if opts.seed_list:
        try:
            seeds = [int(x) for x in opts.seed_list.split(",") if x.strip()]
        except ValueError:
            ap.error("--seed-list takes comma-separated integers")
    elif opts.seeds:
        seeds = list(range(1, opts.seeds + 1))
    else:
        seeds = SHORT_SEEDS if opts.short else list(range(1, 11))
    budget = opts.budget or (SHORT_BUDGET if opts.short else 1_000_000)
    timeout = opts.timeout or (SHORT_TIMEOUT if opts.short else 300)
    if budget <= 0 or timeout <= 0 or not seeds:
        ap.error("--budget, --timeout and the seeds must be positive")
    for n in names:
        a = os.path.join(ROOT, by_name[n]["artifact"])
        if not os.path.isfile(a):
            sys.exit(f"steer_bench: {a} is missing (bash contracts/steer/build.sh)")

    started = time.monotonic()
    if opts.from_json:
        # Statistics again over earlier raw runs (no campaign runs).
        with open(opts.from_json) as f:
            earlier = json.load(f)
        cfg = {**earlier["config"], "resamples": opts.resamples, "bootSeed": opts.boot_seed}
        names, budget = cfg["cases"], cfg["budget"]
        runs = earlier["runs"]
    else:
        cfg, runs = measure(names, seeds, budget, timeout, opts, by_name)
    cases = [summarize(by_name[n], [r for r in runs if r["case"] == n], budget, opts.resamples,
                       opts.boot_seed) for n in names]
    ratios = [c["ratio"] if c["ratio"] is not None and c["bound"] != "none" else 1.0 for c in cases]
    geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    bounds = {c["bound"] for c in cases}
    mark = ">" if "lower" in bounds and "upper" not in bounds else ""
    summary = {
        "cases": len(cases), "geomean": geomean, "geomeanMark": mark,
        "geomeanIsLowerBound": mark == ">",
        "significant": sum(1 for c in cases if c["significant"]),
        "blindMissed": sum(c.get("blindMissed", 0) for c in cases),
        "steeredOnBlindMissed": sum(c.get("steeredOnBlindMissed", 0) for c in cases),
        "failedRuns": sum(1 for r in runs if r["error"]),
        "seconds": round(time.monotonic() - started, 1),
    }
    print(table(cases, summary, cfg), flush=True)
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump({"config": cfg, "summary": summary, "cases": cases, "runs": runs}, f, indent=2)
            f.write("\n")
    log(f"done in {summary['seconds']} s; {summary['failedRuns']} failed run(s)")
    return 1 if summary["failedRuns"] else 0


if __name__ == "__main__":
    sys.exit(main())
