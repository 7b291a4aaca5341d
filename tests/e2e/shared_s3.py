"""A campaign on three machines, as far as one machine can tell: moto's S3
server on loopback (behind a small TCP proxy this script can cut), three
`rudder fuzz --shared s3://...` processes on MagicHash, each with its own
corpus directory and MCP over HTTP.

It checks, in order:
  - bad input is an error before any work, exit 2: an unreachable endpoint,
    credentials the server refuses, a bucket that does not exist, a store
    holding another campaign;
  - an entry one node pushes is applied by the others within 2x the sync
    interval (median; the worst is printed);
  - a falsification is in the bucket as soon as the node reports it: the
    node is SIGKILLed the moment its journal has the falsification;
  - the killed node, restarted, resumes: the same name, its batch numbers go
    on, it downloads only what is new, and the injection it was given before
    the kill then reaches the two others (who run it, `sharedFrom`);
  - no corpus object is stored under two names;
  - with the storage cut for a while, nodes keep fuzzing and a spec given
    to one node meanwhile (and falsified there) reaches the bucket and the
    other nodes once the storage is back.

usage: shared_s3.py RUDDER_BIN WORKDIR [SYNC_MS]
Exits non-zero (with a message) on the first failed check.
"""
import asyncio
import glob
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time

import boto3
from mcp import ClientSession

from common import answer, free_port, http_client, start_moto, stop

RUDDER, WORK = sys.argv[1], sys.argv[2]
SYNC_MS = int(sys.argv[3]) if len(sys.argv) > 3 else 500
TARGET = "contracts/out/MagicHash.json"
KEY = "0x6c6f6f6b206f757420666f7220746865206d616769632076616c756521212121"
BUCKET = "rudder-campaign"
PREFIX = "magic"


def check(cond, what):
    if not cond:
        raise SystemExit(f"FAILED: {what}")


def wait_until(what, cond, seconds=60.0, step=0.05):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        v = cond()
        if v:
            return v
        time.sleep(step)
    raise SystemExit(f"FAILED: {what} (waited {seconds:.0f} s)")


