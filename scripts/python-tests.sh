#!/bin/sh
# python-tests.sh [PATTERN] - the PyTorch bridge tests under every supported torch: build
# ilpart (non-sanitized: the binary runs inside the chroots, whose libc has no ASan runtime),
# make or reuse the cached chroots (scripts/torch-chroot.sh) — Debian trixie with torch 2.6
# and Debian sid with the newest packaged torch (2.14) — and run tests/python/test*.py (or
# the files matching PATTERN) inside each, one after the other.
#
# Each run ends with its own "python[SUITE]: N passed, N failed, N skipped" line (the
# reasons of the skipped tests listed before it); the last line is the total,
# "python: N passed, N failed, N skipped", which scripts/test.sh adds up. A failure (or a
# chroot that cannot be made or run) in either suite fails the run: exit 1.
#
# Environment: ILPART_BUILD (build directory, default build), ILPART_SUITES (which chroots,
# default "trixie sid"), ILPART_CHROOT (only with a single suite).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${ILPART_BUILD:-build}
export ILPART_BUILD="$build"
suites=${ILPART_SUITES:-trixie sid}

if ! ./scripts/setup.sh "$build" >&2; then
	echo "python-tests: build failed" >&2
	echo "python: 0 passed, 1 failed"
	exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
passed=0
failed=0
skipped=0
for suite in $suites; do
	echo "== PyTorch tests: $suite chroot =="
	start=$(date +%s)
	ILPART_SUITE=$suite ./scripts/torch-chroot.sh python3 tests/python/run.py "$@" >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	grep -v -e 'UCX  ERROR failed to get boot id' "$log"
	line=$(grep -E '^python: [0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
	if [ -z "$line" ]; then
		# the runner did not get to its summary line (chroot or interpreter failure)
		echo "python-tests: $suite chroot run failed (exit $rc)" >&2
		line="python: 0 passed, 1 failed"
		[ $rc -ne 0 ] || rc=1
	fi
	p=$(echo "$line" | sed -E 's/^python: ([0-9]+) passed.*/\1/')
	f=$(echo "$line" | sed -E 's/^python: [0-9]+ passed, ([0-9]+) failed.*/\1/')
	s=$(echo "$line" | sed -nE 's/.*, ([0-9]+) skipped.*/\1/p')
	s=${s:-0}
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	echo "python[$suite]: $p passed, $f failed, $s skipped ($secs s)"
	[ $rc -eq 0 ] || status=1
done
[ "$failed" -eq 0 ] || status=1
echo "python: $passed passed, $failed failed, $skipped skipped"
exit $status
