#!/bin/sh
# dominate_fraction.sh GRAPH... - the answer at a budget fraction against PyTorch's own
# partition there (issue 24, docs/solver.md "No worse on all three numbers"), this build
# beside a baseline build, side by side in one run: for every graph and F (FRACTIONS,
# default "0.1 0.3 0.5"), `ilpart solve GRAPH --memory-budget F -v` with each binary, one
# process at a time (no --time-limit unless TIME_LIMIT is set). Per binary: wall seconds,
# saved bytes, recompute time (us), simulated peak (`ilpart check`, which must accept the
# partition), status, and the verdict against PyTorch's partition at F (its numbers from
# the `dominance:` line of -v, 6 digits: time compared within 1e-5): "dom" (no worse on
# all three), "dom+" (and strictly faster), else what is worse. Then the ratios new/base of seconds and recompute time.
#
# Environment: ILPART (default build/ilpart), BASE (the baseline binary; required),
# FRACTIONS, TIME_LIMIT, BANS (default "pytorch": --bans). Exit 1 when the checker
# rejects a partition, 0 otherwise (prints numbers, does not judge them).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
ilpart=${ILPART:-$top/build/ilpart}
base=${BASE:-}
[ -x "$ilpart" ] || { echo "dominate_fraction: no ilpart at $ilpart (set ILPART)" >&2; exit 2; }
[ -n "$base" ] && [ -x "$base" ] || { echo "dominate_fraction: set BASE to a baseline binary" >&2; exit 2; }
[ $# -gt 0 ] || { echo "usage: dominate_fraction.sh GRAPH..." >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dominate_fraction.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
tl=""
[ -n "${TIME_LIMIT:-}" ] && tl="--time-limit $TIME_LIMIT"
rc=0

printf '%-16s %-7s %4s | %-34s | %-48s | %-48s | %6s %6s\n' graph bans F \
    "PyTorch: bytes us peak" "base: s bytes us peak status verdict" \
    "new: s bytes us peak status verdict" "s" "us"
for g in "$@"; do
	name=$(basename "$g" .json)
	for b in ${BANS:-pytorch}; do
		for f in ${FRACTIONS:-0.1 0.3 0.5}; do
			for which in base new; do
				bin=$ilpart
				[ "$which" = base ] && bin=$base
				t0=$(date +%s.%N)
				# shellcheck disable=SC2086
				"$bin" solve "$g" --memory-budget "$f" --bans "$b" -v $tl \
				    -o "$tmp/$which.json" 2>"$tmp/$which.log"
				t1=$(date +%s.%N)
				echo "$t0 $t1" >"$tmp/$which.t"
				if ! "$ilpart" check "$g" "$tmp/$which.json" >"$tmp/$which.chk" 2>&1; then
					echo "dominate_fraction: $name $b $f $which: the checker rejects it" >&2
					rc=1
				fi
			done
			python3 - "$tmp" "$name" "$b" "$f" <<'PY'
import json, re, sys
d, name, bans, f = sys.argv[1:5]
pt = None
row = {}
for w in ("base", "new"):
    log = open(f"{d}/{w}.log").read()
    m = re.search(r"PyTorch's partition at \S+ \((\d+) bytes, ([\d.e+-]+) us, peak (\d+)\)", log)
    if m:
        pt = (int(m.group(1)), float(m.group(2)), int(m.group(3)))
    m = re.search(r"on saved bytes \(\d+ <= (\d+)\), recompute time \([\d.e+-]+ <= ([\d.e+-]+) "
                  r"us\) and simulated peak \(\d+ <= (\d+)\)", log)
    if m and pt is None:
        pt = (int(m.group(1)), float(m.group(2)), int(m.group(3)))
    t0, t1 = map(float, open(f"{d}/{w}.t").read().split())
    try:
        p = json.load(open(f"{d}/{w}.json"))
        m = re.search(r"peak (\d+) bytes", open(f"{d}/{w}.chk").read())
        row[w] = (t1 - t0, p["cost"]["saved_bytes"], p["cost"]["recompute_time_us"],
                  int(m.group(1)) if m else -1, p["producer"]["status"])
    except (OSError, ValueError, KeyError):
        row[w] = (t1 - t0, -1, -1.0, -1, "none")
def verdict(r):
    if pt is None:
        return "?"
    worse = [n for n, bad in (("bytes", r[1] > pt[0]), ("time", r[2] > pt[1] * (1 + 1e-5)),
             ("peak", r[3] > pt[2] or r[3] < 0)) if bad]
    if worse:
        return "worse:" + "+".join(worse)
    return "dom+" if r[2] < pt[1] * (1 - 1e-5) else "dom"
def cell(r):
    return "%6.1f %8d %9.4g %8d %-9s %s" % (r[0], r[1], r[2], r[3], r[4], verdict(r))
b, n = row["base"], row["new"]
print("%-16s %-7s %4s | %-34s | %-48s | %-48s | %6.3f %6.3f" % (
    name, bans, f, "%8d %9.4g %8d" % pt if pt else "?", cell(b), cell(n),
    n[0] / b[0] if b[0] > 0 else float("nan"), n[2] / b[2] if b[2] > 0 else float("nan")))
PY
		done
	done
done
exit $rc
