#!/usr/bin/env bash
# Runs every README.md command marked runnable, against target/release/rudder.
#
# A fenced ```sh (or ```bash) block is runnable when the line just before its
# fence is an HTML comment:
#
#   <!-- runnable -->                 every command must exit 0
#   <!-- runnable exit=1 -->          every command must exit 1 (a falsified test)
#   <!-- runnable timeout=90 -->      seconds per command (default 60)
#   <!-- runnable requires=jq -->     SKIPPED (and said so) when jq is not on PATH
#
# Options combine (`<!-- runnable exit=1 requires=jq,genhtml -->`); a command's
# own trailing `# exit N` comment overrides the block's code for it. Each line
# is one command (a trailing `\` continues it, a here-document runs to its
# delimiter); blank lines and `#` lines are skipped. Commands run one after the
# other with `bash -o pipefail`, in a scratch copy of the repository's tracked
# files (contracts/.tools linked, for solcjs), with target/release first on
# PATH, so `rudder` is the built binary and nothing is written into the repo.
#
# Also checked, in every fenced block whether runnable or not:
#   <!-- same-as: PATH -->  before a fence: the block's text appears verbatim in PATH;
#   each `--flag` after `rudder fuzz` / `rudder mcp`, and each flag of the README's
#   flag table, is one `rudder fuzz --help` (or `rudder mcp --help`) lists.
#
# Usage: bash scripts/readme_commands.sh [README.md]   (KEEP=1 keeps the scratch copy)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
readme="${1:-README.md}"
if [ ! -x target/release/rudder ]; then
  echo "readme_commands: target/release/rudder is missing; build it first (cargo build --release)" >&2
  exit 1
fi
exec python3 - "$readme" <<'PY'
import os, re, shlex, shutil, signal, subprocess, sys, tempfile, time

repo = os.getcwd()
readme = sys.argv[1]
lines = open(readme, encoding="utf-8").read().split("\n")
rudder = os.path.join(repo, "target", "release", "rudder")

# ------------------------------------------------------------------ parsing
FENCE = re.compile(r"^(\s*)(```+)\s*([^`]*)$")
MARK = re.compile(r"^\s*<!--\s*(runnable|same-as:)\s*(.*?)\s*-->\s*$")

def blocks():
    """Yields (start line number, marker kind, marker args, language, body lines)."""
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, ticks, info = m.group(1), m.group(2), m.group(3).strip()
        lang = info.split()[0] if info else ""
        mark = MARK.match(lines[i - 1]) if i > 0 else None
        body = []
        j = i + 1
        while j < len(lines) and not re.match(r"^\s*" + ticks + r"\s*$", lines[j]):
            line = lines[j]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            j += 1
        if j == len(lines):
            sys.exit(f"{readme}:{i + 1}: fence never closed")
        yield (i + 1, mark.group(1) if mark else None, mark.group(2) if mark else "", lang, body)
        i = j + 1

def commands(body, first_line):
    """Splits a block into commands: (README line, text)."""
    out, k = [], 0
    while k < len(body):
        line = body[k]
        if not line.strip() or line.lstrip().startswith("#"):
            k += 1
            continue
        start, text = k, line
        while text.endswith("\\") and k + 1 < len(body):
            k += 1
            text += "\n" + body[k]
        h = re.search(r"<<(-?)\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2", text)
        if h:
            strip_tabs, delim = h.group(1) == "-", h.group(3)
            while k + 1 < len(body):
                k += 1
                text += "\n" + body[k]
                if (body[k].lstrip("\t") if strip_tabs else body[k]) == delim:
                    break
            else:
                sys.exit(f"{readme}:{first_line + start + 1}: here-document {delim} never ends")
        out.append((first_line + start + 1, text))
        k += 1
    return out

def options(args, where):
    opts = {"exit": 0, "timeout": 60, "requires": []}
    for word in args.split():
        key, _, value = word.partition("=")
        if key in ("exit", "timeout") and value.isdigit():
            opts[key] = int(value)
        elif key == "requires" and value:
            opts["requires"] = value.split(",")
        else:
            sys.exit(f"{readme}:{where}: unknown runnable option {word!r} (exit=N, timeout=SECS, requires=a,b)")
    return opts

# ------------------------------------------------------------ static checks
problems = []
help_flags = {}
for sub in ("fuzz", "mcp"):
    text = subprocess.run([rudder, sub, "--help"], capture_output=True, text=True).stdout
    help_flags[sub] = set(re.findall(r"--[a-z][a-z0-9-]*", text)) | {"--help"}

def check_flags(text, where):
    for m in re.finditer(r"\brudder\s+(fuzz|mcp)\b([^\n`|]*)", text):
        for flag in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", m.group(2)):
            if flag not in help_flags[m.group(1)]:
                problems.append(f"{readme}:{where}: `rudder {m.group(1)}` has no flag {flag} (not in `rudder {m.group(1)} --help`)")

