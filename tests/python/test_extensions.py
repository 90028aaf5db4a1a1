"""User-written autograd extensions and control flow inside compiled training code:

* a torch.autograd.Function with a hand-written backward (ctx.save_for_backward of inputs
  and an intermediate, a float on ctx, a second output marked non-differentiable; one
  with once_differentiable) in an MLP and in an attention block, plain and under a SAC
  policy that saves matmuls;
* a torch.library.custom_op with register_fake and register_autograd (one node in the
  joint graph; two outputs);
* torch.cond in the training step, and a python branch on the input's shape (two graphs);
* policies outside the other tests: a stateful one (saves every second matmul, counts its
  calls) and one mixing PREFER_SAVE and MUST_RECOMPUTE in one region.

Per model: one training step through partition_fn (the split graphs run as they are)
equals PyTorch's own partition in the same compile bit for bit, the split graphs obey the
tags and `ilpart check` accepts them (util.check_entry), at budget 1 and at
memory_budget 0.3; through ilpart.backend() (Inductor; the attention block, the custom op
and cond, to keep cold-cache compiles short; every model with
ILPART_EXTENSIONS_INDUCTOR=all) it equals torch.compile's default path within float
tolerance; `ilpart mincut --prefer pytorch` saves torch's set at budget 1, 0.5 and 0.3;
`ilpart compare`'s ILP at 0.5 and 0.3 is no worse than PyTorch's partition at the same
fraction. Both torches; see docs/python.md "User-written autograd extensions".
"""

import functools
import os
import sys
import unittest

import torch
import torch.nn as nn
from torch.utils.checkpoint import CheckpointPolicy
from torch.utils.flop_counter import register_flop_formula

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ilpart  # noqa: E402
import models  # noqa: E402
import util  # noqa: E402

aten = torch.ops.aten
BUDGETS = (0.5, 0.3)
RTOL, ATOL = 1e-4, 1e-5
TORCH = tuple(int(p) for p in torch.__version__.split(".")[:2])
MATMULS = (aten.mm.default, aten.bmm.default, aten.addmm.default)


# -- a custom op with its own fake and autograd ---------------------------------------

@torch.library.custom_op("ilpart_test::gate", mutates_args=())
def gate(x: torch.Tensor, w: torch.Tensor, alpha: float) -> tuple[torch.Tensor, torch.Tensor]:
    """(sigmoid(x @ w) * x * alpha, x @ w): two outputs, one op in the joint graph."""
    h = x @ w
    return torch.sigmoid(h) * x * alpha, h


@gate.register_fake
def _gate_fake(x, w, alpha):
    return torch.empty_like(x), x.new_empty(x.shape[0], w.shape[1])


def _gate_setup(ctx, inputs, output):
    x, w, alpha = inputs
    ctx.save_for_backward(x, w, output[1])
    ctx.alpha = alpha


def _gate_backward(ctx, gy, gh):
    x, w, h = ctx.saved_tensors
    s = torch.sigmoid(h)
    gx_direct = gy * s * ctx.alpha
    gh_total = gy * x * ctx.alpha * s * (1 - s) + gh
    return gx_direct + gh_total @ w.t(), x.t() @ gh_total, None


gate.register_autograd(_gate_backward, setup_context=_gate_setup)


@register_flop_formula(torch.ops.ilpart_test.gate)
def _gate_flops(x_shape, w_shape, *args, out_shape=None, **kwargs):
    """The matmul's flops: the cost model knows none of a custom op's own unless told."""
    return 2 * x_shape[0] * x_shape[1] * w_shape[1]


class CustomOpMLP(nn.Module):
    def __init__(self, d=32, policy=None):
        super().__init__()
        self.l1 = nn.Linear(d, d)
        self.w = nn.Parameter(torch.randn(d, d) / d ** 0.5)
        self.l2 = nn.Linear(d, d)
        self.context = models.sac_context(policy) if policy is not None else None

    def body(self, x):
        y, h = gate(torch.relu(self.l1(x)), self.w, 0.5)
        return self.l2(y) + torch.tanh(h)

    def forward(self, x):
        if self.context is None:
            return self.body(x)
        return models.sac(self.body, x, context=self.context)


# -- control flow -----------------------------------------------------------------------

class CondMLP(nn.Module):
    """torch.cond on the sign of a reduction: either branch has parameters and matmuls."""

    def __init__(self, d=32):
        super().__init__()
        self.l1 = nn.Linear(d, d)
        self.a = nn.Linear(d, d)
        self.b = nn.Linear(d, d)

    def forward(self, x):
        h = torch.relu(self.l1(x))
        y = torch.cond(h.sum() > 0, lambda t: torch.tanh(self.a(t)), lambda t: torch.sin(
            self.b(t)), (h,))
        return y * h


class ShapeBranch(nn.Module):
    """A python branch on the input's shape: each shape compiles its own graph."""

    def __init__(self, d=32):
        super().__init__()
        self.l1 = nn.Linear(d, d)
        self.l2 = nn.Linear(d, d)

    def forward(self, x):
        h = self.l1(x)
        if x.shape[0] > 8:
            h = torch.tanh(self.l2(torch.relu(h)))
        else:
            h = torch.sigmoid(h) * h
        return h


