"""What a user is told: a policy rule that matches no op (a typo), ops without a tag inside a
checkpoint region, and a missing ilpart binary (IlpartError, never a raw OSError)."""

import json
import os
import sys
import tempfile
import unittest
import warnings

import torch

sys.path.insert(0, os.path.dirname(__file__))
import ilpart  # noqa: E402
import models  # noqa: E402
import util  # noqa: E402


class WarningsTest(unittest.TestCase):
    def test_policy_typo_is_reported(self):
        """'aten.mmm.default' matches nothing: the warning names the rule and the graph's
        closest op names; the correctly spelt rule gives no warning."""
        torch.manual_seed(0)
        m = models.MLP()
        x = torch.randn(8, 32, requires_grad=True)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "typo.json")
            with open(path, "w") as f:
                json.dump({"format": "ilpart-policy", "version": 1, "regions": "graph",
                           "save": ["aten.addmm.default", "aten.mmm.default"]}, f)
            compiled, _pf = util.compile_ilpart(m, policy=path, reference=False)
            with warnings.catch_warnings(record=True) as got:
                warnings.simplefilter("always")
                compiled(x).sum().backward()
        msgs = [str(w.message) for w in got if issubclass(w.category, ilpart.IlpartWarning)]
        self.assertEqual(len(msgs), 1, msgs)
        self.assertIn("field 'save[1]': 'aten.mmm.default' matches no op", msgs[0])
        self.assertIn("closest covered ops: ", msgs[0])

    def test_untagged_ops_inside_a_region(self):
        """An op between two tagged ops of one region, without a tag of its own, and an op
        with the region's id but no tag, are reported; ops outside regions are not."""
        def op(name, inputs, **kw):
            return dict(name=name, kind="op", target="aten.relu.default", inputs=inputs,
                        shape=[4], dtype="f32", **kw)
        g = {"nodes": [
            {"name": "x", "kind": "primal", "shape": [4], "dtype": "f32"},
            op("a", ["x"], recompute="PREFER_RECOMPUTE", ac_graph_id=1),
            op("loose", ["a"]),
            op("b", ["loose"], recompute="MUST_SAVE", ac_graph_id=1),
            op("idonly", ["b"], ac_graph_id=1),
            # torch's SAC never tags detach (SAC_IGNORED_OPS): seen in a held-out model
            # returning h.detach() from a SAC region
            dict(op("det", ["a"]), target="aten.detach.default", view_of="a"),
            op("c", ["det"], recompute="PREFER_RECOMPUTE", ac_graph_id=1),
            op("outside", ["idonly", "c"]),
            {"name": "t", "kind": "tangent", "shape": [4], "dtype": "f32"},
            op("g", ["t", "a"]),
        ], "outputs": {"forward": ["outside"], "backward": ["g"]}}
        self.assertEqual(ilpart.untagged_in_regions(g),
                         [("loose", "aten.relu.default", 1), ("idonly", "aten.relu.default", 1)])

    def test_time_limit_is_reported(self):
        """A partition the solver stopped at its time limit is trained with, but reported
        (bench/train_bench.py's gpt at 0.5 under load trained with the least-memory start
        and nothing said so); an optimal one is not."""
        import ilpart.bridge as bridge
        real = bridge.solve
        for status, expect in (("optimal", 0), ("time-limit", 1)):
            def marked(graph, status=status, **kw):
                part = real(graph, **kw)
                part["producer"]["status"] = status
                return part
            torch.manual_seed(0)
            m = models.MLP()
            x = torch.randn(8, 32, requires_grad=True)
            bridge.solve = marked
            try:
                compiled, _pf = util.compile_ilpart(m, objective="runtime", memory_budget=0.5,
                                                    time_limit=7, reference=False)
                with warnings.catch_warnings(record=True) as got:
                    warnings.simplefilter("always")
                    compiled(x).sum().backward()
            finally:
                bridge.solve = real
            msgs = [str(w.message) for w in got
                    if issubclass(w.category, ilpart.IlpartWarning) and "time limit" in
                    str(w.message)]
            self.assertEqual(len(msgs), expect, (status, msgs))
            if expect:
                self.assertIn("stopped at its time limit (7 s; gap", msgs[0])

    def test_missing_binary_is_ilpart_error(self):
        graph = os.path.join(os.path.dirname(__file__), "..", "data", "corpus", "mlp.json")
        with self.assertRaises(ilpart.IlpartError):
            ilpart.solve(graph, binary="/nonexistent/ilpart")
        old = os.environ.get("ILPART_BIN")
        os.environ["ILPART_BIN"] = "/nonexistent/ilpart"
        try:
            with self.assertRaises(ilpart.IlpartError) as cm:
                ilpart.find_binary()
            self.assertIn("ILPART_BIN=/nonexistent/ilpart", str(cm.exception))
            m = models.MLP()
            compiled, _pf = util.compile_ilpart(m, reference=False)
            with self.assertRaises(Exception) as cm:
                compiled(torch.randn(4, 32, requires_grad=True))
            err = cm.exception
            while err is not None and not isinstance(err, ilpart.IlpartError):
                err = err.__cause__ or err.__context__
            self.assertIsNotNone(err, "no IlpartError in the chain: %r" % cm.exception)
        finally:
            if old is None:
                del os.environ["ILPART_BIN"]
            else:
                os.environ["ILPART_BIN"] = old


if __name__ == "__main__":
    unittest.main()
