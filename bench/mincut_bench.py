#!/usr/bin/env python3
"""mincut_bench.py - `ilpart mincut` (the whole process) against PyTorch's own
min_cut_rematerialization_partition call on the same joint graph. Run in the torch
chroot (bench/mincut_bench.sh does it):

    ./scripts/torch-chroot.sh python3 bench/mincut_bench.py [--layers 12,48] [--runs 3]

For each size it builds the GPT-2 sized transformer stack of scripts/gen_corpus.py
--large (d=768, 12 heads, seq 1024, batch 8, float32, meta device), takes the joint
graph AOTAutograd hands to the partitioner (after DCE and CSE, as PyTorch's partitioner
does itself), times PyTorch's partition call on fresh deep copies (the copy is not
timed), exports the graph, times `ilpart mincut GRAPH -o PARTITION` as a subprocess
(start-up, JSON reading, classification, the cut, writing), and checks that both save
the same values. Best of --runs for both. Exit status 1 when a graph of 48 layers or
more is less than 50x faster, or when the saved sets differ.
"""

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile
import time

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(top, "python"))
sys.path.insert(0, os.path.join(top, "tests", "python"))

import torch  # noqa: E402

import ilpart  # noqa: E402
from ilpart.export import export_graph, prepare_joint  # noqa: E402
import models  # noqa: E402


class _Stop(Exception):
    pass


def joint_graph(layers, d=768, heads=12, seq=1024, batch=8):
    """(prepared joint module, joint inputs, num_fwd_outputs) of the transformer stack."""
    got = []

    def grab(joint_module, joint_inputs, *, num_fwd_outputs, **kwargs):
        got.append((prepare_joint(joint_module), joint_inputs, num_fwd_outputs))
        raise _Stop()

    torch.manual_seed(0)
    with torch.device("meta"):
        model = models.Transformer(layers=layers, d=d, heads=heads)
        x = torch.randn(batch, seq, d)
    torch._dynamo.reset()
    try:
        torch.compile(model, backend=ilpart.backend(partition=grab, codegen="eager"))(x)
    except Exception:  # noqa: BLE001 - dynamo wraps the stop signal
        if not got:
            raise
    torch._dynamo.reset()
    return got[0]


def time_pytorch(jm, joint_inputs, nfwd, runs):
    from torch._functorch.partitioners import min_cut_rematerialization_partition

    best, bw = None, None
    for _ in range(runs):
        c = copy.deepcopy(jm)
        t = time.perf_counter()
        _fw, bw = min_cut_rematerialization_partition(c, joint_inputs, num_fwd_outputs=nfwd)
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    saved = {n.name for n in bw.graph.find_nodes(op="placeholder")
             if "tangents" not in n.name and not n.name.startswith("rng_state_output")}
    return best, saved


def time_ilpart(binary, path, out, runs):
    best = None
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([binary, "mincut", path, "-o", out], check=True)
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    with open(out, encoding="utf-8") as f:
        return best, set(json.load(f)["saved"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layers", default="12,48", help="comma-separated layer counts")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--ilpart", default=os.environ.get("ILPART_BIN",
                                                      os.path.join(top, "build", "ilpart")))
    args = ap.parse_args()
    torch.set_num_threads(min(2, torch.get_num_threads()))
    print("torch %s, ilpart %s, best of %d" % (torch.__version__, args.ilpart, args.runs))
    print("%7s %7s %12s %12s %8s  %s" % ("layers", "nodes", "pytorch_s", "ilpart_s", "speedup",
                                         "saved sets"))
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for layers in (int(v) for v in args.layers.split(",") if v):
            jm, joint_inputs, nfwd = joint_graph(layers)
            t_pt, saved_pt = time_pytorch(jm, joint_inputs, nfwd, args.runs)
            graph = export_graph(jm, nfwd, reference=False, joint_inputs=joint_inputs,
                                 prepare=False)
            path = os.path.join(tmp, "t%d.json" % layers)
            ilpart.write_json(path, graph)
            t_il, saved_il = time_ilpart(args.ilpart, path, os.path.join(tmp, "p.json"),
                                         args.runs)
            same = saved_pt == saved_il
            speedup = t_pt / t_il
            print("%7d %7d %12.4f %12.4f %7.1fx  %s" % (
                layers, len(graph["nodes"]), t_pt, t_il, speedup,
                "equal (%d)" % len(saved_il) if same else
                "DIFFER: torch only %s, ilpart only %s" % (
                    sorted(saved_pt - saved_il)[:5], sorted(saved_il - saved_pt)[:5])))
            ok = ok and same and (layers < 48 or speedup >= 50)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
