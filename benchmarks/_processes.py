"""Measuring in several fresh processes: on a shared machine the same code runs at a different speed in
each process (where its memory lands: a hand-written NumPy step took 511 us in one process and 1052 us
in the next), so one process's ratio can be off by more than a target's margin. A benchmark runs its
rounds in ``n`` fresh copies of itself (``--child``: print the round times as JSON and stop) and
merges them: every contender keeps its best round over all processes, and each process's own ratios
are printed beside it.

Example (in a benchmark's ``main``)::

    if args.child:
        print_child_times(measure(args))
        return
    times, per_process = merged_times(args.processes, measure, args)
"""
import argparse
import json
import os
import subprocess
import sys

__all__ = ["add_process_args", "print_child_times", "merged_times"]

_MARK = "ROUND-TIMES "


def add_process_args(ap, default=3):
    """The ``--processes`` option (and the hidden ``--child`` a parent passes its children)."""
    ap.add_argument("--processes", type=int, default=default,
                    help=f"fresh processes to measure in, each contender keeping its best round over all "
                         f"(default {default}; 1: this process only)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)


def print_child_times(times):
    """Print ``times`` (``{contender key (a string): [seconds per round]}``) for the parent."""
    print(_MARK + json.dumps(times), flush=True)


def merged_times(n, measure, args):
    """``(times, per_process)``: ``measure(args)``'s ``{key: [seconds per round]}`` from ``n`` fresh
    processes of the running script (``--child``), the rounds of all of them listed together (their
    order kept: round ``i`` of a process ran its contenders back to back), and the list of each
    process's own ``times``. With ``n`` <= 1: this process's only."""
    if n <= 1:
        times = measure(args)
        return times, [times]
    per_process = []
    for k in range(n):
        cmd = [sys.executable, os.path.abspath(sys.argv[0])] + sys.argv[1:] + ["--child", "--processes", "1"]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        lines = [line for line in done.stdout.splitlines() if line.startswith(_MARK)]
        if done.returncode != 0 or not lines:
            sys.exit(f"process {k + 1} of {n} failed (rc {done.returncode}):\n{done.stdout}\n{done.stderr}")
        per_process.append(json.loads(lines[-1][len(_MARK):]))
    times = {key: [t for p in per_process for t in p[key]] for key in per_process[0]}
    return times, per_process
