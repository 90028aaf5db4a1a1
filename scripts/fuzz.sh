#!/bin/sh
# fuzz.sh SECONDS [TARGET...] - build the libFuzzer targets of tests/fuzz with clang
# (build-fuzz/, configure --enable-fuzz; installs clang with apt when missing) and run
# each TARGET (default: graph policy partition solve) for SECONDS, seeded from the
# committed corpus tests/fuzz/corpus/TARGET with the dictionary tests/fuzz/ilpart.dict.
#
# New corpus entries go to build-fuzz/corpus/TARGET, never into the tree; crash inputs
# to build-fuzz/artifacts/. Ends with "fuzz: N passed, N failed" (a target fails when
# it finds a crash, a leak or a broken invariant). docs/testing.md.
#
# Environment: FUZZ_ARGS (extra libFuzzer flags, e.g. -jobs=2), FUZZ_NICE (nice level,
# default 0), FUZZ_MERGE=1 (after the run, minimise the committed corpus together with
# the new entries into tests/fuzz/corpus/TARGET: review the diff before committing).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
secs=${1:-}
case $secs in
'' | *[!0-9]*) echo "usage: scripts/fuzz.sh SECONDS [TARGET...]" >&2; exit 2 ;;
esac
shift
[ $# -gt 0 ] || set -- graph policy partition solve

if ! command -v clang >/dev/null 2>&1; then
	echo "fuzz: installing clang" >&2
	SUDO=""
	[ "$(id -u)" -ne 0 ] && SUDO=sudo
	$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang \
	    >/dev/null || { echo "fuzz: cannot install clang" >&2; exit 1; }
fi
./scripts/setup.sh build-fuzz CC=clang --enable-fuzz --enable-werror || exit 1

max_len() {
	case $1 in
	graph) echo 16384 ;;
	solve) echo 8192 ;;
	*) echo 4096 ;;
	esac
}

passed=0
failed=0
mkdir -p build-fuzz/artifacts
for t in "$@"; do
	bin=build-fuzz/tests/fuzz/fuzz_$t
	seeds=tests/fuzz/corpus/$t
	work=build-fuzz/corpus/$t
	log=build-fuzz/fuzz_$t.log
	if [ ! -x "$bin" ] || [ ! -d "$seeds" ]; then
		echo "FAIL: $t: no target $bin or no corpus $seeds"
		failed=$((failed + 1))
		continue
	fi
	mkdir -p "$work"
	# shellcheck disable=SC2086
	nice -n "${FUZZ_NICE:-0}" "$bin" -max_total_time="$secs" -max_len="$(max_len "$t")" \
	    -dict=tests/fuzz/ilpart.dict -timeout=60 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix="build-fuzz/artifacts/$t-" ${FUZZ_ARGS:-} "$work" "$seeds" \
	    >"$log" 2>&1
	rc=$?
	runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log" | tail -n 1)
	rate=$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+)/\1/p' "$log" | tail -n 1)
	cov=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | sed -nE 's/.*cov: ([0-9]+) ft: ([0-9]+) corp: ([0-9]+).*/cov \1, features \2, corpus \3/p')
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		echo "$t: ${runs:-?} runs, ${rate:-?} exec/s, ${cov:-no coverage line}"
	else
		failed=$((failed + 1))
		echo "FAIL: $t (exit $rc), log $log"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz: |artifact_prefix|Test unit written)' "$log" |
		    head -n 10 | sed 's/^/  | /'
	fi
	if [ "${FUZZ_MERGE:-0}" = 1 ]; then
		rm -rf "$work.min" && mkdir -p "$work.min" &&
		    "$bin" -merge=1 -max_len="$(max_len "$t")" "$work.min" "$seeds" "$work" \
		    >>"$log" 2>&1 &&
		    rm -rf "$seeds" && mv "$work.min" "$seeds" &&
		    echo "$t: corpus minimised into $seeds ($(ls "$seeds" | wc -l) files)"
	fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
