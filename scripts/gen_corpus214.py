#!/usr/bin/env python3
"""gen_corpus214.py - joint graphs exported from torch 2.14 for the min-cut parity test
(run inside the sid chroot, which has torch 2.14 and transformers):

    ILPART_SUITE=sid ./scripts/torch-chroot.sh python3 scripts/gen_corpus214.py

Writes tests/data/corpus214/NAME.json: small CPU models (float32, tiny widths, run once),
each with PyTorch's own partition as reference "pytorch-X.Y-mincut" and at
activation_memory_budget 0.1, 0.3 and 0.5 as "pytorch-X.Y-mincut-budget-F", taken with
the static_lifetime_input_indices AOTAutograd passes the partitioner (so torch 2.14's
treat_parameters_as_free_to_save acts as in training). Unlike tests/data/corpus the files
keep the exporter's "param" flags: torch 2.14's min-cut reads them. --only NAME,... limits
the set. The same torch gives the same bytes.
"""

import argparse
import os
import sys
import time

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(top, "python"))
sys.path.insert(0, os.path.join(top, "tests", "python"))

import torch  # noqa: E402
from torch import nn  # noqa: E402

import ilpart  # noqa: E402
import models  # noqa: E402
# the builders and the capture are gen_corpus.py's (the same BUDGETS)
from gen_corpus import _mm_policy, capture, mk  # noqa: E402


class LossOf(nn.Module):
    """A transformers language model whose forward returns its own loss."""

    def __init__(self, lm):
        super().__init__()
        self.lm = lm

    def forward(self, ids, labels):
        return self.lm(input_ids=ids, labels=labels).loss


class ScaledMLP(nn.Module):
    """An MLP whose output is scaled by a constant tensor made in forward: a lifted
    constant (get_attr) and lift_fresh_copy in the joint graph, indexed by gather."""

    def __init__(self, d=32):
        super().__init__()
        self.fc1 = nn.Linear(d, 2 * d)
        self.fc2 = nn.Linear(2 * d, d)

    def forward(self, x):
        scale = torch.tensor([1.0, 0.5, 2.0, 0.25])
        idx = torch.arange(x.shape[-1]) % 4
        h = torch.tanh(self.fc1(x))
        y = self.fc2(h) * torch.gather(scale, 0, idx)
        return y[:, 1:].sum()


def hf_lm(kind, checkpointing=False):
    def build():
        import transformers

        torch.manual_seed(0)
        if kind == "bert":
            cfg = transformers.BertConfig(hidden_size=32, num_hidden_layers=2,
                                          num_attention_heads=2, intermediate_size=64,
                                          vocab_size=128, max_position_embeddings=32,
                                          hidden_dropout_prob=0.0,
                                          attention_probs_dropout_prob=0.0)
            lm = transformers.BertForMaskedLM(cfg)
        elif kind == "gpt2":
            cfg = transformers.GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=128,
                                          n_positions=32, attn_pdrop=0.0, embd_pdrop=0.0,
                                          resid_pdrop=0.0)
            lm = transformers.GPT2LMHeadModel(cfg)
        else:
            cfg = transformers.LlamaConfig(hidden_size=32, intermediate_size=64,
                                           num_hidden_layers=2, num_attention_heads=2,
                                           num_key_value_heads=1, vocab_size=128,
                                           max_position_embeddings=32)
            lm = transformers.LlamaForCausalLM(cfg)
        lm.train()
        if checkpointing:
            lm.gradient_checkpointing_enable(gradient_checkpointing_kwargs={
                "use_reentrant": False})
        ids = torch.randint(0, 128, (2, 16))
        return LossOf(lm), [ids, ids.clone()]
    return build


def corpus():
    """name -> (description, builder returning (model, inputs))."""
    def gpt(layers, **kw):
        def build():
            torch.manual_seed(0)
            m = models.GPT(layers=layers, d=32, heads=2, vocab=128, seq=16, **kw)
            return m, [torch.randint(0, 128, (2, 16)), torch.randint(0, 128, (2, 16))]
        return build

    return {
        "mlp": ("3-layer MLP (Linear, GELU, tanh), batch 16", mk(models.MLP, 16, 32)),
        "gpt-2l": ("GPT: embedding, 2 blocks d=32, LM head, cross-entropy loss", gpt(2)),
        "gpt-2l-sac-mm": ("GPT with 2 blocks d=32, each a SAC region saving matmuls",
                          gpt(2, checkpointing="sac", policies=[_mm_policy()])),
        "mlp-dropout": ("linear-SiLU-dropout-linear + residual, dropout outside any "
                        "checkpoint region", mk(models.MLPDropout, 16, 32)),
        "dropout-sac": ("linear-relu-dropout-linear in a SAC region saving only aten.mm",
                        mk(models.DropoutSAC, 16, 32, grad_input=True)),
        "scaled-mlp": ("MLP scaled by a constant tensor made in forward (lifted constant, "
                       "gather)", mk(ScaledMLP, 8, 32)),
        "hf-gpt2": ("transformers GPT-2, 2 layers, d=32, 2 heads, vocab 128, seq 16, "
                    "loss in the graph", hf_lm("gpt2")),
        "hf-llama": ("transformers Llama, 2 layers, d=32, 2 heads (1 KV head), vocab 128, "
                     "seq 16, loss in the graph", hf_lm("llama")),
        "hf-llama-ckpt": ("transformers Llama as hf-llama with the library's own gradient "
                          "checkpointing (use_reentrant=False)", hf_lm("llama", True)),
        "hf-bert-ckpt": ("transformers BERT (masked LM), 2 layers, d=32, 2 heads, vocab 128, "
                         "seq 16, dropout 0, with the library's own gradient checkpointing",
                         hf_lm("bert", True)),
    }


def export(out, only):
    os.makedirs(out, exist_ok=True)
    for name, (desc, build) in corpus().items():
        if only and name not in only:
            continue
        t = time.time()
        graphs = capture(build, desc, True, "gen_corpus214.py")
        # a graph break (transformers' GPT-2 has one) gives graphs NAME, NAME-1, ...; a
        # graph whose backward computes nothing has nothing to partition
        graphs = [g for g in graphs if any(b is not None for b in g["outputs"]["backward"])]
        for k, g in enumerate(graphs):
            path = os.path.join(out, name + ("-%d" % k if k else "") + ".json")
            ilpart.write_json(path, g)
            print("%-16s %6d nodes %9d bytes  %.1fs" % (os.path.basename(path)[:-5],
                                                       len(g["nodes"]), os.path.getsize(path),
                                                       time.time() - t))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", help="comma-separated names")
    ap.add_argument("--out", default=os.path.join(top, "tests", "data", "corpus214"))
    args = ap.parse_args()
    import logging
    logging.getLogger("torch._higher_order_ops.wrap").setLevel(logging.ERROR)
    torch.set_num_threads(min(2, torch.get_num_threads()))
    export(args.out, set(args.only.split(",")) if args.only else None)


if __name__ == "__main__":
    main()
