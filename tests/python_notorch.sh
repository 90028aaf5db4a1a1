#!/bin/sh
# python_notorch.sh - the Python tests that need no torch (tests/python/test_*_notorch.py:
# ilpart.runner, ilpart.graphfile, ilpart.store) on the host's python3, against the ilpart
# just built.
# Run by `make check`; prints "python_notorch: N passed, N failed"; skipped (77) without
# python3. Environment: ILPART (default ./ilpart), srcdir (source root, default .).
set -u
ILPART=${ILPART:-./ilpart}
srcdir=${srcdir:-.}
case $ILPART in /*) ;; *) ILPART=$(pwd)/$ILPART ;; esac
if ! command -v python3 >/dev/null 2>&1; then
	echo "python_notorch: python3 not found, skipped"
	exit 77
fi
# No __pycache__ in the source tree (read-only under distcheck).
passed=0
failed=0
for t in "$srcdir"/tests/python/test_*_notorch.py; do
	out=$(ILPART_BIN=$ILPART PYTHONDONTWRITEBYTECODE=1 python3 "$t" 2>&1)
	echo "$out"
	line=$(echo "$out" | grep -E '^[a-z_]+: [0-9]+ passed, [0-9]+ failed' | tail -1)
	if [ -z "$line" ]; then
		failed=$((failed + 1))
		continue
	fi
	set -- $line
	passed=$((passed + $2))
	failed=$((failed + $4))
done
echo "python_notorch: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
