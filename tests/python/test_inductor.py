"""Training through torch.compile(backend=ilpart.backend()) with Inductor: C++ kernels for the
forward and backward, ilpart's partition in place of min-cut. Five SGD steps end where eager's
end (float tolerance: Inductor fuses and reorders arithmetic), the backward PyTorch runs obeys
the SAC tags, and `ilpart check` accepts every partition. Small models: Inductor's C++
compiles dominate the run time (its cache lives in the chroot's /tmp/torchinductor-vec)."""

import copy
import os
import sys
import unittest

import torch
import torch._dynamo
from torch._dynamo.utils import counters

sys.path.insert(0, os.path.dirname(__file__))
import ilpart  # noqa: E402
import models  # noqa: E402
import util  # noqa: E402

aten = torch.ops.aten
STEPS = 5


def train(model, batches, lr=0.05):
    """STEPS SGD steps on sum(out * fixed weights)/numel; returns the losses."""
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for x in batches:
        opt.zero_grad()
        out = model(x)
        g = torch.Generator().manual_seed(1234)
        w = torch.randn(out.shape, generator=g, dtype=out.dtype)
        loss = (out * w).sum() / out.numel()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


class BreakInTheMiddle(torch.nn.Module):
    """Two Llama blocks with a graph break between them: two joint graphs."""

    def __init__(self):
        super().__init__()
        self.llama = models.Llama(layers=2, d=32, heads=2, seq=16)

    def forward(self, x):
        b = self.llama.blocks
        cos, sin = self.llama.cos[: x.shape[1]], self.llama.sin[: x.shape[1]]
        x = b[0](x, cos, sin)
        torch._dynamo.graph_break()
        return self.llama.norm(b[1](x, cos, sin))


class InductorTest(unittest.TestCase):
    def train_compare(self, label, make, shapes, dynamic=None, rtol=1e-4, atol=1e-5,
                      **pf_kw):
        """Eager and Inductor+ilpart train copies of one model on the same batches; losses
        and final parameters agree. Returns the partition_fn's history."""
        torch.manual_seed(0)
        ref = make()
        mine = copy.deepcopy(ref)
        batches = [torch.randn(*shape) for shape in shapes]
        eager_losses = train(ref, batches)
        counters.clear()
        compiled, pf = util.compile_ilpart(mine, codegen="inductor", dynamic=dynamic, **pf_kw)
        losses = train(compiled, batches)
        self.assertTrue(pf.history, "ilpart's partition_fn was not called")
        kernels = sum(counters["inductor"][k] for k in ("fxgraph_cache_miss",
                                                         "fxgraph_cache_hit",
                                                         "fxgraph_cache_bypass"))
        self.assertGreaterEqual(kernels, 2 * len(pf.history),
                                "Inductor did not compile forward and backward")
        torch.testing.assert_close(torch.tensor(losses), torch.tensor(eager_losses),
                                   rtol=rtol, atol=atol)
        for (name, a), b in zip(ref.named_parameters(), mine.parameters()):
            torch.testing.assert_close(b, a, rtol=rtol, atol=atol,
                                       msg=lambda m: "%s: %s" % (name, m))
        # Training moved the parameters: equality above is not trivially true.
        self.assertNotAlmostEqual(eager_losses[0], eager_losses[-1], places=5)
        for e in pf.history:
            util.check_entry(self, e, prefer=pf_kw.get("prefer", "hard"))
            util.compare_bytes(self, label, e, strict=False)
        return pf.history

    def test_llama_sac_matmuls_saved(self):
        """Llama blocks (RMSNorm, rotary, SwiGLU, SDPA) under PyTorch's SAC API, a policy that
        saves matmuls; Inductor generates the kernels."""
        def make():
            return models.Llama(layers=2, d=64, heads=4, seq=16, checkpointing="sac",
                                policies=[models.save_ops_policy([aten.mm.default])])
        (e,) = self.train_compare("inductor llama SAC", make, [(2, 16, 64)] * STEPS)
        by = {n["name"]: n for n in e["graph"]["nodes"]}
        self.assertTrue([n for n in by.values() if n.get("target") == "aten.mm.default"
                         and n.get("recompute") == "MUST_SAVE"])
        for r in util.recomputed_names(e["graph"], e["backward"]):
            self.assertNotEqual(by[r].get("target"), "aten.mm.default",
                                "matmul %s recomputed in the backward" % r)

    def test_llama_at_memory_budget(self):
        """The runtime objective at half of PyTorch's activation memory scale."""
        def make():
            return models.Llama(layers=2, d=64, heads=4, seq=16)
        (e,) = self.train_compare("inductor llama budget 0.5", make, [(2, 16, 64)] * STEPS,
                                  objective="runtime", memory_budget=0.5)
        self.assertEqual(e["partition"]["producer"]["objective"], "runtime")

    def test_float8_seed(self):
        """The seed: float8 casts in a SAC region that saves only aten.mm; the casts are
        recomputed in the backward, never saved."""
        (e,) = self.train_compare("inductor float8 SAC", models.Float8Linear,
                                  [(32, 32)] * STEPS, rtol=1e-3, atol=1e-4)
        by = {n["name"]: n for n in e["graph"]["nodes"]}
        for s in util.saved_names(e["backward"]):
            self.assertNotEqual(by[s].get("dtype"), "f8e4m3fn", "float8 cast %s saved" % s)

    def test_dynamic_shapes(self):
        """dynamic=True: one graph with symbolic sizes serves batches of two lengths."""
        def make():
            return models.Llama(layers=1, d=32, heads=2, seq=16)
        history = self.train_compare("inductor llama dynamic", make,
                                     [(2, 16, 32), (3, 12, 32)] * 2 + [(2, 9, 32)],
                                     dynamic=True)
        self.assertEqual(len(history), 1)
        syms = [n for n in history[0]["graph"]["nodes"]
                if n["kind"] == "primal" and n.get("bytes") == 8]
        self.assertTrue(syms, "no symbolic-size inputs in a dynamic graph")

    def test_graph_break(self):
        """A graph break: two joint graphs, each partitioned by ilpart and compiled."""
        history = self.train_compare("inductor graph break", BreakInTheMiddle,
                                     [(2, 16, 32)] * STEPS)
        self.assertEqual(len(history), 2)

    def test_default_backend_is_inductor(self):
        """ilpart.backend() with no arguments: Inductor, the memory objective, and the cost
        model's profile of the device the graph runs on (CPU here)."""
        import ilpart.bridge
        torch._dynamo.reset()
        counters.clear()
        m = models.MLP()
        x = torch.randn(8, 32, requires_grad=True)
        devices = []
        real_solve = ilpart.bridge.solve

        def solve(*args, **kwargs):
            devices.append(kwargs.get("device"))
            return real_solve(*args, **kwargs)

        ilpart.bridge.solve = solve
        try:
            out = torch.compile(m, backend=ilpart.backend())(x)
        finally:
            ilpart.bridge.solve = real_solve
        out.sum().backward()
        self.assertEqual(devices, ["cpu"])
        self.assertGreater(counters["inductor"]["fxgraph_cache_miss"]
                           + counters["inductor"]["fxgraph_cache_hit"], 0)
        torch.testing.assert_close(x.grad, torch.autograd.grad(m(x).sum(), x)[0])


if __name__ == "__main__":
    unittest.main()