runnable = []
for start, kind, args, lang, body in blocks():
    text = "\n".join(body)
    for n, line in enumerate(body):
        check_flags(line, start + n + 1)
    if kind == "same-as:":
        path = args
        try:
            content = open(os.path.join(repo, path), encoding="utf-8").read()
        except OSError as e:
            problems.append(f"{readme}:{start}: same-as {path}: {e}")
            continue
        if text.strip("\n") not in content:
            problems.append(f"{readme}:{start}: the block differs from {path} (same-as)")
    elif kind == "runnable":
        if lang not in ("sh", "bash"):
            problems.append(f"{readme}:{start}: a runnable block must be ```sh or ```bash, not {lang!r}")
            continue
        opts = options(args, start - 1)
        cmds = commands(body, start)
        if not cmds:
            problems.append(f"{readme}:{start}: runnable block without a command")
        runnable.append((start, opts, cmds))
# Inline code and the flag table: `rudder fuzz … --flag` in prose, `| `--flag …` | rows.
for n, line in enumerate(lines):
    for span in re.findall(r"`([^`]+)`", line):
        check_flags(span, n + 1)
    row = re.match(r"^\|\s*`(--[a-z][a-z0-9-]*)", line)
    if row and row.group(1) not in help_flags["fuzz"]:
        problems.append(f"{readme}:{n + 1}: the flag table lists {row.group(1)}, which `rudder fuzz --help` does not")

if not runnable:
    problems.append(f"{readme}: no block is marked <!-- runnable --> (did the convention change?)")
if problems:
    print("\n".join(problems))
    sys.exit(1)

# ------------------------------------------------------------------ running
work = tempfile.mkdtemp(prefix="rudder-readme.")
try:
    tracked = subprocess.run(["git", "ls-files", "-z"], capture_output=True, check=True).stdout
    files = [f for f in tracked.decode().split("\0") if f]
except (OSError, subprocess.CalledProcessError):
    files = [os.path.relpath(os.path.join(d, f), repo)
             for d, sub, fs in os.walk(os.path.join(repo, "contracts"))
             for f in fs if "node_modules" not in d and ".tools" not in d]
for f in files:
    src = os.path.join(repo, f)
    if os.path.lexists(src) and not os.path.isdir(src):
        dst = os.path.join(work, f)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(src, dst, follow_symlinks=False)
tools = os.path.join(repo, "contracts", ".tools")
if os.path.isdir(tools):
    os.symlink(tools, os.path.join(work, "contracts", ".tools"))
env = dict(os.environ)
env["PATH"] = os.path.join(repo, "target", "release") + os.pathsep + env.get("PATH", "")

total = sum(len(c) for _, _, c in runnable)
failures, done, skipped = [], 0, 0
t_all = time.monotonic()
print(f"README commands: {total} in {len(runnable)} runnable blocks, run in {work}")
for start, opts, cmds in runnable:
    missing = [t for t in opts["requires"] if shutil.which(t, path=env["PATH"]) is None]
    for line_no, cmd in cmds:
        shown = cmd.split("\n")[0] + (" …" if "\n" in cmd else "")
        done += 1
        if missing:
            skipped += 1
            print(f"[{done}/{total}] {readme}:{line_no}  $ {shown}\n        SKIPPED: {', '.join(missing)} not on PATH")
            continue
        own = re.search(r"#\s*exits?\s+(\d+)\s*(?:$|[:;,.])", cmd.split("\n")[0])
        want = int(own.group(1)) if own else opts["exit"]
        t0 = time.monotonic()
        p = subprocess.Popen(["bash", "-o", "pipefail", "-c", cmd], cwd=work, env=env,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, start_new_session=True)
        try:
            out, _ = p.communicate(timeout=opts["timeout"])
            code, note = p.returncode, ""
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, _ = p.communicate()
            code, note = None, f"timed out after {opts['timeout']} s"
        secs = time.monotonic() - t0
        ok = code == want
        verdict = "ok" if ok else "FAILED"
        got = "killed" if code is None else f"exit {code}"
        print(f"[{done}/{total}] {readme}:{line_no}  $ {shown}\n        {verdict}: {got} (expected {want}), {secs:.1f} s{'; ' + note if note else ''}")
        if not ok:
            failures.append((line_no, cmd, got, want, note, out.decode(errors="replace")))

elapsed = time.monotonic() - t_all
if os.environ.get("KEEP"):
    print(f"scratch copy kept: {work}")
else:
    shutil.rmtree(work, ignore_errors=True)
for line_no, cmd, got, want, note, out in failures:
    tail = "\n".join(out.rstrip("\n").split("\n")[-80:])
    print(f"\n=== FAILED {readme}:{line_no}: {got}, expected exit {want}{'; ' + note if note else ''}\n$ {cmd}\n{tail}")
print(f"\nREADME commands: {done - skipped - len(failures)} passed, {len(failures)} failed, {skipped} skipped in {elapsed:.1f} s")
sys.exit(1 if failures else 0)
PY
