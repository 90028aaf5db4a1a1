#!/bin/sh
# soft_bench.sh - `ilpart solve --prefer soft` through the block decomposition against
# the same command with --monolithic (the only path before session 7), in the same run.
#
# usage: bench/soft_bench.sh [-g GRAPH.json] [-t SECONDS]
#
# Default graph: `bench/gen_graph.py 100000 --seed 1` (generated into a temporary
# directory), --time-limit 60. Four solves each way: --objective memory, --objective
# runtime, --memory-budget 320431719427 (30 % of that graph's achievable range) and
# --memory-budget 0.3 (torch's normalisation). Both timed as whole processes by
# bench/timeit.py; CPU seconds (user + system: the machine is shared, wall time is
# mostly waiting) and peak RSS of each, mono/dec = how many times less CPU the
# decomposition takes, then each way's exit status, status and gap of the partition
# (? when it has none, - when there is no partition). Not a timed test: it prints, it fails only when the
# decomposed solve writes no partition.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ILPART=${ILPART:-$here/../build/ilpart}
graph=""
limit=60
while [ $# -gt 0 ]; do
	case "$1" in
	-g) graph=$2; shift 2 ;;
	-t) limit=$2; shift 2 ;;
	*) echo "usage: $0 [-g GRAPH] [-t SECONDS]" >&2; exit 2 ;;
	esac
done
[ -x "$ILPART" ] || { echo "soft_bench: no ilpart at $ILPART (set ILPART=)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
if [ -z "$graph" ]; then
	graph=$tmp/g100k.json
	python3 "$here/gen_graph.py" 100000 --seed 1 -o "$graph"
fi

# status and gap of a partition file, or "- -"
verdict() {
	python3 - "$1" <<'EOF'
import json, sys
try:
    p = json.load(open(sys.argv[1]))["producer"]
    print(p["status"], "%.2g" % p["gap"] if "gap" in p else "?")
except (OSError, ValueError, KeyError):
    print("- -")
EOF
}

bad=0
printf '%-30s %8s %7s %8s %7s %8s  %-22s %-22s\n' solve dec_cpu dec_MiB mono_cpu mono_MiB \
    mono/dec decomposed monolithic
for args in "--objective memory" "--objective runtime" \
    "--objective runtime --memory-budget 320431719427" \
    "--objective runtime --memory-budget 0.3"; do
	# shellcheck disable=SC2086
	set -- $(python3 "$here/timeit.py" -- "$ILPART" solve "$graph" --prefer soft \
	    --time-limit "$limit" -o "$tmp/dec.json" $args)
	dw=$1 drc=$2 dkb=$3 dcpu=$4
	# shellcheck disable=SC2086
	set -- $(python3 "$here/timeit.py" -- "$ILPART" solve "$graph" --prefer soft \
	    --time-limit "$limit" --monolithic -o "$tmp/mono.json" $args)
	mw=$1 mrc=$2 mkb=$3 mcpu=$4
	dv=$(verdict "$tmp/dec.json")
	mv=$(verdict "$tmp/mono.json")
	[ "$dv" = "- -" ] && bad=1
	printf '%-30s %8.2f %7d %8.2f %7d %8.1f  exit %-3s %-15s exit %-3s %-15s\n' \
	    "$(echo "$args" | sed 's/--objective //; s/--memory-budget/budget/')" \
	    "$dcpu" $((dkb / 1024)) "$mcpu" $((mkb / 1024)) \
	    "$(python3 -c "print($mcpu / max($dcpu, 1e-3))")" "$drc" "$dv" "$mrc" "$mv"
	: "$dw" "$mw"
	rm -f "$tmp/dec.json" "$tmp/mono.json"
done
exit $bad
