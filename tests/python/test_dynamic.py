"""Graphs compiled with dynamic shapes (torch.compile(dynamic=True), or torch's automatic
dynamic shapes after a recompile): the joint graph takes the symbolic sizes as SymInt
primals and computes with them (`sym_size`, `operator.mul` on sizes), and its tensors
have symbolic shapes. A tiny attention block (no transformers needed) with dropout,
LayerNorm and SDPA (tuple-valued ops) over a sequence whose length is symbolic, compiled
once, run at two lengths:

* the exported graph marks the symbolic scalars (`sym`, docs/format.md);
* train: ilpart's split modules and those of PyTorch's own partitioner
  (min_cut_rematerialization_partition) of the same joint graph, run on inputs with each
  symbol bound to its size at capture, give the loss and every gradient bit for bit;
  `ilpart check` accepts the partition;
* end to end: partition_fn (aot_autograd, split graphs run as they are) against the same
  compile with PyTorch's partitioner in its place, bit for bit, at both lengths; and
  ilpart.backend() (Inductor) against torch.compile(dynamic=True) within float tolerance;
* mincut at 1, 0.5, 0.3, 0.1: `ilpart mincut --prefer pytorch` saves torch's set, once
  torch's extraction has added the nodes that bind the symbols of the backward's input
  sizes (util.backward_inputs; docs/mincut.md);
* budget at 0.5, 0.3, 0.1: `ilpart compare`'s ILP saves no more bytes, recomputes no
  longer and peaks no higher than PyTorch's partition at the same fraction (where it obeys
  the rules), as in test_realmodels. Before symbolic scalars were modelled, ilpart's
  reproduction of torch's budget path offered the tuples to the knapsack, missed torch's
  partition, and the ILP answered slower than it (BART, docs/python.md).

Runs under torch 2.6 (trixie) and 2.14 (sid) alike.
"""

import copy
import json
import os
import sys
import tempfile
import unittest

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ilpart  # noqa: E402
import peakmem  # noqa: E402
import util  # noqa: E402

BUDGETS = (0.5, 0.3, 0.1)
LENGTHS = (12, 7)  # compiled at the first, run again at the second: same graph
RTOL, ATOL = 1e-4, 1e-5


