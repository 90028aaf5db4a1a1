#!/bin/sh
# snapshot.sh ILPART OUTDIR - run a fixed set of commands and store what each printed,
# for comparing two builds byte for byte (a refactoring must leave it unchanged):
#     scripts/snapshot.sh /tmp/ilpart-before /tmp/snap-before
#     scripts/snapshot.sh build/ilpart /tmp/snap-after
#     diff -r /tmp/snap-before /tmp/snap-after
# For each case OUTDIR/NAME/ holds out (stdout), err (stderr without lines that carry
# a duration), status and every file the command wrote. The cases: solve with each
# objective and budget over tests/data/corpus/*.json, the examples and the golden inputs,
# --write-lp, mincut, compare --no-times, pareto, info --blocks, check, split, the bad
# inputs of tests/bad, and budgeted solves of bench/corpus/transformer-12l.json. Timing
# dependent paths (the peak objective) run only on small graphs with a short limit.
# Not a test by itself: it never fails on what it stores.
set -u
if [ $# -ne 2 ]; then
	echo "usage: $0 ILPART OUTDIR" >&2
	exit 2
fi
top=$(cd "$(dirname "$0")/.." && pwd)
ILPART=$1
case $ILPART in /*) ;; *) ILPART=$(pwd)/$ILPART ;; esac
out=$2
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
export LC_ALL=C

# run NAME ARGS...: one case, run in its own directory (files it writes land there)
run() {
	name=$1
	shift
	d=$out/$name
	rm -rf "$d"
	mkdir -p "$d/files"
	(cd "$d/files" && "$ILPART" "$@") >"$d/out" 2>"$d/err.raw"
	echo $? >"$d/status"
	# durations: "1.23s", "0.5 s", "12 ms"
	grep -Ev '[0-9]s\b|[0-9] s\b|[0-9] ?ms\b|seconds' "$d/err.raw" >"$d/err"
	rm -f "$d/err.raw"
	rmdir "$d/files" 2>/dev/null
	:
}

corpus=$top/tests/data/corpus
small="mlp mlp-dropout checkpoint-2l convnet dropout-sac"
for g in "$corpus"/*.json; do
	b=$(basename "$g" .json)
	for obj in memory runtime weighted; do
		run "solve-$obj-$b" solve "$g" --objective $obj -o p.json
	done
	run "solve-weighted-alpha-$b" solve "$g" --objective weighted --alpha 1000 -o p.json
	for f in 0.1 0.3 0.5; do
		run "solve-budget$f-$b" solve "$g" --memory-budget $f -o p.json
	done
	run "solve-budget0.3-pytorch-$b" solve "$g" --memory-budget 0.3 --prefer pytorch -o p.json
	run "solve-budget0.3-soft-$b" solve "$g" --memory-budget 0.3 --prefer soft -o p.json
	run "solve-budget0.3-mono-$b" solve "$g" --memory-budget 0.3 --monolithic -o p.json
	run "solve-budget0.5-normalised-$b" solve "$g" --memory-budget 0.5 \
	    --fraction-cap normalised --bans none -o p.json
	run "solve-soft-$b" solve "$g" --prefer soft -o p.json
	run "solve-writelp-$b" solve "$g" --memory-budget 0.3 --write-lp m.lp --write-mps m.mps \
	    -o p.json
	run "solve-writelp-memory-$b" solve "$g" --write-lp m.lp -o p.json
	run "solve-split-$b" solve "$g" --split sp -o p.json
	run "mincut-$b" mincut "$g" -o p.json
	run "mincut-budget-$b" mincut "$g" --memory-budget 0.3
	run "mincut-explain-$b" mincut "$g" --explain
	run "compare-$b" compare "$g" --no-times
	run "compare-budget-$b" compare "$g" --no-times --memory-budget 0.3 --json
	run "pareto-$b" pareto "$g" --points 4 --bans none
	run "pareto-each-$b" pareto "$g" --points 3 --solve-each
	run "info-$b" info "$g" --blocks
	run "info-plain-$b" info "$g" --bans none
	"$ILPART" solve "$g" -o "$out/.p-$b.json" >/dev/null 2>&1
	run "check-$b" check "$g" "$out/.p-$b.json"
	run "split-text-$b" split "$g" "$out/.p-$b.json" --format text
	run "split-json-$b" split "$g" "$out/.p-$b.json" --format json -o s.json
	run "split-dot-$b" split "$g" "$out/.p-$b.json" --format dot
	rm -f "$out/.p-$b.json"
done
for b in $small; do
	g=$corpus/$b.json
	run "solve-peak-$b" solve "$g" --objective peak --time-limit 5 -o p.json
	run "solve-peakbudget-$b" solve "$g" --objective runtime --peak-budget 10MiB \
	    --time-limit 5 -o p.json
	run "compare-peak-$b" compare "$g" --no-times --peak --time-limit 5
	run "pareto-peak-$b" pareto "$g" --points 3 --axis peak --time-limit 5
	run "solve-verbose-$b" solve "$g" --memory-budget 0.3 -v -o p.json
done
for g in "$top"/examples/*.json "$top"/tests/golden/*/*.json; do
	case $g in */partition*.json|*/p.json) continue ;; esac
	b=$(echo "$g" | sed "s|$top/||; s|/|_|g; s|\.json$||")
	run "ex-solve-$b" solve "$g" -o p.json
	run "ex-solve-budget-$b" solve "$g" --memory-budget 0.3 -o p.json
	run "ex-compare-$b" compare "$g" --no-times
	run "ex-info-$b" info "$g"
done
for p in "$top"/examples/policies/*.json; do
	b=$(basename "$p" .json)
	run "policy-$b" solve "$corpus/llama-2l.json" --policy "$p" -o p.json
done
for g in "$top"/tests/bad/*.json; do
	b=$(basename "$g" .json)
	run "bad-info-$b" info "$g"
	run "bad-solve-$b" solve "$g"
done
run "usage-solve" solve
run "usage-objective" solve "$corpus/mlp.json" --objective nosuch
run "usage-budget" solve "$corpus/mlp.json" --memory-budget 0.3 --objective memory
run "usage-alpha" solve "$corpus/mlp.json" --objective weighted --alpha -1
run "help" --help
for c in solve mincut check split compare pareto info batch remap; do
	run "help-$c" $c --help
done
big=$top/bench/corpus/transformer-12l.json
for f in 0.1 0.3 0.5; do
	run "big-budget$f" solve "$big" --memory-budget $f --write-lp m.lp -o p.json
done
run "big-memory" solve "$big" -o p.json
run "big-info" info "$big" --blocks
run "big-mincut" mincut "$big" -o p.json
run "big-pareto" pareto "$big" --points 4
exit 0