# -- policies ---------------------------------------------------------------------------

def every_second_matmul(state):
    """A stateful policy: saves every second matmul, recomputes the rest, and counts its
    calls in `state`. Eager SAC asks the policy again while it recomputes
    (ctx.is_recompute), and must get the same answers in the same order, so it counts
    each pass on its own; under torch.compile the policy is asked only while dynamo
    traces the region."""

    def policy(ctx, func, *args, **kwargs):
        key = "recompute" if ctx.is_recompute else "forward"
        state[key] = state.get(key, 0) + 1
        if func in MATMULS:
            state[key + " matmuls"] = k = state.get(key + " matmuls", 0) + 1
            if k % 2 == 0:
                return CheckpointPolicy.MUST_SAVE
        return CheckpointPolicy.PREFER_RECOMPUTE
    return policy


class EverySecondMatmul:
    """every_second_matmul as a callable object (torch 2.6's dynamo refuses it)."""

    def __init__(self):
        self.state = {}
        self.policy = every_second_matmul(self.state)

    def __call__(self, ctx, func, *args, **kwargs):
        return self.policy(ctx, func, *args, **kwargs)


def prefer_save_must_recompute(ctx, func, *args, **kwargs):
    """Matmuls PREFER_SAVE, every other op MUST_RECOMPUTE, in the same region."""
    if func in MATMULS:
        return CheckpointPolicy.PREFER_SAVE
    return CheckpointPolicy.MUST_RECOMPUTE


SAVE_MM = models.save_ops_policy(MATMULS)


def x2d(seed=0, n=16, d=32):
    return torch.randn(n, d, generator=torch.Generator().manual_seed(seed), requires_grad=True)


def x3d(seed=0):
    return torch.randn(2, 8, 32, generator=torch.Generator().manual_seed(seed),
                       requires_grad=True)


