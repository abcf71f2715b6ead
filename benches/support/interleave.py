#!/usr/bin/env python3
"""Interleaved whole-process timing for benches/compare.sh.

    interleave.py SPEC.json ROUNDS OUT.json

SPEC is a list of {"name", "argv", "stdout" (file or null), "prepare": {"empty": [dirs],
"mkdir": [dirs]}}. Each round runs every command once, in turn (so a busy moment of the shared
machine hits every tool alike), after its untimed preparation. A command is started with
posix_spawn and timed from spawn to exit; no shell. OUT gets, for each, the median wall time
(ms) and the median CPU time (user + system, ms, from wait4): on a machine shared with other work,
wall time measures the load as much as the tool, CPU time much less so.
"""
import json
import os
import shutil
import statistics
import sys
import time


def prepare(step):
    for d in step.get("empty", []):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d, exist_ok=True)
    for d in step.get("mkdir", []):
        os.makedirs(d, exist_ok=True)


def run_once(cmd):
    actions = []
    out = cmd.get("stdout") or os.devnull
    actions.append((os.POSIX_SPAWN_OPEN, 1, out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644))
    actions.append((os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0))
    start = time.perf_counter_ns()
    pid = os.posix_spawn(cmd["argv"][0], cmd["argv"], os.environ, file_actions=actions)
    _, status, usage = os.wait4(pid, 0)
    elapsed = time.perf_counter_ns() - start
    if os.waitstatus_to_exitcode(status) not in cmd.get("ok", [0]):
        sys.exit(f"{cmd['name']}: {' '.join(cmd['argv'])} failed ({status})")
    return elapsed / 1e6, (usage.ru_utime + usage.ru_stime) * 1000


def main():
    spec_file, rounds, out_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    spec = json.load(open(spec_file))
    times = {c["name"]: [] for c in spec}
    cpu = {c["name"]: [] for c in spec}
    for cmd in spec:  # one untimed warm-up each
        prepare(cmd.get("prepare", {}))
        run_once(cmd)
    for _ in range(rounds):
        for cmd in spec:
            prepare(cmd.get("prepare", {}))
            wall, used = run_once(cmd)
            times[cmd["name"]].append(wall)
            cpu[cmd["name"]].append(used)
    result = {n: statistics.median(t) for n, t in times.items()}
    result.update({f"cpu:{n}": statistics.median(t) for n, t in cpu.items()})
    json.dump(result, open(out_file, "w"))


if __name__ == "__main__":
    main()
