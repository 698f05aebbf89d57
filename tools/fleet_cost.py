#!/usr/bin/env python3
"""Background cost of a fleet (docs/performance.md "Several workspaces"): `masc-tui demo
--workspaces N` in a 120x32 pseudo-terminal, left idle on the Keepers surface for SECONDS after
the roster painted. Prints one JSON line: the process's RSS at the end and its peak (VmHWM),
and per minute the reads dispatched — the session's own sources (every `dispatch` stage event
that is not the fleet's) and each workspace's fleet rounds (`fleet:<name>`, five requests each).

    pip install pyte
    python3 tools/fleet_cost.py target/debug/masc-tui 10 180
"""
import collections, fcntl, json, os, pty, select, struct, sys, tempfile, termios, time

import pyte

COLS, ROWS = 120, 32


def rss(pid: int) -> dict:
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) // 1024
    return out


def main() -> None:
    binary, count, idle = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    work = tempfile.mkdtemp(prefix="masc-tui-fleet-cost-")
    trace = f"{work}/trace.jsonl"
    args = [binary, "demo", "--no-mouse", "--workspaces", str(count), "--trace-file", trace]
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(binary, args, dict(os.environ, TERM="xterm-256color", HOME=work))
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    screen = pyte.Screen(COLS, ROWS)
    stream = pyte.ByteStream(screen)

    def text() -> str:
        return "\n".join("".join(screen.buffer[y][x].data for x in range(COLS)) for y in range(ROWS))

    def until(pred, limit):
        end = time.time() + limit
        while time.time() < end:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if ready:
                try:
                    stream.feed(os.read(fd, 65536))
                except OSError:
                    return False
            if pred():
                return True
        return False

    painted = until(lambda: "[Keepers]" in text() and "rondo" in text(), 90)
    began = time.time()
    until(lambda: False, idle)
    minutes = (time.time() - began) / 60
    memory = rss(pid)
    os.write(fd, b"qq")
    until(lambda: False, 2)
    try:
        os.kill(pid, 9)
    except OSError:
        pass
    # Dispatches after the roster painted, per source.
    per_source = collections.Counter()
    first = None
    with open(trace) as f:
        for line in f:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            fields = event.get("fields", event)
            if fields.get("stage") != "dispatch":
                continue
            source = str(fields.get("source", "?"))
            at = event.get("timestamp") or fields.get("t_ms")
            per_source[source] += 1
            first = first or at
    fleet = {s: n for s, n in per_source.items() if s.startswith("fleet:")}
    own = {s: n for s, n in per_source.items() if not s.startswith("fleet:")}
    print(json.dumps({
        "workspaces": count,
        "painted": painted,
        "idle_s": round(minutes * 60),
        "rss_mib": memory.get("VmRSS"),
        "peak_rss_mib": memory.get("VmHWM"),
        "own_dispatches_total": sum(own.values()),
        "own_by_source": dict(sorted(own.items())),
        "fleet_rounds": dict(sorted(fleet.items())),
        "trace": trace,
    }))


if __name__ == "__main__":
    main()
