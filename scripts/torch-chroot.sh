#!/bin/sh
# torch-chroot.sh [COMMAND [ARGS...]] - run COMMAND inside a Debian chroot that has PyTorch
# (Debian 12 has none), with this repository at /ilpart, its python package on PYTHONPATH and
# the host-built binary as $ILPART_BIN. Without a command: a shell.
#
# Two chroots, chosen by ILPART_SUITE: trixie (the default; Debian 13, python3-torch 2.6) and sid
# (Debian unstable: the newest packaged torch, 2.14 when written, with python3-transformers and
# python3-torchvision for the tests on real model code).
#
# The chroot is cached outside the repository, in $ILPART_CHROOT (default
# /var/cache/ilpart/$ILPART_SUITE). It is created when missing (debootstrap, then apt-get), reused
# when present; a second run does nothing but run the command. Must run as root.
#
# Mounts (/proc, the repository, a tmpfs on /dev/shm) are made in a private mount namespace
# (unshare -m), so they vanish with the command whatever happens to it; where unshare is not
# available they are made in the host namespace and unmounted by an EXIT trap.
#
# Packages: torch and the ilpart binary's runtime libraries, and what Inductor's CPU code
# generation compiles with (g++, the Python and ATen headers, SLEEF's). A cached chroot that
# lacks some of them (made by an older version of this script) gets them installed on the
# next run.
#
# Vectorised Inductor: ATen's vector code calls SLEEF; Debian's libtorch_cpu links
# libsleef.so.3 instead of containing it, Inductor links a kernel without -lsleef (Windows
# only) and Debian's g++ links --as-needed, so Inductor's probe of the CPU's vector ISA
# (torch/_inductor/cpu_vec_isa.py) builds a kernel it cannot load ("undefined symbol:
# Sleef_expf8_u10"): Debian's torch compiles every CPU kernel as scalar C++ and refuses
# templates that need a vector ISA.
# A pip-installed torch carries SLEEF inside libtorch_cpu and vectorises. The command runs
# with the chroot's libsleef preloaded so Inductor here vectorises as it does for most users;
# ILPART_INDUCTOR_VEC=0 runs it as stock Debian does (scalar).
#
# Environment: ILPART_CHROOT (chroot directory), ILPART_BUILD (build directory inside the
# repository whose `ilpart` is used, default build), ILPART_MIRROR (Debian mirror for
# debootstrap; default: the first Debian mirror in the host's own apt sources, else
# debootstrap's default).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
suite=${ILPART_SUITE:-trixie}
case $suite in
trixie|sid) ;;
*) echo "torch-chroot: ILPART_SUITE must be trixie or sid, not '$suite'" >&2; exit 2 ;;
esac
root=${ILPART_CHROOT:-/var/cache/ilpart/$suite}
build=${ILPART_BUILD:-build}
pkgs="python3-torch python3-numpy libglpk40 libcjson1 g++ python3-dev python3-setuptools libtorch-dev libsleef-dev python3-matplotlib"
[ "$suite" = sid ] && pkgs="$pkgs python3-transformers python3-torchvision"
stamp="etc/ilpart-chroot"

say() { echo "torch-chroot: $*" >&2; }

# sid's Release file can be past its Valid-Until date on a mirror that is not refreshed daily
# (a snapshot); apt then refuses it. The chroot is a test rig, so the date is not checked.
apt_opts="-o Acquire::Check-Valid-Until=false"

# Mounts proc, the repository and /dev/shm under $1. Used inside a private namespace, or with
# unmount_all as the EXIT trap.
mount_all()
{
	mkdir -p "$1/ilpart" "$1/proc" "$1/dev/shm"
	mount -t proc proc "$1/proc"
	mount --bind "$top" "$1/ilpart"
	mount -t tmpfs -o size=1g tmpfs "$1/dev/shm"
}

unmount_all()
{
	for m in dev/shm ilpart proc; do
		if mountpoint -q "$1/$m" 2>/dev/null; then
			umount "$1/$m" 2>/dev/null || umount -l "$1/$m" || true
		fi
	done
}

# The host's Debian mirror: the first URI of /etc/apt/sources.list ("deb URI SUITE ...") or
# of /etc/apt/sources.list.d/*.sources ("URIs:" of a stanza) whose suite is a Debian release
# other than -security. Prints nothing when there is none.
host_mirror()
{
	set --
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] && set -- "$@" "$f"
	done
	[ $# -gt 0 ] || return 0
	awk '
	function debian(suite) {
		sub(/-(updates|backports|proposed-updates)$/, "", suite)
		return suite ~ /^(buster|bullseye|bookworm|trixie|forky|duke|sid|oldstable|stable|testing|unstable)$/
	}
	FNR == 1 { uris = ""; suites = "" }
	/^[ \t]*deb[ \t]/ {
		i = 2
		if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
		if (debian($(i + 1))) { print $i; exit }
		next
	}
	/^URIs:/ { uris = $2 }
	/^Suites:/ { suites = $0; sub(/^Suites:/, "", suites) }
	/^[ \t]*$/ || /^Types:/ { stanza_end() }
	END { stanza_end() }
	function stanza_end(   n, s, k) {
		if (uris != "" && suites != "") {
			n = split(suites, s, /[ \t]+/)
			for (k = 1; k <= n; k++) if (s[k] != "" && debian(s[k])) { print uris; exit }
		}
		uris = ""; suites = ""
	}' "$@" | head -n 1
}

have_ns()
{
	unshare -m --propagation private true 2>/dev/null
}

