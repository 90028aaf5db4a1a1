#!/bin/sh
# peak_blocks_bench.sh - the chain of repeated layers (docs/solver.md "Peak along the
# blocks") against a baseline binary without it (BASE, e.g. main's build), side by side
# in one run, interleaved per graph and ban set, same time limit:
#
#  1. --objective peak: the simulated peak of the answer, status, proven gap, CPU;
#  2. --peak-budget B (runtime objective) at B = FRAC x the least peak the new binary
#     found in 1. (default 1.02): whether a partition within B comes back (exit status),
#     its simulated peak and recompute time (the partition's objective value, us), CPU.
#
# usage: BASE=/path/to/ilpart bench/peak_blocks_bench.sh [-t SECONDS] [--bans "none pytorch"]
#            [--frac F] [GRAPH.json ...]
#
# Default graphs: bench/corpus/transformer-{12,48,96}l.json. Prints numbers and
# new/base ratios; it does not fail on them.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ILPART=${ILPART:-$here/../build/ilpart}
BASE=${BASE:?set BASE to the baseline ilpart binary}
limit=30
bans="none pytorch"
frac=1.02
while [ $# -gt 0 ]; do
	case "$1" in
	-t) limit=$2; shift 2 ;;
	--bans) bans=$2; shift 2 ;;
	--frac) frac=$2; shift 2 ;;
	-*) echo "usage: BASE=BIN $0 [-t SECONDS] [--bans \"none pytorch\"] [--frac F] [GRAPH.json ...]" >&2
	    exit 2 ;;
	*) break ;;
	esac
done
if [ $# -eq 0 ]; then
	set -- "$here"/corpus/transformer-12l.json "$here"/corpus/transformer-48l.json \
	    "$here"/corpus/transformer-96l.json
fi
python3 - "$BASE" "$ILPART" "$limit" "$bans" "$frac" "$@" <<'PY'
import json, os, re, resource, subprocess, sys, tempfile
base, new, limit, bans, frac = sys.argv[1:6]
graphs = sys.argv[6:]

def run(binary, g, b, extra):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        rc = subprocess.run([binary, "solve", g, "--bans", b, "--time-limit", limit,
                             "-o", out.name] + extra,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        if rc != 0:
            return None, "exit %d" % rc, None, None, cpu
        chk = subprocess.run([binary, "check", g, out.name], capture_output=True,
                             text=True, check=True).stdout
        peak = int(re.search(r"peak (\d+) bytes", chk).group(1))
        prod = json.load(open(out.name))["producer"]
    return peak, prod.get("status", "-"), prod.get("gap"), prod.get("objective_value"), cpu

def fmt(r):
    return "%13s %-10s %7s %6.1f" % ("-" if r[0] is None else r[0], r[1],
                                     "-" if r[2] is None else "%.4f" % r[2], r[4])

def ratio(a, b):
    return "%6.3f" % (a / b) if a is not None and b else "     -"

print("1. --objective peak, -t %s" % limit)
print("%-16s %-7s | %13s %-10s %7s %6s | %13s %-10s %7s %6s | %6s %6s" % (
    "graph", "bans", "base_peak", "status", "gap", "cpu_s", "new_peak", "status", "gap",
    "cpu_s", "peak_x", "cpu_x"))
least = {}
for g in graphs:
    for b in bans.split():
        rb = run(base, g, b, ["--objective", "peak"])
        rn = run(new, g, b, ["--objective", "peak"])
        least[(g, b)] = rn[0]
        print("%-16s %-7s | %s | %s | %s %s" % (
            os.path.basename(g)[:-5][:16], b, fmt(rb), fmt(rn), ratio(rn[0], rb[0]),
            ratio(rn[4], rb[4])), flush=True)
print()
print("2. --peak-budget %s x the new least peak, -t %s" % (frac, limit))
print("%-16s %-7s %13s | %13s %-10s %10s %6s | %13s %-10s %10s %6s | %6s" % (
    "graph", "bans", "budget", "base_peak", "status", "recomp_us", "cpu_s", "new_peak",
    "status", "recomp_us", "cpu_s", "time_x"))
for g in graphs:
    for b in bans.split():
        if least.get((g, b)) is None:
            continue
        B = int(least[(g, b)] * float(frac))
        rb = run(base, g, b, ["--peak-budget", str(B)])
        rn = run(new, g, b, ["--peak-budget", str(B)])
        f2 = lambda r: "%13s %-10s %10s %6.1f" % ("-" if r[0] is None else r[0], r[1],
                                               "-" if r[3] is None else "%.1f" % r[3], r[4])
        print("%-16s %-7s %13d | %s | %s | %s" % (
            os.path.basename(g)[:-5][:16], b, B, f2(rb), f2(rn), ratio(rn[3], rb[3])),
            flush=True)
PY
