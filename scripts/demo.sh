#!/bin/sh
# demo.sh - build ilpart and show, in a few screens, what it gives that PyTorch does not:
#   1. the bug report that started ilpart (examples/seed_float8_sac.json: float8 linear +
#      relu in a SAC region whose policy saves only matmuls): ilpart's partition, checked;
#   2. a SAC model under PyTorch's activation_memory_budget (tests/data/corpus/
#      gpt-6l-sac-mm.json, exported from torch 2.6 with its partitions at budgets 0.1,
#      0.3, 0.5): PyTorch recomputes MUST_SAVE matmuls, ilpart keeps every tag;
#   3. memory over one training step for the seed and for a 12-layer GPT-2 stack
#      (bench/corpus/transformer-12l.json), written as CSV (and SVG when matplotlib is
#      there) under build/demo/.
# Ends on a summary computed from ilpart's own output. Every partition shown passed
# ilpart's independent checker, or is marked VIOLATION with the tag it breaks.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
./scripts/setup.sh build
# The picture needs matplotlib (Debian's, for /usr/bin/python3); the rest does not.
if ! dpkg-query -W -f='${Status}' python3-matplotlib 2>/dev/null | grep -q 'ok installed'; then
	SUDO=""
	[ "$(id -u)" -ne 0 ] && SUDO=sudo
	echo "demo: installing python3-matplotlib (for the picture)" >&2
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
	    python3-matplotlib >/dev/null 2>&1 || echo "demo: no matplotlib, no picture" >&2
fi
ilpart=build/ilpart
out=build/demo
mkdir -p "$out"
seed=examples/seed_float8_sac.json
policy=examples/policies/seed_mm_only.json
sac=tests/data/corpus/gpt-6l-sac-mm.json
stack=bench/corpus/transformer-12l.json

# The seed's policy draws one warning (its aten.mm rule matches no forward op); show it
# once, from the first command, and keep the others' stderr unless they fail.
quiet() {
	"$@" 2>"$out/stderr" || { cat "$out/stderr" >&2; exit 1; }
}

echo
echo "== 1. The bug report: $seed, policy $policy"
echo "\$ $ilpart solve $seed --policy $policy -o $out/seed.partition.json"
$ilpart solve "$seed" --policy "$policy" -o "$out/seed.partition.json"
echo "\$ $ilpart check $seed $out/seed.partition.json --policy $policy"
quiet $ilpart check "$seed" "$out/seed.partition.json" --policy "$policy"
echo "\$ $ilpart compare $seed --policy $policy"
quiet $ilpart compare "$seed" --policy "$policy" --no-times
quiet $ilpart compare "$seed" --policy "$policy" --no-times --json > "$out/seed.compare.json"

echo
echo "== 2. A SAC model under a memory budget: $sac"
echo "\$ $ilpart compare $sac --bans none    # --bans none: as PyTorch's budget path does"
$ilpart compare "$sac" --bans none --no-times
$ilpart compare "$sac" --bans none --no-times --json > "$out/sac.compare.json"

echo
echo "== 3. Memory over one step (live bytes, the peak, what is live there)"
quiet $ilpart timeline "$seed" ilp refs --policy "$policy" --top 3 \
    --csv "$out/timeline-seed.csv" > "$out/timeline-seed.txt"
$ilpart timeline "$stack" ilp mincut --top 3 --csv "$out/timeline-transformer-12l.csv" \
    > "$out/timeline-transformer-12l.txt"
# each file's first partition (ilpart's) in full, the others' peaks
for f in "$out/timeline-seed.txt" "$out/timeline-transformer-12l.txt"; do
	awk 'NR == 1 { next } /^[^ ]/ { n++ } n == 1 || /: peak / { sub(/; forward peak.*/, ""); print }' "$f"
done
py=python3
python3 -c 'import matplotlib' 2>/dev/null || { [ -x /usr/bin/python3 ] && py=/usr/bin/python3; }
if PYTHONPATH=python $py -c 'import matplotlib' 2>/dev/null; then
	PYTHONPATH=python $py -m ilpart.plot timeline "$out/timeline-seed.csv" \
	    "$out/timeline-transformer-12l.csv" -o "$out/timeline.svg"
	picture="$out/timeline.svg (both side by side)"
else
	picture="none (no matplotlib: apt-get install python3-matplotlib, then
  PYTHONPATH=python python3 -m ilpart.plot timeline $out/timeline-*.csv -o $out/timeline.svg)"
fi
echo "files: $out/timeline-seed.csv, $out/timeline-transformer-12l.csv (one column per"
echo "  partition), their text in $out/timeline-*.txt; picture: $picture"

echo
echo "== What ilpart gives that PyTorch does not"
$py - "$out/seed.partition.json" "$out/seed.compare.json" "$out/sac.compare.json" <<'PY'
import json, sys

from textwrap import fill

part, seed, sac = (json.load(open(p)) for p in sys.argv[1:])


def say(text, first="- "):
    print(fill(text, 88, initial_indent=first, subsequent_indent="  "))


def num(b):
    return "{:,}".format(b)


row = {r["name"]: r for r in seed["rows"]}
ilp, bug = row["ilp (memory)"], row["ref:pytorch-bug-report"]
say("The bug report's model: the partition PyTorch chose breaks the policy (%s). "
    "ilpart's saves %s (%s bytes), recomputes the casts in the backward, keeps every tag, "
    "and saves the fewest bytes of any partition that does (proven: gap %g)."
    % (bug["violation"].replace("partition: ", ""), ", ".join(part["saved"]),
       num(ilp["saved_bytes"]), ilp["gap"]))
mc = row.get("mincut (torch 2.6)")
if mc and not mc["violation"]:
    say("torch 2.6's own min-cut keeps these tags when no budget is set; under a memory "
        "budget it does not:", "  ")
rows = sac["rows"]
ilp = next(r for r in rows if r["kind"] == "ilp")
broken = [r for r in rows if r["kind"] == "reference" and "budget" in r["name"] and r["violation"]]
kept = [r for r in rows if r["kind"] == "reference" and not r["violation"]]
text = ""
if broken:
    text = ("%s (6 GPT blocks, SAC saving matmuls): at activation_memory_budget %s PyTorch "
            "saves %s bytes by recomputing values the policy says MUST_SAVE (%s). "
            % (sac["graph"].rsplit("/", 1)[-1],
               " / ".join(r["name"].rsplit("-", 1)[1] for r in broken),
               " / ".join(num(r["saved_bytes"]) for r in broken),
               broken[0]["violation"].split("'")[1]))
text += ("ilpart proves that no partition keeping the tags saves fewer than %s bytes"
         % num(ilp["saved_bytes"]))
if kept:
    k = min(kept, key=lambda r: r["saved_bytes"])
    text += (" and gives one: %.1f %% less than PyTorch's own partition that keeps them (%s)."
             % (100.0 * (1 - ilp["saved_bytes"] / k["saved_bytes"]), num(k["saved_bytes"])))
say(text)
PY
echo "More: README.md (commands), docs/ (how it works), ./scripts/test.sh (every test)."
