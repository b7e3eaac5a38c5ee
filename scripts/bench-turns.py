#!/usr/bin/env python3
"""Runs commands in turns (A B C, A B C, ...) and prints each one's median wall and CPU time.

Taking turns keeps a drift in machine speed (other guests, frequency) from landing on one tool,
which back-to-back blocks of runs (hyperfine's order) do not. stdout/stderr go to /dev/null.
Usage: bench-turns.py [--pairs] RUNS WARMUP UNIT NAME=COMMAND... (the last one is the base of
the ratios; with --pairs each command's base is the one after it: A against B, C against D, so
two builds' ratios to their own plain runs come from one run; UNIT is how many requests one run
makes, for requests/s, or 0).

`{turn}` in a command is replaced by the turn's number (outputs that are new files each turn).

Two ratios to the base: of the medians, and the median of each turn's own ratio (the pair of
runs next to each other in one turn: a drift slower than a turn cancels out of it).
"""
import os, shlex, statistics, sys, time

args = sys.argv[1:]
pairs = bool(args) and args[0] == "--pairs"
if pairs:
    args = args[1:]
runs, warmup, unit = int(args[0]), int(args[1]), int(args[2])
named = [arg.split("=", 1) for arg in args[3:]]
if pairs and len(named) % 2:
    sys.exit("bench-turns: --pairs needs an even number of commands")
devnull = os.open(os.devnull, os.O_RDWR)
wall = {name: [] for name, _ in named}
cpu = {name: [] for name, _ in named}
for turn in range(warmup + runs):
    for name, command in named:
        argv = shlex.split(command.replace("{turn}", str(turn)))
        start = time.perf_counter()
        pid = os.posix_spawnp(argv[0], argv, os.environ,
                              file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
        _, status, usage = os.wait4(pid, 0)
        elapsed = time.perf_counter() - start
        if status != 0:
            sys.exit(f"{name} failed (wait status {status}): {command}")
        if turn >= warmup:
            wall[name].append(elapsed)
            cpu[name].append(usage.ru_utime + usage.ru_stime)
for i, (name, _) in enumerate(named):
    base = named[i + 1 - i % 2][0] if pairs else named[-1][0]
    bw, bc = statistics.median(wall[base]), statistics.median(cpu[base])
    w, c = statistics.median(wall[name]), statistics.median(cpu[name])
    rate = f"{unit / w:8.0f} req/s" if unit else ""
    pw = statistics.median(a / b for a, b in zip(wall[name], wall[base]))
    pc = statistics.median(a / b for a, b in zip(cpu[name], cpu[base]))
    print(f"  {name:22s} median {w * 1000:8.2f} ms {rate}  cpu {c * 1000:7.2f} ms   ratio to {base}: wall {w / bw:4.2f}x, cpu {c / bc:4.2f}x;"
          f" median of pairs: wall {pw:5.3f}x, cpu {pc:5.3f}x")
