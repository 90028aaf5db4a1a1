"""ilpart inside torch.compile: a partition_fn for aot_autograd, and capture() of joint graphs.

partition_fn() exports the joint graph, runs `ilpart solve` on it, and builds the forward and
backward modules from ilpart's saved set with PyTorch's own extraction
(torch._functorch.partitioners._extract_fwd_bwd_modules, what min_cut does once it has chosen
its saved values): whatever the backward needs and is not saved is recomputed there.
"""

import json
import logging
import operator
import os
import re
import subprocess
import tempfile
import warnings

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch
import torch.fx as fx
from functorch.compile import make_boxed_compiler

from .device import device_profile
from .export import _draws, export_graph, has_recomputable_rng_ops, prepare_joint
from .graphfile import dumps, untagged_in_regions, write_graphs
from .offload import offload_bw_args
from .options import (check_partition_options, memory_budget_value, peak_budget_arg,
                      time_budget_arg)
from .ranks import agree
from .runner import Budget, IlpartError, IlpartWarning, PathLike, find_binary, solve
from .store import store_solver

__all__ = ["partition_fn", "capture", "backend", "nop_compiler", "split_modules",
           "budget_in_effect", "history"]

# One INFO line per compiled joint graph (what was chosen, bytes, recompute, peak against
# PyTorch's partition, proven or not), as torch's own compile logs go through logging.
log = logging.getLogger("ilpart")
_HISTORY = []


def _rng_state_value(device):
    """The meta["val"] of an RNG state node: a fake tensor under AOTAutograd's fake mode
    (Inductor propagates fake values through the graphs; a real tensor there fails with
    "Please convert all Tensors to FakeTensors first"), the real state outside one."""
    from torch._guards import detect_fake_mode
    real = torch.cuda.get_rng_state() if device == "cuda" else torch.get_rng_state()
    fake = detect_fake_mode()
    return real if fake is None else fake.from_tensor(real)


def _graphsafe_rng(devices):
    """torch's CUDA-graph-safe RNG functionalization (newer torch, e.g. 2.14) for random ops on
    `devices`: used exactly when torch's functionalize_rng_ops would use it (its config
    switch on, one graph-safe device, Inductor's fallback_random off)."""
    from torch._functorch import config as fconfig
    from torch._functorch import partitioners as P
    if not (getattr(fconfig, "graphsafe_rng_functionalization", False)
            and hasattr(P, "apply_graphsafe_rng_functionalization")
            and hasattr(P, "supports_graphsafe_rng")):
        return None
    import torch._inductor.config
    ind = torch._inductor.config
    safe = {d for d in devices if P.supports_graphsafe_rng(d)}
    if len(safe) != 1 or (ind.fallback_random and not getattr(
            getattr(ind, "test_configs", None), "graphsafe_rng_func_ignores_fallback_random",
            False)):
        return None
    return P.apply_graphsafe_rng_functionalization


def _node_device(node):
    v = node.meta.get("val")
    for c in (v if isinstance(v, (tuple, list)) else (v,)):
        if isinstance(c, torch.Tensor):
            return c.device
    return torch.device("cpu")


