#!/bin/sh
# budget_vs_pytorch.sh [GRAPH...] - the ILP against PyTorch's own partition at the same
# activation_memory_budget F (issue 10, docs/solver.md "Memory budgets"): for every graph
# (default: tests/data/corpus/*.json) at F = 0.1, 0.3, 0.5, one `ilpart compare
# --memory-budget F --prefer pytorch` run gives the ILP row (the fraction cap pytorch, the
# default) and the baseline, ilpart's min-cut at F (torch 2.6's budget path, equal to
# PyTorch's recorded partition on the corpus), on the same cost model (h100 roofline).
#
# One line per graph and F: PyTorch's bytes, recompute time and SAC verdict; the ILP's byte
# budget (B(F) is torch's normalised bytes), bytes, time and status; the ratios ILP/PyTorch;
# and the verdict: "dominates" (bytes <= and time <= PyTorch's), "PyTorch breaks SAC"
# (budget B(F); "conflict" when no tag-respecting partition fits in it), or "NOT DOMINATED".
# Ends with the counts. Exit 1 when a case where PyTorch obeys the tags is not dominated.
#
# Environment: ILPART (binary; default build/ilpart), TIME_LIMIT (seconds per solve,
# default none). bench/corpus's transformers take minutes: name them explicitly.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
ilpart=${ILPART:-$top/build/ilpart}
[ -x "$ilpart" ] || { echo "budget_vs_pytorch: no ilpart at $ilpart (set ILPART)" >&2; exit 2; }
[ $# -gt 0 ] || set -- "$top"/tests/data/corpus/*.json
tmp=$(mktemp -d "${TMPDIR:-/tmp}/budget_vs_pytorch.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
tl=""
[ -n "${TIME_LIMIT:-}" ] && tl="--time-limit $TIME_LIMIT"

for g in "$@"; do
	for f in 0.1 0.3 0.5; do
		# shellcheck disable=SC2086
		# --strict-budget: a fraction out of reach is counted as a conflict, as before
		"$ilpart" compare "$g" --memory-budget $f --prefer pytorch --json --strict-budget $tl \
		    >"$tmp/$(basename "$g" .json)@$f.json" 2>/dev/null
		"$ilpart" solve "$g" --memory-budget $f --prefer pytorch --fraction-cap normalised \
		    -v -o /dev/null 2>&1 | sed -n 's/.*normalisation.*= \([0-9]*\) bytes/\1/p' \
		    >"$tmp/$(basename "$g" .json)@$f.bf"
	done
done

python3 - "$tmp" <<'PY'
import glob, json, os, sys
d = sys.argv[1]
rows, bad = [], 0
count = {"dominates": 0, "sac": 0, "conflict": 0, "raised": 0, "capped": 0}
print("%-22s %4s %10s %9s %-10s | %10s %10s %10s %9s %-9s | %6s %6s  %s" % (
    "graph", "F", "PyTorch B", "us", "SAC", "B(F)", "budget", "ILP B", "us", "status",
    "bytes", "time", "verdict"))
for path in sorted(glob.glob(os.path.join(d, "*.json"))):
    name, f = os.path.basename(path)[:-5].rsplit("@", 1)
    with open(path) as fp:
        out = json.load(fp)
    with open(path[:-5] + ".bf") as fp:
        bf = fp.read().strip() or "-"
    ilp = [r for r in out["rows"] if r["kind"] == "ilp"][0]
    mc = [r for r in out["rows"] if r["kind"] == "mincut"][0]
    sac_ok = mc["violation"] is None
    sac = "ok" if sac_ok else "VIOLATION"
    if "saved_bytes" not in ilp:
        verdict = "PyTorch breaks SAC; conflict" if not sac_ok else "NOT DOMINATED (no answer)"
        if not sac_ok:
            count["sac"] += 1
            count["conflict"] += 1
        else:
            bad += 1
        print("%-22s %4s %10d %9.4f %-10s | %10s %10s %10s %9s %-9s | %6s %6s  %s" % (
            name, f, mc["saved_bytes"], mc["recompute_time_us"], sac, bf, "-", "-", "-",
            "conflict", "-", "-", verdict))
        continue
    rb = ilp["saved_bytes"] / mc["saved_bytes"] if mc["saved_bytes"] else 1.0
    rt = ilp["recompute_time_us"] / mc["recompute_time_us"] if mc["recompute_time_us"] else 1.0
    dom = (ilp["saved_bytes"] <= mc["saved_bytes"]
           and ilp["recompute_time_us"] <= mc["recompute_time_us"] * (1 + 1e-9))
    if not sac_ok:
        verdict = "PyTorch breaks SAC"
        count["sac"] += 1
    elif dom:
        verdict = "dominates"
        count["dominates"] += 1
        if bf != "-" and ilp["budget_bytes"] > int(bf):
            count["raised"] += 1
            verdict += " (budget raised to PyTorch's bytes)"
        elif ilp["budget_bytes"] == mc["saved_bytes"]:
            count["capped"] += 1
            verdict += " (budget = PyTorch's bytes)"
        else:
            verdict += " (budget = B(F))"
    else:
        verdict = "NOT DOMINATED"
        bad += 1
    print("%-22s %4s %10d %9.4f %-10s | %10s %10d %10d %9.4f %-9s | %6.3f %6.3f  %s" % (
        name, f, mc["saved_bytes"], mc["recompute_time_us"], sac, bf, ilp["budget_bytes"],
        ilp["saved_bytes"], ilp["recompute_time_us"], ilp["status"], rb, rt, verdict))
total = sum(1 for _ in glob.glob(os.path.join(d, "*.json")))
print("\n%d graph x F cases: ILP dominates PyTorch in %d (budget = PyTorch's bytes %d, raised "
      "above B(F) to them %d, B(F) %d); PyTorch breaks a SAC tag in %d (budget B(F); %d of "
      "them below what the tags allow); not dominated %d" % (
          total, count["dominates"], count["capped"], count["raised"],
          count["dominates"] - count["capped"] - count["raised"], count["sac"],
          count["conflict"], bad))
sys.exit(1 if bad else 0)
PY
