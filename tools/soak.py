#!/usr/bin/env python3
"""Soak and chaos: `masc-tui demo` in a PTY under a random fault plan and random keys.

    cargo build            # or --release; any masc-tui binary
    nice -n 10 python3 tools/soak.py target/debug/masc-tui [MINUTES=10] [SEED=1] [KILL_EVERY_S=180]

Runs `demo --data <tmp>/ws --state-dir <tmp>/state --faults <plan>` in a 120x40 pseudo-terminal
for MINUTES. The plan (written from SEED; printed) fails a share of every read (503, 500,
malformed, truncated, dropped, delayed) and holds writes: chat sends are held 15 s and then
applied whether or not the client still waits (`apply_late_ms`), other writes delayed, refused
with a 409 of unknown text or a 500, or dropped after applying. Keys are drawn from every
surface's vocabulary (never `q`, `Ctrl-C` or `Ctrl-Z`; `$EDITOR`/`$VISUAL` are `true`, so an
editor opened by `e`/`Ctrl-X` returns unchanged at once), with chat text typed and sent.

Every KILL_EVERY_S seconds the process is killed with SIGKILL — preferably while a save is in
flight (the outbox has a row `written`/`sending`/`accepted`; the kill waits up to 20 s for one) —
and restarted on the same data and state directories. At the end `q q` quits.

Invariants, checked all the time and reported at the end (exit 1 when one fails):
- alive: the process never exits by itself (only the soak's own kills and the final `q q`,
  exit 0);
- no panic: no `panicked` in the terminal output or the exit logs;
- no stray escape bytes: every ESC the terminal receives starts a CSI, OSC, or one of the
  short escapes a terminal program writes (ESC 7/8/=/>/M/c, charset ESC ( B); no other C0
  control byte than BS, TAB, LF, CR, BEL outside a sequence;
- RSS bounded: VmRSS at most RSS_LIMIT_MIB (default 600) and, after the first 2 minutes of a
  run, never more than 2x the RSS seen at 2 minutes;
- every outbox row accounted for: no row the killed process left disappears after the restart,
  and 60 s after a restart no row of an earlier session is still `written`/`sending`/`accepted`
  except chat sends (restored and reconciled when their chat opens);
- terminal restored after `q q`: the alternate screen left (CSI ?1049l), the cursor shown
  (CSI ?25h) and the tty back in canonical mode with echo.
"""
import fcntl
import json
import os
import pty
import random
import re
import select
import signal
import sqlite3
import struct
import sys
import tempfile
import termios
import time

binary = sys.argv[1]
minutes = float(sys.argv[2]) if len(sys.argv) > 2 else 10
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
kill_every = float(sys.argv[4]) if len(sys.argv) > 4 else 180
rss_limit = float(os.environ.get("RSS_LIMIT_MIB", "600"))
rng = random.Random(seed)

root = tempfile.mkdtemp(prefix="masc-tui-soak-")
data, state = os.path.join(root, "ws"), os.path.join(root, "state")
outbox_path = os.path.join(state, "chat-outbox.sqlite3")


def chance(p, n):
    return {"probability": p, "seed": seed * 100 + n}


plan = {
    "rules": [
        {"match": {"method": "GET", "path": "/api/v1/*"}, "when": chance(0.10, 1), "fault": {"status": 503, "body": {"error": "soak: unavailable"}}},
        {"match": {"method": "GET", "path": "/api/v1/*"}, "when": chance(0.05, 2), "fault": {"status": 500, "body": "soak \u001b[31m500"}},
        {"match": {"method": "GET", "path": "/api/v1/*"}, "when": chance(0.05, 3), "fault": {"malformed": True}},
        {"match": {"method": "GET", "path": "/api/v1/*"}, "when": chance(0.04, 4), "fault": {"truncate_at": 17}},
        {"match": {"method": "GET", "path": "/api/v1/*"}, "when": chance(0.03, 5), "fault": {"drop": "before_apply"}},
        {"match": {"method": "GET", "path": "/api/v1/*"}, "when": chance(0.05, 6), "fault": {"delay_ms": 3000}},
        {"match": {"method": "POST", "path": "/api/v1/keepers/chat/stream"}, "when": chance(0.4, 7), "fault": {"apply_late_ms": 15000}},
        {"match": {"method": "POST", "path": "/api/v1/keepers/chat/stream"}, "when": chance(0.1, 8), "fault": {"drop": "after_apply"}},
        {"match": {"method": "POST", "path": "/api/v1/*"}, "when": chance(0.15, 9), "fault": {"delay_ms": 8000}},
        {"match": {"method": "POST", "path": "/api/v1/*"}, "when": chance(0.08, 10), "fault": {"status": 409, "body": {"error": "soak: \u001b]0;pwned\u0007 refused"}}},
        {"match": {"method": "POST", "path": "/api/v1/*"}, "when": chance(0.05, 11), "fault": {"status": 500}},
        {"match": {"method": "POST", "path": "/api/v1/*"}, "when": chance(0.05, 12), "fault": {"drop": "after_apply"}},
    ]
}
plan_path = os.path.join(root, "faults.json")
with open(plan_path, "w") as f:
    json.dump(plan, f)