def _functionalize_recomputed_rng(fw_module, bw_module, num_sym_nodes):
    """Random ops that run in both modules (recomputed in the backward) draw from the RNG
    state the forward saved: the forward runs them under run_and_save_rng_state and outputs
    the state, the backward runs them under run_with_rng_state (on a CUDA-graph-safe
    device, where torch would, torch's own graph-safe variant). This is PyTorch's
    functionalize_rng_ops, applied to whatever ilpart chose to recompute."""
    import torch._prims.rng_prims as rng_prims

    def rng_nodes(gm):
        # ops torch tags random that draw nothing (SDPA with dropout_p 0, dropout with p 0)
        # recompute to the same value without a replay: ilpart exports them not random
        return {n.name: n for n in gm.graph.nodes
                if n.op == "call_function" and hasattr(n.target, "tags")
                and torch.Tag.nondeterministic_seeded in n.target.tags and _draws(n)}

    # Only a random op whose value the backward uses is recomputed: torch 2.14's extraction
    # also copies a random op whose input the backward has and whose outputs are saved,
    # dead (fx keeps random ops as impure); min-cut replays none of those
    live = set()
    todo = list(bw_module.graph.find_nodes(op="output"))
    while todo:
        n = todo.pop()
        if n not in live:
            live.add(n)
            todo.extend(n.all_input_nodes)
    fw_rng = rng_nodes(fw_module)
    bw_rng = {k: n for k, n in rng_nodes(bw_module).items() if n in live}
    pairs = [(fw_rng[k], bw_rng[k]) for k in fw_rng if k in bw_rng]
    if not pairs:
        return fw_module, bw_module
    tangent0 = next((n for n in bw_module.graph.find_nodes(op="placeholder")
                     if "tangent" in n.name), None)
    if tangent0 is None:
        raise IlpartError("backward graph has no tangent input to place RNG states before")
    graphsafe = _graphsafe_rng({_node_device(f) for f, _ in pairs})
    last_fw = next(reversed(fw_module.graph.find_nodes(op="placeholder")))
    last_bw = next(reversed(bw_module.graph.find_nodes(op="placeholder")))
    states = []
    for i, (fw_node, bw_node) in enumerate(pairs):
        device = _node_device(fw_node)
        if graphsafe is not None and device.type != "cpu":
            last_fw, last_bw = graphsafe(fw_module, bw_module, fw_node, bw_node, device, i,
                                         last_fw, last_bw)
            continue
        g = fw_module.graph
        with g.inserting_before(fw_node):
            call = g.create_node("call_function", rng_prims.run_and_save_rng_state,
                                 args=(fw_node.target, *fw_node.args), kwargs=fw_node.kwargs)
            state = g.create_node("call_function", operator.getitem, args=(call, 0))
            out = g.create_node("call_function", operator.getitem, args=(call, 1))
        state.meta["val"] = _rng_state_value(device.type)
        out.meta = dict(fw_node.meta)
        fw_node.replace_all_uses_with(out)
        g.erase_node(fw_node)
        states.append(state)
        bg = bw_module.graph
        with bg.inserting_before(tangent0):
            ph = bg.placeholder("ilpart_rng_state_%d" % i)
            ph.meta["val"] = _rng_state_value(device.type)
        with bg.inserting_before(bw_node):
            call = bg.create_node("call_function", rng_prims.run_with_rng_state,
                                  args=(ph, bw_node.target, *bw_node.args), kwargs=bw_node.kwargs)
        call.meta = dict(bw_node.meta)
        bw_node.replace_all_uses_with(call)
        bg.erase_node(bw_node)
    if states:
        out_node = next(iter(fw_module.graph.find_nodes(op="output")))
        outs = tuple(out_node.args[0])
        cut = len(outs) - num_sym_nodes
        fw_module.graph.output(outs[:cut] + tuple(states) + outs[cut:])
        fw_module.graph.erase_node(out_node)
    fw_module.recompile()
    bw_module.recompile()
    return fw_module, bw_module


def _static_lifetime_nodes(joint_module, indices):
    """The primal placeholders at `static_lifetime_input_indices` (parameters, buffers and
    inputs marked static, which live across calls), as newer torch's classify_nodes (2.14) finds
    them for _extract_fwd_bwd_modules and the activation-offloading pass."""
    primals = [n for n in joint_module.graph.find_nodes(op="placeholder")
               if str(n.target).startswith("primals")]
    return [primals[i] for i in (indices or ()) if 0 <= i < len(primals)]


def _autograd_order(gm: fx.GraphModule) -> Optional[bool]:
    """The backward in the order of torch's reordering_to_mimic_autograd_engine, made in
    place: from the first op that reads a tangent on, each node in graph order is preceded
    by the nodes it needs that are not placed yet, in graph order; nodes nothing after that
    point needs are dropped, as torch's pass drops them. torch's pass copies every node into
    a new module (and compiles it); this moves them. Returns True when the order changed,
    False when it did not (the caller recompiles once after its last change), None when
    the graph has a copy_ before its first backward op (newer torch places those first, 2.6
    does not): the caller runs torch's own pass then."""
    graph = gm.graph
    nodes = list(graph.nodes)
    order = {n: i for i, n in enumerate(nodes)}
    first = None
    for n in nodes:
        if n.op == "placeholder" and "tangents" in str(n.target):
            for u in n.users:
                if first is None or order[u] < order[first]:
                    first = u
    if first is None:
        return False
    start = order[first]
    copy_ = torch.ops.aten.copy_.default
    if any(n.op == "call_function" and n.target is copy_ for n in nodes[:start]):
        return None
    placed = [n for n in nodes if n.op == "placeholder"]
    done = set(placed)
    for n in nodes[start:]:
        if n in done:
            continue
        todo, stack = set(), [n]
        while stack:
            x = stack.pop()
            if x in todo or x in done:
                continue
            todo.add(x)
            stack.extend(x.all_input_nodes)
        for x in sorted(todo, key=order.__getitem__):
            placed.append(x)
        done |= todo
    if placed == nodes:
        return False
    for a, b in zip(placed, placed[1:]):
        if a.next is not b:
            a.append(b)
    for n in reversed(nodes):
        if n not in done:
            graph.erase_node(n)
    return True


