#!/bin/sh
# mincut_bench.sh [ARGS...] - `ilpart mincut` (whole process) against PyTorch's own
# min_cut_rematerialization_partition on the same transformer joint graphs, in the torch
# chroot (scripts/torch-chroot.sh). ARGS go to bench/mincut_bench.py (--layers 12,48,
# --runs 3). ILPART_BUILD selects the build directory whose ilpart is timed (default
# build; use one without sanitizers). Exit 1 when 48+ layers is under 50x faster or the
# saved sets differ.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
exec "$top/scripts/torch-chroot.sh" python3 /ilpart/bench/mincut_bench.py "$@"
