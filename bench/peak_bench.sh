#!/bin/sh
# peak_bench.sh - the least-peak search (--objective peak) against every other row of
# `ilpart compare` on the same graph: the saved-bytes optimum, min-cut, PyTorch's recorded
# partitions (min-cut and its memory-budget points), save-all.
#
# usage: bench/peak_bench.sh [-t SECONDS] [--bans "none pytorch"] [GRAPH.json ...]
#
# Default graphs: tests/data/corpus/*.json and bench/corpus/transformer-12l.json. For each
# graph and ban set, `ilpart compare GRAPH --peak --json --time-limit T`. Columns: the
# least-peak row's simulated peak, its status and proven gap and the solve time; the
# baseline is the lowest simulated peak among the other rows that pass the checker, named;
# ratio = least peak / that baseline (<= 1 is the issue's acceptance). Not a timed test:
# it prints numbers, it does not fail on them (tests/test_peak.c checks the ordering).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ILPART=${ILPART:-$here/../build/ilpart}
. "$here/peak_args.sh"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
printf '%-18s %-7s %12s %-10s %7s %7s  %12s %-34s %6s\n' graph bans least_peak status gap \
    solve_s baseline "(row)" ratio
for g in "$@"; do
	for b in $bans; do
		"$ILPART" compare "$g" --peak --json --bans "$b" --time-limit "$limit" >"$tmp"
		python3 - "$g" "$b" "$tmp" <<'PY'
import json, os, sys
g, bans, path = sys.argv[1:4]
rows = json.load(open(path))["rows"]
pk = [r for r in rows if r["name"] == "ilp (peak)"][0]
others = [r for r in rows if r is not pk and r.get("peak_bytes") is not None
          and r.get("violation") is None]
base = min(others, key=lambda r: r["peak_bytes"])
gap = pk.get("gap")
print("%-18s %-7s %12d %-10s %7s %7.1f  %12d %-34s %6.3f" % (
    os.path.basename(g)[:-5], bans, pk["peak_bytes"], pk["status"],
    "-" if gap is None else "%.3f" % gap, pk.get("solve_time_s", 0), base["peak_bytes"],
    base["name"][:34], pk["peak_bytes"] / base["peak_bytes"]))
PY
	done
done
