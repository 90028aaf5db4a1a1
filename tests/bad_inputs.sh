#!/bin/sh
# bad_inputs.sh - the bad-input corpus: every tests/bad/NAME.json must make
# `ilpart info` fail cleanly with the error it is named after.
#
# For each NAME.json, NAME.expected holds exactly what follows the file name in the
# message, so the whole stderr must be the one line "ilpart: FILE<expected>". Also
# required: exit status 2, nothing on stdout. A crash or sanitizer report shows up as
# a different status or extra stderr lines, and fails the case.
#
# Environment: ILPART (the binary; default build/ilpart), srcdir (source root).
# Usage: tests/bad_inputs.sh [NAME...]   (default: every file in tests/bad)
set -u
top=${srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
ilpart=${ILPART:-$top/build/ilpart}
dir=$top/tests/bad
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bad_inputs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

if [ ! -x "$ilpart" ]; then
	echo "bad_inputs: no ilpart binary at $ilpart (set ILPART)" >&2
	exit 1
fi

fail() {
	echo "FAIL: $1: $2"
	failed=$((failed + 1))
}

check() { # check FILE
	f=$1
	name=$(basename "$f" .json)
	if [ ! -f "$dir/$name.expected" ]; then
		fail "$name" "no $name.expected"
		return
	fi
	want="ilpart: $f$(cat "$dir/$name.expected")"
	"$ilpart" info "$f" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	lines=$(wc -l <"$tmp/err" | tr -d ' ')
	got=$(head -n 1 "$tmp/err")
	if [ "$rc" -ne 2 ]; then
		fail "$name" "exit status $rc, expected 2"
	elif [ -s "$tmp/out" ]; then
		fail "$name" "wrote to stdout: $(head -c 200 "$tmp/out")"
	elif [ "$lines" != 1 ]; then
		fail "$name" "$lines lines on stderr, expected 1"
	elif [ "$got" != "$want" ]; then
		fail "$name" "message differs"
		echo "  want: $want"
		echo "  got:  $got"
	else
		passed=$((passed + 1))
		return
	fi
	sed 's/^/  | /' "$tmp/err" | head -n 20
}

if [ $# -gt 0 ]; then
	for n in "$@"; do
		check "$dir/${n%.json}.json"
	done
else
	for f in "$dir"/*.json; do
		check "$f"
	done
	# An .expected file without its input is a corpus mistake too.
	for e in "$dir"/*.expected; do
		[ -f "${e%.expected}.json" ] || fail "$(basename "$e")" "no matching .json"
	done
fi
# No input at all is a broken corpus, not a pass.
[ $((passed + failed)) -gt 0 ] || fail corpus "no test files in $dir"
echo "bad_inputs: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
