#!/bin/sh
# setup.sh [BUILDDIR] [configure args...] - install what ilpart needs on Debian 12,
# generate configure, configure BUILDDIR (default: build) and build. Idempotent:
# a second run installs nothing and only rebuilds what changed.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${1:-build}
[ $# -gt 0 ] && shift

need=""
for pkg in build-essential autoconf automake libtool pkg-config libglpk-dev libcjson-dev check \
    graphviz python3; do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || need="$need $pkg"
done
if [ -n "$need" ]; then
	echo "setup: installing$need" >&2
	SUDO=""
	[ "$(id -u)" -ne 0 ] && SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need >/dev/null
fi

cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
	echo "setup: autoreconf" >&2
	autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
fi
mkdir -p "$builddir"
cd "$builddir"
stamp=".ilpart-configure-args"
args="$*"
if [ ! -f Makefile ] || [ "$(cat "$stamp" 2>/dev/null)" != "$args" ]; then
	echo "setup: configure $args ($builddir)" >&2
	# shellcheck disable=SC2086
	"$top/configure" $args >/dev/null
	printf '%s' "$args" > "$stamp"
fi
make -j"$(nproc)" >/dev/null