def _raise_getitems(gm: fx.GraphModule) -> None:
    """In place: every getitem moved to right after its tuple op, keeping their order
    (what torch 2.14's compile_utils.raise_getitems does; 2.6 has no such pass). A tuple
    lives until its last getitem has run, and with it every element, also those already
    used: a recomputed tuple op whose getitems the autograd order spreads over the
    backward would hold all its outputs until the last one is needed (measured on BERT
    with checkpointing: 2.9-10.6 % above the simulated peak, which frees each element
    after its own last use; docs/partition.md "Peak memory")."""
    items = list(gm.graph.find_nodes(op="call_function", target=operator.getitem))
    for node in reversed(items):
        parent = node.args[0]
        if isinstance(parent, fx.Node) and parent.op != "placeholder" \
                and parent.next is not node:
            parent.append(node)


def split_modules(joint_module: fx.GraphModule, saved_names: Sequence[str], num_fwd_outputs: int,
                  functionalize_rng: bool = True,
                  static_lifetime_input_indices: Optional[Sequence[int]] = None,
                  partition: Optional[Dict[str, Any]] = None
                  ) -> Tuple[fx.GraphModule, fx.GraphModule]:
    """Forward and backward GraphModules that hand `saved_names` from one to the other,
    built by PyTorch's own extraction; the backward recomputes what else it needs. After
    it, what min_cut_rematerialization_partition does after choosing (as far as this torch
    has it): RNG replay for recomputed random ops, the autograd-engine order, torch's
    activation offloading when torch._functorch.config.enable_activation_offloading is on
    (ilpart.offload: the tagged values, or with `partition` from `ilpart solve --offload`
    the ones it offloads), getitems raised, graph-safe RNG states threaded through HOPs."""
    import inspect

    from torch._functorch import partitioners as P
    from torch.fx.experimental.proxy_tensor import is_sym_node

    from .offload import offload_saved

    by_name = {n.name: n for n in joint_module.graph.nodes}
    missing = [s for s in saved_names if s not in by_name]
    if missing:
        raise IlpartError("partition saves unknown nodes: %s" % ", ".join(missing[:5]))
    saved = [by_name[s] for s in saved_names]
    saved_sym = [n for n in saved if is_sym_node(n)]
    saved_values = [n for n in saved if not is_sym_node(n)]
    static = _static_lifetime_nodes(joint_module, static_lifetime_input_indices)
    params = inspect.signature(P._extract_fwd_bwd_modules).parameters
    kw = {}
    if "static_lifetime_input_nodes" in params:
        from torch.utils._ordered_set import OrderedSet
        kw["static_lifetime_input_nodes"] = OrderedSet(static)
    if "saved_opaque_nodes" in params and hasattr(P, "is_opaque_node"):
        opaque = [n for n in saved_values if P.is_opaque_node(n)]
        saved_values = [n for n in saved_values if n not in opaque]
        kw["saved_opaque_nodes"] = opaque
    fw, bw = P._extract_fwd_bwd_modules(joint_module, saved_values, saved_sym_nodes=saved_sym,
                                        num_fwd_outputs=num_fwd_outputs, **kw)
    if functionalize_rng:
        fw, bw = _functionalize_recomputed_rng(fw, bw, len(saved_sym))
    moved = _autograd_order(bw)
    if moved is None:
        bw = P.reordering_to_mimic_autograd_engine(bw)
    offload_saved(joint_module, fw, bw, num_fwd_outputs, static, partition)
    from torch._functorch import compile_utils
    if hasattr(compile_utils, "raise_getitems"):
        # (recompiles both modules: also the reordered backward)
        fw, bw = compile_utils.raise_getitems(fw), compile_utils.raise_getitems(bw)
    else:
        for m in (fw, bw):
            _raise_getitems(m)
            m.recompile()
    if hasattr(P, "thread_graphsafe_rng_from_hops"):
        fw = P.thread_graphsafe_rng_from_hops(fw, is_backward=False)
        bw = P.thread_graphsafe_rng_from_hops(bw, is_backward=True)
    return fw, bw


def _warn_untagged(graph):
    loose = untagged_in_regions(graph)
    if loose:
        warnings.warn("%d op(s) inside checkpoint regions have no SAC tag (ilpart may save "
                      "or recompute them freely): %s" % (len(loose), ", ".join(
                          "%s (%s, region %s)" % x for x in loose[:5])
                          + (", ..." if len(loose) > 5 else "")), IlpartWarning, stacklevel=3)


def _warn_time_limit(part, n_nodes, time_limit):
    """A partition the solver's time limit cut short may be far from the optimum (its
    start: under a fractional budget PyTorch's own partition at that fraction, else the
    least-memory one): say so, with the gap proven, rather than train with it silently."""
    prod = part.get("producer", {})
    if prod.get("status") != "time-limit":
        return
    gap = prod.get("gap")
    warnings.warn("ilpart's solve of a %d-node joint graph stopped at its time limit (%s s; "
                  "gap %s): the partition (%d bytes saved, %.6g us recomputed) may be far "
                  "from the optimum; raise time_limit, or solve offline into a store "
                  "(docs/python.md)" % (
                      n_nodes, time_limit, "unknown" if gap is None or gap < 0 else
                      "%.3g" % gap, part.get("cost", {}).get("saved_bytes", -1),
                      part.get("cost", {}).get("recompute_time_us", float("nan"))),
                  IlpartWarning, stacklevel=3)


