"""Helpers for the bridge tests: compile with ilpart, compare with eager, check tags."""

import json
import os
import subprocess
import tempfile

import torch

import ilpart

RECOMPUTE_TAGS = ("MUST_RECOMPUTE", "PREFER_RECOMPUTE")
SAVE_TAGS = ("MUST_SAVE", "PREFER_SAVE")


def run(model, inputs, seed=0):
    """Forward, backward of sum(out * fixed weights); returns (out, grads of inputs and
    parameters) as detached tensors."""
    params = list(model.parameters()) if isinstance(model, torch.nn.Module) else []
    for t in list(inputs) + params:
        t.grad = None
    torch.manual_seed(seed)
    out = model(*inputs)
    g = torch.Generator().manual_seed(1234)
    w = torch.randn(out.shape, generator=g, dtype=out.dtype)
    (out * w).sum().backward()
    grads = [t.grad.detach().clone() if t.grad is not None else None
             for t in list(inputs) + params]
    return out.detach().clone(), grads


def compile_ilpart(model, codegen="eager", dynamic=None, **kw):
    """torch.compile with ilpart's partition_fn; returns (compiled, partition_fn). The
    partition tests run the split fx graphs as they are (codegen="eager"), so that they can
    compare bit for bit; test_inductor.py compiles them with Inductor."""
    import torch._dynamo
    torch._dynamo.reset()
    kw.setdefault("reference", True)
    pf = ilpart.partition_fn(**kw)
    return torch.compile(model, backend=ilpart.backend(partition=pf, codegen=codegen),
                         dynamic=dynamic), pf


def compile_pytorch(model):
    """torch.compile with PyTorch's own min-cut partition and the same nop compilers."""
    import torch._dynamo
    from torch._dynamo.backends.common import aot_autograd
    from torch._functorch.partitioners import min_cut_rematerialization_partition
    torch._dynamo.reset()
    return torch.compile(model, backend=aot_autograd(
        fw_compiler=ilpart.nop_compiler, bw_compiler=ilpart.nop_compiler,
        partition_fn=min_cut_rematerialization_partition))


def assert_same(tc, eager, compiled, exact=False, rtol=1e-5, atol=1e-6):
    (eo, eg), (co, cg) = eager, compiled
    pairs = [("output", eo, co)] + [("grad %d" % i, a, b) for i, (a, b) in enumerate(zip(eg, cg))]
    tc.assertEqual(len(eg), len(cg))
    for what, a, b in pairs:
        tc.assertEqual(a is None, b is None, what)
        if a is None:
            continue
        if exact:
            tc.assertTrue(torch.equal(a, b), "%s differs: max |diff| %g" %
                          (what, (a - b).abs().max().item()))
        else:
            torch.testing.assert_close(b, a, rtol=rtol, atol=atol, msg=lambda m: what + ": " + m)


def forward_side(graph):
    """Names of joint nodes that do not depend on a tangent (forward and unclaimed)."""
    bwd = set()
    for n in graph["nodes"]:
        if n["kind"] == "tangent" or any(i in bwd for i in n.get("inputs", ())):
            bwd.add(n["name"])
    return {n["name"] for n in graph["nodes"]} - bwd


def required_forward(graph):
    """Names of the nodes the forward outputs need (PyTorch's required_fw_nodes); the other
    non-backward nodes are unclaimed."""
    by = {n["name"]: n for n in graph["nodes"]}
    need, stack = set(), [o for o in graph["outputs"]["forward"] if o]
    while stack:
        x = stack.pop()
        if x not in need:
            need.add(x)
            stack += by[x].get("inputs", [])
    return need


def saved_names(bw_module):
    """What the forward hands to the backward, read off the backward module itself (a value
    torch's activation offloading moved to CPU by its own name)."""
    return [n.name[len("cpu_offload_"):] if n.name.startswith("cpu_offload_") else n.name
            for n in bw_module.graph.find_nodes(op="placeholder")
            if "tangents" not in n.name and "rng_state" not in n.name]


def recomputed_names(graph, bw_module):
    fwd = forward_side(graph)
    return [n.name for n in bw_module.graph.nodes
            if n.op == "call_function" and n.name in fwd]


