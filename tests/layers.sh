#!/bin/sh
# layers.sh - the dependency rule of docs/architecture.md, checked on the built objects:
# every function or variable a folder's code uses from another folder of ilpart is
# defined in a lower layer (never a peer's, never a higher one's):
#
#   graph/  <-  policies/  <-  solver/ (options.c)  <-  solver/model/
#           <-  solver/mincut/, solver/blocks/, solver/peak/ (peers)
#           <-  solver/driver/  <-  cli/
#
# and no source file in graph/ or policies/ includes a solver/ header. Run by make
# check from the build directory (builddir, default .; srcdir, default .).
set -u
builddir=${builddir:-.}
srcdir=${srcdir:-.}
LC_ALL=C
export LC_ALL

rank() {
	case $1 in
	graph) echo 0 ;;
	policies) echo 1 ;;
	solver) echo 2 ;;
	solver/model) echo 3 ;;
	solver/mincut | solver/blocks | solver/peak) echo 4 ;;
	solver/driver) echo 5 ;;
	cli) echo 6 ;;
	*) echo -1 ;;
	esac
}

work=$(mktemp -d "${TMPDIR:-/tmp}/ilpart-layers.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM
fail=0
n=0
for dir in graph policies solver solver/model solver/mincut solver/blocks solver/peak \
    solver/driver cli; do
	for o in "$builddir/$dir"/.libs/*.o "$builddir/$dir"/ilpart-*.o; do
		[ -f "$o" ] || continue
		# only objects of sources that exist (not left behind by a moved file)
		src=$(basename "$o" .o)
		src=${src#ilpart-}
		[ -f "$srcdir/$dir/$src.c" ] || continue
		n=$((n + 1))
		nm -g --defined-only "$o" | awk -v d="$dir" 'NF == 3 { print $3, d }' \
		    >>"$work/defs"
		nm -u "$o" | awk -v d="$dir" -v f="$(basename "$o")" '{ print $NF, d, f }' \
		    >>"$work/uses"
	done
done
if [ "$n" -eq 0 ]; then
	echo "layers: no objects under $builddir" >&2
	exit 1
fi
sort -u "$work/defs" >"$work/defs.s"
sort "$work/uses" >"$work/uses.s"
# symbol user-folder file defining-folder
join "$work/uses.s" "$work/defs.s" >"$work/edges"
while read -r sym from file to; do
	[ "$from" = "$to" ] && continue
	rf=$(rank "$from")
	rt=$(rank "$to")
	if [ "$rt" -ge "$rf" ]; then
		echo "layers: $from/$file uses $sym from $to/ (a peer or higher layer)"
		fail=1
	fi
done <"$work/edges"
for f in "$srcdir"/graph/*.[ch] "$srcdir"/policies/*.[ch]; do
	if grep -q '^#include "solver/' "$f"; then
		echo "layers: $f includes a solver/ header"
		fail=1
	fi
done
[ "$fail" -eq 0 ] && echo "layers: $n objects, every cross-folder use points down"
exit "$fail"
