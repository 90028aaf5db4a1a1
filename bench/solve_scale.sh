#!/bin/sh
# solve_scale.sh - how `ilpart solve` scales with graph size, against `ilpart info` (read,
# validate, classify: linear) and `ilpart mincut` run on the same files in the same script.
#
# usage: bench/solve_scale.sh [SIZES...]      (default: 10000 30000 60000 100000)
#        ARGS="--monolithic" bench/solve_scale.sh   # extra solve options
#
# Graphs come from bench/gen_graph.py (transformer-shaped joint graphs of exactly N nodes).
# For each size: wall time of info, mincut, and three solves (--bans none; PyTorch's bans;
# --objective runtime), each optimal or it is reported; solve/info is the ratio to the
# linear baseline; the last column is the growth exponent of the --bans none solve
# between this size and the previous one (log time ratio / log size ratio).
# Not a timed test: it prints numbers, it does not fail on them.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ILPART=${ILPART:-$here/../build/ilpart}
ARGS=${ARGS:-}
[ -x "$ILPART" ] || { echo "solve_scale: no ilpart at $ILPART (set ILPART=)" >&2; exit 2; }
[ $# -gt 0 ] || set -- 10000 30000 60000 100000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

now() { date +%s.%N; }
# run CMD...: prints the wall seconds; fails loudly when the command does
run() {
	t0=$(now)
	"$@" >"$tmp/out" 2>"$tmp/err" || { echo "solve_scale: failed: $*" >&2; cat "$tmp/err" >&2; exit 1; }
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}
status() { sed -n 's/.*"status": "\([^"]*\)".*/\1/p' "$tmp/p.json" | head -1; }

printf '%8s %8s %8s %9s %-8s %9s %-8s %9s %-8s %9s %6s\n' nodes info_s mincut_s none_s status \
    pytorch_s status runtime_s status none/info exp
prev_n="" prev_t=""
for n in "$@"; do
	g=$tmp/g$n.json
	python3 "$here/gen_graph.py" "$n" -o "$g"
	ti=$(run "$ILPART" info "$g")
	tm=$(run "$ILPART" mincut "$g" -o "$tmp/m.json")
	# shellcheck disable=SC2086
	t1=$(run "$ILPART" solve "$g" --bans none $ARGS -o "$tmp/p.json"); s1=$(status)
	# shellcheck disable=SC2086
	t2=$(run "$ILPART" solve "$g" $ARGS -o "$tmp/p.json"); s2=$(status)
	# shellcheck disable=SC2086
	t3=$(run "$ILPART" solve "$g" --objective runtime $ARGS -o "$tmp/p.json"); s3=$(status)
	awk -v n="$n" -v ti="$ti" -v tm="$tm" -v t1="$t1" -v s1="$s1" -v t2="$t2" -v s2="$s2" \
	    -v t3="$t3" -v s3="$s3" -v pn="$prev_n" -v pt="$prev_t" \
	    'BEGIN { e = (pn != "" && pt > 0 && t1 > 0) ? sprintf("%.2f", log(t1 / pt) / log(n / pn)) : "-";
	      printf "%8d %8.2f %8.2f %9.2f %-8s %9.2f %-8s %9.2f %-8s %9.1f %6s\n", n, ti, tm,
	          t1, s1, t2, s2, t3, s3, t1 / (ti > 0 ? ti : 1e-9), e }'
	prev_n=$n prev_t=$t1
done