KEYS = {
    b"\t": 6, b"\x1b[Z": 3, b"j": 10, b"k": 8, b"\r": 6, b"\x1b": 5, b"r": 3, b"L": 2,
    b"c": 4, b"t": 2, b"p": 2, b"?": 1, b"\x1b[5~": 2, b"\x1b[6~": 2, b"\x1b[A": 2,
    b"\x1b[B": 2, b"\x13": 1, b"\x04": 1, b"\x12": 1, b"\x06": 1, b"\x0e": 1, b"\x0f": 1,
    b"\x15": 2, b"/": 1, b"n": 1, b"N": 1, b"f": 1, b"s": 1, b"w": 1, b"y": 1, b"a": 1,
    b"e": 1, b"g": 1, b"x": 1, b"u": 1, b"[": 1, b"]": 1, b"o": 1, b"i": 1,
}
KEY_LIST, KEY_WEIGHTS = zip(*KEYS.items())
WORDS = ["hello", "status?", "long reply please", "안녕", "👋", "check the board", "ping"]

# ---------------------------------------------------------------- the process and its PTY

proc = {"pid": None, "fd": None, "started": 0.0}
failures = []
stats = {"kills": 0, "kills_mid_save": 0, "keys": 0, "bytes": 0, "restarts": 0,
         "rss_max": 0.0, "rss_at_2min": None, "rows_checked": 0}
out_tail = b""


def fail(what):
    print(f"FAIL {time.strftime('%H:%M:%S')} {what}", flush=True)
    failures.append(what)


def start():
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.update({"TERM": "xterm-256color", "EDITOR": "true", "VISUAL": "true",
                           "RUST_BACKTRACE": "0"})
        os.execv(binary, [binary, "demo", "--data", data, "--state-dir", state,
                          "--faults", plan_path])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    os.kill(pid, signal.SIGWINCH)
    proc.update(pid=pid, fd=fd, started=time.monotonic())


# ---------------------------------------------------------------- escape-byte check

SEQ = re.compile(
    rb"\x1b\[[0-?]*[ -/]*[@-~]"          # CSI
    rb"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC
    rb"|\x1bP[^\x1b]*\x1b\\"              # DCS
    rb"|\x1b[78=>Mc]"                      # short escapes
    rb"|\x1b[()][0-9A-Za-z]"               # charset
)
C0_OK = set(b"\x08\t\n\r\x07")
pending = b""


def check_bytes(chunk):
    """Strips well-formed sequences; any ESC or C0 byte left is stray. A sequence cut at the
    chunk's end waits for the next chunk."""
    global pending
    buf = pending + chunk
    pending = b""
    cut = buf.rfind(b"\x1b")
    if cut != -1 and len(buf) - cut < 64 and not SEQ.match(buf, cut):
        buf, pending = buf[:cut], buf[cut:]
    rest = SEQ.sub(b"", buf)
    for i, b in enumerate(rest):
        if b == 0x1b or (b < 0x20 and b not in C0_OK) or b == 0x7f:
            fail(f"stray control byte 0x{b:02x} near {rest[max(0, i - 30):i + 30]!r}")
            return


def read_out(timeout):
    global out_tail
    fd = proc["fd"]
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:
            return
        if not chunk:
            return
        stats["bytes"] += len(chunk)
        check_bytes(chunk)
        out_tail = (out_tail + chunk)[-400_000:]
        if b"panicked" in chunk:
            fail("panic text in the terminal output")


# ---------------------------------------------------------------- invariants

def rss_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as s:
            for line in s:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def alive():
    pid, status = os.waitpid(proc["pid"], os.WNOHANG)
    if pid == 0:
        return True
    fail(f"the process exited by itself: status {status:#x} "
         f"(exit {os.waitstatus_to_exitcode(status)})")
    return False


def outbox_rows():
    if not os.path.exists(outbox_path):
        return {}
    try:
        db = sqlite3.connect(f"file:{outbox_path}?mode=ro", uri=True, timeout=5)
        rows = db.execute("SELECT save_id, kind, state, session FROM saves").fetchall()
        db.close()
    except sqlite3.Error as e:
        print(f"outbox read: {e}")
        return None
    return {r[0]: r for r in rows}


OPEN = ("written", "sending", "accepted")


def kill_mid_save():
    """Waits up to 20 s for a save in flight (keys keep coming), then SIGKILL."""
    deadline = time.monotonic() + 20
    mid = False
    while time.monotonic() < deadline:
        rows = outbox_rows() or {}
        session_rows = [r for r in rows.values() if r[2] in OPEN]
        if session_rows:
            mid = True
            break
        press_random(5)
        read_out(0.2)
    before = outbox_rows() or {}
    os.kill(proc["pid"], signal.SIGKILL)
    os.waitpid(proc["pid"], 0)
    os.close(proc["fd"])
    stats["kills"] += 1
    stats["kills_mid_save"] += mid
    print(f"{time.strftime('%H:%M:%S')} killed pid {proc['pid']} "
          f"({'a save in flight' if mid else 'no save in flight'}; {len(before)} outbox rows)",
          flush=True)
    return before


