#!/bin/sh
# vs_base.sh - this tree's ilpart (ILPART) against a baseline binary (BASE, e.g. main's
# build before a refactoring), side by side in one run on the same inputs: the solves of
# bench/solver_bench.sh (a budgeted 12-layer transformer stack, decomposed and
# --monolithic) and of bench/peak_bench.sh (`compare --peak` over the corpus and the
# 12-layer transformer).
#
# usage: BASE=/path/to/ilpart bench/vs_base.sh [-r ROUNDS] [-t SECONDS] [-s solver|peak|all]
#
# Each instance runs ROUNDS times per binary (default 3), the two interleaved and the
# order swapped every round, so load on a shared machine falls on both alike. Columns:
# the median CPU time (user + system of the child, getrusage) of each, new/base, and
# whether the two printed and wrote the same bytes (a refactoring must: "same").
# Last line per bench: the geometric mean of new/base. Prints numbers; never fails on
# them.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ILPART=${ILPART:-$here/../build/ilpart}
BASE=${BASE:?set BASE to the baseline ilpart binary}
exec python3 - "$here" "$BASE" "$ILPART" "$@" <<'PY'
import argparse, math, os, resource, shutil, statistics, subprocess, sys, tempfile
here, base, new = sys.argv[1:4]
ap = argparse.ArgumentParser(prog="vs_base.sh")
ap.add_argument("-r", type=int, default=3)
ap.add_argument("-t", default="60")
ap.add_argument("-s", default="all", choices=["solver", "peak", "all"])
a = ap.parse_args(sys.argv[4:])
tmp = tempfile.mkdtemp(prefix="ilpart-vs-base.")

def run(binary, args):
    """CPU seconds of one run, and everything it printed and wrote."""
    d = tempfile.mkdtemp(dir=tmp)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([binary] + args, cwd=d, capture_output=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    files = tuple(open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d)))
    # durations differ run to run: compare without lines that carry one
    err = b"\n".join(l for l in p.stderr.splitlines() if b" s" not in l and b"ms" not in l)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), \
        (p.returncode, p.stdout, err, files)

def bench(name, cases):
    print("%s: %-40s %9s %9s %7s %s" % (name, "case", "base_cpu", "new_cpu", "new/base",
                                         "output"), flush=True)
    logs = []
    for label, args in cases:
        tb, tn, outs = [], [], set()
        for r in range(a.r):
            order = [(base, tb), (new, tn)] if r % 2 == 0 else [(new, tn), (base, tb)]
            for binary, times in order:
                t, out = run(binary, args)
                times.append(t)
                # the peak search stops on the clock: its output may differ run to run
                outs.add(out if "--peak" not in args else out[0])
        mb, mn = statistics.median(tb), statistics.median(tn)
        ratio = mn / mb if mb > 0 else float("nan")
        logs.append(math.log(ratio) if ratio > 0 else 0)
        print("%s: %-40s %9.3f %9.3f %7.3f %s" % (name, label, mb, mn, ratio,
              "same" if len(outs) == 1 else "DIFFERENT"), flush=True)
    print("%s: geometric mean new/base %.3f over %d cases" % (
        name, math.exp(sum(logs) / len(logs)), len(logs)), flush=True)

if a.s in ("solver", "all"):
    g = os.path.join(tmp, "t12.json")
    subprocess.run([sys.executable, os.path.join(here, "gen_transformer.py"), "--layers",
                    "12", "-o", g], check=True)
    bench("solver_bench", [("t12 %s %s%s" % (b, f, " mono" if m else ""),
                            ["solve", g, "--bans", b, "--memory-budget", f, "--write-lp",
                             "m.lp", "-o", "p.json"] + m)
                           for m in ([], ["--monolithic"]) for b in ("none", "pytorch")
                           for f in ("0.1", "0.3", "0.5")])
if a.s in ("peak", "all"):
    corpus = os.path.join(here, "..", "tests", "data", "corpus")
    graphs = [os.path.join(corpus, f) for f in sorted(os.listdir(corpus))
              if f.endswith(".json")] + [os.path.join(here, "corpus", "transformer-12l.json")]
    bench("peak_bench", [("%s %s" % (os.path.basename(g)[:-5], b),
                          ["compare", g, "--peak", "--json", "--bans", b, "--time-limit", a.t])
                         for g in graphs for b in ("none", "pytorch")])
shutil.rmtree(tmp)
PY
