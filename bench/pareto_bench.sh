#!/bin/sh
# pareto_bench.sh - `ilpart pareto` reading every budget off one combined front, against
# the same command solving each budget on its own (--solve-each: the path before the
# front, one decomposed solve per budget and per end of the sweep), in the same run.
#
# usage: bench/pareto_bench.sh [-g "GRAPH.json ..."] [-p POINTS] [-r RUNS] [--bans B]
#
# Defaults: the exported 48- and 96-layer transformers of bench/corpus, 20 points,
# best of 1 run each, --bans none. Both are timed as whole processes by bench/timeit.py
# (perf_counter; peak RSS from getrusage). Columns: wall seconds and peak RSS of each,
# each/front = how many times faster the front is, points = ilp rows, optimal = rows
# proven optimal, same = every ilp row has the same saved bytes and recompute time
# (relative 1e-9) both ways. Not a timed test: it prints, it fails only when the two
# disagree or a row is not optimal.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ILPART=${ILPART:-$here/../build/ilpart}
graphs="$here/corpus/transformer-48l.json $here/corpus/transformer-96l.json"
points=20
runs=1
bans=none
while [ $# -gt 0 ]; do
	case "$1" in
	-g) graphs=$2; shift 2 ;;
	-p) points=$2; shift 2 ;;
	-r) runs=$2; shift 2 ;;
	--bans) bans=$2; shift 2 ;;
	*) echo "usage: $0 [-g GRAPHS] [-p POINTS] [-r RUNS] [--bans B]" >&2; exit 2 ;;
	esac
done
[ -x "$ILPART" ] || { echo "pareto_bench: no ilpart at $ILPART (set ILPART=)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

timeit() { python3 "$here/timeit.py" "$@"; }
bad=0
printf '%-22s %6s %9s %9s %9s %9s %11s %7s %-4s\n' graph points front_s front_MiB \
    each_s each_MiB each/front optimal same
for graph in $graphs; do
	name=$(basename "$graph" .json)
	set -- $(timeit -n "$runs" --stdout "$tmp/err" -- "$ILPART" pareto "$graph" --bans "$bans" \
	    --points "$points" -o "$tmp/front.csv")
	[ "$2" = 0 ] || { cat "$tmp/err" >&2; bad=1; continue; }
	tf=$1 mf=$3
	set -- $(timeit -n "$runs" --stdout "$tmp/err" -- "$ILPART" pareto "$graph" --bans "$bans" \
	    --points "$points" --solve-each -o "$tmp/each.csv")
	[ "$2" = 0 ] || { cat "$tmp/err" >&2; bad=1; continue; }
	te=$1 me=$3
	# rows of kind ilp: budget, saved bytes, recompute time, status
	grep '^ilp,' "$tmp/front.csv" | cut -d, -f3,4,7,10 >"$tmp/f"
	grep '^ilp,' "$tmp/each.csv" | cut -d, -f3,4,7,10 >"$tmp/e"
	res=$(paste -d, "$tmp/f" "$tmp/e" | awk -F, '
	    { n++; if ($4 == "optimal") opt++
	      d = $3 - $7; if (d < 0) d = -d; m = $7 < 0 ? -$7 : $7
	      if ($1 != $5 || $2 != $6 || d > 1e-9 * (1 + m) || $4 != $8) diff++ }
	    END { printf "%d %d %s", n, opt, diff ? "no" : "yes" }')
	set -- $res
	[ "$3" = yes ] && [ "$1" = "$2" ] || bad=1
	awk -v g="$name" -v p="$1" -v tf="$tf" -v mf="$mf" -v te="$te" -v me="$me" -v opt="$2" \
	    -v same="$3" 'BEGIN { printf "%-22s %6d %9.3f %9.0f %9.3f %9.0f %11.1f %7d %-4s\n",
	        g, p, tf, mf / 1024, te, me / 1024, te / (tf > 0 ? tf : 1e-9), opt, same }'
done
exit $bad
