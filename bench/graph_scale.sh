#!/bin/sh
# graph_scale.sh - how `ilpart info` (read + validate + classify) scales with graph size.
#
# usage: bench/graph_scale.sh [SIZE...]        (default: 25000 50000 100000)
# env:   ILPART  binary to time (default: build/ilpart; use a build without sanitizers)
#        RUNS    timed runs per measurement, best one kept (default: 3)
#        KEEP    directory to keep the generated graphs in (default: a temporary one)
#
# For each size, bench/gen_graph.py writes a transformer-like joint graph; then the best
# wall time of `ilpart info` is compared with a baseline on the same file: Python's
# json.load (parsing only, no validation). Peak RSS comes from getrusage() on the child
# (the same number /usr/bin/time -v reports as "Maximum resident set size").
# Goal (issue 2): 100k nodes in under 1 s, memory linear in size, so RSS per node should
# stay flat across sizes. Exits 1 when a size >= 100k takes 1 s or more.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
ilpart=${ILPART:-$top/build/ilpart}
runs=${RUNS:-3}
[ $# -gt 0 ] || set -- 25000 50000 100000

if [ ! -x "$ilpart" ]; then
	echo "graph_scale: no ilpart at $ilpart (build it, or set ILPART)" >&2
	exit 2
fi
if [ -n "${KEEP:-}" ]; then
	dir=$KEEP
	mkdir -p "$dir"
else
	dir=$(mktemp -d "${TMPDIR:-/tmp}/graph_scale.XXXXXX")
	trap 'rm -rf "$dir"' EXIT
fi

# measure CMD... -> "SECONDS MAXRSS_KB CPU_SECONDS": best wall time of $runs runs, peak
# RSS, and the CPU time (user + system) of one run on average.
measure() {
	python3 - "$runs" "$@" <<'EOF'
import resource, subprocess, sys, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
best = None
for _ in range(runs):
    t = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        sys.exit("graph_scale: %s exited %d" % (" ".join(cmd), r.returncode))
    best = dt if best is None else min(best, dt)
# ru_maxrss of waited-for children, in KiB on Linux.
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.4f %d %.4f" % (best, ru.ru_maxrss, (ru.ru_utime + ru.ru_stime) / runs))
EOF
}

echo "graph_scale: $ilpart, best of $runs runs"
printf '%8s %8s %10s %10s %10s %7s %10s %10s\n' nodes file_MB ilpart_s ilpart_cpu \
    json.load_s ratio peak_MB B/node
status=0
for n in "$@"; do
	f=$dir/graph-$n.json
	[ -f "$f" ] || python3 "$top/bench/gen_graph.py" "$n" -o "$f"
	set -- $(measure "$ilpart" info "$f")
	t_ilp=$1 rss=$2 cpu=$3
	set -- $(measure python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$f")
	t_py=$1
	size=$(wc -c <"$f")
	python3 -c '
import sys
n, size, t_ilp, cpu, t_py, rss = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), \
    float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
print("%8d %8.1f %10.3f %10.3f %10.3f %7.2f %10.1f %10.0f" % (n, size / 1e6, t_ilp, cpu,
    t_py, t_ilp / t_py, rss / 1024.0, rss * 1024.0 / n))
' "$n" "$size" "$t_ilp" "$cpu" "$t_py" "$rss"
	if [ "$n" -ge 100000 ] && python3 -c "import sys; sys.exit(float('$t_ilp') < 1.0)"; then
		echo "graph_scale: $n nodes took $t_ilp s: goal is under 1 s" >&2
		status=1
	fi
done
echo "ilpart_s: best wall time; ilpart_cpu: user+system per run (steadier on a busy machine)"
echo "ratio = ilpart info / json.load; B/node = peak RSS / nodes (flat = linear memory)"
exit $status
