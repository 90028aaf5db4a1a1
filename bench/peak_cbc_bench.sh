#!/bin/sh
# peak_cbc_bench.sh - ilpart's least-peak search next to CBC on the same peak model
# (issue 24: "at least 10x faster than CBC on the same peak model written with
# --write-lp, where CBC finishes at all").
#
# usage: bench/peak_cbc_bench.sh [-t SECONDS] [--bans "none pytorch"] [GRAPH.json ...]
#
# Arguments and default graphs as bench/peak_args.sh reads them (tests/data/corpus/*.json
# and bench/corpus/transformer-12l.json; T default 60). For each graph and ban set:
#   ilpart: `ilpart solve --objective peak --time-limit T --write-lp M.lp -v`, the whole
#           process timed by bench/timeit.py (wall and CPU), its status and its answer's
#           simulated peak (the objective value; `ilpart check` must accept it).
#   The peak model: M.lp is the second stage's model (least recompute time, the peak
#           column bounded by the best simulated peak, with every row the search added:
#           bound rows, general and exact rows at peak points, the cuts). The script
#           turns it into the least-peak model itself: objective `peak`, the column's
#           upper bound removed. That is the model the search's loop minimises, with all
#           the rows it found; CBC starts with rows ilpart had to discover.
#   cbc:    `cbc PEAK.lp sec T solve` on that file: wall and CPU time, result, and its
#           least peak in bytes (model units times the byte unit, from -v's "byte unit").
#           The rows are a lower bound of the simulated peak, so CBC's least P proves
#           ilpart's answer only when it reaches it (column `proves`: CBC's optimum >=
#           the answer's peak less one byte unit).
#   cbc2:   CBC on M.lp as written (least recompute at that peak), time and result.
# Columns cpu_ratio = CBC's CPU / ilpart's CPU (whole process against CBC on a model it
# is handed). CBC is installed with apt when missing (coinor-cbc); without it the CBC
# columns are skipped. Prints numbers; exits 1 only when the checker rejects an answer.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
ILPART=${ILPART:-$top/build/ilpart}
CBC=${CBC:-cbc}
usage_env=""
. "$here/peak_args.sh"
[ -x "$ILPART" ] || { echo "peak_cbc_bench: no ilpart at $ILPART (set ILPART=)" >&2; exit 2; }
. "$here/cbc.sh"
need_cbc peak_cbc_bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

timeit() { python3 "$here/timeit.py" "$@"; }
field() { sed -n "s/.*\"$1\": \"\{0,1\}\([^\",}]*\).*/\1/p" "$2" | head -1; }

# The least-peak model from the second stage's file: objective `peak`, no upper bound on
# the column (its lower bound, the floor, stays).
least_peak_lp() {
	awk '
	/^Minimize/ { print; print " objective: + peak"; skip = 1; next }
	skip && /^Subject To/ { skip = 0 }
	skip { next }
	/^ *[-+0-9.e]+ <= peak <= [-+0-9.e]+ *$/ { print " " $1 " <= peak"; next }
	/^ *peak <= [-+0-9.e]+ *$/ { print " peak >= 0"; next }
	{ print }' "$1"
}

cbc_run() { # LP OUT: sets tc cc cst cobj
	out=$2
	if [ "$have_cbc" = 1 ]; then
		set -- $(timeit -n 1 --timeout $((limit + 5)) --stdout "$out" -- "$CBC" "$1" sec "$limit" solve)
	else
		: > "$out"
		set -- nan 0 0 nan
	fi
	tc=$1
	cc=$4
	cst=$(sed -n 's/^Result - \(.*\)$/\1/p' "$out" | head -1 | awk '{print $1}')
	cobj=$(sed -n 's/^Objective value: *\([0-9.e+-]*\).*/\1/p' "$out" | head -1)
}

bad=0
printf '%-18s %-7s %8s %8s %-10s %10s | %8s %8s %-10s %12s %-6s %9s | %8s %-10s\n' graph bans \
    ilp_s ilp_cpu status peak cbc_s cbc_cpu cbc cbc_peak proves cpu_ratio cbc2_cpu cbc2
for graph in "$@"; do
	name=$(basename "$graph" .json)
	for ban in $bans; do
		lp=$tmp/m.lp
		part=$tmp/p.json
		rm -f "$lp" "$part"
		set -- $(timeit -n 1 --stdout "$tmp/err" -- "$ILPART" solve "$graph" --bans "$ban" \
		    --objective peak --time-limit "$limit" --write-lp "$lp" -v -o "$part")
		[ "$2" = 0 ] && [ -s "$lp" ] || { tail -3 "$tmp/err" >&2; continue; }
		ti=$1
		ci=$4
		st=$(field status "$part")
		pk=$(field objective_value "$part")
		"$ILPART" check "$graph" "$part" >/dev/null 2>&1 || {
			echo "peak_cbc_bench: $name $ban: the checker rejects ilpart's answer" >&2
			bad=1
		}
		unit=$(sed -n 's/.*model: .*byte unit \([0-9]*\).*/\1/p' "$tmp/err" | head -1)
		least_peak_lp "$lp" > "$tmp/peak.lp"
		cbc_run "$tmp/peak.lp" "$tmp/cbc"
		t1=$tc c1=$cc s1=${cst:-?} o1=${cobj:-nan}
		cbc_run "$lp" "$tmp/cbc2"
		awk -v n="$name" -v ban="$ban" -v ti="$ti" -v ci="$ci" -v st="$st" -v pk="$pk" \
		    -v tc="$t1" -v cc="$c1" -v cst="$s1" -v cobj="$o1" -v unit="${unit:-1}" \
		    -v cc2="$cc" -v cst2="${cst:-?}" \
		    'BEGIN { cp = cobj == "nan" ? -1 : cobj * unit;
		      pr = cp < 0 ? "-" : (cp >= pk - unit ? "yes" : "no");
		      printf "%-18s %-7s %8.2f %8.2f %-10s %10d | %8.2f %8.2f %-10s %12s %-6s %9.2f | %8.2f %-10s\n",
		          n, ban, ti, ci, st, pk, tc, cc, cst, cp < 0 ? "-" : sprintf("%.0f", cp), pr,
		          cc / (ci > 0 ? ci : 1e-9), cc2, cst2 }'
	done
done
exit $bad
