#!/usr/bin/env python3
"""The performance gate: the headline benches in one command, each figure against its goal.

    python3 tools/perf-gate.py            # builds the release binary and the benches first
    python3 tools/perf-gate.py --quick    # shorter windows (about 2 minutes after the build)

Runs, in this order (about 4 minutes after the build on an idle 2-core machine):
  start-up     benches/startup.py: first frame and first roster rows, `serve` and `demo --data`
  key → paint  cargo bench --bench key_to_paint: p99 of every key class, 1,000 Keepers
  scale        benches/scale_pty.py: `j` → last byte at 5,000 Keepers / 20,000 Tasks
  churn        cargo bench --bench churn: view-actor CPU, terminal bytes/s, RSS drift
  streaming    cargo bench --bench streaming: CPU, frames/s, p99 frame, RSS drift
  idle         cargo bench --bench idle: requests per minute on the Keepers screen
  binary       the size of target/dist/masc-tui when it was built (`--dist` builds it)

Prints one line per figure: its value, its goal, `met` / `MISSED`, and the load average it was
measured under (the goals are for an idle machine: compare a missed figure with a baseline run
back to back before calling it a regression). Exit status 1 when a figure missed its goal, 2
when a bench could not run.
"""
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUICK = "--quick" in sys.argv
DIST = "--dist" in sys.argv
RESULTS = []
FAILED_TO_RUN = []


def load():
    return os.getloadavg()[0]


def run(cmd, env=None, timeout=900):
    started = time.time()
    proc = subprocess.run(
        cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
        env=dict(os.environ, **(env or {})),
    )
    took = time.time() - started
    if proc.returncode != 0:
        FAILED_TO_RUN.append(f"{' '.join(cmd)} (exit {proc.returncode}): {proc.stderr[-400:]}")
    return proc.stdout, took


def figure(name, value, goal, unit, met):
    RESULTS.append((name, value, goal, unit, met, load()))


def number(pattern, text, group=1):
    m = re.search(pattern, text)
    return float(m.group(group)) if m else None


def start_up(binary):
    out, _ = run([sys.executable, "benches/startup.py", binary, "6" if QUICK else "12"])
    for mode, rows_goal in (("serve", 40.0), ("demo-data", 30.0)):
        frame = number(rf"{mode}\s+first_frame_ms\s+median ([\d.]+)", out)
        rows = number(rf"{mode}\s+roster_rows_ms\s+median ([\d.]+)", out)
        figure(f"start-up {mode}: first frame (median)", frame, 15.0, "ms",
               frame is not None and frame <= 15.0)
        figure(f"start-up {mode}: roster rows (median)", rows, rows_goal, "ms",
               rows is not None and rows <= rows_goal)


def key_to_paint():
    out, _ = run(["cargo", "bench", "--locked", "--bench", "key_to_paint"],
                 env={"K2P_LIVE": "off"})
    p99 = number(r"all\s+n=\s*\d+\s+p50\s+[\d.]+ ms\s+p99\s+([\d.]+) ms", out)
    figure("key → paint p99, 1,000 Keepers, every GET stalled", p99, 1.0, "ms",
           p99 is not None and p99 <= 1.0)


def scale(binary):
    out, _ = run([sys.executable, "benches/scale_pty.py", binary,
                  "100" if QUICK else "200", "25" if QUICK else "35"])
    p99 = number(r"p99 ([\d.]+) ms", out)
    figure("key → paint p99 at 5,000 Keepers (PTY)", p99, 1.0, "ms",
           p99 is not None and p99 <= 1.0)


