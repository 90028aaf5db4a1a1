"""CPU-offload tags (newer torch's CheckpointPolicy.MUST_CPU_OFFLOAD / PREFER_CPU_OFFLOAD,
python/ilpart/offload.py) on a small model under SAC whose policy offloads its matmuls:
exported with their own names, saved and never recomputed, marked for torch's
activation-offloading pass, which offloads exactly them when
torch._functorch.config.enable_activation_offloading is on (on CPU its device_put to CPU
is a copy, so the test runs here); gradients as eager's. A MUST_CPU_OFFLOAD value torch's
pass cannot offload (a getitem) is refused with an error naming the op. With
`--offload free` ilpart itself chooses what to offload (docs/solver.md "Offload"): torch's
pass offloads exactly the partition's "offloaded" values, gradients as eager's; with
`--offload none` the tags are not marked. Skipped on a torch without the tags (2.6)."""

import os
import sys
import unittest
import warnings

import torch
import torch.nn as nn
from torch.utils.checkpoint import CheckpointPolicy

sys.path.insert(0, os.path.dirname(__file__))
import ilpart  # noqa: E402
import models  # noqa: E402
import util  # noqa: E402

aten = torch.ops.aten
HAS_TAGS = hasattr(CheckpointPolicy, "MUST_CPU_OFFLOAD")
WHY = "torch %s's CheckpointPolicy has no MUST_CPU_OFFLOAD (torch 2.14 has it)" % torch.__version__


def policy(tag, ops):
    def fn(ctx, func, *args, **kwargs):
        return getattr(CheckpointPolicy, tag) if func in ops \
            else CheckpointPolicy.PREFER_RECOMPUTE
    return fn


class OffloadMLP(nn.Module):
    """x + sin(l2(relu(l1(x)))) in a SAC region whose policy gives the matmuls `tag`."""

    def __init__(self, tag, d=32, ops=(aten.mm.default,)):
        super().__init__()
        self.l1 = nn.Linear(d, 2 * d, bias=False)
        self.l2 = nn.Linear(2 * d, d, bias=False)
        self.context = models.sac_context(policy(tag, ops))

    def body(self, x):
        return torch.sin(self.l2(torch.relu(self.l1(x))))

    def forward(self, x):
        return x + models.sac(self.body, x, context=self.context)


class PlainMLP(nn.Module):
    """No SAC: which values to offload is ilpart's choice alone."""

    def __init__(self, d=32):
        super().__init__()
        self.l1 = nn.Linear(d, 2 * d)
        self.l2 = nn.Linear(2 * d, d)

    def forward(self, x):
        return x + torch.sin(self.l2(torch.relu(self.l1(x))))


class MaxPool(nn.Module):
    """max over the last dim (a tuple op: values, indices) tagged MUST_CPU_OFFLOAD: the
    backward needs the indices, a getitem, which torch's offloading cannot offload."""

    def __init__(self, d=32):
        super().__init__()
        self.lin = nn.Linear(d, d)
        self.context = models.sac_context(policy("MUST_CPU_OFFLOAD", (aten.max.dim,)))

    def body(self, x):
        return torch.max(torch.relu(self.lin(x)), dim=-1).values

    def forward(self, x):
        return models.sac(self.body, x, context=self.context)


