#!/usr/bin/env bash
# Request items must cost linear time: 10k and 80k `key=value` items built and printed with
# --offline (nothing is sent). Reports seconds per run. Env: SWURL.
set -euo pipefail
SWURL=${SWURL:-.build/release/swurl}
python3 - "$SWURL" <<'PY'
import subprocess, sys, time
for n in (10000, 80000):
    args = [sys.argv[1], "--offline", "POST", ":9/x"] + [f"k{i}=v" for i in range(n)]
    t = time.time()
    r = subprocess.run(args, stdout=subprocess.DEVNULL)
    print(f"request items  {n:>6}  {time.time() - t:6.2f} s  (exit {r.returncode})")
PY
