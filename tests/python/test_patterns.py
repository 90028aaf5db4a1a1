"""Training-code patterns on small models (docs/python.md "Training-code patterns"; the
zoo's variations amp, lora, flex and cl run them on real models, opt-in): each trains
through ilpart's partition_fn to the same loss and gradients as PyTorch's own partition
of the same joint graph, and ilpart's partition passes util.check_entry.

* flex: FlexAttention (flex_attention / flex_attention_backward higher-order ops whose
  score and mask functions are get_attr subgraphs in the joint graph). torch 2.14 refuses
  its backward on CPU (zoo.lift_flex_cpu_guard lifts that guard for the test).
* amp: the step under torch.autocast (bfloat16) with float32 weights: the joint graph
  casts (_to_copy) the weights and activations.
* lora: the base weights frozen, adapters trainable: primals that need no gradient.
"""

import os
import sys
import unittest

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ilpart  # noqa: E402
import util  # noqa: E402
import zoo  # noqa: E402

try:
    from torch.nn.attention.flex_attention import flex_attention
except ImportError:  # torch 2.6 has it; older ones not
    flex_attention = None


class FlexBlock(nn.Module):
    """q/k/v projections, causal flex_attention (a score_mod: the joint graph's subgraphs),
    an output projection; the loss is the mean square."""

    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = (t.view(b, s, self.heads, -1).transpose(1, 2)
                   for t in self.qkv(x).chunk(3, dim=-1))

        def causal(score, batch, head, qi, ki):
            return torch.where(qi >= ki, score, -float("inf"))
        y = flex_attention(q, k, v, score_mod=causal)
        return self.out(y.transpose(1, 2).reshape(b, s, d)).pow(2).mean()


class Adapted(nn.Module):
    """Two frozen linears, the first with a LoRA adapter (zoo.LoRA)."""

    def __init__(self, dim=16):
        super().__init__()
        self.a = nn.Linear(dim, dim)
        self.b = nn.Linear(dim, dim)
        for p in self.parameters():
            p.requires_grad_(False)
        self.a = zoo.LoRA(self.a)

    def forward(self, x):
        return self.b(torch.relu(self.a(x))).pow(2).mean()


class MLPLoss(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        return self.mlp(x).float().pow(2).mean()


def compiled_step(model, inputs, partition):
    torch._dynamo.reset()
    return util.grads_of(torch.compile(model, backend=ilpart.backend(
        partition=partition, codegen="eager")), inputs)


class Patterns(unittest.TestCase):

    def same_as_pytorch(self, model, inputs):
        from functorch.compile import min_cut_rematerialization_partition
        pf = ilpart.partition_fn()
        loss, grads = compiled_step(model, inputs, pf)
        want_loss, want_grads = compiled_step(model, inputs,
                                              min_cut_rematerialization_partition)
        self.assertTrue(pf.history, "partition_fn was not called")
        self.assertTrue(torch.equal(loss, want_loss), "loss %s against %s" % (loss, want_loss))
        self.assertEqual(len(grads), len(want_grads))
        for i, (a, b) in enumerate(zip(grads, want_grads)):
            self.assertEqual(a is None, b is None, "grad %d" % i)
            if a is not None:
                self.assertTrue(torch.equal(a, b), "grad %d" % i)
        for e in pf.history:
            util.check_entry(self, e)
        return pf

    @unittest.skipIf(flex_attention is None, "this torch has no flex_attention")
    def test_flex_attention_subgraphs_are_not_saved(self):
        """flex_attention_backward reads get_attr subgraphs (fw_graph, joint_graph,
        mask_graph) that the forward's flex_attention does not: saved (0 bytes), they
        reached the backward as placeholders without a value and AOTAutograd failed
        (KeyError 'val'; transformers' Llama with attn_implementation="flex_attention")."""
        self.addCleanup(zoo.lift_flex_cpu_guard())
        torch.manual_seed(0)
        pf = self.same_as_pytorch(FlexBlock(), [torch.randn(2, 8, 16)])
        g = pf.history[0]["graph"]
        attrs = {n["name"] for n in g["nodes"] if n.get("target") == "get_attr"}
        self.assertTrue(attrs, "no get_attr subgraph in the joint graph")
        self.assertFalse(attrs & set(pf.history[0]["partition"]["saved"]))

    def test_autocast_bfloat16(self):
        torch.manual_seed(0)
        model = zoo.Autocast(MLPLoss())
        pf = self.same_as_pytorch(model, [torch.randn(4, 16)])
        targets = {n.get("target") for n in pf.history[0]["graph"]["nodes"]}
        self.assertIn("aten._to_copy.default", targets)

    def test_lora_frozen_base(self):
        torch.manual_seed(0)
        model = Adapted()
        loss, grads = compiled_step(model, [torch.randn(4, 16)], ilpart.partition_fn())
        self.assertEqual([g is None for g in grads],
                         [not p.requires_grad for p in model.parameters()])
        self.same_as_pytorch(model, [torch.randn(4, 16)])


if __name__ == "__main__":
    unittest.main()
