#!/bin/sh
# verdicts.sh - every graph ends in a verdict (issue 9): run by `make check`.
#
# For each tests/data/regress/NAME.json and each prefer mode (hard, pytorch, soft),
# solve, mincut, compare and pareto must exit 0 or 3, and:
#   exit 0 from solve or mincut: `ilpart check` accepts the partition (in the mode it
#          was made under) and `ilpart split` lowers it;
#   exit 3: the message names a conflict;
#   never a crash, a sanitizer report, or exit 1, 2 or 4 ("internal error").
# The statuses, one line per graph and mode, must also match
# tests/data/regress/verdicts.expected, so a change of verdict is seen and reviewed.
#
# Environment: ILPART (the binary; default build/ilpart), srcdir (source root).
# VERDICTS_UPDATE=1 rewrites verdicts.expected from the current binary.
set -u
top=${srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
ilpart=${ILPART:-$top/build/ilpart}
dir=$top/tests/data/regress
tmp=$(mktemp -d "${TMPDIR:-/tmp}/verdicts.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
failed=0
checks=0

if [ ! -x "$ilpart" ]; then
	echo "verdicts: no ilpart binary at $ilpart (set ILPART)" >&2
	exit 1
fi

fail() {
	echo "FAIL: $1"
	sed 's/^/    /' "$tmp/err" | head -5
	failed=$((failed + 1))
}

# run LABEL CMD...: runs an ilpart command, judges the verdict, appends its status
# to $line.
run() {
	label=$1
	shift
	checks=$((checks + 1))
	"$ilpart" "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	case $st in
	0) ;;
	3) grep -q "conflict" "$tmp/err" || fail "$label: exit 3 without naming a conflict" ;;
	*) fail "$label: exit $st" ;;
	esac
	if grep -q "Sanitizer\|runtime error" "$tmp/err"; then
		fail "$label: sanitizer report"
	fi
	line="$line $1=$st"
}

# partition LABEL GRAPH PART: a partition made with exit 0 must check and lower.
accepted() {
	checks=$((checks + 1))
	if ! "$ilpart" check "$2" "$3" >/dev/null 2>"$tmp/err"; then
		fail "$1: ilpart check rejects the partition"
	elif ! "$ilpart" split "$2" "$3" -o "$tmp/split.txt" 2>"$tmp/err"; then
		fail "$1: ilpart split refuses the partition"
	fi
}

: >"$tmp/verdicts"
for g in "$dir"/*.json; do
	name=$(basename "$g" .json)
	for mode in hard pytorch soft; do
		line="$name $mode:"
		rm -f "$tmp/s.json" "$tmp/m.json"
		run "$name solve --prefer $mode" solve "$g" --prefer "$mode" -o "$tmp/s.json"
		[ -f "$tmp/s.json" ] && accepted "$name solve --prefer $mode" "$g" "$tmp/s.json"
		run "$name mincut --prefer $mode" mincut "$g" --prefer "$mode" -o "$tmp/m.json"
		[ -f "$tmp/m.json" ] && accepted "$name mincut --prefer $mode" "$g" "$tmp/m.json"
		run "$name compare --prefer $mode" compare "$g" --prefer "$mode" --no-times
		run "$name pareto --prefer $mode" pareto "$g" --prefer "$mode" --points 3 \
		    -o "$tmp/curve.csv"
		echo "$line" >>"$tmp/verdicts"
	done
done
if [ "${VERDICTS_UPDATE:-0}" = 1 ]; then
	cp "$tmp/verdicts" "$dir/verdicts.expected"
elif ! diff -u "$dir/verdicts.expected" "$tmp/verdicts"; then
	echo "FAIL: verdicts differ from tests/data/regress/verdicts.expected"
	failed=$((failed + 1))
fi
checks=$((checks + 1))
echo "verdicts: $((checks - failed)) passed, $failed failed ($(wc -l <"$tmp/verdicts") graphs x modes)"
[ "$failed" -eq 0 ]
