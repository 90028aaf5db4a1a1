"""The compile path as users run it: ilpart.backend() (Inductor, ilpart's partition) next to
torch.compile's own default path, on both torches of the rig.

- random ops (dropout inside a SAC region, whose recomputation replays the forward's RNG
  state; dropout and bernoulli outside any region): with Inductor's fallback_random (so
  both paths draw as eager does) five SGD steps end where torch.compile's default path
  ends, and the backward ilpart hands Inductor replays the state it saved;
- Inductor's FX graph cache: a second compile of the same model with an equally
  configured partition_fn hits it (the partitioner pickles to a stable key, on torch 2.14
  the `custom_partitioner_fn` config entry), nothing bypasses it;
- the CustomPartitionerFn (newer torch, 2.14 here): its uuid and pickle cover ilpart's options and
  version, a pickled one loads back as the live object.
"""

import copy
import os
import pickle
import sys
import unittest

import torch
import torch._dynamo
import torch.nn as nn
import torch.nn.functional as F
from torch._dynamo.utils import counters

sys.path.insert(0, os.path.dirname(__file__))
import ilpart  # noqa: E402
import models  # noqa: E402
import util  # noqa: E402

STEPS = 5


def has_custom_partitioner():
    import torch._inductor.custom_graph_pass as cgp
    import torch._inductor.config as ic
    return hasattr(cgp, "CustomPartitionerFn") and hasattr(ic, "custom_partitioner_fn")


NO_CUSTOM = "torch %s has no torch._inductor.config.custom_partitioner_fn (torch 2.14 has it)" \
    % torch.__version__


class NoisyMLP(nn.Module):
    """Dropout and a bernoulli mask outside any checkpoint region, then a SAC region whose
    policy saves matmuls and recomputes the rest, dropout included (replayed)."""

    def __init__(self, d=32):
        super().__init__()
        self.l1 = nn.Linear(d, d)
        self.l2 = nn.Linear(d, d, bias=False)
        self.l3 = nn.Linear(d, d, bias=False)
        self.context = models.sac_context(models.save_ops_policy([torch.ops.aten.mm.default]))

    def body(self, x):
        return torch.tanh(self.l3(F.dropout(torch.relu(self.l2(x)), 0.25, training=True)))

    def forward(self, x):
        h = F.dropout(F.gelu(self.l1(x)), 0.2, training=True)
        h = h * torch.bernoulli(torch.full_like(h, 0.9))
        return h + models.sac(self.body, h, context=self.context)


def train(model, batches, lr=0.05):
    """STEPS SGD steps, the RNG seeded per step (both paths draw the same masks)."""
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for i, x in enumerate(batches):
        opt.zero_grad()
        torch.manual_seed(100 + i)
        out = model(x)
        w = torch.randn(out.shape, generator=torch.Generator().manual_seed(7))
        loss = (out * w).sum() / out.numel()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


class RandomOpsTest(unittest.TestCase):
    def test_random_ops_train_as_torch_inductor(self):
        import torch._inductor.config as ic
        torch.manual_seed(0)
        ref = NoisyMLP()
        mine = copy.deepcopy(ref)
        batches = [torch.randn(8, 32) for _ in range(STEPS)]
        with ic.patch(fallback_random=True):
            torch._dynamo.reset()
            theirs = train(torch.compile(ref), batches)
            compiled, pf = util.compile_ilpart(mine, codegen="inductor", reference=False)
            ours = train(compiled, batches)
        self.assertTrue(pf.history, "ilpart's partition_fn was not called")
        torch.testing.assert_close(torch.tensor(ours), torch.tensor(theirs), rtol=1e-5, atol=1e-6)
        for (name, a), b in zip(ref.named_parameters(), mine.parameters()):
            torch.testing.assert_close(b, a, rtol=1e-5, atol=1e-6,
                                       msg=lambda m: "%s: %s" % (name, m))
        self.assertNotAlmostEqual(theirs[0], theirs[-1], places=5)
        (e,) = pf.history
        # the dropout in the region is recomputed, replaying the state the forward saved
        bw = [str(n.target) for n in e["backward"].graph.nodes if n.op == "call_function"]
        fw = [str(n.target) for n in e["forward"].graph.nodes if n.op == "call_function"]
        self.assertTrue(any("run_with_rng_state" in t for t in bw), bw)
        self.assertTrue(any("run_and_save_rng_state" in t for t in fw), fw)
        util.check_entry(self, e)


