#!/bin/sh
# python-tests.sh [PATTERN] - the PyTorch bridge tests: build ilpart (non-sanitized: the binary
# runs inside the chroot, whose libc has no ASan runtime), make or reuse the cached Debian
# trixie chroot with torch 2.6 (scripts/torch-chroot.sh), and run tests/python/test*.py (or
# the files matching PATTERN) inside it. Ends with "python: N passed, N failed"; exit 1 on
# any failure. Environment: ILPART_BUILD (build directory, default build), ILPART_CHROOT.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${ILPART_BUILD:-build}
export ILPART_BUILD="$build"

if ! ./scripts/setup.sh "$build" >&2; then
	echo "python-tests: build failed" >&2
	echo "python: 0 passed, 1 failed"
	exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
./scripts/torch-chroot.sh python3 tests/python/run.py "$@" >"$log" 2>&1
rc=$?
grep -v -e 'UCX  ERROR failed to get boot id' "$log"
if ! grep -q '^python: [0-9]* passed' "$log"; then
	# the runner did not get to its summary line (chroot or interpreter failure)
	echo "python-tests: chroot run failed (exit $rc)" >&2
	echo "python: 0 passed, 1 failed"
	[ $rc -ne 0 ] || rc=1
fi
exit $rc
