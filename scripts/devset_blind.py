#!/usr/bin/env python3
"""Blind campaigns on the dev set of our own (contracts/devset, issue 65):
each case's harness, each seed, each binary given, one worker at nice 19,
a wall budget per run (the test limit out of the way), two runs at a time.
Prints a markdown table (properties falsified per run, and the median over
seeds) on stdout, progress on stderr; --json FILE keeps the raw runs.

usage: scripts/devset_blind.py [--seeds N] [--seconds S] [--cases A,B]
                               [--dvdf CHECKOUT] [--jobs J] [--json FILE]
                               LABEL=BINARY[@CONFIG.yaml] ...
(a variant is a binary and, after @, an optional config file, e.g.
 `on=target/release/rudder off=target/release/rudder@noenablers.yaml`)
Needs contracts/devset/out (bash contracts/devset/build.sh).

--dvdf CHECKOUT adds the five Echidna harnesses of crytic/damn-vulnerable-defi-echidna
(a checkout of its `solutions` branch, fetched for measurement, never committed): naive
receiver, unstoppable, side entrance, the rewarder, selfie, each with its own yaml (a
variant's config, if any, is merged under it). Their imports (@openzeppelin/contracts
4.3.2) and solc 0.8.25 are installed once with npm in ~/.cache/rudder/dvdf and linked as
the checkout's node_modules when it has none."""
import argparse, concurrent.futures, json, os, statistics, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEVSET = os.path.join(ROOT, "contracts", "devset")


# DVDF's harnesses (file, contract, Echidna config), in the checkout's own layout.
DVDF = [
    ("NaiveReceiver", "contracts/naive-receiver/NaiveReceiverEchidna.sol", "NaiveReceiverEchidna", "naivereceiver.yaml"),
    ("Unstoppable", "contracts/unstoppable/UnstoppableEchidna.sol", "UnstoppableEchidna", "unstoppable.yaml"),
    ("SideEntrance", "contracts/side-entrance/SideEntranceEchidna.sol", "SideEntranceEchidna", "sideentrance.yaml"),
    ("TheRewarder", "contracts/the-rewarder/EchidnaRewarder.sol", "EchidnaRewarder", "the-rewarder.yaml"),
    ("Selfie", "contracts/selfie/EchidnaSelfie.sol", "EchidnaSelfie", "selfie.yaml"),
]


def dvdf_setup(checkout):
    """The checkout's imports and compiler: npm packages in a cache folder,
    linked as the checkout's node_modules (left alone when it has one)."""
    cache = os.path.expanduser("~/.cache/rudder/dvdf")
    os.makedirs(cache, exist_ok=True)
    if not os.path.exists(os.path.join(cache, "package.json")):
        with open(os.path.join(cache, "package.json"), "w") as f:
            f.write('{"name":"rudder-dvdf","private":true}')
    if not os.path.isdir(os.path.join(cache, "node_modules", "@openzeppelin", "contracts")):
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--silent",
                        "@openzeppelin/contracts@4.3.2", "solc@0.8.25"], cwd=cache, check=True)
    link = os.path.join(checkout, "node_modules")
    if not os.path.exists(link):
        os.symlink(os.path.join(cache, "node_modules"), link)
    for _, sol, _, yaml in DVDF:
        for f in (sol, yaml):
            if not os.path.exists(os.path.join(checkout, f)):
                raise SystemExit(f"{checkout}: no {f} (a checkout of the `solutions` branch?)")


def cases(dvdf=None):
    out = []
    for f in sorted(os.listdir(DEVSET)):
        if f.endswith(".manifest.json"):
            m = json.load(open(os.path.join(DEVSET, f)))
            falsifiable = [p["name"] for p in m["properties"] if p["expect"] == "falsifiable"]
            target = os.path.join(DEVSET, "out", m["case"] + ".json")
            out.append((m["case"], m["contract"], len(m["properties"]), falsifiable, target, None, ROOT))
    for case, sol, contract, yaml in DVDF if dvdf else []:
        # One property or assertion each (the challenge's), counted as 1.
        out.append((case, contract, 1, ["(the challenge)"], sol, yaml, dvdf))
    return out


def merged_config(own, variant, folder):
    """A case's own config with a variant's keys over it (flat YAML),
    written into `folder` (the run's, removed with it)."""
    if not variant or not own:
        return variant or own
    merged = os.path.join(folder, "config.yaml")
    with open(merged, "w") as f:
        for path in (own, variant):
            f.write(open(path).read().rstrip("\n") + "\n")
    return merged


def run(variant, case, seed, seconds):
    name, contract, _, _, target, own, cwd = case
    binary, _, config = variant.partition("@")
    with tempfile.TemporaryDirectory() as out:
        config = merged_config(os.path.join(cwd, own) if own else None,
                               os.path.abspath(config) if config else None, out)
        cmd = ["nice", "-n", "19", os.path.abspath(binary), "fuzz", target,
               "--contract", contract, "--workers", "1", "--seed", str(seed),
               "--timeout", str(seconds), "--test-limit", "1000000000000", "--format", "json",
               "--no-ui", "--no-journal", "--out-dir", out] + (["--config", config] if config else [])
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
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
    ap.add_argument("--dvdf", metavar="CHECKOUT")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json")
    ap.add_argument("binaries", nargs="+")
    a = ap.parse_args()
    bins = [b.split("=", 1) for b in a.binaries]
    if a.dvdf:
        a.dvdf = os.path.abspath(a.dvdf)
        dvdf_setup(a.dvdf)
    todo = [c for c in cases(a.dvdf) if not a.cases or c[0] in a.cases.split(",")]
    jobs = [(label, path, c, seed) for c in todo for seed in range(1, a.seeds + 1) for label, path in bins]
    runs = {}
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        futs = {ex.submit(run, path, c, seed, a.seconds): (label, c[0], seed) for label, path, c, seed in jobs}
        for f in concurrent.futures.as_completed(futs):
            label, case, seed = futs[f]
            runs[(label, case, seed)] = f.result()
            print(f"{case} seed {seed} {label}: {runs[(label, case, seed)]['falsified']}", file=sys.stderr)
    labels = [l for l, _ in bins]
    print(f"| case (properties, falsifiable) | " + " | ".join(f"{l}: falsified per seed (median)" for l in labels) + " |")
    print("|---|" + "---|" * len(labels))
    totals = {l: [0] * a.seeds for l in labels}
    for case, contract, n, falsifiable, *_ in todo:
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