class GraphCacheTest(unittest.TestCase):
    def compile_once(self, model, x, **kw):
        torch._dynamo.reset()
        counters.clear()
        pf = ilpart.partition_fn(**kw)
        out = torch.compile(model, backend=ilpart.backend(partition=pf))(x)
        out.sum().backward()
        return dict(counters["inductor"]), pf

    def test_second_compile_hits_fx_graph_cache(self):
        """The same model compiled twice (dynamo reset between, a new but equally configured
        partition_fn): the second compile's forward and backward come from Inductor's FX
        graph cache; neither compile bypasses it (an unpicklable partitioner does)."""
        import torch._inductor.config as ic
        torch.manual_seed(0)
        m = models.MLP()
        x = torch.randn(8, 32, requires_grad=True)
        with ic.patch(fx_graph_cache=True):
            first, pf1 = self.compile_once(m, x)
            second, pf2 = self.compile_once(m, x)
        print("\n  FX graph cache, first compile %s, second %s" % (first, second))
        self.assertTrue(pf1.history and pf2.history, "ilpart's partition_fn was not called")
        for c in (first, second):
            self.assertEqual(c.get("fxgraph_cache_bypass", 0), 0, c)
        self.assertGreaterEqual(second.get("fxgraph_cache_hit", 0), 2, second)
        self.assertEqual(second.get("fxgraph_cache_miss", 0), 0, second)

    @unittest.skipUnless(has_custom_partitioner(), NO_CUSTOM)
    def test_partitioner_key_covers_options_and_version(self):
        from ilpart import inductor
        from torch._inductor.custom_graph_pass import CustomPartitionerFn
        a = inductor.custom_partitioner(ilpart.partition_fn(objective="memory"))
        b = inductor.custom_partitioner(ilpart.partition_fn(objective="memory"))
        c = inductor.custom_partitioner(ilpart.partition_fn(objective="memory", prefer="soft"))
        self.assertIsInstance(a, CustomPartitionerFn)
        self.assertEqual(a.uuid(), b.uuid())
        self.assertNotEqual(a.uuid(), c.uuid())
        self.assertEqual(pickle.dumps(a), pickle.dumps(b))
        self.assertNotEqual(pickle.dumps(a), pickle.dumps(c))
        self.assertIs(pickle.loads(pickle.dumps(c)), c)
        version = inductor._binary_version(None)
        self.assertTrue(version.startswith("ilpart "), version)
        self.assertIn(version, inductor.cache_key(ilpart.partition_fn()))
        # partition functions of the user's own: keyed by their identity
        def own(*args, **kwargs):
            return None

        def other(*args, **kwargs):
            return None
        self.assertNotEqual(inductor.custom_partitioner(own).uuid(),
                            inductor.custom_partitioner(other).uuid())
        self.assertEqual(inductor.custom_partitioner(own).uuid(),
                         inductor.custom_partitioner(own).uuid())

    @unittest.skipUnless(has_custom_partitioner(), NO_CUSTOM)
    def test_inductor_calls_it_with_static_inputs(self):
        """Inductor's call: compiler= is dropped, static_lifetime_input_indices and
        num_fwd_outputs reach the partition function."""
        from ilpart import inductor
        calls = []

        def part(gm, joint_inputs, **kw):
            calls.append((gm, joint_inputs, kw))
            return "fw", "bw"

        fn = inductor.custom_partitioner(part, "test")
        out = fn("gm", ["x"], compiler="inductor", static_lifetime_input_indices=[0],
                 num_fwd_outputs=2)
        self.assertEqual(out, ("fw", "bw"))
        self.assertEqual(calls, [("gm", ["x"], {"static_lifetime_input_indices": [0],
                                                "num_fwd_outputs": 2})])


if __name__ == "__main__":
    unittest.main()