class Proxy:
    """TCP proxy in front of the S3 server: `cut()` refuses and drops every
    connection (the storage is down), `restore()` serves again."""

    def __init__(self, upstream):
        self.upstream = upstream
        self.port = free_port()
        self.up = True
        self.conns = []
        self.lock = threading.Lock()
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", self.port))
        self.sock.listen(64)
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            if not self.up:
                c.close()
                continue
            try:
                u = socket.create_connection(("127.0.0.1", self.upstream))
            except OSError:
                c.close()
                continue
            with self.lock:
                self.conns += [c, u]
            for a, b in ((c, u), (u, c)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(a, b):
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        self.up = False
        with self.lock:
            for s in self.conns:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            self.conns = []

    def restore(self):
        self.up = True


def aws_env(port, key="test"):
    return dict(
        os.environ,
        AWS_ACCESS_KEY_ID=key,
        AWS_SECRET_ACCESS_KEY="test",
        AWS_ENDPOINT_URL=f"http://127.0.0.1:{port}",
        AWS_ALLOW_HTTP="true",
        AWS_REGION="us-east-1",
        RUST_LOG="rudder=info",
    )


def s3_client(port):
    return boto3.client(
        "s3", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
        aws_access_key_id="test", aws_secret_access_key="test",
    )


def keys(s3, prefix):
    out, token = [], None
    while True:
        kw = {"Bucket": BUCKET, "Prefix": prefix}
        if token:
            kw["ContinuationToken"] = token
        r = s3.list_objects_v2(**kw)
        out += [o["Key"] for o in r.get("Contents", [])]
        if not r.get("IsTruncated"):
            return out
        token = r["NextContinuationToken"]


def get_json(s3, key):
    try:
        return json.loads(s3.get_object(Bucket=BUCKET, Key=key)["Body"].read())
    except s3.exceptions.NoSuchKey:
        return None


def refused(args, env, what, expect):
    t0 = time.monotonic()
    r = subprocess.run([RUDDER, "fuzz", TARGET, "--no-ui", "--workers", "1", *args],
                       env=env, capture_output=True, text=True, timeout=120)
    check(r.returncode == 2, f"{what}: exit {r.returncode}, stderr {r.stderr[-600:]}")
    check(expect in r.stderr, f"{what}: {expect!r} not in {r.stderr[-600:]}")
    print(f"  {what}: exit 2 in {time.monotonic() - t0:.1f} s: {r.stderr.strip().splitlines()[-1][:160]}")


def node(name, port, mcp_port, extra=()):
    out = os.path.join(WORK, name)
    log = open(os.path.join(WORK, f"{name}.log"), "a")
    p = subprocess.Popen(
        [RUDDER, "fuzz", TARGET, "--no-ui", "--format", "json", "--workers", "1",
         "--keep-alive", "--timeout", "600", "--seed", str(len(name) + ord(name[-1])),
         "--shared", f"s3://{BUCKET}/{PREFIX}", "--node-id", name,
         "--shared-sync-ms", str(SYNC_MS), "--out-dir", out,
         "--mcp-http", f"127.0.0.1:{mcp_port}", *extra],
        env=aws_env(port), stdout=subprocess.DEVNULL, stderr=log,
    )
    return p, out


async def tool(mcp_port, name, args):
    async with http_client(f"http://127.0.0.1:{mcp_port}/mcp") as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            res = await s.call_tool(name, args)
            return res, answer(res)


def status(mcp_port):
    return asyncio.run(tool(mcp_port, "status", {}))[1]


def command_log(out):
    try:
        with open(os.path.join(out, "corpus", "mcp-commands.jsonl")) as f:
            return [json.loads(l) for l in f if l.strip()]
    except FileNotFoundError:
        return []


def journal_has(out, kind):
    for path in glob.glob(os.path.join(out, "journal", "run-*.jsonl")):
        with open(path) as f:
            if any(f'"{kind}"' in line for line in f):
                return True
    return False


def main():
    moto, moto_port = start_moto()
    procs = [moto]
    try:
        run(moto_port, procs)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()


def run(moto_port, procs):
    s3 = s3_client(moto_port)
    s3.create_bucket(Bucket=BUCKET)
    proxy = Proxy(moto_port)
    shared = ["--shared", f"s3://{BUCKET}/{PREFIX}", "--test-limit", "100"]

    print("bad input, before any work:")
    refused(shared, aws_env(free_port()), "unreachable endpoint", "unreachable")
    refused(["--shared", f"s3://no-such-bucket-here/x", "--test-limit", "100"],
            aws_env(proxy.port), "missing bucket", "the bucket does not exist")
    auth, auth_port = start_moto({"INITIAL_NO_AUTH_ACTION_COUNT": "0"})
    procs.append(auth)
    refused(shared, aws_env(auth_port, key="AKIAWRONGWRONGWRONG1"), "wrong credentials", "access denied")
    auth.kill()
    # A store holding another campaign: Sequence's prefix, then MagicHash on it.
    subprocess.run([RUDDER, "fuzz", "contracts/out/Sequence.json", "--no-ui", "--workers", "1",
                    "--test-limit", "200", "--shared", f"s3://{BUCKET}/other",
                    "--out-dir", os.path.join(WORK, "seq")],
                   env=aws_env(proxy.port), capture_output=True, timeout=120)
    refused(["--shared", f"s3://{BUCKET}/other", "--test-limit", "100"],
            aws_env(proxy.port), "another campaign", "holds another campaign")
    check(not any(k.startswith(f"{PREFIX}/") for k in keys(s3, "")),
          "a refused node wrote to the store")

    names = ["n1", "n2", "n3"]
    mcp_ports = {n: free_port() for n in names}
    nodes = {}
    for n in names:
        p, out = node(n, proxy.port, mcp_ports[n])
        procs.append(p)
        nodes[n] = (p, out)
    wait_until("every node's heartbeat in the bucket", lambda: all(
        get_json(s3, f"{PREFIX}/nodes/{n}/heartbeat.json") for n in names))

    print(f"propagation (sync interval {SYNC_MS} ms):")
    latencies, seen = [], {}
    t_end = time.monotonic() + 10
    while time.monotonic() < t_end:
        for src in names:
            for k in keys(s3, f"{PREFIX}/nodes/{src}/batches/"):
                if k in seen:
                    continue
                b = get_json(s3, k)
                if b and b.get("entries"):
                    seen[k] = (src, b["seq"], b["tsMs"], set(names) - {src})
        for k, (src, seq, ts, waiting) in list(seen.items()):
            for dst in list(waiting):
                h = get_json(s3, f"{PREFIX}/nodes/{dst}/heartbeat.json")
                if h and h.get("cursors", {}).get(src, -1) >= seq:
                    latencies.append(h["tsMs"] - ts)
                    waiting.discard(dst)
        time.sleep(0.05)
    check(len(latencies) >= 4, f"too few deliveries observed: {latencies}")
    med = statistics.median(latencies)
    print(f"  {len(latencies)} deliveries: median {med:.0f} ms, max {max(latencies)} ms")
    check(med <= 2 * SYNC_MS, f"median delivery {med} ms > 2x the sync interval")

    print("a falsification is in the bucket when it is reported:")
    p1, out1 = nodes["n1"]
    asyncio.run(tool(mcp_ports["n1"], "inject_transaction", {"sequence": [f"unlock({KEY})"]}))
    wait_until("n1 reports the falsification", lambda: journal_has(out1, "PropertyFalsified"), step=0.005)
    p1.send_signal(signal.SIGKILL)
    p1.wait()
    found = keys(s3, f"{PREFIX}/findings/echidna_locked/")
    check(found, "the finding is not in the bucket after the node reported it and was killed")
    print(f"  killed right after the report; in the bucket: {found[0].split('/')[-1][:16]}…")
    batches_before = keys(s3, f"{PREFIX}/nodes/n1/batches/")

    print("the killed node, restarted, resumes from its cursors:")
    p1, out1 = node("n1", proxy.port, mcp_ports["n1"])
    procs.append(p1)
    nodes["n1"] = (p1, out1)
    wait_until("n1's MCP answers", lambda: _try(lambda: status(mcp_ports["n1"])))
    st = wait_until("n1 synced", lambda: (lambda s: s if s.get("shared", {}).get("syncs", 0) > 0 else None)(
        status(mcp_ports["n1"])), step=0.2)
    sh = st["shared"]
    check(sh["node"] == "n1", f"restarted under another name: {sh['node']}")
    print(f"  pulled {sh['pulledEntries']} new entries (the store holds {len(keys(s3, PREFIX + '/corpus/'))})")
    for k in batches_before:
        check(k in keys(s3, f"{PREFIX}/nodes/n1/batches/"), f"{k} disappeared")
    for n in ("n2", "n3"):
        wait_until(f"{n} ran n1's injection (sharedFrom n1)", lambda: any(
            l["command"] == "inject_transaction" and l["arguments"].get("sharedFrom") == "n1"
            for l in command_log(nodes[n][1])), seconds=30)
        wait_until(f"{n} has echidna_locked falsified", lambda: any(
            t["name"] == "echidna_locked" and t["status"] in ("falsified", "shrinking")
            for t in status(mcp_ports[n])["tests"]), seconds=30, step=0.2)
    print("  n2 and n3 ran the injection n1 was given before it was killed")

    corpus = keys(s3, f"{PREFIX}/corpus/")
    sequences = set()
    for k in corpus:
        e = get_json(s3, k)
        calls = json.dumps([{x: c.get(x) for x in ("signature", "calldata", "sender", "value", "delay", "blocks", "to")}
                            for c in e["txs"]], sort_keys=True)
        check(calls not in sequences, f"{k}: a sequence stored under two names")
        sequences.add(calls)
    print(f"  {len(corpus)} corpus objects, each a different sequence")

    print("storage cut: fuzzing goes on, nothing is lost:")
    before = {n: status(mcp_ports[n])["calls"] for n in names}
    proxy.cut()
    spec = {"name": "tries_small", "indicators": ["tries"], "entry_conditions": ["tries() < 3"],
            "exit_conditions": [], "parameters": []}
    _, a = asyncio.run(tool(mcp_ports["n2"], "submit_new_spec", spec))
    check(a.get("success", True) is not False, f"submit_new_spec: {a}")
    wait_until("n2 falsifies the new spec while the storage is down", lambda: any(
        t["name"] == "tries_small" and t["status"] in ("falsified", "shrinking")
        for t in status(mcp_ports["n2"])["tests"]), seconds=30, step=0.2)
    wait_until("n2 sees the storage down", lambda: status(mcp_ports["n2"])["shared"]["reachable"] is False,
               seconds=30, step=0.2)
    time.sleep(2)
    after = {n: status(mcp_ports[n])["calls"] for n in names}
    check(all(after[n] > before[n] for n in names), f"fuzzing stalled: {before} -> {after}")
    check(not keys(s3, f"{PREFIX}/findings/tries_small/"), "the store was written while cut")
    proxy.restore()
    wait_until("the spec's finding reaches the bucket", lambda: keys(s3, f"{PREFIX}/findings/tries_small/"),
               seconds=60, step=0.2)
    for n in ("n1", "n3"):
        wait_until(f"{n} has the spec", lambda: any(
            t["name"] == "tries_small" for t in status(mcp_ports[n])["tests"]), seconds=60, step=0.2)
    print(f"  calls went on while cut ({sum(after.values()) - sum(before.values())} more); "
          "the spec and its finding reached the bucket and n1, n3 once it was back")

    for n in names:
        stop(nodes[n][0])
    for n in names:
        h = get_json(s3, f"{PREFIX}/nodes/{n}/heartbeat.json")
        check(h and h["ended"], f"{n}'s last heartbeat does not say it ended: {h}")
    print("shared_s3: all checks passed")


def _try(f):
    try:
        return f()
    except Exception:
        return None


if __name__ == "__main__":
    main()