def budget_in_effect(joint_module, memory_budget=None):
    """The memory budget a partition of `joint_module` should meet, as PyTorch decides it:
    `memory_budget` when given; else torch._functorch.config.activation_memory_budget
    (None when it is 1, torch's "no budget"), overridden by the first node carrying a
    float `memory_budget` meta, as min_cut_rematerialization_partition does."""
    if memory_budget is not None:
        return memory_budget
    from torch._functorch import config as fconfig
    budget = float(fconfig.activation_memory_budget)
    for node in joint_module.graph.nodes:
        if isinstance(node.meta.get("memory_budget", None), float):
            budget = node.meta["memory_budget"]
            break
    return budget if budget < 1 else None


# The torch._functorch.config switches `ilpart mincut --config` takes (solver/mincut/mincut.c),
# beside activation_memory_budget, which budget_in_effect reads.
_MINCUT_SWITCHES = (
    "ban_recompute_used_far_apart", "ban_recompute_long_fusible_chains",
    "ban_recompute_materialized_backward", "ban_recompute_not_in_allowlist",
    "ban_recompute_reductions", "recompute_views", "aggressive_recomputation",
    "max_dist_from_bw", "unsafe_allow_optimization_of_collectives",
    "activation_memory_budget_solver", "activation_memory_budget_runtime_estimator")


def torch_mincut_config() -> List[str]:
    """`--config NAME=VALUE` arguments for `ilpart mincut` carrying this process's
    torch._functorch.config partitioner switches, so that method="mincut" partitions as
    PyTorch's min-cut would under the same config. Switches this torch does not have are
    left at ilpart's defaults (torch 2.6's); a runtime estimator given as a callable (which
    torch allows) has no CLI form and raises ValueError."""
    from torch._functorch import config as fconfig
    args = []
    for name in _MINCUT_SWITCHES:
        if not hasattr(fconfig, name):
            continue
        v = getattr(fconfig, name)
        if isinstance(v, bool):
            v = "true" if v else "false"
        elif not isinstance(v, (int, str)):
            raise ValueError("partition_fn(method='mincut'): torch._functorch.config.%s = %r "
                             "has no ilpart equivalent" % (name, v))
        args += ["--config", "%s=%s" % (name, v)]
    return args


