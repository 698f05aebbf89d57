#!/usr/bin/env python3
"""Start-up: process start -> first frame, -> first roster rows painted (docs/performance.md).

Two ways a session starts, each RUNS times in a 120x40 pseudo-terminal:

* `serve`: a `masc-tui serve` already runs on loopback (started once, untimed); the TUI is
  started with its URL, token and base path, as an operator does.
* `demo-data`: `masc-tui demo --data DIR` on a data directory an earlier run created (the
  embedded server starts inside the timed process, the seed is reused).

For each run it times, from just before `exec`:
* `frame`: the end of the first synchronized-output frame (`CSI ?2026l`, its last byte);
* `rows`: the end of the first frame that holds a roster row (the seeded Keeper `rondo`).

Prints one line per mode (median, p90, min over the runs, in ms) and, with `--json`, one JSON
object. The figures include `exec`, the dynamic loader and the terminal set-up, as an operator
sees them; the machine's load average is printed beside them (the benches of docs/performance.md
are compared back to back, never against a figure from another load).

    cargo build --release
    python3 benches/startup.py target/release/masc-tui [RUNS=15] [--json] [--only serve|demo-data]
"""
import fcntl
import json
import os
import pty
import re
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time

COLS, ROWS = 120, 40
FRAME_END = b"\x1b[?2026l"
ROSTER_ROW = b"rondo"
LIMIT_S = 10.0


def spawn(binary, args, env):
    """Forks `binary args` on a new PTY; returns (pid, fd, t0) with t0 taken just before exec."""
    t0 = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(binary, [binary] + args, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    return pid, fd, t0


def time_first_frames(pid, fd, t0):
    """Reads the PTY until a frame with a roster row ends; returns (frame_ms, rows_ms)."""
    seen = b""
    frame_ms = rows_ms = None
    frame_start = 0
    deadline = t0 + LIMIT_S
    while rows_ms is None and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:
            break
        now = time.monotonic()
        if not chunk:
            break
        seen += chunk
        while (end := seen.find(FRAME_END, frame_start)) >= 0:
            frame = seen[frame_start:end]
            frame_start = end + len(FRAME_END)
            if frame_ms is None:
                frame_ms = (now - t0) * 1000
            if ROSTER_ROW in frame:
                rows_ms = (now - t0) * 1000
                break
    return frame_ms, rows_ms


def stop(pid, fd):
    try:
        os.write(fd, b"qq")
    except OSError:
        pass
    end = time.monotonic() + 3
    while time.monotonic() < end:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                os.read(fd, 1 << 16)
            except OSError:
                pass
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    os.close(fd)


def start_serve(binary, work):
    data = os.path.join(work, "served")
    proc = subprocess.Popen(
        [binary, "serve", "--data", data, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ, HOME=work),
    )
    line = proc.stdout.readline().decode()
    found = dict(re.findall(r"(MASC_\w+)=(\S+)", line))
    if "MASC_URL" not in found:
        proc.kill()
        sys.exit(f"serve printed no MASC_URL line: {line!r}")
    return proc, found


def run_mode(binary, mode, runs, work):
    env = dict(os.environ, TERM="xterm-256color", HOME=work)
    env.pop("MASC_TOKEN", None)
    server = None
    if mode == "serve":
        server, found = start_serve(binary, work)
        args = ["--url", found["MASC_URL"], "--token", found["MASC_TOKEN"],
                "--base-path", found["MASC_BASE_PATH"], "--no-mouse"]
    else:
        data = os.path.join(work, "demo-data")
        args = ["demo", "--data", data, "--no-mouse"]
    frames, rows = [], []
    try:
        # One untimed run first: the demo creates and seeds its data directory, the page cache
        # holds the binary; every timed run then starts the same way.
        for i in range(runs + 1):
            state = tempfile.mkdtemp(prefix="state-", dir=work)
            pid, fd, t0 = spawn(binary, args + ["--state-dir", state], env)
            frame_ms, rows_ms = time_first_frames(pid, fd, t0)
            stop(pid, fd)
            shutil.rmtree(state, ignore_errors=True)
            if i == 0:
                continue
            if frame_ms is not None:
                frames.append(frame_ms)
            if rows_ms is not None:
                rows.append(rows_ms)
    finally:
        if server is not None:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(timeout=5)
            except subprocess.TimeoutExpired:
                server.kill()
    return frames, rows


def summary(values):
    if not values:
        return None
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]
    return {"median": round(statistics.median(ordered), 1), "p90": round(p90, 1),
            "min": round(ordered[0], 1), "n": len(ordered)}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = [a for a in sys.argv[1:] if a.startswith("--")]
    binary = os.path.abspath(args[0])
    runs = int(args[1]) if len(args) > 1 else 15
    modes = ["serve", "demo-data"]
    if "--only" in sys.argv:
        modes = [sys.argv[sys.argv.index("--only") + 1]]
    work = tempfile.mkdtemp(prefix="masc-tui-startup-")
    load = os.getloadavg()[0]
    report = {"load_1m": round(load, 2)}
    try:
        for mode in modes:
            frames, rows = run_mode(binary, mode, runs, work)
            report[mode] = {"first_frame_ms": summary(frames), "roster_rows_ms": summary(rows)}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if "--json" in flags:
        print(json.dumps(report))
        return
    print(f"load average (1 min) {report['load_1m']}")
    goals = {"serve": (15, 40), "demo-data": (15, 30)}
    for mode in modes:
        entry = report[mode]
        frame_goal, rows_goal = goals[mode]
        for key, goal in (("first_frame_ms", frame_goal), ("roster_rows_ms", rows_goal)):
            s = entry[key]
            text = "none within the limit" if s is None else (
                f"median {s['median']} ms, p90 {s['p90']} ms, min {s['min']} ms (n={s['n']})")
            print(f"{mode:9} {key:15} {text}  goal <= {goal} ms")


if __name__ == "__main__":
    main()