class Extensions(unittest.TestCase):
    def step_eager_split(self, label, model, inputs, want=None, **pf_kw):
        return util.step_eager_split(self, label, model, inputs, want, RTOL, ATOL, **pf_kw)

    def step_inductor(self, label, model, inputs):
        return util.step_inductor(self, label, model, inputs, RTOL, ATOL)

    def mincut_and_budgets(self, label, model, inputs):
        return util.mincut_and_budgets(self, label, model, inputs, BUDGETS)

    def all_paths(self, label, make, inputs, inductor=True):
        """Every check on one model; `inductor` also the Inductor step (a few seconds of
        C++ compiles each with a cold cache: kept to one model per kind by default,
        every model with ILPART_EXTENSIONS_INDUCTOR=all)."""
        inductor = inductor or os.environ.get("ILPART_EXTENSIONS_INDUCTOR") == "all"
        torch.manual_seed(0)
        model = make()
        history, want = self.step_eager_split(label, model, inputs)
        # and at the smaller fraction (ilpart's bytes printed; compare_at compares them)
        self.step_eager_split("%s @%s" % (label, BUDGETS[-1]), model, inputs, want,
                              memory_budget=BUDGETS[-1])
        if inductor:
            self.step_inductor(label, model, inputs)
        self.mincut_and_budgets(label, model, inputs)
        return history

    # 1. torch.autograd.Function -----------------------------------------------------------

    def test_function_mlp(self):
        (e,) = self.all_paths("Function MLP", models.FunctionMLP, [x2d()], inductor=False)
        self.assertTrue(any(n.get("target") == "aten.tanh.default"
                            for n in e["graph"]["nodes"]), "the Function's forward not inlined")

    def test_function_once_differentiable(self):
        self.all_paths("Function once_differentiable", functools.partial(
            models.FunctionMLP, once=True), [x2d()], inductor=False)

    def test_function_attention(self):
        self.all_paths("Function attention", models.FunctionAttention, [x3d()])

    def test_function_under_sac(self):
        """SAC tags reach the ops inside the Function's forward: its matmul is MUST_SAVE,
        its tanh PREFER_RECOMPUTE; ilpart keeps them."""
        for make in (functools.partial(models.FunctionMLP, policy=SAVE_MM),
                     functools.partial(models.FunctionAttention, policy=SAVE_MM)):
            with self.subTest(make.func.__name__):
                (e,) = self.all_paths("Function SAC " + make.func.__name__, make,
                                      [x3d() if make.func is models.FunctionAttention
                                       else x2d()], inductor=False)
                tanh = [n for n in e["graph"]["nodes"] if n.get("target") == "aten.tanh.default"]
                self.assertTrue(tanh)
                for n in tanh:
                    self.assertEqual(n.get("recompute"), "PREFER_RECOMPUTE", n["name"])

    # 2. custom_op -------------------------------------------------------------------------

    def test_custom_op(self):
        (e,) = self.all_paths("custom_op", CustomOpMLP, [x2d()])
        ops = [n for n in e["graph"]["nodes"] if n.get("target") == "ilpart_test.gate.default"]
        self.assertEqual(len(ops), 1, "the custom op is not one node of the joint graph")
        # one tuple node (no storage of its own) and a getitem per output; its flops from
        # the formula registered with torch's flop counter
        self.assertTrue(ops[0].get("tuple"))
        self.assertEqual(ops[0].get("flops"), 2 * 16 * 32 * 32)
        outs = [n for n in e["graph"]["nodes"] if n.get("inputs") == [ops[0]["name"]]]
        self.assertEqual(sorted(n["index"] for n in outs), [0, 1])
        for n in outs:
            self.assertNotIn("view_of", n)

    def test_custom_op_under_sac(self):
        """A policy that saves matmuls sees the custom op as one op, not the matmul inside
        it: the op is PREFER_RECOMPUTE and its backward re-runs it."""
        (e,) = self.all_paths("custom_op SAC", functools.partial(CustomOpMLP, policy=SAVE_MM),
                              [x2d()], inductor=False)
        (op,) = [n for n in e["graph"]["nodes"] if n.get("target") == "ilpart_test.gate.default"]
        self.assertEqual(op.get("recompute"), "PREFER_RECOMPUTE")
        self.assertIn(op["name"], util.recomputed_names(e["graph"], e["backward"]))

    # 3. control flow ----------------------------------------------------------------------

    @unittest.skipIf(TORCH <= (2, 6), "torch 2.6's torch.cond backward loses the gradients "
                     "of the parameters the branches close over (None for the taken branch's, "
                     "with PyTorch's own partition and backend='aot_eager' too), and Inductor "
                     "fails on it ('<lambda>' object has no attribute '__name__')")
    def test_cond(self):
        """torch.cond with parameters in both branches: the branches are get_attr
        subgraphs of the joint graph, copied into the backward, never saved."""
        self.all_paths("cond", CondMLP, [x2d()])

    def test_shape_branch(self):
        """Two input shapes take two python branches: one compile, a recompile for the
        second shape (two joint graphs), each equal to PyTorch's partition."""
        torch.manual_seed(0)
        model = ShapeBranch()
        shapes = [[x2d(n=16)], [x2d(n=4)]]
        theirs_m = util.compile_pytorch(model)
        theirs = [util.run(theirs_m, x) for x in shapes]
        mine_m, pf = util.compile_ilpart(model)
        for x, want in zip(shapes, theirs):
            util.assert_same(self, want, util.run(mine_m, x), exact=True)
        self.assertEqual(len(pf.history), 2, "no recompile for the second shape")
        for e in pf.history:
            util.check_entry(self, e)
        self.assertEqual({n.get("target") for e in pf.history for n in e["graph"]["nodes"]
                          } >= {"aten.tanh.default", "aten.sigmoid.default"}, True)
        for x in shapes:
            self.mincut_and_budgets("shape branch %d" % x[0].shape[0], model, x)

    # 4. policies --------------------------------------------------------------------------

    def stateful(self, policy, state):
        (e,) = self.all_paths("stateful policy", functools.partial(
            models.FunctionAttention, policy=policy), [x3d()], inductor=False)
        mm = [n for n in e["graph"]["nodes"] if n.get("target") in [str(m) for m in MATMULS]
              and n.get("recompute") and util.forward_side(e["graph"]) >= {n["name"]}]
        tags = [n["recompute"] for n in mm]
        print("\n  stateful policy: calls %s, forward matmul tags %s" % (state, tags), end="")
        # The count goes on from trace to trace, so which matmul comes first depends on
        # the traces before; within the graph the tags alternate.
        self.assertGreaterEqual(len(tags), 3)
        self.assertEqual(set(tags), {"MUST_SAVE", "PREFER_RECOMPUTE"})
        for a, b in zip(tags, tags[1:]):
            self.assertNotEqual(a, b, tags)
        recomputed = util.recomputed_names(e["graph"], e["backward"])
        for n in mm:
            if n["recompute"] == "MUST_SAVE":
                self.assertNotIn(n["name"], recomputed)

    def test_stateful_policy(self):
        state = {}
        self.stateful(every_second_matmul(state), state)

    @unittest.skipIf(TORCH < (2, 7), "torch 2.6's dynamo refuses a callable object as the "
                     "SAC policy (UserDefinedObjectVariable(...) is not a constant), with "
                     "PyTorch's own partition too")
    def test_stateful_policy_object(self):
        policy = EverySecondMatmul()
        self.stateful(policy, policy.state)

    def test_prefer_save_must_recompute(self):
        (e,) = self.all_paths("PREFER_SAVE+MUST_RECOMPUTE", functools.partial(
            models.FunctionAttention, policy=prefer_save_must_recompute), [x3d()],
            inductor=False)
        tags = {n.get("recompute") for n in e["graph"]["nodes"]}
        self.assertLessEqual({"PREFER_SAVE", "MUST_RECOMPUTE"}, tags)


if __name__ == "__main__":
    unittest.main()