# Runs "$@" in chroot $dir with its mounts (for apt-get and the user's command).
in_chroot()
{
	dir=$1
	shift
	if have_ns; then
		ILPART_TOP=$top unshare -m --propagation private sh -c '
			set -e
			mkdir -p "$0/ilpart" "$0/proc" "$0/dev/shm"
			mount -t proc proc "$0/proc"
			mount --bind "$ILPART_TOP" "$0/ilpart"
			mount -t tmpfs -o size=1g tmpfs "$0/dev/shm"
			exec chroot "$0" "$@"' "$dir" "$@"
	else
		trap 'unmount_all "$dir"' EXIT
		trap 'exit 130' INT TERM
		mount_all "$dir"
		rc=0
		chroot "$dir" "$@" || rc=$?
		unmount_all "$dir"
		trap - EXIT INT TERM
		return $rc
	fi
}

apt_in()
{
	in_chroot "$1" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
	    LANG=C.UTF-8 sh -c "apt-get $apt_opts update -qq && apt-get $apt_opts install -y -qq --no-install-recommends $pkgs"
}

# Are all of $pkgs installed in chroot $1? (Asks its dpkg: a chroot shared with older
# versions of this script, which install fewer packages, is judged by what it has.)
have_pkgs()
{
	[ -x "$1/usr/bin/dpkg-query" ] || return 1
	n=$(chroot "$1" /usr/bin/dpkg-query -W -f='${db:Status-Status}\n' $pkgs 2>/dev/null |
	    grep -c '^installed$')
	[ "$n" -eq "$(echo $pkgs | wc -w)" ]
}

ensure_chroot()
{
	[ -f "$root/$stamp" ] && have_pkgs "$root" && return 0
	mkdir -p "$(dirname "$root")"
	# One creator at a time; the others wait and then reuse.
	exec 9>"$root.lock"
	flock 9
	if [ -f "$root/$stamp" ] && have_pkgs "$root"; then
		exec 9>&-
		return 0
	fi
	if [ -d "$root" ]; then
		# An existing chroot (made by hand, or by an older version of this script): adopt it,
		# installing whatever is missing.
		if [ ! -x "$root/usr/bin/apt-get" ]; then
			say "$root exists but is no Debian chroot; remove it or set ILPART_CHROOT"
			exit 1
		fi
		say "adopting $root, installing $pkgs"
		apt_in "$root" >&2
	else
		if ! command -v debootstrap >/dev/null 2>&1; then
			say "installing debootstrap on the host"
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
		fi
		tmp="$root.tmp"
		# A half-made chroot from an interrupted run: nothing is mounted in it (mounts live
		# in private namespaces or were unmounted by the trap), so start over.
		if [ -d "$tmp" ]; then
			unmount_all "$tmp"
			# Never rm -rf through a bind mount of the repository (or anything else).
			if awk -v d="$tmp/" 'index($2, d) == 1 { found = 1 } END { exit !found }' /proc/mounts; then
				say "something is still mounted under $tmp; unmount it, then retry"
				exit 1
			fi
			rm -rf "$tmp"
		fi
		mirror=${ILPART_MIRROR:-$(host_mirror)}
		say "creating $root (debootstrap $suite${mirror:+ from $mirror}; several minutes, once)"
		debootstrap --variant=minbase "$suite" "$tmp" ${mirror:+"$mirror"} >&2
		apt_in "$tmp" >&2
		mv "$tmp" "$root"
	fi
	printf '%s' "$pkgs" > "$root/$stamp"
	exec 9>&-
}

[ "$(id -u)" -eq 0 ] || { say "must run as root (chroot, mount)"; exit 2; }
ensure_chroot
[ -x "$top/$build/ilpart" ] || say "warning: $top/$build/ilpart not built (run ./scripts/setup.sh $build)"
[ $# -gt 0 ] || set -- /bin/bash
# The chroot gets a clean environment; the ILPART_* knobs of the tests (ILPART_REALMODELS_INDUCTOR,
# ILPART_TRAIN_STEPS, ...) pass through, and the fixed settings below come after them and win.
passthru=$(env | sed -n 's/^\(ILPART_[A-Z0-9_]*\)=.*/\1/p' | sort -u)
set -f
keep=
for v in $passthru; do
	val=$(printenv "$v")
	case $val in
	*[[:space:]]*) say "warning: $v has white space; not passed into the chroot" ;;
	*) keep="$keep $v=$val" ;;
	esac
done
set +f
# Inductor caches its ISA probe's verdict with its kernels, and its FX graph cache's key
# has no CPU ISA: one cache per mode, neither the /tmp/torchinductor of older versions of
# this script, whose kernels are scalar.
preload=
cache=/tmp/torchinductor-scalar
if [ "${ILPART_INDUCTOR_VEC:-1}" != 0 ]; then
	for f in "$root"/usr/lib/*/libsleef.so.3; do
		[ -e "$f" ] && preload="LD_PRELOAD=${f#"$root"}" && cache=/tmp/torchinductor-vec
	done
fi
# shellcheck disable=SC2086  # $keep and $preload split between NAME=VALUE words on purpose
in_chroot "$root" /usr/bin/env -i $keep $preload \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/tmp LANG=C.UTF-8 TERM="${TERM:-dumb}" \
    PYTHONPATH=/ilpart/python PYTHONDONTWRITEBYTECODE=1 \
    ILPART_BIN="/ilpart/$build/ilpart" ILPART_TOP=/ilpart \
    TORCHINDUCTOR_CACHE_DIR=$cache \
    sh -c 'cd /ilpart && exec "$@"' sh "$@"
