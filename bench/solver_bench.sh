#!/bin/sh
# solver_bench.sh - ilpart's ILP solve time next to CBC on the same model, for synthetic
# transformer stacks (bench/gen_transformer.py) at several memory budgets.
#
# usage: bench/solver_bench.sh [-l "12 48"] [-g "GRAPH.json ..."] [-b "0.1 0.3 0.5"]
#                              [-t SECONDS] [--bans none|pytorch]
#
# -l: synthetic stacks of these layer counts; -g: these graph files instead (e.g. the
# exported corpus, bench/corpus/transformer-12l.json).
# For each instance: `ilpart solve --memory-budget F --write-lp M.lp` (all stages: least
# memory, runtime-optimal memory, then the budgeted runtime solve; the LP file is that
# last model, with the budget converted to bytes), then `cbc M.lp solve` on the file.
# Both get the same time limit. ILPART defaults to ./build/ilpart; CBC to `cbc`.
# Not a timed test: it prints numbers, it does not fail on them.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ILPART=${ILPART:-$here/../build/ilpart}
CBC=${CBC:-cbc}
layers="12"
graphs=""
budgets="0.1 0.3 0.5"
limit=120
bans=none
while [ $# -gt 0 ]; do
	case "$1" in
	-l) layers=$2; shift 2 ;;
	-g) graphs=$2; layers=""; shift 2 ;;
	-b) budgets=$2; shift 2 ;;
	-t) limit=$2; shift 2 ;;
	--bans) bans=$2; shift 2 ;;
	*) echo "usage: $0 [-l LAYERS] [-b BUDGETS] [-t SECONDS] [--bans none|pytorch]" >&2; exit 2 ;;
	esac
done
[ -x "$ILPART" ] || { echo "solver_bench: no ilpart at $ILPART (set ILPART=)" >&2; exit 2; }
command -v "$CBC" >/dev/null 2>&1 || { echo "solver_bench: no cbc (set CBC=)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

now() { date +%s.%N; }
field() { sed -n "s/.*\"$1\": \"\{0,1\}\([^\",}]*\).*/\1/p" "$2" | head -1; }

printf '%-7s %-7s %10s %-11s %9s %14s %10s %-9s %14s %8s\n' graph budget ilpart_s status gap \
    objective cbc_s cbc objective cbc/ilp
for L in $layers $graphs; do
	case "$L" in
	*.json) graph=$L; L=$(basename "$L" .json) ;;
	*) graph=$tmp/t$L.json; python3 "$here/gen_transformer.py" --layers "$L" -o "$graph" ;;
	esac
	for B in $budgets; do
		lp=$tmp/t$L-$B.lp
		part=$tmp/t$L-$B.json
		t0=$(now)
		"$ILPART" solve "$graph" --bans "$bans" --memory-budget "$B" --time-limit "$limit" \
		    --write-lp "$lp" -o "$part" 2>"$tmp/err" || { cat "$tmp/err" >&2; continue; }
		t1=$(now)
		st=$(field status "$part")
		gap=$(field gap "$part")
		obj=$(field objective_value "$part")
		c0=$(now)
		timeout $((limit + 10)) "$CBC" "$lp" sec "$limit" solve >"$tmp/cbc" 2>&1 || true
		c1=$(now)
		cst=$(sed -n 's/^Result - \(.*\)$/\1/p' "$tmp/cbc" | head -1 | awk '{print $1}')
		cobj=$(sed -n 's/^Objective value: *\([0-9.e+-]*\).*/\1/p' "$tmp/cbc" | head -1)
		awk -v L="$L" -v B="$B" -v t0="$t0" -v t1="$t1" -v c0="$c0" -v c1="$c1" \
		    -v st="$st" -v gap="$gap" -v obj="$obj" -v cst="${cst:-?}" -v cobj="${cobj:-?}" \
		    'BEGIN { ti = t1 - t0; tc = c1 - c0;
		      printf "%-7s %-7s %10.2f %-11s %9.3g %14.4f %10.2f %-9s %14.4f %8.2f\n",
		          L, B, ti, st, gap, obj, tc, cst, cobj, tc / (ti > 0 ? ti : 1e-9) }'
	done
done
