#!/bin/sh
# peak_proof_bench.sh - the bound along the repeated layers (docs/solver.md "The bound
# along the layers") against a baseline binary without it (BASE, e.g. main's build),
# side by side, interleaved per graph and ban set, same time limit: `solve --objective
# peak` per binary, its simulated peak (ilpart check), status, proven gap, the bound it
# implies (peak x (1 - gap)) and CPU seconds of the child; new/base ratios of the gap
# and of CPU.
#
# usage: BASE=/path/to/ilpart bench/peak_proof_bench.sh [-t SECONDS] [--bans "none pytorch"]
#            [GRAPH.json ...]
#
# Default graphs: bench/corpus/transformer-{48,96}l.json. Prints numbers; it does not
# fail on them.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ILPART=${ILPART:-$here/../build/ilpart}
BASE=${BASE:?set BASE to the baseline ilpart binary}
limit=30
bans="none pytorch"
while [ $# -gt 0 ]; do
	case "$1" in
	-t) limit=$2; shift 2 ;;
	--bans) bans=$2; shift 2 ;;
	-*) echo "usage: BASE=BIN $0 [-t SECONDS] [--bans \"none pytorch\"] [GRAPH.json ...]" >&2
	    exit 2 ;;
	*) break ;;
	esac
done
if [ $# -eq 0 ]; then
	set -- "$here"/corpus/transformer-48l.json "$here"/corpus/transformer-96l.json
fi
python3 - "$BASE" "$ILPART" "$limit" "$bans" "$@" <<'PY'
import json, os, re, resource, subprocess, sys, tempfile
base, new, limit, bans = sys.argv[1:5]
graphs = sys.argv[5:]

def run(binary, g, b):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        rc = subprocess.run([binary, "solve", g, "--bans", b, "--time-limit", limit,
                             "--objective", "peak", "-o", out.name],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        if rc != 0:
            return None, "exit %d" % rc, None, None, cpu
        chk = subprocess.run([binary, "check", g, out.name], capture_output=True,
                             text=True, check=True).stdout
        peak = int(re.search(r"peak (\d+) bytes", chk).group(1))
        prod = json.load(open(out.name))["producer"]
    gap = prod.get("gap")
    bound = None if gap is None else int(peak * (1 - gap))
    return peak, prod.get("status", "-"), gap, bound, cpu

def fmt(r):
    return "%13s %-10s %7s %13s %6.1f" % (
        "-" if r[0] is None else r[0], r[1], "-" if r[2] is None else "%.4f" % r[2],
        "-" if r[3] is None else r[3], r[4])

def ratio(a, b):
    return "%6.3f" % (a / b) if a is not None and b else "     -"

print("--objective peak, -t %s" % limit)
print("%-16s %-7s | %13s %-10s %7s %13s %6s | %13s %-10s %7s %13s %6s | %6s %6s" % (
    "graph", "bans", "base_peak", "status", "gap", "base_bound", "cpu_s", "new_peak",
    "status", "gap", "new_bound", "cpu_s", "gap_x", "cpu_x"))
for g in graphs:
    for b in bans.split():
        rb = run(base, g, b)
        rn = run(new, g, b)
        print("%-16s %-7s | %s | %s | %s %s" % (
            os.path.basename(g)[:-5][:16], b, fmt(rb), fmt(rn), ratio(rn[2], rb[2]),
            ratio(rn[4], rb[4])), flush=True)
PY
