"""Measured costs: ilpart.calibrate times each forward op with PyTorch's profiler and writes
time_us into the exported graph; the solver reads them; partition_fn(calibrate=True) does
the same at compile time and trains like eager."""

import os
import sys
import unittest

import torch

sys.path.insert(0, os.path.dirname(__file__))
import ilpart  # noqa: E402
import models  # noqa: E402
import util  # noqa: E402


class CalibrateTest(unittest.TestCase):
    def test_calibrate_writes_time_us(self):
        torch.manual_seed(0)
        m = models.Transformer(layers=1)
        x = torch.randn(2, 8, 32, requires_grad=True)
        (g,) = ilpart.calibrate(m, x, reference=False)
        timed = {n["name"]: n for n in g["nodes"] if "time_us" in n}
        fwd = util.forward_side(g)
        ops = [n for n in g["nodes"] if n["kind"] == "op" and n["name"] in fwd]
        self.assertGreater(len(timed), len(ops) // 2, "most forward ops timed")
        self.assertTrue(all(n["name"] in fwd for n in timed.values()), "backward ops timed")
        self.assertTrue(all(n["time_us"] > 0 for n in timed.values()))
        mm = [n for n in timed.values() if n["target"] in ("aten.mm.default",
                                                           "aten.addmm.default")]
        self.assertTrue(mm, "no matmul timed")
        part = ilpart.solve(g, objective="memory", extra_args=["--bans", "none"])
        # The solver's recompute time is the sum of measured times of what it recomputes.
        by = {n["name"]: n for n in g["nodes"]}
        need = util.required_forward(g)
        rec = [r for r in part.get("recomputed", []) if r in need and by[r]["kind"] == "op"]
        self.assertTrue(rec, "nothing recomputed at least memory")
        want = sum(by[r].get("time_us", 0) for r in rec)
        if all("time_us" in by[r] for r in rec):
            self.assertAlmostEqual(part["cost"]["recompute_time_us"], want,
                                   delta=1e-3 * want + 1e-3)

    def test_calibrate_measures_workspace(self):
        """Every op, forward and backward, is measured for the scratch it frees before it
        returns; CPU convolutions and their backward have some (oneDNN), a plain MLP's
        ops none."""
        torch.manual_seed(0)
        m = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8),
                                torch.nn.ReLU(), torch.nn.Conv2d(8, 8, 3, padding=1))
        x = torch.randn(2, 3, 16, 16, requires_grad=True)
        (g,) = ilpart.calibrate(m, x, reference=False)
        ws = {n["name"]: n for n in g["nodes"] if "workspace" in n}
        self.assertTrue(all(n["kind"] == "op" and n["workspace"] > 0 for n in ws.values()))
        conv = [n for n in ws.values() if n["target"].startswith("aten.convolution")]
        self.assertTrue(conv, "no convolution with workspace: %s" % sorted(ws))
        fwd = util.forward_side(g)
        self.assertTrue(any(name not in fwd for name in ws), "no backward op measured")
        (g,) = ilpart.calibrate(models.MLP(), torch.randn(16, 32, requires_grad=True),
                                reference=False)
        mm = [n for n in g["nodes"] if n.get("target") in ("aten.mm.default",
                                                            "aten.addmm.default")]
        self.assertTrue(mm and not any("workspace" in n for n in mm))

    def test_measurements_leave_the_random_stream(self):
        """time_ops and measure_workspace run random ops too (dropout); the caller's
        random stream is where it was."""
        from torch.fx.experimental.proxy_tensor import make_fx
        from ilpart.timing import time_ops
        gm = make_fx(lambda x: torch.ops.aten.native_dropout.default(x, 0.5, True)[0] * 2,
                     tracing_mode="fake")(torch.randn(64))
        graph = {"nodes": [{"name": n.name} for n in gm.graph.nodes]}
        before = torch.random.get_rng_state()
        ilpart.measure_workspace(gm, graph)
        time_ops(gm, graph)
        self.assertTrue(torch.equal(before, torch.random.get_rng_state()))
        # the dropout ran (timed), on a stream of its own
        self.assertTrue(any("time_us" in n for n in graph["nodes"]
                            if n["name"].startswith("native_dropout")))

    def test_partition_fn_calibrate_trains(self):
        torch.manual_seed(0)
        m = models.MLP()
        x = torch.randn(16, 32, requires_grad=True)
        eager = util.run(m, [x])
        compiled, pf = util.compile_ilpart(m, objective="runtime", memory_budget=0.5,
                                           calibrate=True, reference=False)
        util.assert_same(self, eager, util.run(compiled, [x]), exact=True)
        (e,) = pf.history
        self.assertTrue(any("time_us" in n for n in e["graph"]["nodes"]))


if __name__ == "__main__":
    unittest.main()