def churn():
    out, _ = run(["cargo", "bench", "--locked", "--bench", "churn"],
                 env={"CHURN_SECS": "45" if QUICK else "90", "CHURN_SETTLE_SECS": "10"})
    cpu = number(r"view actor CPU\s+([\d.]+) %", out)
    rate = number(r"to the terminal\s+([\d.]+) kB/s", out)
    start = number(r"RSS\s+start ([\d.]+) MiB", out)
    end = number(r"RSS\s+start [\d.]+ MiB, end ([\d.]+) MiB", out)
    figure("churn: view-actor CPU", cpu, 2.0, "% core", cpu is not None and cpu <= 2.0)
    figure("churn: bytes to the terminal", rate, 20.0, "kB/s", rate is not None and rate <= 20.0)
    drift = None if start is None or end is None else round((end - start) * 1.048576, 2)
    figure("churn: RSS drift over the window", drift, 2.0, "MB",
           drift is not None and abs(drift) <= 2.0)


def streaming():
    out, _ = run(["cargo", "bench", "--locked", "--bench", "streaming"],
                 env={"STREAM_SECS": "45" if QUICK else "90"})
    cpu = number(r"CPU\s+([\d.]+) %", out)
    fps = number(r"frames\s+([\d.]+)/s", out)
    p99 = number(r"frame p99\s+([\d.]+) ms", out)
    start = number(r"RSS\s+start ([\d.]+) MiB", out)
    end = number(r"RSS\s+start [\d.]+ MiB, end ([\d.]+) MiB", out)
    figure("streaming: view-actor CPU", cpu, 3.0, "% core", cpu is not None and cpu <= 3.0)
    figure("streaming: frames per second", fps, 60.0, "/s", fps is not None and fps <= 60.0)
    figure("streaming: p99 frame", p99, 1.0, "ms", p99 is not None and p99 <= 1.0)
    drift = None if start is None or end is None else round((end - start) * 1.048576, 2)
    figure("streaming: RSS drift over the window", drift, 2.0, "MB",
           drift is not None and abs(drift) <= 2.0)


def idle():
    out, _ = run(["cargo", "bench", "--locked", "--bench", "idle"],
                 env={"IDLE_SECS": "30" if QUICK else "60", "IDLE_SETTLE_SECS": "10"})
    per_min = number(r"([\d.]+) requests/min", out)
    figure("idle: requests per minute, Keepers screen", per_min, 30.0, "/min",
           per_min is not None and per_min <= 30.0)


def binary_size():
    path = os.path.join(ROOT, "target", "dist", "masc-tui")
    if DIST:
        run(["cargo", "build", "--locked", "--profile", "dist"], timeout=3600)
    if not os.path.exists(path):
        figure("installed binary (dist profile; --dist builds it)", None, 20.0, "MB", None)
        return
    size = os.path.getsize(path) / 1e6
    figure("installed binary (dist profile)", round(size, 1), 20.0, "MB", size <= 20.0)


def main():
    print(f"building (load average {load():.2f}) …", flush=True)
    run(["cargo", "build", "--release", "--locked"], timeout=3600)
    # The gate's benches by name: `--benches` (or no target) also builds the library's unit
    # tests in the bench profile, a second optimised build of the whole crate.
    run(["cargo", "bench", "--locked", "--no-run", "--bench", "key_to_paint", "--bench",
         "churn", "--bench", "streaming", "--bench", "idle"], timeout=3600)
    binary = os.path.join(ROOT, "target", "release", "masc-tui")
    started = time.time()
    for step in (lambda: start_up(binary), key_to_paint, lambda: scale(binary), churn,
                 streaming, idle, binary_size):
        step()
    width = max(len(r[0]) for r in RESULTS)
    print(f"\nperformance gate, {time.time() - started:.0f} s of benches"
          f"{' (quick windows)' if QUICK else ''}")
    missed = 0
    for name, value, goal, unit, met, at_load in RESULTS:
        shown = "—" if value is None else f"{value:g}"
        verdict = "not measured" if met is None else ("met" if met else "MISSED")
        missed += met is False
        print(f"  {name:<{width}}  {shown:>8} {unit:<6} goal {goal:g}  {verdict:<12} load {at_load:.2f}")
    for failure in FAILED_TO_RUN:
        print(f"  could not run: {failure}")
    if FAILED_TO_RUN:
        sys.exit(2)
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
