# cbc.sh - sourced (`. FILE`) by the benchmarks that run CBC beside ilpart: need_cbc NAME
# sets have_cbc (1 when $CBC runs, else 0 with a message naming the script NAME),
# installing coinor-cbc with apt when it is missing.
need_cbc() {
	if ! command -v "$CBC" >/dev/null 2>&1; then
		echo "$1: installing coinor-cbc" >&2
		SUDO=""
		[ "$(id -u)" -ne 0 ] && SUDO=sudo
		$SUDO apt-get install -y -qq coinor-cbc >/dev/null 2>&1 ||
		    { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq coinor-cbc >/dev/null; } ||
		    true
	fi
	have_cbc=1
	command -v "$CBC" >/dev/null 2>&1 || {
		echo "$1: no cbc and apt-get could not install coinor-cbc (or set CBC=): CBC columns skipped" >&2
		have_cbc=0
	}
}
