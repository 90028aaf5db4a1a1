#!/usr/bin/env python3
"""gen_corpus.py - export real joint graphs from torch (run inside the torch chroot):

    ./scripts/torch-chroot.sh python3 scripts/gen_corpus.py            # small + medium set
    ./scripts/torch-chroot.sh python3 scripts/gen_corpus.py --large 12,48,96

The small and medium graphs (real CPU models, float32, run once) go to tests/data/corpus/
and are committed; each records PyTorch's own min-cut saved set as reference
"pytorch-X.Y-mincut", and at activation_memory_budget 0.1, 0.3 and 0.5 as
"pytorch-X.Y-mincut-budget-F", which the min-cut parity test compares against. --large writes GPT-2
sized transformer stacks (d=768, 12 heads, seq 1024, batch 8, no checkpointing) to
bench/corpus/transformer-<N>l.json for the benchmarks; they are traced on the "meta" device
(no memory, no compute) and are not committed (generate them on demand). --only NAME,...
limits the small set; --no-reference skips PyTorch's partition (faster for huge graphs).
Output is deterministic for a given torch version: the same command gives the same bytes.
The files leave out the exporter's "param" flags (docs/format.md) unless --params is given:
the corpus predates them, and its goldens, parity tests and documented budgets are those of
graphs whose parameters are charged like any value; --params writes them as the exporter
marks them.
"""

import argparse
import itertools
import os
import sys
import time

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(top, "python"))
sys.path.insert(0, os.path.join(top, "tests", "python"))

import torch  # noqa: E402

import ilpart  # noqa: E402
import models  # noqa: E402

aten = torch.ops.aten


def _mm_policy():
    return models.save_ops_policy([aten.mm.default, aten.addmm.default])


def mk(cls, *shape, grad_input=False, **kw):
    """A builder of model cls(**kw) (seed 0) and one random input of this shape."""
    def build():
        torch.manual_seed(0)
        m = cls(**kw)
        x = torch.randn(*shape, requires_grad=grad_input)
        return m, [x]
    return build


def small_set():
    """name -> (description, builder returning (model, inputs))."""
    def gpt(layers, **kw):
        def build():
            torch.manual_seed(0)
            m = models.GPT(layers=layers, **kw)
            idx = torch.randint(0, 512, (4, 64))
            return m, [idx, torch.randint(0, 512, (4, 64))]
        return build

    return {
        "mlp": ("3-layer MLP (Linear, GELU, tanh), batch 16", mk(models.MLP, 16, 32)),
        "convnet": ("conv + BatchNorm + ReLU + max-pool + conv + avg-pool + linear",
                    mk(models.ConvNet, 4, 3, 16, 16)),
        "transformer-2l": ("2 pre-norm transformer blocks (SDPA, causal), d=32, no checkpointing",
                           mk(models.Transformer, 2, 16, 32, layers=2)),
        "dropout-sac": ("linear-relu-dropout-linear in a SAC region saving only aten.mm",
                        mk(models.DropoutSAC, 16, 32, grad_input=True)),
        "float8-sac": ("the seed emulated on CPU: float8 (e4m3fn) linear + relu + residual in "
                       "a SAC region saving only aten.mm", mk(models.Float8Linear, 32, 32,
                                                              grad_input=True)),
        "checkpoint-2l": ("2 transformer blocks, each under plain torch.utils.checkpoint",
                          mk(models.Transformer, 2, 16, 32, layers=2, checkpointing="plain")),
        "sac-policies-2l": ("2 transformer blocks, SAC: block 1 saves matmuls, block 2 saves "
                            "attention (PREFER_SAVE matmuls, MUST_RECOMPUTE the rest)",
                            mk(models.Transformer, 2, 16, 32, layers=2, checkpointing="sac",
                               policies=[_mm_policy(), models.attention_policy])),
        "mixed-regions": ("4 blocks: plain checkpoint, SAC saving matmuls, SAC saving attention, "
                          "none", mk(models.MixedRegions, 2, 16, 32)),
        "resnet-small": ("ResNet with 6 residual blocks, BatchNorm in training mode, batch 4",
                         mk(models.ResNet, 4, 3, 32, 32)),
        "gpt-4l": ("GPT: embedding, 4 blocks d=128, LM head, cross-entropy loss in the graph",
                   gpt(4)),
        "mlp-dropout": ("linear-SiLU-dropout-linear + residual, dropout outside any "
                        "checkpoint region", mk(models.MLPDropout, 16, 32)),
        "llama-2l": ("2 Llama blocks: RMSNorm, rotary embedding, causal SDPA, SwiGLU; d=64",
                     mk(models.Llama, 2, 32, 64, layers=2)),
        "llama-2l-sac-mm": ("2 Llama blocks, each a SAC region saving matmuls",
                            mk(models.Llama, 2, 32, 64, layers=2, checkpointing="sac",
                               policies=[_mm_policy()])),
        "gpt-6l-sac-mm": ("GPT with 6 blocks d=128, each a SAC region saving matmuls",
                          gpt(6, checkpointing="sac", policies=[_mm_policy()])),
    }


