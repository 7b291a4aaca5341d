#!/usr/bin/env python3
"""Blind campaigns on the dev set of our own (contracts/devset, issue 65):
each case's harness, each seed, each binary given, one worker at nice 19,
a wall budget per run (the test limit out of the way), two runs at a time.
Prints a markdown table (properties falsified per run, and the median over
seeds) on stdout, progress on stderr; --json FILE keeps the raw runs.

usage: scripts/devset_blind.py [--seeds N] [--seconds S] [--cases A,B]
                               [--jobs J] [--json FILE] LABEL=BINARY[@CONFIG.yaml] ...
(a variant is a binary and, after @, an optional config file, e.g.
 `on=target/release/rudder off=target/release/rudder@noenablers.yaml`)
Needs contracts/devset/out (bash contracts/devset/build.sh)."""
import argparse, concurrent.futures, json, os, statistics, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEVSET = os.path.join(ROOT, "contracts", "devset")


def cases():
    out = []
    for f in sorted(os.listdir(DEVSET)):
        if f.endswith(".manifest.json"):
            m = json.load(open(os.path.join(DEVSET, f)))
            falsifiable = [p["name"] for p in m["properties"] if p["expect"] == "falsifiable"]
            out.append((m["case"], m["contract"], len(m["properties"]), falsifiable))
    return out


def run(variant, case, contract, seed, seconds):
    binary, _, config = variant.partition("@")
    with tempfile.TemporaryDirectory() as out:
        cmd = ["nice", "-n", "19", binary, "fuzz", os.path.join(DEVSET, "out", case + ".json"),
               "--contract", contract, "--workers", "1", "--seed", str(seed),
               "--timeout", str(seconds), "--test-limit", "1000000000000", "--format", "json",
               "--no-ui", "--no-journal", "--out-dir", out] + (["--config", config] if config else [])
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        try:
            r = json.loads(p.stdout)
        except json.JSONDecodeError:
            raise SystemExit(f"{' '.join(cmd)}: no JSON report: {p.stderr[-2000:]}")
    falsified = sorted(t["name"] for t in r["tests"] if t["status"] in ("falsified", "shrinking"))
    return {"falsified": falsified, "calls": r.get("calls")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--cases")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json")
    ap.add_argument("binaries", nargs="+")
    a = ap.parse_args()
    bins = [b.split("=", 1) for b in a.binaries]
    todo = [c for c in cases() if not a.cases or c[0] in a.cases.split(",")]
    jobs = [(label, path, c, seed) for c in todo for seed in range(1, a.seeds + 1) for label, path in bins]
    runs = {}
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        futs = {ex.submit(run, path, c[0], c[1], seed, a.seconds): (label, c[0], seed) for label, path, c, seed in jobs}
        for f in concurrent.futures.as_completed(futs):
            label, case, seed = futs[f]
            runs[(label, case, seed)] = f.result()
            print(f"{case} seed {seed} {label}: {runs[(label, case, seed)]['falsified']}", file=sys.stderr)
    labels = [l for l, _ in bins]
    print(f"| case (properties, falsifiable) | " + " | ".join(f"{l}: falsified per seed (median)" for l in labels) + " |")
    print("|---|" + "---|" * len(labels))
    totals = {l: [0] * a.seeds for l in labels}
    for case, contract, n, falsifiable in todo:
        cells = []
        for l in labels:
            per = [len(runs[(l, case, s)]["falsified"]) for s in range(1, a.seeds + 1)]
            for i, k in enumerate(per):
                totals[l][i] += k
            cells.append(f"{' / '.join(map(str, per))} ({statistics.median(per):g})")
        print(f"| {case} ({n}, {len(falsifiable)}) | " + " | ".join(cells) + " |")
    print("| all | " + " | ".join(f"{' / '.join(map(str, totals[l]))} ({statistics.median(totals[l]):g})" for l in labels) + " |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump([{"label": k[0], "case": k[1], "seed": k[2], **v} for k, v in runs.items()], f, indent=1)


if __name__ == "__main__":
    main()
