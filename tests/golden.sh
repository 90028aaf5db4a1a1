#!/bin/sh
# golden.sh - golden CLI tests as data, run by `make check`.
#
# Each directory tests/golden/NAME/ is one case:
#   cmd              one shell command, run by sh inside that directory with $ILPART (the
#                    ilpart binary) and $OUT (an empty scratch directory) set; append
#                    2>&1 to compare the error message as well
#   expected.out     the exact standard output
#   expected.status  the exit status, a number
#   inputs           whatever the command names (graph.json, partition.json, ...)
# $ILPART_FAULT is the command built with fault injection (tests/ilpart_fault,
# ILPART_FAULT_GLPK=N: a GLPK error at the Nth fault point, solver/model/glpk_env.h).
# A case passes when both its output and its status match exactly.
#
# Environment: ILPART (default ./ilpart), srcdir (source root, default .).
# GOLDEN_UPDATE=1 rewrites expected.* from the current binary: review the diff.
set -u
ILPART=${ILPART:-./ilpart}
srcdir=${srcdir:-.}
case $ILPART in /*) ;; *) ILPART=$(pwd)/$ILPART ;; esac
ILPART_FAULT=${ILPART_FAULT:-$(dirname "$ILPART")/tests/ilpart_fault}
case $ILPART_FAULT in /*) ;; *) ILPART_FAULT=$(pwd)/$ILPART_FAULT ;; esac
export ILPART ILPART_FAULT

if [ ! -x "$ILPART" ]; then
	echo "golden: $ILPART is not executable" >&2
	exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ilpart-golden.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM

pass=0
fail=0
for dir in "$srcdir"/tests/golden/*/; do
	[ -f "$dir/cmd" ] || continue
	name=$(basename "$dir")
	OUT=$work/$name
	mkdir -p "$OUT"
	export OUT
	(cd "$dir" && sh ./cmd) > "$work/$name.out" 2>"$work/$name.err"
	status=$?
	if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$work/$name.out" "$dir/expected.out"
		echo "$status" > "$dir/expected.status"
	fi
	want=$(cat "$dir/expected.status" 2>/dev/null)
	if cmp -s "$work/$name.out" "$dir/expected.out" && [ "$status" = "$want" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $name (status $status, expected $want)"
		diff -u "$dir/expected.out" "$work/$name.out" | head -40
		sed 's/^/  stderr: /' "$work/$name.err" | head -10
	fi
done
echo "golden: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
