"""gen_distributed.py - joint graphs of tensor-parallel training (two ranks, gloo, CPU)
for the min-cut parity test on graphs with collectives (run inside the sid chroot):

    ILPART_SUITE=sid ./scripts/torch-chroot.sh python3 scripts/gen_distributed.py

Writes tests/data/distributed/tp.json and tp-sac.json: tests/python/test_distributed.py's
three-block model, every block's up projections column-wise and down projections
row-wise over the two ranks (an all-reduce after each sublayer, in the graph), plain and
with each block in a SAC region that saves matmuls, each with PyTorch's own partition
(budget 1) as reference "pytorch-X.Y-mincut". Rank 0's graphs are written; both ranks
compile and run (the collectives need them both). PyTorch's budget path fails on these
graphs (it cannot size the process group among their inputs), so no budget references."""

import os
import sys
import tempfile

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(top, "python"))
sys.path.insert(0, os.path.join(top, "tests", "python"))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

import ilpart  # noqa: E402
import test_distributed as td  # noqa: E402

OUT = os.path.join(top, "tests", "data", "distributed")


def work(rank, store):
    dist.init_process_group("gloo", rank=rank, world_size=2, init_method="file://" + store)
    try:
        for name, sac in (("tp", False), ("tp-sac", True)):
            torch._dynamo.reset()
            graphs = ilpart.capture(td.wrap("tp", td.make_net(sac)), td.rank_input(rank, "tp"))
            if rank == 0:
                if len(graphs) != 1:
                    raise SystemExit("%s: %d graphs, expected one" % (name, len(graphs)))
                g = graphs[0]
                g["description"] = ("tensor-parallel MLP blocks (2 ranks, gloo)%s, torch %s"
                                    % (", SAC saving matmuls" if sac else "",
                                       torch.__version__))
                ilpart.write_json(os.path.join(OUT, name + ".json"), g)
                print("wrote", name, len(g["nodes"]), "nodes")
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    with tempfile.TemporaryDirectory() as d:
        mp.spawn(work, args=(os.path.join(d, "store"),), nprocs=2)
