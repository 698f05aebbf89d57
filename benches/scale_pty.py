#!/usr/bin/env python3
"""The scale row of docs/performance.md, through a PTY and the real binary (by hand, not cargo bench).

Starts `masc-tui demo --scale` (5,000 Keepers, 20,000 Tasks, a 100,000-message chat) in a
200x60 pseudo-terminal, lets it settle on the Keepers screen, then presses `j` KEYS times, each
after a quiet gap, and times key -> the end of the synchronized-output frame it caused
(`CSI ?2026l`, the last byte of the frame). Prints p50/p99/max and the process's peak RSS
(VmHWM; the embedded server runs in the same process).

The roster route answers at most 200 rows (protocol.md §4.1), so the roster has a last row: a
`j` there moves nothing and paints nothing (T.2). Before the selection would reach it the bench
presses Home (untimed, its frame drained), so every timed `j` moves the selection. The roster
length is read from the title (`KEEPERS <n>`). A key that still paints nothing within 0.5 s is
reported with its number.

    cargo build --release
    python3 benches/scale_pty.py target/release/masc-tui [KEYS=200] [SETTLE_SECS=35]
"""
import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import tempfile
import termios
import time

binary = sys.argv[1]
keys = int(sys.argv[2]) if len(sys.argv) > 2 else 200
settle = float(sys.argv[3]) if len(sys.argv) > 3 else 35
data = tempfile.mkdtemp(prefix="masc-tui-scale-")
pid, fd = pty.fork()
if pid == 0:
    os.environ["TERM"] = "xterm-256color"
    os.environ["XDG_STATE_HOME"] = data
    os.execv(binary, [binary, "demo", "--scale", "--data", data + "/ws"])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 60, 200, 0, 0))
os.kill(pid, signal.SIGWINCH)
END = b"\x1b[?2026l"


def drain(timeout):
    """Reads (and drops) output until `timeout` seconds pass without the deadline moving."""
    out = b""
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            break
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    return out


def peak_rss_mib():
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


seen = b""
start = time.monotonic()
while time.monotonic() - start < settle:
    seen = (seen + drain(1.0))[-200_000:]
titles = re.findall(rb"KEEPERS (\d+)", seen)
rows = int(titles[-1]) if titles else 200
print(
    f"settled {settle:.0f} s on the Keepers screen: {b'KEEPERS' in seen}; {rows} roster rows; "
    f"peak RSS {peak_rss_mib():.1f} MiB"
)
HOME = b"\x1b[H"
latencies = []
unpainted = []
selected = rows - 1  # unknown: go to the top first
for n in range(1, keys + 1):
    if selected >= rows - 1:
        os.write(fd, HOME)  # back to the top, untimed
        drain(0.2)
        selected = 0
    drain(0.03)  # a quiet gap; background frames are dropped
    pressed = time.monotonic()
    os.write(fd, b"j")
    frame = b""
    while END not in frame:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not ready:
            break
        frame += os.read(fd, 1 << 16)
    selected += 1
    if END in frame:
        latencies.append((time.monotonic() - pressed) * 1000)
    else:
        unpainted.append(n)
latencies.sort()


def pct(p):
    return latencies[min(len(latencies) - 1, int(len(latencies) * p))]


print(
    f"j x{len(latencies)} ({len(unpainted)} painted nothing within 0.5 s: {unpainted}): key -> last byte of the "
    f"frame p50 {pct(0.5):.2f} ms, p99 {pct(0.99):.2f} ms, max {latencies[-1]:.2f} ms; "
    f"peak RSS {peak_rss_mib():.1f} MiB"
)
os.write(fd, b"qq")
time.sleep(1)
try:
    os.kill(pid, signal.SIGKILL)
except ProcessLookupError:
    pass
