#!/bin/sh
# budget_sweep.sh - budgeted `ilpart solve` at every budget, not only 0.1 / 0.3 / 0.5: the
# decomposition's bounded combination (docs/solver.md "Decomposition") must stay fast
# wherever the budget falls, or it falls back to the monolithic model.
#
# usage: bench/budget_sweep.sh [-t LIMIT] [-b BASELINE_ILPART] [-f FRACTIONS] [-B BANSETS] GRAPH...
#        (default: bench/corpus/transformer-96l.json)
#
# For each graph, both ban sets (--bans none and PyTorch's), fractions 0.05, 0.10, ...,
# 1.00: one `ilpart solve --memory-budget F -v --time-limit LIMIT` (default 60 s) each,
# timed by bench/timeit.py. Per row: wall and CPU seconds, peak RSS (MiB), the combination's points,
# the status, and "fallback" when the decomposition gave up and the monolithic model ran.
# With -b, the same solve by BASELINE_ILPART (e.g. a build of main before a change) in the
# same run, and the ratio baseline/new of CPU seconds. The last lines per graph: the
# largest times and RSS. -f "F1 F2 ...": those fractions only; -B "none pytorch": ban sets.
# Not a timed test: it prints numbers.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ILPART=${ILPART:-$here/../build/ilpart}
limit=60 base="" fracs="" banset="none pytorch"
while getopts t:b:f:B: o; do
	case $o in
	t) limit=$OPTARG ;;
	b) base=$OPTARG ;;
	f) fracs=$OPTARG ;;
	B) banset=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- "$here/corpus/transformer-96l.json"
[ -x "$ILPART" ] || { echo "budget_sweep: no ilpart at $ILPART (set ILPART=)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# one BIN GRAPH BANS F: "secs rss_mib points status fallback cpu"
one() {
	r=$(python3 "$here/timeit.py" --timeout $((limit + 60)) --stdout "$tmp/log" -- \
	    "$1" solve "$2" --bans "$3" --memory-budget "$4" --time-limit "$limit" -v --strict-budget \
	    -o "$tmp/p.json") || true
	st=$(sed -n 's/.*"status": "\([^"]*\)".*/\1/p' "$tmp/p.json" 2>/dev/null | head -1)
	[ -n "$st" ] || st=$(grep -q conflict "$tmp/log" && echo conflict || echo failed)
	pts=$(sed -n 's/.* class runs, \([0-9]*\) points.*/\1/p' "$tmp/log" | tail -1)
	fb=$(grep -q "solving the model as a whole" "$tmp/log" && echo fallback || echo blocks)
	rm -f "$tmp/p.json"
	echo "$r" | awk -v p="${pts:--}" -v s="$st" -v f="$fb" \
	    '{ printf "%.2f %.0f %s %s %s %.2f\n", $1, $3 / 1024, p, s, f, $4 }'
}

for g in "$@"; do
	echo "== $(basename "$g")"
	printf '%-7s %5s %8s %7s %7s %10s %-11s %-8s' bans F secs cpu_s MiB points status path
	[ -z "$base" ] || printf ' %8s %8s %8s %-11s %-8s %6s' base_s base_cpu base_MiB \
	    base_status base_path cpu_ratio
	echo
	[ -n "$fracs" ] || fracs=$(seq 1 20 | awk '{ printf "%.2f ", $1 / 20 }')
	for bans in $banset; do
		for f in $fracs; do
			set -- $(one "$ILPART" "$g" "$bans" "$f")
			printf '%-7s %5s %8s %7s %7s %10s %-11s %-8s' "$bans" "$f" "$1" "$6" "$2" "$3" \
			    "$4" "$5"
			echo "$bans $f $1 $2 $6" >>"$tmp/rows"
			if [ -n "$base" ]; then
				t=$6
				set -- $(one "$base" "$g" "$bans" "$f")
				printf ' %8s %8s %8s %-11s %-8s %6.1f' "$1" "$6" "$2" "$4" "$5" \
				    "$(awk -v a="$6" -v b="$t" 'BEGIN { print a / (b > 0 ? b : 1e-9) }')"
			fi
			echo
		done
	done
	awk '{ if ($3 > t) t = $3; if ($4 > m) m = $4; if ($5 > c) c = $5 }
	    END { printf "max: %.2f s wall, %.2f s CPU, %d MiB\n", t, c, m }' "$tmp/rows"
	rm -f "$tmp/rows"
done