def partition_fn(objective: Optional[str] = None, memory_budget: Budget = None, prefer: str = "hard",
                 time_limit: Optional[float] = None, policy: Optional[PathLike] = None,
                 extra_args: Optional[Sequence[Any]] = None, binary: Optional[str] = None,
                 reference: bool = False, functionalize_rng: Optional[bool] = None,
                 keep_history: bool = True, method: str = "ilp", store: Optional[PathLike] = None,
                 on_miss: str = "solve", device: Optional[str] = None,
                 calibrate: bool = False, fraction_cap: Optional[str] = None,
                 time_budget: Any = None, peak_budget: Any = None, agree_ranks: bool = True
                 ) -> Callable[..., Tuple[fx.GraphModule, fx.GraphModule]]:
    """A partition_fn for aot_autograd that partitions with `ilpart solve`
    (method="mincut": with `ilpart mincut`, ilpart's re-implementation of PyTorch's heuristic,
    under this process's torch._functorch.config switches: torch_mincut_config).

    Every argument is checked here (ilpart.options): a bad one is a ValueError naming it
    and the values it may take, before anything is compiled.

    objective, memory_budget, prefer, time_limit, policy: `ilpart solve`'s --objective,
    --memory-budget, --prefer, --time-limit and --policy; extra_args: more CLI arguments.
    memory_budget: a number in [0, 1] (0.3, or the int 0 or 1) is torch's
    activation_memory_budget fraction (the same bytes as PyTorch's normalisation), a
    larger whole number is bytes (int or float alike: 2e9 and 2000000000), a string the
    CLI's text ("512MiB"); 2..100 is refused as a percentage ("did you mean 0.3?").
    Without one, torch._functorch.config.activation_memory_budget < 1 (or a node's
    memory_budget meta) is used, as PyTorch's partitioner does. A budget implies
    objective="runtime"; objective defaults to "memory" otherwise. A fraction out of
    reach of every partition that obeys the SAC tags trains with the least-bytes one (an
    IlpartWarning and the log line say so; docs/solver.md "Budgets out of reach").
    time_budget: the dual budget, least saved bytes with recompute time at most this:
    seconds (0.004, "4us", "2.5ms"), "pytorch:F" (PyTorch's recompute time at
    activation_memory_budget F) or "pytorch" (at memory_budget, or torch's configured
    budget, else 1.0); docs/solver.md "Time budgets".
    peak_budget: the simulated peak memory (forward and backward, as `ilpart check` and
    `ilpart timeline` compute it) may not exceed this many bytes (an int, or "512MiB"):
    `ilpart solve --peak-budget`, least recompute time within it (objective "runtime",
    also with a memory budget); part of the partition store's key and of Inductor's cache
    key like every option; docs/solver.md "Peak memory".
    fraction_cap: how a fraction becomes bytes (`ilpart solve --fraction-cap`): "pytorch"
    (default) lets the optimum save no more and recompute no longer than PyTorch's own
    partition at that fraction whenever that partition obeys the tags; "normalised" uses
    PyTorch's normalisation alone (docs/solver.md, "Memory budgets").
    reference: also record PyTorch's own min-cut saved set in the exported graph (slower).
    functionalize_rng: random ops ilpart recomputes replay the RNG state the forward saved
    (run_and_save_rng_state, as PyTorch's partitioner does for the random ops it
    recomputes); the ILP may recompute them under a budget (or with --bans none) and
    counts each state's bytes. Default (None) and True: on; False: random ops are never
    recomputed (unless the graph's RNG is functionalized).
    store: a partition store directory (ilpart.store): partitions are looked up there by
    graph fingerprint and options, misses recorded for `ilpart batch DIR` and answered as
    on_miss says ("solve" now within time_limit, "mincut", or "error").
    device: the cost model's profile (h100, a100, cpu, FLOPS:BW); default: the device the
    joint graph's tensors live on (ilpart.device.device_profile), the CLI's default on meta.
    calibrate: time every forward op on this machine (ilpart.timing.time_ops, PyTorch's
    profiler) and give the solver those times (`time_us`) instead of roofline estimates,
    and measure what every op allocates and frees while it runs (ilpart.workspace:
    `workspace`, which the peak memory counts at the op's step).
    agree_ranks: when torch.distributed is up and the graph has a collective its tags let
    ilpart recompute, every rank of that collective's process groups trains with the
    partition of the lowest rank among them (ilpart.ranks: a recomputed collective must
    run on every rank, in the same order; a time-limited answer can differ between
    ranks). False: every rank keeps its own answer.
    Every call logs one line on the "ilpart" logger (INFO; with the simulated peaks of this
    partition and of PyTorch's when INFO is enabled) and appends a summary to
    ilpart.history(); unless keep_history is false it also appends {"graph", "partition",
    "forward", "backward", "summary"} to the returned callable's `.history` list.
    """
    memory_budget, _tb = check_partition_options(
        objective=objective, memory_budget=memory_budget, prefer=prefer,
        time_limit=time_limit, policy=policy, extra_args=extra_args, method=method,
        on_miss=on_miss, device=device, fraction_cap=fraction_cap, time_budget=time_budget,
        peak_budget=peak_budget, reference=reference, functionalize_rng=functionalize_rng,
        keep_history=keep_history, calibrate=calibrate, agree_ranks=agree_ranks)
    pb = peak_budget_arg(peak_budget)
    if store is not None and not isinstance(store, (str, os.PathLike)) and \
            not hasattr(store, "root"):
        raise ValueError("store=%r: expected a directory path" % (store,))
    history = []
    run = solve if store is None else store_solver(store, on_miss=on_miss, binary=binary)
    counter = [0]

    def fn(joint_module, joint_inputs, *, num_fwd_outputs, **kwargs):
        jm = prepare_joint(joint_module, num_fwd_outputs)
        replay = functionalize_rng is not False
        rng = has_recomputable_rng_ops(jm) if replay else False
        tb = None
        if time_budget is not None:
            # "pytorch" reads the fraction in effect now (torch's config may set it)
            tb = time_budget_arg(time_budget, memory_budget_value(
                budget_in_effect(jm, memory_budget)))
            budget = None
        else:
            budget = memory_budget_value(budget_in_effect(jm, memory_budget))
        obj = objective or ("runtime" if budget is not None or pb is not None else "memory")
        extra = list(extra_args or ())
        if pb is not None:
            extra += ["--peak-budget", pb]
        if method == "ilp":
            extra += ["--rng-replay", "yes" if replay else "no"] + offload_bw_args(extra)
            if fraction_cap is not None:
                extra += ["--fraction-cap", fraction_cap]
        else:
            extra = torch_mincut_config() + extra
        graph = export_graph(jm, num_fwd_outputs, reference=reference,
                             joint_inputs=joint_inputs, rng_functionalized=rng, prepare=False,
                             static_lifetime_input_indices=kwargs.get(
                                 "static_lifetime_input_indices"))
        _warn_untagged(graph)
        if calibrate:
            from .timing import time_ops
            from .workspace import measure_workspace
            time_ops(jm, graph)
            measure_workspace(jm, graph)
        dev = device if device is not None else device_profile(jm)
        kw = dict(objective=obj, prefer=prefer, time_limit=time_limit, policy=policy,
                  extra_args=extra, binary=binary,
                  command={"ilp": "solve", "mincut": "mincut"}[method], device=dev)
        if tb is not None:
            kw["time_budget"] = tb
        part = run(graph, memory_budget=budget, **kw)
        note = part.get("producer", {}).get("note")
        if note and "store" in part:
            # runner.solve turned the CLI's warning line into an IlpartWarning already
            warnings.warn(note, IlpartWarning, stacklevel=2)
        _warn_time_limit(part, len(graph.get("nodes", ())), time_limit)
        agreed = None
        if agree_ranks:
            part, agreed = agree(jm, graph, part)
            if agreed is not None and agreed["unknown"]:
                warnings.warn("collectives %s may be recomputed but their process group is not "
                              "named in the graph: the ranks were not made to agree on the "
                              "partition; train from a partition store (every rank reads the "
                              "same one)" % ", ".join(agreed["unknown"][:3]), IlpartWarning,
                              stacklevel=2)
        fw, bw = split_modules(jm, part.get("saved", []), num_fwd_outputs,
                               functionalize_rng=replay, static_lifetime_input_indices=kwargs.get(
                                   "static_lifetime_input_indices"), partition=part)
        counter[0] += 1
        summary = _summarise(graph, part, method, budget, tb, dev, counter[0], binary,
                             policy, prefer, extra if method == "ilp" else [], agreed)
        _HISTORY.append(summary)
        if keep_history:
            history.append({"graph": graph, "partition": part, "forward": fw, "backward": bw,
                            "summary": summary})
        return fw, bw

    fn.history = history
    # What the partition depends on, for Inductor's cache key (ilpart.inductor)
    fn.options = dict(objective=objective, memory_budget=memory_budget, prefer=prefer,
                      time_limit=time_limit, policy=policy, extra_args=extra_args,
                      binary=binary, reference=reference, functionalize_rng=functionalize_rng,
                      method=method, store=store, on_miss=on_miss, device=device,
                      calibrate=calibrate, fraction_cap=fraction_cap,
                      time_budget=time_budget, peak_budget=peak_budget,
                      agree_ranks=agree_ranks)
    return fn