BUDGETS = (0.1, 0.3, 0.5)


def without_params(g, keep):
    """g without the "param" flags of its primals, unless keep."""
    if not keep:
        for n in g["nodes"]:
            n.pop("param", None)
    return g


def capture(build, desc, reference, script):
    """The joint graphs of one small model as ilpart.capture exports them, with
    PyTorch's partitions at BUDGETS when reference; the description names the script."""
    model, inputs = build()
    torch._dynamo.reset()
    # checkpoint regions are numbered by a process-wide counter: start it afresh so
    # that a file does not depend on what the process compiled before
    import torch._higher_order_ops.wrap as wrap
    wrap.uid = itertools.count(1)
    return ilpart.capture(model, *inputs, reference=reference, budgets=BUDGETS,
                          description="%s; exported by scripts/%s from torch %s (CPU, "
                          "float32)" % (desc, script, torch_version()))


def export_small(out, only, reference, params=False):
    os.makedirs(out, exist_ok=True)
    for name, (desc, build) in small_set().items():
        if only and name not in only:
            continue
        t = time.time()
        graphs = capture(build, desc, reference, "gen_corpus.py")
        if len(graphs) != 1:
            raise SystemExit("%s: %d graphs (graph break)" % (name, len(graphs)))
        path = os.path.join(out, name + ".json")
        ilpart.write_json(path, without_params(graphs[0], params))
        print("%-18s %6d nodes %9d bytes  %.1fs" % (name, len(graphs[0]["nodes"]),
                                                    os.path.getsize(path), time.time() - t))


def export_large(out, layers, reference, d=768, heads=12, seq=1024, batch=8, params=False):
    os.makedirs(out, exist_ok=True)
    for n in layers:
        t = time.time()
        torch.manual_seed(0)
        with torch.device("meta"):
            model = models.Transformer(layers=n, d=d, heads=heads)
            x = torch.randn(batch, seq, d)
        torch._dynamo.reset()
        (g,) = ilpart.capture(model, x, reference=reference, execute=False,
                              description="%d transformer blocks (pre-norm, causal SDPA, GELU "
                              "MLP), d=%d, %d heads, seq %d, batch %d, float32, no "
                              "checkpointing; traced on the meta device by "
                              "scripts/gen_corpus.py from torch %s"
                              % (n, d, heads, seq, batch, torch_version()))
        name = "transformer-%dl" % n + ("" if d == 768 else "-d%d" % d)
        path = os.path.join(out, name + ".json")
        ilpart.write_json(path, without_params(g, params))
        print("%s %6d nodes %9d bytes  %.1fs" % (name, len(g["nodes"]),
                                               os.path.getsize(path), time.time() - t))


def torch_version():
    return ".".join(torch.__version__.split(".")[:2])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--large", help="comma-separated layer counts, e.g. 12,48,96")
    ap.add_argument("--only", help="comma-separated names from the small set")
    ap.add_argument("--out", help="output directory (default tests/data/corpus, or "
                    "bench/corpus with --large)")
    ap.add_argument("--width", type=int, default=768,
                    help="--large: model width d (default 768; other widths are written "
                    "as transformer-<N>l-d<D>.json)")
    ap.add_argument("--heads", type=int, default=12, help="--large: attention heads")
    ap.add_argument("--no-reference", action="store_true",
                    help="do not run PyTorch's min-cut partition for the reference")
    ap.add_argument("--params", action="store_true",
                    help="keep the \"param\" flags of parameter and buffer primals")
    args = ap.parse_args()
    import logging
    logging.getLogger("torch._higher_order_ops.wrap").setLevel(logging.ERROR)
    torch.set_num_threads(min(2, torch.get_num_threads()))
    if args.large:
        layers = [int(v) for v in args.large.split(",") if v]
        export_large(args.out or os.path.join(top, "bench", "corpus"), layers,
                     not args.no_reference, d=args.width, heads=args.heads,
                     params=args.params)
    else:
        only = set(args.only.split(",")) if args.only else None
        export_small(args.out or os.path.join(top, "tests", "data", "corpus"), only,
                     not args.no_reference, params=args.params)


if __name__ == "__main__":
    main()