@unittest.skipUnless(HAS_TAGS, WHY)
class OffloadTest(unittest.TestCase):
    def compile_and_check(self, tag, offloading, prefer="hard"):
        from torch._functorch import config as fconfig
        torch.manual_seed(0)
        m = OffloadMLP(tag)
        x = torch.randn(4, 32, requires_grad=True)
        eager = util.run(m, [x])
        compiled, pf = util.compile_ilpart(m, prefer=prefer)
        with fconfig.patch(enable_activation_offloading=offloading), \
                warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            mine = util.run(compiled, [x])
        util.assert_same(self, eager, mine, rtol=1e-5, atol=1e-6)
        (e,) = pf.history
        by = {n["name"]: n for n in e["graph"]["nodes"]}
        tagged = sorted(n for n, r in by.items() if r.get("recompute") == tag)
        self.assertEqual(len(tagged), 2, "the two matmuls carry %s: %s" % (tag, tagged))
        saved, recomputed = util.check_entry(self, e, prefer=prefer)
        for t in tagged:
            self.assertNotIn(t, recomputed, "%s (%s) recomputed" % (t, tag))
        # l1's matmul feeds relu's backward; l2's only sin, whose cos the forward may save
        self.assertIn("mm", saved, "mm (%s) not saved" % tag)
        tagged = [t for t in tagged if t in saved]
        fw = e["forward"].graph
        for t in tagged:
            self.assertTrue(any(n.name == t and n.meta.get("should_offload") for n in fw.nodes),
                            "%s not marked should_offload" % t)
        offloads = sorted(n.name for n in fw.nodes if n.op == "call_function"
                          and n.name.startswith("cpu_offload_"))
        msgs = [str(w.message) for w in caught if issubclass(w.category, ilpart.IlpartWarning)]
        return tagged, offloads, msgs

    def test_must_offload_saved_and_marked_offloading_off(self):
        tagged, offloads, msgs = self.compile_and_check("MUST_CPU_OFFLOAD", False)
        self.assertEqual(offloads, [])
        self.assertTrue([m for m in msgs if "enable_activation_offloading is off" in m
                         and tagged[0] in m], msgs)

    def test_offloading_on_offloads_them(self):
        tagged, offloads, msgs = self.compile_and_check("MUST_CPU_OFFLOAD", True)
        self.assertEqual(offloads, ["cpu_offload_" + t for t in tagged])
        self.assertFalse([m for m in msgs if "enable_activation_offloading" in m], msgs)

    def test_prefer_offload_hard_and_pytorch_modes(self):
        tagged, offloads, _ = self.compile_and_check("PREFER_CPU_OFFLOAD", True)
        self.assertEqual(offloads, ["cpu_offload_" + t for t in tagged])
        # --prefer pytorch: a PREFER tag is torch.compile's to override, as PREFER_SAVE
        from torch._functorch import config as fconfig
        torch.manual_seed(0)
        m = OffloadMLP("PREFER_CPU_OFFLOAD")
        x = torch.randn(4, 32, requires_grad=True)
        compiled, pf = util.compile_ilpart(m, prefer="pytorch")
        with fconfig.patch(enable_activation_offloading=True):
            util.assert_same(self, util.run(m, [x]), util.run(compiled, [x]),
                             rtol=1e-5, atol=1e-6)
        util.check_entry(self, pf.history[0], prefer="pytorch")

    def test_exported_tags_keep_their_names(self):
        graphs = ilpart.capture(OffloadMLP("MUST_CPU_OFFLOAD"), torch.randn(4, 32,
                                                                          requires_grad=True))
        tags = {n.get("recompute") for n in graphs[0]["nodes"]}
        self.assertIn("MUST_CPU_OFFLOAD", tags)
        part = ilpart.solve(graphs[0])
        self.assertIn("mm", part["saved"])
        # read as PREFER_RECOMPUTE they are recomputed: the tag, not the costs, saves them
        for n in graphs[0]["nodes"]:
            if n.get("recompute") == "MUST_CPU_OFFLOAD":
                n["recompute"] = "PREFER_RECOMPUTE"
        self.assertNotIn("mm", ilpart.solve(graphs[0])["saved"])

    def run_offload(self, m, extra, offloading=True):
        from torch._functorch import config as fconfig
        x = torch.randn(4, 32, requires_grad=True)
        eager = util.run(m, [x])
        compiled, pf = util.compile_ilpart(m, extra_args=extra)
        with fconfig.patch(enable_activation_offloading=offloading):
            mine = util.run(compiled, [x])
        util.assert_same(self, eager, mine, rtol=1e-5, atol=1e-6)
        (e,) = pf.history
        fw, bw = e["forward"].graph, e["backward"].graph
        offloads = sorted(n.name[len("cpu_offload_"):] for n in fw.nodes
                          if n.op == "call_function" and n.name.startswith("cpu_offload_"))
        reloads = sorted(n.name[len("gpu_reload_"):] for n in bw.nodes
                         if n.op == "call_function" and n.name.startswith("gpu_reload_"))
        return e, offloads, reloads

    def test_free_offload_chosen_by_ilpart(self):
        torch.manual_seed(0)
        e, offloads, reloads = self.run_offload(PlainMLP(), ["--offload", "free"])
        part = e["partition"]
        self.assertEqual(part["options"]["offload"], "free")
        # torch's own host link, in bytes/s
        from torch._functorch import config as fconfig
        self.assertEqual(part["options"]["offload_bw"],
                         fconfig.activation_offload_cpu_gpu_bw * 1024 ** 3)
        chosen = sorted(part.get("offloaded", []))
        self.assertTrue(chosen, "--offload free, memory objective: offloads what it can")
        self.assertEqual(offloads, chosen)
        self.assertEqual(reloads, chosen)
        util.ilpart_check(self, e["graph"], part)

    def test_free_offload_with_must_tags(self):
        torch.manual_seed(0)
        e, offloads, _ = self.run_offload(OffloadMLP("MUST_CPU_OFFLOAD"), ["--offload", "free"])
        tagged = [n["name"] for n in e["graph"]["nodes"]
                  if n.get("recompute") == "MUST_CPU_OFFLOAD"]
        saved = util.check_entry(self, e)[0]
        for t in tagged:
            if t in saved:
                self.assertIn(t, e["partition"]["offloaded"], "%s (MUST_CPU_OFFLOAD)" % t)
                self.assertIn(t, offloads)
        self.assertEqual(offloads, sorted(e["partition"]["offloaded"]))

    def test_offload_none_marks_nothing(self):
        torch.manual_seed(0)
        e, offloads, _ = self.run_offload(OffloadMLP("MUST_CPU_OFFLOAD"), ["--offload", "none"])
        self.assertEqual(offloads, [])
        self.assertNotIn("offloaded", e["partition"])
        self.assertFalse([n for n in e["forward"].graph.nodes if n.meta.get("should_offload")])

    def test_getitem_that_cannot_be_offloaded_is_refused(self):
        from torch._functorch import config as fconfig
        torch.manual_seed(0)
        compiled, _ = util.compile_ilpart(MaxPool())
        x = torch.randn(4, 32, requires_grad=True)
        with fconfig.patch(enable_activation_offloading=True):
            with self.assertRaisesRegex(Exception, r"op 'getitem[_0-9]*' \(getitem\) is tagged "
                                        r"MUST_CPU_OFFLOAD and saved, but torch's activation "
                                        r"offloading cannot offload it"):
                util.run(compiled, [x])


if __name__ == "__main__":
    unittest.main()
