#!/bin/sh
# peak_wide.sh - does a peak solve keep to --time-limit on a graph with one very wide op?
# Two ilpart binaries side by side: a baseline (BASE, e.g. main's build) and this tree's
# (ILPART), interleaved per graph and limit.
#
# usage: BASE=/path/to/ilpart bench/peak_wide.sh [-t "5 20"] [--budget] [N ...]
#
# Graphs: bench/gen_wide.py N (an op with N inputs, a backward op with N/2 + 2; default
# N = 20000 200000). Per run: the child's CPU seconds (user + system, getrusage), wall
# seconds, exit code, status and gap from the partition, its simulated peak (`ilpart
# check`, which must accept it), and CPU over the limit. --budget solves with
# --peak-budget (the seed partition's peak, from a first --objective peak run with
# --time-limit 1 of this tree's binary, plus 10 %) instead of --objective peak. Prints numbers;
# it does not fail on them. docs/testing.md "Peak solves of graphs with very wide ops".
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ILPART=${ILPART:-$here/../build/ilpart}
BASE=${BASE:?set BASE to the baseline ilpart binary}
limits="5 20"
budget=0
while [ $# -gt 0 ]; do
	case "$1" in
	-t) limits=$2; shift 2 ;;
	--budget) budget=1; shift ;;
	-*) echo "usage: BASE=BIN $0 [-t \"5 20\"] [--budget] [N ...]" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- 20000 200000
python3 - "$BASE" "$ILPART" "$here/gen_wide.py" "$limits" "$budget" "$@" <<'PY'
import json, os, re, resource, subprocess, sys, tempfile, time
base, new, gen, limits, budget = sys.argv[1:6]
sizes = [int(x) for x in sys.argv[6:]]
tmp = tempfile.mkdtemp(prefix="peak_wide.")

def run(binary, g, limit, extra):
    out = os.path.join(tmp, "p.json")
    if os.path.exists(out):
        os.unlink(out)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.monotonic()
    rc = subprocess.run([binary, "solve", g, "--time-limit", str(limit), "-o", out] + extra,
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    wall = time.monotonic() - w0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    peak, status, gap = "-", "-", None
    if rc == 0:
        chk = subprocess.run([new, "check", g, out], capture_output=True, text=True)
        m = re.search(r"peak (\d+) bytes", chk.stdout)
        peak = m.group(1) if chk.returncode == 0 and m else "REJECTED"
        prod = json.load(open(out))["producer"]
        status, gap = prod.get("status", "-"), prod.get("gap")
    elif os.path.exists(out):
        peak = "PARTIAL-OUTPUT"
    return cpu, wall, rc, status, gap, peak

print("%-7s %5s | %7s %7s %3s %-10s %8s %11s %6s | %7s %7s %3s %-10s %8s %11s %6s | %5s" % (
    "inputs", "limit", "cpu_s", "wall_s", "rc", "status", "gap", "peak", "over",
    "cpu_s", "wall_s", "rc", "status", "gap", "peak", "over", "cpu_x"))
for n in sizes:
    g = os.path.join(tmp, "wide-%d.json" % n)
    subprocess.run([sys.executable, gen, str(n), "-o", g], check=True)
    extra = ["--objective", "peak"]
    if budget == "1":
        seed = os.path.join(tmp, "seed.json")
        subprocess.run([new, "solve", g, "--objective", "peak", "--time-limit", "1",
                        "-o", seed], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        peak0 = json.load(open(seed))["producer"]["objective_value"]
        extra = ["--peak-budget", str(int(peak0 * 1.1))]
    for limit in [float(x) for x in limits.split()]:
        rows = [run(b, g, limit, extra) for b in (base, new)]
        fmt = lambda r: "%7.1f %7.1f %3d %-10s %8s %11s %+6.1f" % (
            r[0], r[1], r[2], r[3], "-" if r[4] is None else "%.5f" % r[4], r[5],
            r[0] - limit)
        print("%-7d %5g | %s | %s | %5.2f" % (n, limit, fmt(rows[0]), fmt(rows[1]),
              rows[1][0] / rows[0][0] if rows[0][0] > 0 else float("nan")), flush=True)
PY
