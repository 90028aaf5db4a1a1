#!/bin/sh
# test.sh - set everything up and run every test: the C suites, the golden CLI tests, the
# bad-input corpus and the fuzz corpora under ASan+UBSan with -Werror (`make check`), the
# fuzz targets for a short time when clang is there (scripts/fuzz.sh), then the PyTorch
# tests under torch 2.6 and 2.14 (the cached trixie and sid chroots, scripts/python-tests.sh).
# Ends with "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
status=0
passed=0
failed=0

count() { # add the counts of a log's "N passed, N failed" line
	line=$(grep -E '^([a-z_]+: )?[0-9]+ passed, [0-9]+ failed' "$1" 2>/dev/null | tail -1)
	[ -n "$line" ] || return 0
	p=$(echo "$line" | sed -E 's/^([a-z_]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2/')
	f=$(echo "$line" | sed -E 's/^([a-z_]+: )?([0-9]+) passed, ([0-9]+) failed.*/\3/')
	passed=$((passed + p))
	failed=$((failed + f))
}

echo "== build (werror, ASan+UBSan) =="
./scripts/setup.sh build-check --enable-werror --enable-sanitizers || exit 1

# The torch chroots (several minutes each the first time, mostly download and unpack) are
# made in the background while the C tests run; python-tests.sh later waits on their lock
# and reuses them, or makes one itself if this attempt failed. debootstrap is installed
# first, in the foreground, so no two apt-gets meet on the host.
if [ "${ILPART_SKIP_PYTHON:-0}" != 1 ] && [ "$(id -u)" -eq 0 ]; then
	if ! command -v debootstrap >/dev/null 2>&1; then
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		    debootstrap >/dev/null
	fi
	(for s in ${ILPART_SUITES:-trixie sid}; do
		ILPART_SUITE=$s ./scripts/torch-chroot.sh true
	done) >build-check/chroots.out 2>&1 &
fi

echo "== make check =="
# Sanitized tests on 2 cores, beside the chroot being unpacked, run several times slower
# than a plain build: Check's per-test timeouts (4 s, 60 s for the heavy cases) are
# stretched so load alone cannot fail a test; a hang still does.
export CK_TIMEOUT_MULTIPLIER="${CK_TIMEOUT_MULTIPLIER:-4}"
if ! make -C build-check -j"$(nproc)" check >build-check/check.out 2>&1; then
	status=1
	cat build-check/check.out
	cat build-check/test-suite.log 2>/dev/null
fi
grep -E '^(PASS|FAIL|ERROR|XFAIL|XPASS|SKIP):|^# ' build-check/check.out
unit=build-check/tests/unit.log
if [ -f "$unit" ]; then
	grep -E '^[0-9]+%: Checks:' "$unit"
	grep -E ':[EF]:' "$unit" | head -20
	c=$(sed -nE 's/^[0-9]+%: Checks: ([0-9]+), Failures: ([0-9]+), Errors: ([0-9]+).*/\1 \2 \3/p' "$unit")
	if [ -n "$c" ]; then
		set -- $c
		passed=$((passed + $1 - $2 - $3))
		failed=$((failed + $2 + $3))
	fi
fi
for log in build-check/tests/*.sh.log build-check/tests/fuzz/*.sh.log; do
	[ -f "$log" ] && tail -1 "$log" && count "$log"
done

if command -v clang >/dev/null 2>&1; then
	fz=${ILPART_FUZZ_SECONDS:-15}
	echo "== fuzz targets (libFuzzer, clang), $fz s each from the committed corpus =="
	# A fixed seed: the short run walks the same mutations every time, so a red run is
	# reproducible; long campaigns (scripts/fuzz.sh alone) draw a fresh seed.
	if ! FUZZ_ARGS=${FUZZ_ARGS:--seed=1} ./scripts/fuzz.sh "$fz" >build-check/fuzz.out 2>&1; then
		status=1
	fi
	grep -vE '^setup: ' build-check/fuzz.out
	count build-check/fuzz.out
fi

echo "== install: libilpart, ilpart.h and ilpart.pc used from C =="
if ./scripts/setup.sh build && tests/install.sh build >build-check/install.out 2>&1; then :; else
	status=1
fi
cat build-check/install.out
count build-check/install.out

echo "== make distcheck: the release tarball builds and passes its tests =="
if make -C build distcheck >build-check/distcheck.out 2>&1; then
	echo "distcheck: 1 passed, 0 failed" | tee -a build-check/distcheck.out
	rm -f build/ilpart-*.tar.gz
else
	tail -30 build-check/distcheck.out
	echo "distcheck: 0 passed, 1 failed" | tee -a build-check/distcheck.out
	status=1
fi
count build-check/distcheck.out

if [ "${ILPART_SKIP_PYTHON:-0}" != 1 ] && [ -x scripts/python-tests.sh ]; then
	echo "== PyTorch tests (trixie chroot: torch 2.6; sid chroot: torch 2.14) =="
	if ! ./scripts/python-tests.sh >build-check/python.out 2>&1; then
		status=1
		tail -60 build-check/python.out
	fi
	# per chroot: torch version, skipped tests with reasons, failures, counts and time
	grep -E '^(== PyTorch tests|torch [0-9]|skipped: |FAIL: |ERROR: |python(\[[a-z]+\])?: )' \
	    build-check/python.out
	count build-check/python.out
fi

[ "$failed" -gt 0 ] && status=1
echo "$passed passed, $failed failed"
exit $status
