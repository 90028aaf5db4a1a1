#!/usr/bin/env python3
"""gen_knapsack214.py - torch 2.14's dp_knapsack_sliding_hirschberg on random instances,
for the knapsack parity test (run in the sid chroot):

    ILPART_SUITE=sid ./scripts/torch-chroot.sh python3 scripts/gen_knapsack214.py \\
        > tests/data/knapsack/hirschberg-2.14.txt

One instance a line: max_memory n memory[n] runtime[n] then the item indices torch
keeps saved (a '-' when none). Memories are multiples of 1/1000 and runtimes small
integers, exact in float32 and in decimal, so the C test reads what torch was given.
"""
import random

import torch
from torch._functorch._activation_checkpointing.knapsack import (
    dp_knapsack_sliding_hirschberg)

rng = random.Random(214)
print("# torch %s dp_knapsack_sliding_hirschberg" % torch.__version__)
for trial in range(300):
    n = 1 + trial % 13
    mem = [rng.randrange(0, 400) / 1000 for _ in range(n)]
    rt = [float(rng.randrange(0 if trial % 5 == 0 else 1, 65)) for _ in range(n)]
    if trial % 7 == 0:  # ties: equal sizes and runtimes
        mem = [mem[0]] * n
        rt = [rt[0]] * n
    cap = rng.randrange(0, 1200) / 1000
    _, saved, _ = dp_knapsack_sliding_hirschberg(mem, rt, cap)
    print("%r %d %s %s %s" % (cap, n, " ".join(repr(m) for m in mem),
                              " ".join(repr(r) for r in rt),
                              " ".join(str(i) for i in sorted(saved)) or "-"))
