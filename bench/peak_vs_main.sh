#!/bin/sh
# peak_vs_main.sh - the least-peak search (--objective peak) of two ilpart binaries side
# by side: a baseline (BASE, e.g. main's build) and this tree's (ILPART), interleaved per
# graph and ban set, same time limit.
#
# usage: BASE=/path/to/ilpart bench/peak_vs_main.sh [-t SECONDS] [--bans "none pytorch"]
#            [GRAPH.json ...]
#
# Default graphs: tests/data/corpus/*.json and bench/corpus/transformer-12l.json. Per run:
# the simulated peak of the answer (`ilpart check`), status and proven gap from the
# partition, its recompute time (the second criterion: least recompute at the peak), and
# the child's CPU time (user + system, getrusage). Ratios new/base of the peak, the
# recompute time and the CPU time. Prints numbers; it does not fail on them.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ILPART=${ILPART:-$here/../build/ilpart}
BASE=${BASE:?set BASE to the baseline ilpart binary}
usage_env="BASE=BIN "
. "$here/peak_args.sh"
python3 - "$BASE" "$ILPART" "$limit" "$bans" "$@" <<'PY'
import json, os, re, resource, subprocess, sys, tempfile
base, new, limit, bans = sys.argv[1:5]
graphs = sys.argv[5:]

def run(binary, g, b):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([binary, "solve", g, "--objective", "peak", "--bans", b,
                        "--time-limit", limit, "-o", out.name], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        chk = subprocess.run([binary, "check", g, out.name], capture_output=True,
                             text=True, check=True).stdout
        peak = int(re.search(r"peak (\d+) bytes", chk).group(1))
        part = json.load(open(out.name))
        prod = part["producer"]
    return (peak, prod.get("status", "-"), prod.get("gap"), cpu,
            part.get("cost", {}).get("recompute_time_us", 0.0))

print("%-16s %-7s | %12s %-10s %8s %9s %6s | %12s %-10s %8s %9s %6s | %6s %6s %6s" % (
    "graph", "bans", "base_peak", "status", "gap", "recomp_us", "cpu_s", "new_peak",
    "status", "gap", "recomp_us", "cpu_s", "peak_x", "time_x", "cpu_x"))
for g in graphs:
    for b in bans.split():
        rb = run(base, g, b)
        rn = run(new, g, b)
        fmt = lambda r: "%12d %-10s %8s %9.4g %6.1f" % (
            r[0], r[1], "-" if r[2] is None else "%.5f" % r[2], r[4], r[3])
        print("%-16s %-7s | %s | %s | %6.3f %6.3f %6.2f" % (
            os.path.basename(g)[:-5][:16], b, fmt(rb), fmt(rn), rn[0] / rb[0],
            rn[4] / rb[4] if rb[4] > 0 else float("nan"),
            rn[3] / rb[3] if rb[3] > 0 else float("nan")), flush=True)
PY
