#!/bin/sh
# python_notorch.sh - the Python tests that need no torch (tests/python/test_runner_notorch.py:
# ilpart.runner and ilpart.graphfile) on the host's python3, against the ilpart just built.
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
ILPART_BIN=$ILPART PYTHONDONTWRITEBYTECODE=1 exec python3 \
    "$srcdir/tests/python/test_runner_notorch.py"
