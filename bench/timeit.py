#!/usr/bin/env python3
"""timeit.py - wall time of whole processes, measured the same way for every command.

usage: bench/timeit.py [-n RUNS] [--timeout T] [--stdout FILE] -- COMMAND [ARGS...]

Runs COMMAND RUNS times (default 1) and prints four numbers on one line: the least
wall time in seconds (time.perf_counter around the process, from spawn to exit; the
interpreter's start-up is not in it), the first nonzero exit status (0 when every run
succeeded), the largest peak resident set of the runs in KiB (getrusage) and the least
CPU time in seconds (user + system of the process and anything it waited for, from
getrusage(RUSAGE_CHILDREN) around each run). The benchmark scripts time ilpart and its
baselines through this one harness, so that a `date` spawned by the shell around a 5 ms
process does not weigh more than the process itself. On a shared machine the CPU time
is the steadier number: wall time there is mostly waiting for a core.

--timeout T: SIGINT after T seconds (CBC then prints its incumbent and gap), SIGKILL 10 s
later; the time includes the wait. --stdout FILE: the last run's standard output (and
error) go to FILE instead of /dev/null.
"""
import argparse
import resource
import signal
import subprocess
import sys
import time


def cpu_children():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run_once(cmd, timeout, out):
    c0 = cpu_children()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
    try:
        rc = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)
        try:
            rc = proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = proc.wait()
    return time.perf_counter() - t0, rc, cpu_children() - c0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=1, help="runs; the least time is printed")
    ap.add_argument("--timeout", type=float, default=None)
    ap.add_argument("--stdout", default=None)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd or a.n < 1:
        ap.error("expected -n >= 1 and a command after --")
    best, best_cpu, status = None, None, 0
    for k in range(a.n):
        if a.stdout is not None and k == a.n - 1:
            with open(a.stdout, "wb") as out:
                t, rc, cpu = run_once(cmd, a.timeout, out)
        else:
            t, rc, cpu = run_once(cmd, a.timeout, subprocess.DEVNULL)
        if best is None or t < best:
            best = t
        if best_cpu is None or cpu < best_cpu:
            best_cpu = cpu
        if status == 0:
            status = rc
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print("%.6f %d %d %.6f" % (best, status, rss, best_cpu))
    return 0


if __name__ == "__main__":
    sys.exit(main())
