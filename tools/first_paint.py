#!/usr/bin/env python3
"""Time to the Board list's first paint under read failures (docs/performance.md).

Runs `masc-tui demo` in a 120x32 pseudo-terminal with a fault plan that answers a share of
every `/api/v1/` GET 503 (probability P, seed S: the same requests fail on every run), waits
for the Keepers roster, presses Tab and waits for the Board list's first post row. Prints one
JSON line: seconds from start to the roster and to the Board list (null: not within the limit).

    pip install pyte
    python3 tools/first_paint.py target/debug/masc-tui SEED P
"""
import fcntl, json, os, pty, select, struct, sys, tempfile, termios, time

import pyte

COLS, ROWS = 120, 32


def main() -> None:
    binary, seed, prob = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    work = tempfile.mkdtemp(prefix="masc-tui-first-paint-")
    plan = {"rules": [{"match": {"method": "GET", "path": "/api/v1/*"},
                       "when": {"probability": prob, "seed": seed},
                       "fault": {"status": 503, "body": {"error": "injected"}}}]}
    with open(f"{work}/faults.json", "w") as f:
        json.dump(plan, f)
    args = [binary, "demo", "--no-mouse"] + (["--faults", f"{work}/faults.json"] if prob > 0 else [])
    start = time.time()
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
            ready, _, _ = select.select([fd], [], [], 0.02)
            if ready:
                try:
                    stream.feed(os.read(fd, 65536))
                except OSError:
                    return None
            if pred():
                return time.time() - start
        return None

    roster = until(lambda: "[Keepers]" in text() and "rondo" in text(), 60)
    os.write(fd, b"\t")
    board = until(lambda: "[Board]" in text() and "post-" in text(), 90)
    print(json.dumps({"seed": seed, "prob": prob, "roster_s": roster, "board_list_s": board}))
    os.write(fd, b"qq")
    until(lambda: False, 1.5)
    try:
        os.kill(pid, 9)
    except OSError:
        pass


if __name__ == "__main__":
    main()