def boundary_exempt(graph, name):
    """PyTorch's region-boundary rule: a recompute-tagged value used by a recompute-tagged
    node of a later region is saved (cleanup_recompute_tags)."""
    by = {n["name"]: n for n in graph["nodes"]}
    me = by[name]
    for n in graph["nodes"]:
        if name in n.get("inputs", ()) and n.get("recompute") in RECOMPUTE_TAGS \
                and n.get("ac_graph_id", -1) > me.get("ac_graph_id", -1):
            return True
    return False


def check_entry(tc, entry, prefer="hard"):
    """The split modules obey the SAC tags; random ops are never re-drawn; `ilpart check`
    accepts the partition. Returns (saved, recomputed) names."""
    graph, bw = entry["graph"], entry["backward"]
    by = {n["name"]: n for n in graph["nodes"]}
    saved = saved_names(bw)
    recomputed = recomputed_names(graph, bw)
    for s in saved:
        tag = by[s].get("recompute")
        if tag == "MUST_RECOMPUTE" or (tag == "PREFER_RECOMPUTE" and prefer in ("hard", "pytorch")):
            tc.assertTrue(boundary_exempt(graph, s), "saved %s tagged %s" % (s, tag))
    for r in recomputed:
        n = by[r]
        tag = n.get("recompute")
        if tag == "MUST_SAVE" or (tag == "PREFER_SAVE" and prefer == "hard"):
            tc.assertTrue("view_of" in n or n.get("target") == "getitem",
                          "recomputed %s tagged %s" % (r, tag))
    from ilpart.export import _draws
    for n in bw.graph.nodes:
        t = n.target
        # an op tagged random that draws nothing (SDPA without dropout) may be re-run
        if n.op == "call_function" and hasattr(t, "tags") and \
                torch.Tag.nondeterministic_seeded in t.tags and _draws(n):
            tc.fail("backward re-draws random op %s without the saved RNG state" % n.name)
    ilpart_check(tc, graph, entry["partition"])
    return saved, recomputed


