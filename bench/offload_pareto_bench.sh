#!/bin/sh
# offload_pareto_bench.sh - `ilpart pareto --offload free` (issue 26: the curve with
# offload beside the one without) against the same command without --offload, and
# against --offload free --solve-each (every point, both curves, one ilp_solve each: the
# offload curve's path before it came off one front), in the same run.
#
# usage: bench/offload_pareto_bench.sh [-g "GRAPH.json ..."] [-p POINTS] [-r RUNS]
#            [--bw BYTES_PER_S] [--device D]
#
# Defaults: the exported 48- and 96-layer transformers of bench/corpus, 20 points, best of
# 1 run, host link 25e9 bytes/s, h100, --bans none. BASE=/path/to/ilpart adds the same
# --offload free command run by another binary (say main's) as a column. Timed as whole
# processes by bench/timeit.py; the CPU seconds (user + sys) are shown, the steadier
# number on a shared machine. Columns: off_s, free_s, each_s (and base_s): CPU seconds;
# free/off, each/free (base/free): ratios; rows = ilp + ilp-offload rows; optimal = those
# proven; dev_min = least device bytes with offload over the least without; dom = every
# ilp row weakly dominated by an ilp-offload row in (device bytes, recompute + simulated
# exposed transfer time, relative 1e-9); same = the front's ilp-offload rows have the
# device bytes, offloaded bytes and recompute time (relative 1e-9) of --solve-each's (of
# partitions equal in the model's time either may be picked, and the simulator, whose
# exposed time the model bounds from above, can tell them apart). Not a timed test: it prints,
# and fails when a row is unproven, a curve is not dominated or the two paths disagree.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ILPART=${ILPART:-$here/../build/ilpart}
BASE=${BASE:-}
graphs="$here/corpus/transformer-48l.json $here/corpus/transformer-96l.json"
points=20
runs=1
bw=25e9
device=h100
while [ $# -gt 0 ]; do
	case "$1" in
	-g) graphs=$2; shift 2 ;;
	-p) points=$2; shift 2 ;;
	-r) runs=$2; shift 2 ;;
	--bw) bw=$2; shift 2 ;;
	--device) device=$2; shift 2 ;;
	*) echo "usage: $0 [-g GRAPHS] [-p POINTS] [-r RUNS] [--bw B] [--device D]" >&2
	   exit 2 ;;
	esac
done
[ -x "$ILPART" ] || { echo "offload_pareto_bench: no ilpart at $ILPART (set ILPART=)" >&2
	exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

timeit() { python3 "$here/timeit.py" "$@"; }
# run NAME BINARY ARGS...: CPU seconds into $tmp/NAME.s, the CSV into $tmp/NAME.csv
run() {
	run_name=$1 run_bin=$2
	shift 2
	set -- $(timeit -n "$runs" --stdout "$tmp/err" -- "$run_bin" pareto "$@" \
	    -o "$tmp/$run_name.csv")
	[ "$2" = 0 ] || { cat "$tmp/err" >&2; return 1; }
	echo "$4" >"$tmp/$run_name.s"
}
# rows KIND FILE: device bytes, recompute + exposed us, status, recompute us, offloaded
# bytes of the rows of kind KIND
rows() {
	awk -F, -v k="$1" '$1 == k { off = NF >= 14 ? $13 : 0; ex = NF >= 14 ? $14 : 0
	    printf "%.0f,%.17g,%s,%.17g,%.0f\n", $4 - off, $7 + ex, $10, $7, off }' "$2"
}
bad=0
printf '%-20s %7s %7s %8s %7s %9s' graph off_s free_s free/off each_s each/free
[ -n "$BASE" ] && printf ' %7s %9s' base_s base/free
printf ' %5s %7s %7s %-3s %-4s\n' rows optimal dev_min dom same
for graph in $graphs; do
	name=$(basename "$graph" .json)
	common="$graph --bans none --device $device --offload-bw $bw --points $points"
	run off "$ILPART" $common || { bad=1; continue; }
	run free "$ILPART" $common --offload free || { bad=1; continue; }
	run each "$ILPART" $common --offload free --solve-each || { bad=1; continue; }
	if [ -n "$BASE" ]; then
		run base "$BASE" $common --offload free || { bad=1; continue; }
	fi
	rows ilp "$tmp/off.csv" >"$tmp/o"
	rows ilp-offload "$tmp/free.csv" >"$tmp/f"
	rows ilp-offload "$tmp/each.csv" >"$tmp/e"
	res=$(awk -F, '
	    FILENAME == ARGV[1] { n++; ob[n] = $1; ot[n] = $2; if ($3 == "optimal") opt++
	        if (omin == "" || $1 < omin) omin = $1; next }
	    FILENAME == ARGV[2] { m++; fb[m] = $1; ft[m] = $2; fr[m] = $4; fo[m] = $5
	        if ($3 == "optimal") opt++
	        if (fmin == "" || $1 < fmin) fmin = $1; next }
	    { e++; d = $4 - fr[e]; if (d < 0) d = -d
	      if ($1 != fb[e] || $5 != fo[e] || d > 1e-9 * (1 + $4)) diff++ }
	    END { dom = "yes"
	        for (i = 1; i <= n; i++) { ok = 0
	            for (j = 1; j <= m; j++)
	                if (fb[j] <= ob[i] && ft[j] <= ot[i] + 1e-9 * (1 + ot[i])) ok = 1
	            if (!ok) dom = "no" }
	        printf "%d %d %.4f %s %s", n + m, opt, fmin / omin, dom,
	            diff || e != m ? "no" : "yes" }' "$tmp/o" "$tmp/f" "$tmp/e")
	set -- $res
	[ "$1" = "$2" ] && [ "$4" = yes ] && [ "$5" = yes ] || bad=1
	awk -v g="$name" -v o="$(cat "$tmp/off.s")" -v f="$(cat "$tmp/free.s")" \
	    -v e="$(cat "$tmp/each.s")" 'BEGIN { printf "%-20s %7.2f %7.2f %8.2f %7.2f %9.2f",
	    g, o, f, f / (o > 0 ? o : 1e-9), e, e / (f > 0 ? f : 1e-9) }'
	[ -n "$BASE" ] && awk -v b="$(cat "$tmp/base.s")" -v f="$(cat "$tmp/free.s")" \
	    'BEGIN { printf " %7.2f %9.2f", b, b / (f > 0 ? f : 1e-9) }'
	printf ' %5d %7d %7s %-3s %-4s\n' "$1" "$2" "$3" "$4" "$5"
done
exit $bad