def history() -> List[Dict[str, Any]]:
    """Every joint graph partitioned by ilpart in this process, oldest first, as the
    dicts the "ilpart" log line is made from: {"graph": N, "nodes", "how" ("solved",
    "store", "mincut"), "status", "proven", "gap", "saved_bytes", "recompute_time_us",
    "peak_bytes", "pytorch_peak_bytes" (None unless INFO logging was on),
    "pytorch_breaks" (the tag PyTorch's partition breaks, if it does), "budget",
    "note", "line"}. Returns a copy; the log itself only grows."""
    return [dict(h) for h in _HISTORY]


def _how(part, method):
    st = part.get("store")
    if st is not None:
        return {"hit": "store", "solved": "solved", "mincut": "mincut"}.get(st.get("how"),
                                                                          st.get("how"))
    return "mincut" if method == "mincut" else "solved"


def _peaks(graph, part, budget, binary, policy, prefer, extra):
    """Simulated peaks (`ilpart check`) of `part` and of PyTorch's partition (ilpart's
    reproduction of it, `ilpart mincut`, at the same fraction) on `graph`."""
    b = binary or find_binary()
    pol = ["--policy", os.fspath(policy)] if policy is not None else []
    out = [None, None, None]
    with tempfile.TemporaryDirectory(prefix="ilpart-log-") as tmp:
        g = os.path.join(tmp, "g.json")
        with open(g, "w") as f:
            f.write(dumps(graph))
        mine = os.path.join(tmp, "p.json")
        with open(mine, "w") as f:
            f.write(json.dumps(part))
        theirs = os.path.join(tmp, "m.json")
        mc = [b, "mincut", g, "-o", theirs, "--no-check"] + pol
        if isinstance(budget, float):
            mc += ["--memory-budget", repr(budget)]
        subprocess.run(mc, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for i, (path, mode) in enumerate(((mine, prefer), (theirs, "pytorch"))):
            if not os.path.exists(path):
                continue
            proc = subprocess.run([b, "check", g, path, "--prefer", mode] + pol,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  universal_newlines=True)
            m = re.search(r"peak (\d+) bytes", proc.stdout)
            out[i] = int(m.group(1)) if m else None
            if i == 1 and proc.returncode == 1:
                # PyTorch's partition breaks a tag: say which, there is no peak to compare
                out[2] = proc.stderr.strip().split(": ", 2)[-1][:160]
    return out


def _mib(n):
    return "-" if n is None else "%.2f MiB" % (n / 1048576.0)


def _summarise(graph, part, method, budget, tb, dev, n, binary, policy, prefer, extra,
               agreed=None):
    prod = part.get("producer", {})
    cost = part.get("cost", {})
    status = prod.get("status", "?")
    proven = status == "optimal"
    gap = prod.get("gap")
    peak = pt_peak = pt_breaks = None
    if log.isEnabledFor(logging.INFO):
        try:
            peak, pt_peak, pt_breaks = _peaks(graph, part, budget, binary, policy, prefer,
                                              extra)
        except (OSError, IlpartError):
            pass
    s = {"graph": n, "nodes": len(graph.get("nodes", ())), "how": _how(part, method),
         "status": status, "proven": proven, "gap": gap,
         "saved_bytes": cost.get("saved_bytes"),
         "recompute_time_us": cost.get("recompute_time_us"), "peak_bytes": peak,
         "pytorch_peak_bytes": pt_peak, "pytorch_breaks": pt_breaks, "device": dev,
         "budget": ("time %s" % tb) if tb is not None else budget,
         "note": prod.get("note"), "ranks": agreed}
    if proven:
        quality = "proven optimal"
    elif status == "heuristic":
        quality = "heuristic (not proven)"
    else:
        quality = "not proven (%s, gap %s)" % (status, "unknown" if gap is None or gap < 0
                                                else "%.3g" % gap)
    vs = ""
    if peak is not None and pt_peak:
        vs = " (%+.1f%%)" % (100.0 * (peak - pt_peak) / pt_peak)
    elif pt_breaks:
        vs = " (it breaks a tag: %s)" % pt_breaks
    line = ("graph %d (%d nodes, device %s%s): %s, %s; saved %s, recompute %.4g us; "
            "simulated peak %s vs PyTorch's partition %s%s%s" % (
                n, s["nodes"], dev or "default", "" if s["budget"] is None else
                ", budget %s" % s["budget"], s["how"], quality, _mib(s["saved_bytes"]),
                s["recompute_time_us"] if s["recompute_time_us"] is not None else -1,
                _mib(peak), _mib(pt_peak), vs, "; note: %s" % s["note"] if s["note"]
                else ""))
    if agreed is not None and agreed["ranks"] > 1:
        line += "; rank %d's partition, agreed by the %d ranks of its collectives%s" % (
            agreed["from_rank"], agreed["ranks"],
            " (this rank's own differed)" if agreed["own_differed"] else "")
    s["line"] = line
    log.info("%s", line)
    return s


def _run_as_is(gm: fx.GraphModule, example_inputs: Any) -> Callable[..., Any]:
    return gm


# An aot_autograd fw/bw compiler that runs the fx graph as it is (no C compiler), in
# AOTAutograd's boxed calling convention.
nop_compiler = make_boxed_compiler(_run_as_is)


def backend(partition: Optional[Callable[..., Any]] = None, codegen: str = "inductor",
            **partition_kwargs: Any) -> Callable[..., Any]:
    """torch.compile backend with ilpart's partition_fn (built from partition_kwargs unless
    `partition` is given). codegen="inductor": Inductor compiles the forward and backward
    exactly as torch.compile's default path does, ilpart's partition in place of min-cut
    (ilpart.inductor); codegen="eager": aot_autograd runs the split fx graphs as they are."""
    if codegen not in ("inductor", "eager"):
        raise ValueError("backend: codegen=%r: expected one of 'inductor', 'eager'"
                         % (codegen,))
    if partition is not None and partition_kwargs:
        raise ValueError("backend: give partition= or partition_fn's arguments (%s), "
                         "not both" % ", ".join(sorted(partition_kwargs)))
    pf = partition if partition is not None else partition_fn(**partition_kwargs)
    if codegen == "inductor":
        from .inductor import inductor_compiler
        return inductor_compiler(pf)
    from torch._dynamo.backends.common import aot_autograd
    return aot_autograd(fw_compiler=nop_compiler, bw_compiler=nop_compiler, partition_fn=pf)


def _counting(be):
    """`be` as a torch.compile backend that counts the FX graphs dynamo hands it
    (`.graphs`): capture tells a model dynamo compiled nothing of from one whose graphs
    need no backward."""
    def counted(gm, example_inputs):
        counted.graphs += 1
        return be(gm, example_inputs)
    counted.graphs = 0
    return counted


def no_joint_graph_error(who: str, fx_graphs: int) -> IlpartError:
    """The error when compiling made no joint graph: dynamo compiled no graph at all (the
    code ran eagerly), or only graphs that need no backward."""
    if fx_graphs == 0:
        return IlpartError(
            "%s: no joint graph was made: dynamo compiled no graph of this code, it ran "
            "eagerly (dynamo skips some modules, e.g. nn.LSTM/GRU/RNN unless "
            "torch._dynamo.config.allow_rnn is set, and code it cannot trace; "
            "TORCH_LOGS=graph_breaks says why)" % who)
    return IlpartError(
        "%s: no joint graph was made: dynamo compiled %d graph(s), none of which needs a "
        "backward (does any input or parameter require grad?)" % (who, fx_graphs))


class _Captured(Exception):
    """Raised by capture(execute=False) to stop compilation once the graph is exported."""


def _capturing_partition(store, reference, execute, budgets=()):
    from torch._functorch.partitioners import min_cut_rematerialization_partition

    def fn(joint_module, joint_inputs, *, num_fwd_outputs, **kwargs):
        jm = prepare_joint(joint_module, num_fwd_outputs)
        store.append(export_graph(jm, num_fwd_outputs, reference=reference,
                                  joint_inputs=joint_inputs, prepare=False,
                                  budgets=budgets, static_lifetime_input_indices=kwargs.get(
                                      "static_lifetime_input_indices")))
        if not execute:
            raise _Captured()
        return min_cut_rematerialization_partition(jm, joint_inputs,
                                                   num_fwd_outputs=num_fwd_outputs, **kwargs)
    return fn


def _has_captured(exc):
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, _Captured):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__ or getattr(exc, "inner_exception", None)
    return False


