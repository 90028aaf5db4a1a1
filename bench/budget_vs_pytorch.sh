#!/bin/sh
# budget_vs_pytorch.sh [GRAPH...] - the ILP against PyTorch's own partition at the same
# activation_memory_budget F (issues 10 and 24, docs/solver.md "Memory budgets"): for every
# graph (default: tests/data/corpus/*.json and tests/data/corpus214/*.json) at F = 0.1, 0.3,
# 0.5 and each ban set of BANS, one `ilpart compare --memory-budget F --prefer pytorch` run
# gives the ILP row (the fraction cap pytorch, the default, and the dominance step) and the
# baseline, ilpart's min-cut at F (the graph's torch's budget path, equal to PyTorch's
# recorded partition on the corpus), on the same cost model (h100 roofline) and simulator.
#
# One line per graph, ban set and F: PyTorch's bytes, recompute time, simulated peak and SAC
# verdict; the ILP's byte budget (B(F) is torch's normalised bytes), bytes, time, peak and
# status; the three ratios ILP/PyTorch side by side (bytes, time, peak); and the verdict:
# "dominates" (bytes, time and peak <= PyTorch's), "PyTorch breaks SAC" (budget B(F);
# "conflict" when no tag-respecting partition fits in it), or "NOT DOMINATED". Ends with the
# counts. Exit 1 when a case where PyTorch obeys the tags is not dominated.
#
# Environment: ILPART (binary; default build/ilpart), TIME_LIMIT (seconds per solve,
# default none), BANS (default "pytorch none"). bench/corpus's transformers take minutes:
# name them explicitly.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
ilpart=${ILPART:-$top/build/ilpart}
[ -x "$ilpart" ] || { echo "budget_vs_pytorch: no ilpart at $ilpart (set ILPART)" >&2; exit 2; }
[ $# -gt 0 ] || set -- "$top"/tests/data/corpus/*.json "$top"/tests/data/corpus214/*.json
tmp=$(mktemp -d "${TMPDIR:-/tmp}/budget_vs_pytorch.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
tl=""
[ -n "${TIME_LIMIT:-}" ] && tl="--time-limit $TIME_LIMIT"

for g in "$@"; do
	# corpus and corpus214 share names: the directory is part of the case's name
	name=$(basename "$(dirname "$g")")/$(basename "$g" .json)
	name=$(echo "$name" | tr / :)
	for b in ${BANS:-pytorch none}; do
		for f in 0.1 0.3 0.5; do
			# shellcheck disable=SC2086
			# --strict-budget: a fraction out of reach is counted as a conflict, as before
			"$ilpart" compare "$g" --memory-budget $f --bans $b --prefer pytorch --json \
			    --strict-budget $tl >"$tmp/$name@$b@$f.json" 2>/dev/null
			"$ilpart" solve "$g" --memory-budget $f --bans $b --prefer pytorch \
			    --fraction-cap normalised -v -o /dev/null 2>&1 |
			    sed -n 's/.*normalisation.*= \([0-9]*\) bytes/\1/p' >"$tmp/$name@$b@$f.bf"
		done
	done
done

python3 - "$tmp" <<'PY'
import glob, json, os, sys
d = sys.argv[1]
bad = 0
count = {"dominates": 0, "sac": 0, "conflict": 0, "raised": 0, "capped": 0, "peak": 0}
ratios = []
fmt = "%-30s %-7s %4s %11s %9s %11s %-4s | %11s %11s %9s %11s %-9s | %6s %6s %6s  %s"
print(fmt % ("graph", "bans", "F", "PyTorch B", "us", "peak", "SAC", "budget", "ILP B", "us",
             "peak", "status", "bytes", "time", "peak", "verdict"))
for path in sorted(glob.glob(os.path.join(d, "*.json"))):
    name, bans, f = os.path.basename(path)[:-5].rsplit("@", 2)
    name = name.replace(":", "/")
    with open(path) as fp:
        out = json.load(fp)
    with open(path[:-5] + ".bf") as fp:
        bf = fp.read().strip() or "-"
    ilp = [r for r in out["rows"] if r["kind"] == "ilp"][0]
    mc = [r for r in out["rows"] if r["kind"] == "mincut"][0]
    sac_ok = mc["violation"] is None
    sac = "ok" if sac_ok else "VIOL"
    pt_peak = mc.get("peak_bytes") or 0
    if "saved_bytes" not in ilp:
        verdict = "PyTorch breaks SAC; conflict" if not sac_ok else "NOT DOMINATED (no answer)"
        if not sac_ok:
            count["sac"] += 1
            count["conflict"] += 1
        else:
            bad += 1
        print(fmt % (name, bans, f, mc["saved_bytes"], "%.4f" % mc["recompute_time_us"],
                     pt_peak, sac, "-", "-", "-", "-", "conflict", "-", "-", "-", verdict))
        continue
    rb = ilp["saved_bytes"] / mc["saved_bytes"] if mc["saved_bytes"] else 1.0
    rt = ilp["recompute_time_us"] / mc["recompute_time_us"] if mc["recompute_time_us"] else 1.0
    rp = ilp["peak_bytes"] / pt_peak if pt_peak else 1.0
    dom = (ilp["saved_bytes"] <= mc["saved_bytes"]
           and ilp["recompute_time_us"] <= mc["recompute_time_us"] * (1 + 1e-9)
           and ilp["peak_bytes"] <= pt_peak)
    if not sac_ok:
        verdict = "PyTorch breaks SAC"
        count["sac"] += 1
    elif dom:
        verdict = "dominates"
        count["dominates"] += 1
        ratios.append((rb, rt, rp))
        if ilp.get("peak_cap_bytes") is not None:
            count["peak"] += 1
            verdict += " (within PyTorch's peak)"
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
    print(fmt % (name, bans, f, mc["saved_bytes"], "%.4f" % mc["recompute_time_us"], pt_peak,
                 sac, ilp["budget_bytes"], ilp["saved_bytes"], "%.4f" % ilp["recompute_time_us"],
                 ilp["peak_bytes"], ilp["status"], "%.3f" % rb, "%.3f" % rt, "%.3f" % rp,
                 verdict))
total = sum(1 for _ in glob.glob(os.path.join(d, "*.json")))
print("\n%d graph x bans x F cases: ILP dominates PyTorch on bytes, time and peak in %d "
      "(budget = PyTorch's bytes %d, raised above B(F) to them %d, B(F) %d; solved within "
      "PyTorch's peak %d); PyTorch breaks a SAC tag in %d (budget B(F); %d of them below what "
      "the tags allow); not dominated %d" % (
          total, count["dominates"], count["capped"], count["raised"],
          count["dominates"] - count["capped"] - count["raised"], count["peak"], count["sac"],
          count["conflict"], bad))
if ratios:
    print("ILP/PyTorch where it dominates: bytes %.3f-%.3f, time %.3f-%.3f, peak %.3f-%.3f" % (
        min(r[0] for r in ratios), max(r[0] for r in ratios), min(r[1] for r in ratios),
        max(r[1] for r in ratios), min(r[2] for r in ratios), max(r[2] for r in ratios)))
sys.exit(1 if bad else 0)
PY