def ilpart_check(tc, graph, partition):
    """Assert that `ilpart check` passes the partition on the graph; its output."""
    with tempfile.TemporaryDirectory() as d:
        gp, pp = os.path.join(d, "g.json"), os.path.join(d, "p.json")
        with open(gp, "w") as f:
            json.dump(graph, f)
        with open(pp, "w") as f:
            json.dump(partition, f)
        r = subprocess.run([ilpart.find_binary(), "check", gp, pp], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        tc.assertEqual(r.returncode, 0, "ilpart check: " + r.stdout)
        return r.stdout


def compare_bytes(tc, label, entry, strict=True):
    """Print ilpart's saved bytes next to PyTorch's for the same joint graph; with `strict`,
    ilpart's (memory-optimal) must not be larger."""
    graph = entry["graph"]
    mine = ilpart.saved_bytes(graph, saved_names(entry["backward"]))
    ref = graph.get("reference", [{}])[0].get("saved")
    tc.assertIsNotNone(ref, "no PyTorch reference recorded")
    theirs = ilpart.saved_bytes(graph, ref)
    print("\n  %-28s saved bytes: ilpart %8d   pytorch %8d   (%d vs %d values)"
          % (label, mine, theirs, len(saved_names(entry["backward"])), len(ref)))
    if strict:
        tc.assertLessEqual(mine, theirs)
    return mine, theirs


__all__ = ["run", "compile_ilpart", "compile_pytorch", "assert_same", "check_entry", "compare_bytes",
           "forward_side", "required_forward", "saved_names", "recomputed_names", "cli",
           "grads_of", "violation"]


def assert_fraction_status(tc, row, label="", allow_time_limit=False):
    """A compare row's ILP answer at a fraction: proven optimal, or (solver/driver/
    dominate.c, no --time-limit) read off the bytes/time front within PyTorch's simulated
    peak: status feasible, peak_cap_bytes recorded and the answer's peak within it.
    allow_time_limit: also status time-limit, the peak search's loop cut short by its own
    limit (docs/solver.md "No worse on all three numbers": the best answer found no worse
    than PyTorch's, at worst PyTorch's partition), peak_cap_bytes recorded and kept."""
    if row["status"] == "optimal":
        return
    if not (allow_time_limit and row["status"] == "time-limit"):
        tc.assertEqual(row["status"], "feasible", "%s: %s" % (label, row))
    tc.assertIsNotNone(row.get("peak_cap_bytes"), "%s: %s" % (label, row))
    tc.assertLessEqual(row["peak_bytes"], row["peak_cap_bytes"], "%s: %s" % (label, row))


def assert_budget_no_worse(tc, label, path, budget):
    """`ilpart compare` at fraction `budget` under `--prefer pytorch`: ilpart's row has the
    fraction status and keeps the rules, and where PyTorch's recorded partition at that
    fraction keeps them too, ilpart saves no more bytes, recomputes no longer and has no
    higher simulated peak (a fraction the tags put out of reach says so instead)."""
    label = "%s budget %s" % (label, budget)
    rc, out, err = cli("compare", path, "--memory-budget", budget, "--prefer", "pytorch",
                       "--json", "--no-times")
    tc.assertEqual(rc, 0, "%s: %s" % (label, err))
    rows = json.loads(out)["rows"]
    ilp = [r for r in rows if r["kind"] == "ilp"][0]
    (ref,) = [r for r in rows if r["name"] == "ref:" + ilpart.reference_name(budget)]
    assert_fraction_status(tc, ilp, label)
    tc.assertIsNone(ilp.get("violation"), label)
    print("\n  %s: ilpart %d B %.3f us peak %d, PyTorch %d B %.3f us peak %d%s" % (
        label, ilp["saved_bytes"], ilp["recompute_time_us"], ilp["peak_bytes"],
        ref["saved_bytes"], ref["recompute_time_us"], ref["peak_bytes"],
        "" if ref["violation"] is None else " (PyTorch breaks a rule)"), end="")
    if ilp.get("note"):
        tc.assertIn("out of reach", ilp["note"])
    elif ref["violation"] is None:
        tc.assertLessEqual(ilp["saved_bytes"], ref["saved_bytes"], label)
        tc.assertLessEqual(ilp["recompute_time_us"], ref["recompute_time_us"] * (1 + 1e-9),
                           label)
        tc.assertLessEqual(ilp["peak_bytes"], ref["peak_bytes"], label)


def step_eager_split(tc, label, model, inputs, want=None, rtol=1e-4, atol=1e-5, **pf_kw):
    """One step with ilpart's partition_fn and one with PyTorch's partition, both running
    the split graphs as they are: bit for bit, and within rtol/atol of eager; the tags and
    `ilpart check` hold. want: (PyTorch's step, eager's step) when already run. Returns
    the history and `want`."""
    if want is None:
        want = (run(compile_pytorch(model), inputs), run(model, inputs))
    compiled, pf = compile_ilpart(model, **pf_kw)
    got = run(compiled, inputs)
    tc.assertTrue(pf.history, "%s: partition_fn was not called" % label)
    assert_same(tc, want[0], got, exact=True)
    assert_same(tc, want[1], got, rtol=rtol, atol=atol)
    for e in pf.history:
        check_entry(tc, e, prefer=pf_kw.get("prefer", "hard"))
        compare_bytes(tc, label, e, strict=False)
    return pf.history, want


def step_inductor(tc, label, model, inputs, rtol=1e-4, atol=1e-5):
    """One step through ilpart.backend() against torch.compile's default (Inductor with
    PyTorch's partition): within float tolerance; tags and `ilpart check` hold."""
    import torch._dynamo
    import torch._inductor.config as iconfig
    with iconfig.patch(fallback_random=True):
        torch._dynamo.reset()
        want = run(torch.compile(model), inputs)
        torch._dynamo.reset()
        pf = ilpart.partition_fn()
        got = run(torch.compile(model, backend=ilpart.backend(partition=pf)), inputs)
    tc.assertTrue(pf.history, "%s: ilpart's partitioner was not called" % label)
    assert_same(tc, want, got, rtol=rtol, atol=atol)
    for e in pf.history:
        check_entry(tc, e)
    return pf.history


def mincut_and_budgets(tc, label, model, inputs, budgets=(0.5, 0.3)):
    """Every joint graph of one compile (ilpart.capture): `ilpart mincut --prefer pytorch`
    saves torch's set at budget 1 and at each of `budgets`; `ilpart compare` at `budgets`
    no worse than PyTorch's partition (assert_budget_no_worse). Returns the graphs."""
    import torch._dynamo
    torch._dynamo.reset()
    graphs = ilpart.capture(model, *inputs, budgets=budgets)
    check_mincut_and_budgets(tc, label, graphs, budgets)
    return graphs


def check_mincut_and_budgets(tc, label, graphs, budgets=(0.5, 0.3)):
    """mincut_and_budgets' checks on graphs already captured (with `budgets`)."""
    with tempfile.TemporaryDirectory() as d:
        for i, g in enumerate(graphs):
            path = os.path.join(d, "g%d.json" % i)
            ilpart.write_json(path, g)
            refs = {r["name"]: r["saved"] for r in g.get("reference", ())}
            for budget in (None,) + tuple(budgets):
                ref = refs.get(ilpart.reference_name(budget))
                tc.assertIsNotNone(ref, "%s: no PyTorch partition at %s" % (label, budget))
                extra = ["--memory-budget", budget] if budget else []
                rc, out, err = cli("mincut", path, "--prefer", "pytorch", "--no-check", *extra)
                tc.assertEqual(rc, 0, err)
                got = json.loads(out)["saved"]
                # torch's extraction adds the symbolic sizes the backward's inputs are
                # shaped by (a recompile made the graph dynamic): not mincut's choice
                sym = {n["name"] for n in g["nodes"] if n.get("sym")}
                tc.assertEqual(sorted(got), sorted(set(ref) - sym),
                               "%s graph %d: mincut at %s" % (label, i, budget))
            for budget in budgets:
                assert_budget_no_worse(tc, label, path, budget)


def backward_inputs(jm, num_fwd_outputs, saved):
    """The joint nodes (names, graph order) the backward module receives when
    `saved` is handed over through PyTorch's own extraction (ilpart.bridge.split_modules):
    the saved values it reads, and the nodes binding the symbols of its inputs' sizes in a
    graph compiled with dynamic shapes (what reference_saved reads off torch's partition)."""
    from ilpart.bridge import split_modules
    from ilpart.export import _copy_for_partitioning
    order = {n.name: k for k, n in enumerate(jm.graph.nodes)}
    _fw, bw = split_modules(_copy_for_partitioning(jm), list(saved), num_fwd_outputs,
                            functionalize_rng=False)
    names = {n.name for n in bw.graph.find_nodes(op="placeholder")
             if "tangents" not in n.name and n.name in order}
    return sorted(names, key=order.__getitem__)


def cli(*args):
    """Runs the ilpart binary: (exit status, stdout, stderr)."""
    r = subprocess.run([ilpart.find_binary()] + [str(a) for a in args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    return r.returncode, r.stdout, r.stderr


def grads_of(model, inputs, seed=0):
    """One training step's loss and gradients (parameters in order; None kept). torch's
    and numpy's random generators are seeded: transformers' Wav2Vec2 draws its time masks
    and layer drops with numpy's, so two steps compare only on the same draws."""
    for p in model.parameters():
        p.grad = None
    torch.manual_seed(seed)
    try:
        import numpy
    except ImportError:
        pass
    else:
        numpy.random.seed(seed)
    loss = model(*inputs)
    loss.backward()
    return loss.detach().clone(), [None if p.grad is None else p.grad.detach().clone()
                                   for p in model.parameters()]


def violation(path, saved, rng_states=()):
    """`ilpart check --prefer pytorch`'s verdict on a saved set: None or the message.
    rng_states: the random ops whose RNG state the partition replays."""
    part = {"format": "ilpart-partition", "version": 1, "producer": {"prefer": "pytorch"},
            "saved": saved}
    if rng_states:
        part["rng_states"] = list(rng_states)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(part, f)
    try:
        rc, out, err = cli("check", path, f.name, "--prefer", "pytorch")
    finally:
        os.unlink(f.name)
    if rc == 0:
        return None
    return (err or out).strip().splitlines()[-1] if (err or out).strip() else "exit %d" % rc
