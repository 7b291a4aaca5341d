#!/usr/bin/env python3
"""The cost of a call, guarded (#34).

Counts the instructions a worker spends per call in fixed campaigns (one
worker, seed 1, a fixed number of calls) under valgrind's callgrind,
counting only inside the worker loop (`Worker::run` and everything it calls:
the EVM, coverage, checks, the generator; not the control plane or the
journal writer, whose work depends on wall time), and compares them with
the committed baseline, benches/cost_baseline.json.

Calls/s on a shared machine is too noisy to guard; instructions are not:
two runs of the same binary agree within 0.05%.

It fails when a campaign costs more than 3% over its baseline, and when the
commit that last changed the baseline did not also change BENCHMARKS.md
(where the line saying why belongs): a slower call lands only with a new
baseline and its reason. `--update` writes the measured costs as the new
baseline. valgrind is installed from Debian when missing.

Usage: python3 scripts/cost_guard.py [--update] [--bin target/release/rudder]
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE = os.path.join(ROOT, "benches", "cost_baseline.json")
TOLERANCE = 0.03
CALLS = 20_000

# name: (artifact, extra flags)
CAMPAIGNS = {
    "token-properties": ("contracts/out/Token.json", []),
    "maze-assertions": ("contracts/out/Maze1.json", ["--test-mode", "assertion"]),
    "token-checks-off": ("contracts/out/Token.json", ["--check-cache", "off"]),
}


def ensure_valgrind():
    if shutil.which("valgrind"):
        return
    apt = ["apt-get", "install", "-y", "-q", "valgrind"]
    if os.geteuid() != 0:
        apt = ["sudo", "-n"] + apt
    print("cost guard: installing valgrind from Debian", file=sys.stderr)
    if subprocess.run(apt, stdout=sys.stderr).returncode != 0:
        update = apt[: apt.index("install")] + ["update", "-q"]
        subprocess.run(update, stdout=sys.stderr)
        subprocess.run(apt, stdout=sys.stderr)
    if not shutil.which("valgrind"):
        sys.exit("cost guard: valgrind is not installed and could not be (apt-get install valgrind)")


def measure(binary, artifact, flags):
    """Instructions per call inside the worker loop."""
    with tempfile.TemporaryDirectory() as d:
        cmd = [
            "valgrind",
            "--tool=callgrind",
            # Exactly `Worker::run` (never inlined): a wildcard after it
            # also matched `run_from` and `run_injection`, and callgrind
            # toggles at each match, so nested matches switched the count
            # off inside the loop, or, with `run` inlined, on only inside
            # them (the solving stage was not counted).
            "--toggle-collect=*::Worker::run",
            f"--callgrind-out-file={d}/callgrind.out",
            binary,
            "fuzz",
            artifact,
            "--workers", "1",
            "--seed", "1",
            "--test-limit", str(CALLS),
            "--format", "json",
            "--no-ui",
            "--out-dir", f"{d}/out",
        ] + flags
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"cost guard: {' '.join(cmd[5:])} failed:\n{p.stderr[-2000:]}")
        m = re.search(r"Collected : (\d+)", p.stderr)
        if not m:
            sys.exit(f"cost guard: callgrind counted nothing for {artifact}:\n{p.stderr[-2000:]}")
        report = json.loads(p.stdout)
        per_call = int(m.group(1)) / report["calls"]
        # An EVM call alone is thousands of instructions: fewer means the
        # toggle missed the worker loop (renamed, or inlined after all).
        if per_call < 2000:
            sys.exit(f"cost guard: {per_call:.0f} instructions per call for {artifact}: "
                     "callgrind did not count the worker loop (is `Worker::run` still its name?)")
        return per_call, report["calls"]


def baseline_change_explained():
    """Whether the commit that last changed the baseline also changed
    BENCHMARKS.md (None when the history cannot tell: no git, or a shallow
    clone that lacks that commit)."""
    try:
        git = lambda *a: subprocess.run(  # noqa: E731
            ["git", *a], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        last = git("log", "-1", "--format=%H", "--", "benches/cost_baseline.json")
        if not last:
            return None
        return "BENCHMARKS.md" in git("show", "--name-only", "--format=", last).split()
    except (subprocess.CalledProcessError, FileNotFoundError):
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--update", action="store_true", help="write the measured costs as the baseline")
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "rudder"))
    ap.add_argument("--baseline", default=BASELINE, help="compare with this file instead")
    a = ap.parse_args()
    ensure_valgrind()
    if not os.path.exists(a.bin):
        sys.exit(f"cost guard: {a.bin} not built (cargo build --release)")
    base = {}
    if os.path.exists(a.baseline):
        with open(a.baseline) as f:
            base = json.load(f)["instructions_per_call"]
    measured = {}
    worse = []
    print(f"| campaign ({CALLS} calls, 1 worker, seed 1) | baseline | now | change |")
    print("|---|---|---|---|")
    for name, (artifact, flags) in CAMPAIGNS.items():
        per_call, calls = measure(a.bin, artifact, flags)
        measured[name] = round(per_call)
        was = base.get(name)
        if was:
            change = per_call / was - 1
            print(f"| {name} | {was:,} | {per_call:,.0f} | {change:+.2%} |")
            if change > TOLERANCE:
                worse.append((name, change))
        else:
            print(f"| {name} | none | {per_call:,.0f} | |")
    if a.update:
        with open(a.baseline, "w") as f:
            json.dump(
                {
                    "about": "instructions per call inside the worker loop (scripts/cost_guard.py); "
                    "change it in a commit that also says why in BENCHMARKS.md",
                    "instructions_per_call": measured,
                },
                f,
                indent=2,
            )
            f.write("\n")
        print(f"baseline written: {os.path.relpath(a.baseline, ROOT)}")
        return
    if worse:
        for name, change in worse:
            print(f"cost guard: {name} costs {change:+.2%} per call over its baseline (limit "
                  f"+{TOLERANCE:.0%}). If that is intended, run `python3 scripts/cost_guard.py "
                  f"--update` and say why in BENCHMARKS.md in the same commit.")
        sys.exit(1)
    if base and baseline_change_explained() is False:
        print("cost guard: the commit that last changed benches/cost_baseline.json did not "
              "change BENCHMARKS.md: say there why the cost of a call moved")
        sys.exit(1)
    print(f"cost guard: every campaign within +{TOLERANCE:.0%} of its baseline")


if __name__ == "__main__":
    main()
