#!/bin/sh
# batch_noproc.sh - `ilpart batch` runs where /proc is not mounted (a chroot, a minimal
# container): it finds itself by argv[0], as a path and on PATH (cli/self.c), instead of
# failing with "cannot find this program (/proc/self/exe)". /proc is hidden by a tmpfs
# in a private mount namespace (unshare, as root or in a user namespace); skipped (77)
# where neither is allowed. Environment: ILPART, srcdir, as for golden.sh.
set -u
ILPART=${ILPART:-./ilpart}
srcdir=${srcdir:-.}
case $ILPART in /*) ;; *) ILPART=$(pwd)/$ILPART ;; esac
export ILPART
# AddressSanitizer reads its options from /proc/self/environ and LeakSanitizer needs
# /proc at exit: a sanitized build cannot run without /proc at all (the unsanitized
# `make check` runs this)
if nm "$ILPART" 2>/dev/null | grep -q __asan_init; then
	echo "batch_noproc: $ILPART is built with AddressSanitizer, which needs /proc; skipped"
	exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ilpart-noproc.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM

hide='mount -t tmpfs none /proc && [ ! -e /proc/self/exe ] && exec "$@"'
if unshare -m sh -c "$hide" sh true 2>/dev/null; then
	noproc="unshare -m"
elif unshare -r -m sh -c "$hide" sh true 2>/dev/null; then
	noproc="unshare -r -m"
else
	echo "batch_noproc: cannot hide /proc here (unshare); skipped"
	exit 77
fi
fail=0
mkstore=$srcdir/tests/golden/batch-store/mkstore.sh
bindir=$(dirname "$ILPART")
for how in path PATH; do
	rm -rf "$work/store"
	sh "$mkstore" "$work/store" '["--prefer","hard","--objective","memory"]' || exit 1
	if [ "$how" = path ]; then
		$noproc sh -c "$hide" sh "$ILPART" batch "$work/store" --no-times \
		    >"$work/out" 2>&1
	else
		(cd "$work" && PATH=$bindir:$PATH $noproc sh -c "$hide" sh \
		    "$(basename "$ILPART")" batch "$work/store" --no-times) >"$work/out" 2>&1
	fi
	rc=$?
	if [ "$rc" -ne 0 ] || ! grep -q '1 solved (1 optimal)' "$work/out" ||
	    [ "$(ls "$work/store/partitions" | wc -l)" -ne 1 ]; then
		echo "FAIL: batch without /proc, argv[0] as a $how (status $rc):"
		sed 's/^/  /' "$work/out"
		fail=1
	fi
done
[ "$fail" -eq 0 ] && echo "batch_noproc: batch found itself by argv[0] (path, PATH)"
exit "$fail"
