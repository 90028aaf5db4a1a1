#!/bin/sh
# demo.sh - set everything up and run ilpart's main job on the bundled seed example:
# the float8 linear + relu model of the bug report that started ilpart, inside a SAC
# region whose policy saves only matmuls. Prints the optimal partition, the checker's
# verdict, and the comparison with min-cut and with what PyTorch saved.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
./scripts/setup.sh build
ilpart=build/ilpart
graph=examples/seed_float8_sac.json
policy=examples/policies/seed_mm_only.json
out=build/seed.partition.json

echo "== ilpart solve $graph --policy $policy =="
$ilpart solve "$graph" --policy "$policy" -o "$out"
cat "$out"
echo
echo "== ilpart check =="
$ilpart check "$graph" "$out" --policy "$policy"
echo
echo "== ilpart split: the forward and backward graphs =="
$ilpart split "$graph" "$out" --policy "$policy" --format text
echo
echo "== ilpart compare =="
$ilpart compare "$graph" --policy "$policy"
