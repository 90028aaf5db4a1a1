#!/bin/sh
# replay.sh - runs the committed fuzz corpora (tests/fuzz/corpus/TARGET) and regression
# inputs (tests/fuzz/regress/TARGET) through each fuzz target's entry point, built
# without libFuzzer as tests/fuzz/replay_TARGET. One test per target; a crash, a
# sanitizer report or a failed invariant fails it and names the input.
#
# Environment: ILPART (the binary; its directory is the build tree), srcdir (source
# root), REPLAY_WRAPPER (a command to run each replay under, e.g. valgrind).
# Usage: tests/fuzz/replay.sh [TARGET...]   (default: graph policy partition solve)
set -u
top=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
ilpart=${ILPART:-$top/build/ilpart}
bin=$(dirname "$ilpart")/tests/fuzz
passed=0
failed=0
log=$(mktemp "${TMPDIR:-/tmp}/fuzz_replay.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT

[ $# -gt 0 ] || set -- graph policy partition solve
for t in "$@"; do
	dirs=""
	for d in "$top/tests/fuzz/corpus/$t" "$top/tests/fuzz/regress/$t"; do
		[ -d "$d" ] && dirs="$dirs $d"
	done
	# shellcheck disable=SC2086
	if REPLAY_VERBOSE=1 ${REPLAY_WRAPPER:-} "$bin/replay_$t" $dirs >"$log" 2>&1; then
		passed=$((passed + 1))
		tail -n 1 "$log"
	else
		failed=$((failed + 1))
		echo "FAIL: $t, at input $(grep '^replay: ' "$log" | tail -n 1 | cut -c9-)"
		grep -v '^replay: ' "$log" | head -n 40 | sed 's/^/  | /'
	fi
done
echo "fuzz_replay: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