def after_restart(before):
    """Every row the killed process left is still there; 60 s later none of an earlier session
    is open except chat sends."""
    rows = outbox_rows() or {}
    lost = [k for k in before if k not in rows]
    if lost:
        fail(f"outbox rows lost across the restart: {lost}")
    stats["rows_checked"] += len(before)


def press(key):
    try:
        os.write(proc["fd"], key)
        stats["keys"] += 1
    except OSError:
        pass


def press_random(n):
    for _ in range(n):
        if rng.random() < 0.08:
            press(rng.choice(WORDS).encode() + b"\r")
        else:
            press(rng.choices(KEY_LIST, KEY_WEIGHTS)[0])
        read_out(rng.uniform(0.02, 0.25))


# ---------------------------------------------------------------- the run

print(f"soak: {binary}, {minutes} min, seed {seed}, kill every {kill_every:.0f} s; dir {root}")
print(f"fault plan: {plan_path}")
start()
read_out(5)
t0 = time.monotonic()
last_kill = t0
restart_check = None  # (time, session rows before) for the 60 s check
while time.monotonic() - t0 < minutes * 60:
    press_random(10)
    if not alive():
        start()
        stats["restarts"] += 1
        read_out(3)
        continue
    r = rss_mib(proc["pid"])
    if r is not None:
        stats["rss_max"] = max(stats["rss_max"], r)
        age = time.monotonic() - proc["started"]
        if r > rss_limit:
            fail(f"RSS {r:.0f} MiB over {rss_limit:.0f}")
        if stats["rss_at_2min"] is None and age > 120:
            stats["rss_at_2min"] = r
        elif stats["rss_at_2min"] and age > 120 and r > 2 * stats["rss_at_2min"]:
            fail(f"RSS grew {stats['rss_at_2min']:.0f} -> {r:.0f} MiB")
    if restart_check and time.monotonic() - restart_check[0] > 60:
        killed_session = restart_check[1]
        rows = outbox_rows() or {}
        stuck = [r for r in rows.values()
                 if r[3] in killed_session and r[2] in OPEN and r[1] != "chat_send"]
        if stuck:
            fail(f"rows of the killed session still open 60 s after the restart: {stuck}")
        restart_check = None
    if time.monotonic() - last_kill > kill_every:
        before = kill_mid_save()
        start()
        stats["restarts"] += 1
        read_out(3)
        after_restart(before)
        # The kill's session: any session present before, other than those seen open now.
        restart_check = (time.monotonic(), {r[3] for r in before.values()})
        last_kill = time.monotonic()

# ---------------------------------------------------------------- quit and the terminal

press(b"\x15")
for _ in range(4):
    press(b"\x1b")
    read_out(0.3)
press(b"q")
read_out(0.3)
press(b"q")
deadline = time.monotonic() + 30
status = None
while time.monotonic() < deadline:
    read_out(0.5)
    pid, st = os.waitpid(proc["pid"], os.WNOHANG)
    if pid:
        status = st
        break
if status is None:
    fail("q q did not end the process within 30 s")
    os.kill(proc["pid"], signal.SIGKILL)
    os.waitpid(proc["pid"], 0)
else:
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        fail(f"q q ended with exit {code}")
tail = out_tail[-4000:]
if b"\x1b[?1049l" not in tail:
    fail("the alternate screen was not left at exit")
if b"\x1b[?25h" not in tail:
    fail("the cursor was not shown again at exit")
try:
    attrs = termios.tcgetattr(proc["fd"])
    if not (attrs[3] & termios.ICANON and attrs[3] & termios.ECHO):
        fail("the tty was left without canonical mode and echo")
except termios.error:
    pass
logs = os.path.join(data, ".masc", "logs")
if os.path.isdir(logs):
    for name in os.listdir(logs):
        with open(os.path.join(logs, name), errors="replace") as f:
            if "panicked" in f.read():
                fail(f"panic in {name}")
elapsed = (time.monotonic() - t0) / 60
print(
    f"soak: {elapsed:.1f} min, {stats['keys']} keys, {stats['bytes'] / 1e6:.1f} MB of output, "
    f"{stats['kills']} kills ({stats['kills_mid_save']} with a save in flight), "
    f"{stats['restarts']} restarts, {stats['rows_checked']} outbox rows checked across restarts, "
    f"peak RSS {stats['rss_max']:.0f} MiB (at 2 min: {stats['rss_at_2min'] or 0:.0f} MiB), "
    f"{len(failures)} failures"
)
for f in failures:
    print(f"  - {f}")
sys.exit(1 if failures else 0)