def capture(model_or_fn: Any, *example_inputs: Any, path: Optional[PathLike] = None,
            reference: bool = True, description: Optional[str] = None, execute: bool = True,
            budgets: Sequence[float] = (), **example_kwargs: Any) -> List[Dict[str, Any]]:
    """Compile `model_or_fn` once on the example inputs, export every joint graph AOTAutograd
    makes (with PyTorch's own min-cut partition as reference), and return them as a list of
    dicts. With `path`, also write them: the first to `path`, further ones (graph breaks)
    to PATH-1.json, PATH-2.json, ... Some input or parameter must require grad.

    execute=True runs the compiled forward once (with PyTorch's partition). execute=False
    stops right after the first joint graph is exported, so a model on the "meta" device
    (no memory, no compute) can be captured at full size. budgets=[0.1, 0.3, 0.5] also
    records PyTorch's partition at each activation_memory_budget as reference
    "pytorch-X.Y-mincut-budget-F"."""
    import torch._dynamo

    graphs = []
    for _attempt in range(2):
        be = _counting(backend(partition=_capturing_partition(graphs, reference, execute,
                                                              tuple(budgets)),
                               codegen="eager"))
        compiled = torch.compile(model_or_fn, backend=be)
        try:
            compiled(*example_inputs, **example_kwargs)
        except Exception as e:  # noqa: BLE001 - dynamo wraps our stop signal
            if execute or not _has_captured(e):
                raise
        if graphs:
            break
        # A cached compilation of the same code with another backend: start over once.
        torch._dynamo.reset()
    if not execute:
        torch._dynamo.reset()
    if not graphs:
        raise no_joint_graph_error("capture", be.graphs)
    write_graphs(graphs, path, description)
    _warn_empty_backward(graphs, path, _on_meta(model_or_fn, example_inputs, example_kwargs))
    return graphs


