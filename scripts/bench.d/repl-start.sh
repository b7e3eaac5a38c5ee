#!/usr/bin/env bash
# `swurl repl` start to prompt, whole process, on a pseudo-terminal (python's pty): the time from
# fork to the first "> " on the terminal, median of N runs; then Ctrl-D. Env: SWURL, PORT (httpbin).
set -euo pipefail
SWURL=${SWURL:-.build/release/swurl}
PORT=${PORT:-8080}
N=${REPL_RUNS:-30}
echo "== swurl repl: start to prompt under a pty"
python3 - "$SWURL" "http://127.0.0.1:$PORT/api" "$N" <<'PY'
import os, pty, sys, time, select, statistics, tempfile
binary, base, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
state = tempfile.mkdtemp()
times = []
for _ in range(n):
    t0 = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(binary, [binary, "repl", base], dict(os.environ, XDG_STATE_HOME=state, TERM="xterm"))
    buf = b""
    while b"> " not in buf:
        r, _, _ = select.select([fd], [], [], 5)
        if not r:
            sys.exit("no prompt within 5 s")
        buf += os.read(fd, 4096)
    times.append(time.perf_counter() - t0)
    os.write(fd, b"\x04")
    os.waitpid(pid, 0)
    os.close(fd)
print(f"  repl    median {statistics.median(times)*1000:7.2f} ms   min {min(times)*1000:.2f} ms   max {max(times)*1000:.2f} ms  ({n} runs)")
PY
