#!/bin/sh
# valgrind.sh [TEST...] - the C test suite under valgrind memcheck: builds build-valgrind/
# (plain -g -O2, no sanitizers: they do not mix with valgrind) and runs `make check`
# there with every compiled program under memcheck: the unit suites (tests/unit, in one
# process: CK_FORK=no), the fuzz-corpus replays (tests/fuzz/replay.sh), and each ilpart
# command the golden, bad-input and Python-without-torch tests run. Any memcheck error
# or leak (definite, indirect or possible) fails the test that hit it.
# Installs valgrind with apt when missing. Ends with "valgrind: N passed, N failed".
# TEST... limits `make check` to those TESTS (e.g. tests/unit). docs/testing.md.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
if ! command -v valgrind >/dev/null 2>&1; then
	echo "valgrind: installing valgrind" >&2
	SUDO=""
	[ "$(id -u)" -ne 0 ] && SUDO=sudo
	$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
	    valgrind >/dev/null || { echo "valgrind: cannot install valgrind" >&2; exit 1; }
fi
./scripts/setup.sh build-valgrind || exit 1
b=$top/build-valgrind
make -C "$b" -j"$(nproc)" check TESTS= >/dev/null || exit 1

# One wrapper for everything: memcheck's report goes to stderr, exit status 99 on any
# error or leak (reachable blocks, e.g. GLPK's and cJSON's, are not leaks).
vg=$b/vg
cat >"$vg" <<EOS
#!/bin/sh
exec valgrind --quiet --error-exitcode=99 --leak-check=full \\
    --show-leak-kinds=definite,indirect,possible \\
    --errors-for-leak-kinds=definite,indirect,possible --track-origins=yes "\$@"
EOS
cat >"$b/vg-ilpart" <<EOS
#!/bin/sh
exec $vg $b/ilpart "\$@"
EOS
# make check's LOG_COMPILER: compiled tests under memcheck; the shell drivers run as
# they are (their ilpart runs go through vg-ilpart, their replays through vg).
cat >"$b/vg-test" <<EOS
#!/bin/sh
case "\$1" in
*.sh) exec sh "\$@" ;;
*) exec $vg "\$@" ;;
esac
EOS
chmod +x "$vg" "$b/vg-ilpart" "$b/vg-test"

tests=""
[ $# -gt 0 ] && tests="TESTS=$*"
# shellcheck disable=SC2086
make -C "$b" check $tests LOG_COMPILER="$b/vg-test" \
    AM_TESTS_ENVIRONMENT="ILPART=$b/vg-ilpart; srcdir=$top; REPLAY_WRAPPER=$vg; CK_FORK=no; \
    export ILPART srcdir REPLAY_WRAPPER CK_FORK;" \
    >"$b/valgrind.out" 2>&1
rc=$?
grep -E '^(PASS|FAIL|ERROR|SKIP|XFAIL|XPASS):' "$b/valgrind.out"
p=$(grep -cE '^(PASS|SKIP|XFAIL):' "$b/valgrind.out")
f=$(grep -cE '^(FAIL|ERROR|XPASS):' "$b/valgrind.out")
if [ "$rc" -ne 0 ]; then
	for log in $(sed -nE 's/^(FAIL|ERROR): (.*)$/\2.log/p' "$b/valgrind.out"); do
		echo "--- $log"
		grep -E '==[0-9]+==|FAIL|:[EF]:' "$b/$log" | head -n 60
	done
	[ "$f" -gt 0 ] || f=1
fi
echo "valgrind: $p passed, $f failed"
[ "$f" -eq 0 ]
