#!/bin/sh
# solver_bench.sh - ilpart's budgeted solve time next to CBC on the same model, for
# transformer stacks at several memory budgets and both ban sets.
#
# usage: bench/solver_bench.sh [-l "12 48"] [-g "GRAPH.json ..."] [-b "0.1 0.3 0.5"]
#                              [-t SECONDS] [--bans "none pytorch"] [--monolithic]
#                              [-n RUNS] [-c CBC_RUNS]
#
# -l: synthetic stacks of these layer counts (bench/gen_transformer.py); -g: these graph
# files instead (e.g. the exported corpus, bench/corpus/transformer-12l.json).
# For each instance: `ilpart solve --memory-budget F --write-lp M.lp` (the whole process:
# reading, the budget's conversion to bytes, the solve — decomposed along repeated blocks
# when it applies — and writing; the LP file is the final budgeted model in bytes), then
# `cbc M.lp sec T solve` on that file: the baseline, same model, same run. --monolithic
# makes ilpart solve the model as a whole (the path without the decomposition).
# Both are timed the same way, by bench/timeit.py (time.perf_counter around the whole
# process, so no shell `date` weighs on a 5 ms run, and the process's CPU time, user +
# system): ilpart's best of RUNS (-n, default 3), CBC's best of CBC_RUNS (-c, default 1).
# Columns: ilpart's wall and CPU time, status and gap; CBC's wall and CPU time, result,
# gap when it stopped (CBC gets SIGINT 5 s after its own limit, then is killed 10 s
# later; "?" and nan: it printed no result); cbc/ilp and cpu_ratio = how many times
# faster ilpart was in wall time and in CPU time (on a shared machine the CPU ratio is
# the steadier one); same = objectives within 1e-6 ("-": CBC has none).
# CBC is installed with apt when missing (coinor-cbc); when that fails the CBC columns
# are skipped with a message. Not a timed test: it prints numbers, it does not fail on
# them.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ILPART=${ILPART:-$here/../build/ilpart}
CBC=${CBC:-cbc}
layers="12"
graphs=""
budgets="0.1 0.3 0.5"
limit=120
bans="none pytorch"
mono=""
runs=3
cbc_runs=1
while [ $# -gt 0 ]; do
	case "$1" in
	-l) layers=$2; shift 2 ;;
	-g) graphs=$2; layers=""; shift 2 ;;
	-b) budgets=$2; shift 2 ;;
	-t) limit=$2; shift 2 ;;
	--bans) bans=$2; shift 2 ;;
	--monolithic) mono=--monolithic; shift ;;
	-n) runs=$2; shift 2 ;;
	-c) cbc_runs=$2; shift 2 ;;
	*) echo "usage: $0 [-l LAYERS] [-g GRAPHS] [-b BUDGETS] [-t SECONDS] [--bans \"none pytorch\"] [--monolithic] [-n RUNS] [-c CBC_RUNS]" >&2; exit 2 ;;
	esac
done
[ -x "$ILPART" ] || { echo "solver_bench: no ilpart at $ILPART (set ILPART=)" >&2; exit 2; }
. "$here/cbc.sh"
need_cbc solver_bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

timeit() { python3 "$here/timeit.py" "$@"; }
field() { sed -n "s/.*\"$1\": \"\{0,1\}\([^\",}]*\).*/\1/p" "$2" | head -1; }

printf '%-22s %-7s %-6s %8s %8s %-9s %8s %14s %8s %8s %-9s %9s %14s %8s %9s %-4s\n' graph bans \
    budget ilpart_s ilp_cpu status gap objective cbc_s cbc_cpu cbc cbc_gap cbc_objective \
    cbc/ilp cpu_ratio same
for L in $layers $graphs; do
	case "$L" in
	*.json) graph=$L; L=$(basename "$L" .json) ;;
	*) graph=$tmp/t$L.json; python3 "$here/gen_transformer.py" --layers "$L" -o "$graph"
	   L=synthetic-${L}l ;;
	esac
	for ban in $bans; do
		for B in $budgets; do
			lp=$tmp/m.lp
			part=$tmp/p.json
			rm -f "$lp" "$part"
			# ilpart: best of 3 whole processes; torch's normalised bytes B(F) alone, so
			# that the LP file is the one model solved (bench/README.md)
			set -- $(timeit -n "$runs" --stdout "$tmp/err" -- "$ILPART" solve "$graph" --bans "$ban" \
			    --memory-budget "$B" --fraction-cap normalised --time-limit "$limit" $mono \
			    --write-lp "$lp" -o "$part")
			[ "$2" = 0 ] || { cat "$tmp/err" >&2; continue; }
			ti=$1
			ci=$4
			st=$(field status "$part")
			gap=$(field gap "$part")
			obj=$(field objective_value "$part")
			# SIGINT makes CBC stop and print its incumbent and bound
			if [ "$have_cbc" = 1 ]; then
				set -- $(timeit -n "$cbc_runs" --timeout $((limit + 5)) --stdout "$tmp/cbc" \
				    -- "$CBC" "$lp" sec "$limit" solve)
			else
				: > "$tmp/cbc"
				set -- nan 0 0 nan
			fi
			tc=$1
			cc=$4
			cst=$(sed -n 's/^Result - \(.*\)$/\1/p' "$tmp/cbc" | head -1 | awk '{print $1}')
			cobj=$(sed -n 's/^Objective value: *\([0-9.e+-]*\).*/\1/p' "$tmp/cbc" | head -1)
			cgap=$(sed -n 's/^Gap: *\([0-9.e+-]*\).*/\1/p' "$tmp/cbc" | head -1)
			awk -v L="$L" -v ban="$ban" -v B="$B" -v ti="$ti" -v tc="$tc" -v ci="$ci" \
			    -v cc="$cc" -v st="$st" -v gap="${gap:-0}" -v obj="$obj" -v cst="${cst:-?}" \
			    -v cobj="${cobj:-nan}" -v cgap="${cgap:-0}" \
			    'BEGIN { d = obj - cobj; if (d < 0) d = -d;
			      same = cobj == "nan" ? "-" : (d <= 1e-6 * (1 + (obj < 0 ? -obj : obj))) ? "yes" : "no";
			      printf "%-22s %-7s %-6s %8.3f %8.4f %-9s %8.2g %14.4f %8.3f %8.4f %-9s %9.2g %14.4f %8.1f %9.1f %-4s\n",
			          L, ban, B, ti, ci, st, gap, obj, tc, cc, cst, cgap, cobj,
			          tc / (ti > 0 ? ti : 1e-9), cc / (ci > 0 ? ci : 1e-9), same }'
		done
	done
done