class Block(nn.Module):
    """Embedding, two pre-norm attention + MLP layers with dropout; the reshapes into heads
    use the input's (symbolic) length."""

    def __init__(self, d=32, heads=2, layers=2, vocab=50):
        super().__init__()
        self.d, self.heads = d, heads
        self.emb = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList()
        for _ in range(layers):
            self.layers.append(nn.ModuleDict({
                "n1": nn.LayerNorm(d), "qkv": nn.Linear(d, 3 * d), "o": nn.Linear(d, d),
                "n2": nn.LayerNorm(d), "f1": nn.Linear(d, 2 * d), "f2": nn.Linear(2 * d, d)}))
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        b, n = ids.shape
        h = self.emb(ids)
        for L in self.layers:
            q, k, v = L["qkv"](L["n1"](h)).split(self.d, dim=-1)
            q, k, v = (t.reshape(b, n, self.heads, self.d // self.heads).transpose(1, 2)
                       for t in (q, k, v))
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            a = a.transpose(1, 2).reshape(b, n, self.d)
            h = h + F.dropout(L["o"](a), 0.1, training=True)
            h = h + F.dropout(L["f2"](F.gelu(L["f1"](L["n2"](h)))), 0.1, training=True)
        return F.cross_entropy(self.head(h).reshape(b * n, -1), ids.reshape(-1))


def make_model():
    torch.manual_seed(0)
    return Block()


def inputs(n):
    return (torch.randint(0, 50, (2, n), generator=torch.Generator().manual_seed(n)),)


grads_of = util.grads_of
cli = util.cli


violation = util.violation


class Captured:
    """The model compiled once with dynamic=True through ilpart.partition_fn (split graphs
    run as they are), every joint graph exported with this torch's partitions at budget 1
    and BUDGETS as references, and PyTorch's own split modules of the same joint graph."""

    def __init__(self):
        from functorch.compile import min_cut_rematerialization_partition
        from ilpart.export import _copy_for_partitioning, export_graph, prepare_joint
        self.tmp = tempfile.TemporaryDirectory()
        self.graphs, self.joints, self.torch_modules, self.paths = [], [], [], []
        pf = ilpart.partition_fn(reference=False)

        def partition(jm, joint_inputs, *, num_fwd_outputs, **kw):
            jm = prepare_joint(jm)
            slii = kw.get("static_lifetime_input_indices")
            self.graphs.append(export_graph(jm, num_fwd_outputs, reference=True,
                                            joint_inputs=joint_inputs, prepare=False,
                                            budgets=BUDGETS,
                                            static_lifetime_input_indices=slii))
            self.joints.append((jm, num_fwd_outputs))
            self.torch_modules.append(min_cut_rematerialization_partition(
                _copy_for_partitioning(jm), joint_inputs, num_fwd_outputs=num_fwd_outputs,
                **({} if slii is None else {"static_lifetime_input_indices": slii})))
            return pf(jm, joint_inputs, num_fwd_outputs=num_fwd_outputs, **kw)

        torch._dynamo.reset()
        self.model = make_model()
        compiled = torch.compile(copy.deepcopy(self.model), dynamic=True,
                                 backend=ilpart.backend(partition=partition, codegen="eager"))
        self.ilpart = [grads_of(compiled, inputs(n)) for n in LENGTHS]
        self.history = pf.history
        for i, g in enumerate(self.graphs):
            p = os.path.join(self.tmp.name, "dynamic-%d.json" % i)
            ilpart.write_json(p, g)
            self.paths.append(p)

    def reference(self, i, budget=None):
        want = ilpart.reference_name(budget)
        return {r["name"]: r["saved"] for r in self.graphs[i].get("reference", ())}.get(want)


_CAPTURED = []


def captured():
    if not _CAPTURED:
        _CAPTURED.append(Captured())
    return _CAPTURED[0]


class DynamicShapes(unittest.TestCase):
    maxDiff = None

    @classmethod
    def tearDownClass(cls):
        for c in _CAPTURED:
            c.tmp.cleanup()
        _CAPTURED.clear()

    def test_graph_has_symbolic_sizes(self):
        c = captured()
        self.assertEqual(len(c.graphs), 1, "one graph serves both lengths")
        for g in c.graphs:
            sym = [n["name"] for n in g["nodes"] if n["kind"] == "primal" and n.get("sym")]
            self.assertTrue(sym, "no SymInt primal: the graph was not compiled dynamic")
            for n in g["nodes"]:
                if n.get("sym"):
                    self.assertNotIn("shape", n, n["name"])
                    self.assertIn(n["sym"], ("int", "float"), n["name"])
            print("\n  dynamic graph: %d nodes, symbolic primals %s, symbolic ops %d" % (
                len(g["nodes"]), sym, sum(1 for n in g["nodes"]
                                          if n.get("sym") and n["kind"] == "op")), end="")

    def test_train(self):
        """ilpart's split modules against PyTorch's of the same joint graph, on inputs
        with each symbol bound to its size at capture: bit for bit."""
        c = captured()
        self.assertTrue(c.history)
        for i, e in enumerate(c.history):
            jm, n_out = c.joints[i]
            prim, tang = peakmem.make_inputs(jm)
            self.assertTrue(any(isinstance(p, int) for p in prim), "no concrete size bound")
            theirs = self.run_split(*c.torch_modules[i], n_out, prim, tang)
            mine = self.run_split(e["forward"], e["backward"], n_out, prim, tang)
            self.assertEqual(len(mine), len(theirs))
            for k, (a, b) in enumerate(zip(mine, theirs)):
                self.assertEqual(a is None, b is None, "output %d" % k)
                if isinstance(a, torch.Tensor):
                    if a.is_floating_point():
                        self.assertTrue(torch.isfinite(b).all(), "output %d not finite" % k)
                    self.assertTrue(torch.equal(a, b), "graph %d output %d differs: %g" % (
                        i, k, (a - b).abs().max().item()))
            util.check_entry(self, e)

    @staticmethod
    def run_split(fw, bw, n_out, primals, tangents, seed=0):
        torch.manual_seed(seed)
        with torch.no_grad():
            outs = list(fw(*primals))
            grads = list(bw(*peakmem.backward_args(n_out, outs, tangents)))
        return outs[:n_out] + grads

    def test_end_to_end(self):
        """partition_fn against PyTorch's partitioner in the same compile (bit for bit)
        at both lengths; ilpart.backend() (Inductor) against torch.compile(dynamic=True)."""
        import torch._inductor.config as iconfig
        from functorch.compile import min_cut_rematerialization_partition
        c = captured()
        torch._dynamo.reset()
        theirs_m = torch.compile(copy.deepcopy(c.model), dynamic=True, backend=ilpart.backend(
            partition=min_cut_rematerialization_partition, codegen="eager"))
        for n, mine in zip(LENGTHS, c.ilpart):
            theirs = grads_of(theirs_m, inputs(n))
            self.assertTrue(torch.equal(mine[0], theirs[0]), "length %d loss" % n)
            for k, (a, b) in enumerate(zip(mine[1], theirs[1])):
                self.assertTrue(torch.equal(a, b), "length %d grad %d: %g" % (
                    n, k, (a - b).abs().max().item()))
        with iconfig.patch(fallback_random=True):
            torch._dynamo.reset()
            ind = torch.compile(copy.deepcopy(c.model), dynamic=True)
            want = [grads_of(ind, inputs(n)) for n in LENGTHS]
            torch._dynamo.reset()
            pf = ilpart.partition_fn()
            mine_m = torch.compile(copy.deepcopy(c.model), dynamic=True,
                                   backend=ilpart.backend(partition=pf))
            got = [grads_of(mine_m, inputs(n)) for n in LENGTHS]
        self.assertEqual(len(pf.history), 1, "recompiled for the second length")
        for n, (lg, gg), (lw, gw) in zip(LENGTHS, got, want):
            torch.testing.assert_close(lg, lw, rtol=RTOL, atol=ATOL)
            for a, b in zip(gg, gw):
                torch.testing.assert_close(a, b, rtol=RTOL, atol=ATOL)
        for e in pf.history:
            util.check_entry(self, e)

    def test_mincut(self):
        c = captured()
        for budget in (None,) + BUDGETS:
            for i, path in enumerate(c.paths):
                ref = c.reference(i, budget)
                self.assertIsNotNone(ref, "no PyTorch partition at %s" % budget)
                extra = ["--memory-budget", budget] if budget else []
                rc, out, err = cli("mincut", path, "--prefer", "pytorch", "--no-check", *extra)
                self.assertEqual(rc, 0, err)
                got = json.loads(out)["saved"]
                jm, n_out = c.joints[i]
                ext = util.backward_inputs(jm, n_out, got)
                print("\n  mincut@%-4s graph %d: %s" % (
                    budget or 1, i, "equal" if got == ref else
                    "equal, with the symbol bindings %s" % sorted(set(ref) - set(got))
                    if ext == ref else "DIFFERS: ilpart %s, torch %s" % (
                        sorted(set(got) - set(ref)), sorted(set(ref) - set(got)))), end="")
                self.assertEqual(ext, ref, "mincut at %s graph %d" % (budget, i))

    def test_budget(self):
        c = captured()
        for budget in BUDGETS:
            for i, path in enumerate(c.paths):
                util.assert_budget_no_worse(self, "graph %d" % i, path, budget)


if __name__ == "__main__":
    unittest.main()