def _on_meta(model_or_fn, example_inputs, example_kwargs):
    """Whether an example input or a parameter/buffer of the model is on the meta device."""
    import torch

    def tensors(x):
        if isinstance(x, torch.Tensor):
            yield x
        elif isinstance(x, (list, tuple)):
            for y in x:
                yield from tensors(y)
        elif isinstance(x, dict):
            for y in x.values():
                yield from tensors(y)

    found = list(tensors(list(example_inputs))) + list(tensors(example_kwargs))
    if isinstance(model_or_fn, torch.nn.Module):
        found += list(model_or_fn.parameters()) + list(model_or_fn.buffers())
    return any(t.is_meta for t in found)


def _warn_empty_backward(graphs, path, meta):
    """A joint graph whose backward computes no gradient at all (every backward output is
    None) has nothing to partition: say so rather than return it silently. PyTorch 2.6
    traces nll_loss (so cross_entropy) on the meta device that way, with or without
    execute: its gradients are lost in the trace, not by ilpart."""
    for i, g in enumerate(graphs):
        bw = (g.get("outputs") or {}).get("backward") or []
        if any(b is not None for b in bw):
            continue
        if path is None:
            where = "%d of %d" % (i + 1, len(graphs))
        else:
            stem = os.fspath(path)[:-5] if os.fspath(path).endswith(".json") else os.fspath(path)
            where = os.fspath(path) if i == 0 else "%s-%d.json" % (stem, i)
        nll = any(n.get("target", "").startswith("aten.nll_loss") for n in g.get("nodes", ()))
        hint = ""
        if meta and nll:
            hint = ("; on the meta device PyTorch 2.6 traces nll_loss/cross_entropy without "
                    "its gradients: capture on a real device (small sizes keep it cheap)")
        elif meta:
            hint = ("; on the meta device some ops trace without their gradients: compare "
                    "with a capture on a real device")
        warnings.warn("capture: joint graph %s has an empty backward: no gradient reaches "
                      "any input or parameter (every backward output is None), so there is "
                      "nothing to partition%s" % (where, hint), IlpartWarning, stacklevel=3)
