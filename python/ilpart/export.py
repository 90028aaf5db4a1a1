"""Export an AOTAutograd joint graph (torch.fx.GraphModule) to ilpart's JSON format.

The schema is docs/format.md's "ilpart-joint-graph", version 1. Everything is read off the
fx graph and the fake values AOTAutograd stores in ``node.meta["val"]``; nothing is run.
"""

import copy
import operator
import warnings
from typing import Any, Dict, List, Optional, Sequence, Set

import torch
import torch.fx as fx
import torch.utils._pytree as pytree

from .device import device_field

__all__ = ["export_graph", "mutated_primals", "param_primals", "prepare_joint", "reference_name",
           "reference_saved", "torch_version_tag"]

_DTYPES = {
    torch.float64: "f64", torch.float32: "f32", torch.float16: "f16",
    torch.bfloat16: "bf16", torch.complex64: "c64", torch.complex128: "c128",
    torch.int64: "i64", torch.int32: "i32", torch.int16: "i16", torch.int8: "i8",
    torch.uint8: "u8", torch.bool: "b8",
}
for _name, _short in (("float8_e4m3fn", "f8e4m3fn"), ("float8_e4m3fnuz", "f8e4m3fnuz"),
                      ("float8_e5m2", "f8e5m2"), ("float8_e5m2fnuz", "f8e5m2fnuz")):
    if hasattr(torch, _name):
        _DTYPES[getattr(torch, _name)] = _short

# Random ops by name, for ops that carry no nondeterministic_seeded tag (or are not OpOverloads).
_RANDOM_NAMES = ("rand", "randn", "randint", "randperm", "rand_like", "randn_like",
                 "randint_like", "bernoulli", "native_dropout", "dropout", "normal",
                 "uniform", "multinomial", "exponential", "poisson", "philox_rand",
                 "run_and_save_rng_state", "run_with_rng_state")

# Ops that alias their first input without saying so in their schema.
_EXTRA_VIEWS = ("_unsafe_view",)


def torch_version_tag() -> str:
    """"2.6" for torch 2.6.x: names the reference partition ("pytorch-2.6-mincut")."""
    parts = torch.__version__.split(".")
    return "%s.%s" % (parts[0], parts[1])


def _target_name(node):
    if node.op == "get_attr":
        return "get_attr"
    return _target_info(node.target)[0]


def _op_basename(node):
    """'native_dropout' for aten.native_dropout.default."""
    return _target_info(node.target)[1]


# What export_graph asks of an op, worked out once per target (an OpOverload, a
# function, a higher-order op): the names, the aliasing its schema declares, its flop
# formula, its tags. Every call of a joint graph's ~30 distinct ops reads it from here.
_TARGETS: Dict[Any, tuple] = {}


def _target_info(t):
    """(name, basename, alias, flop formula or None, tagged random, effectful, collective)
    for call target `t`; alias is 'view', 'write', 'maybe' (reshape: a view when the
    values share storage) or None."""
    if isinstance(t, str):  # a placeholder's or get_attr's name: not cached
        return _work_out_target(t)
    try:
        return _TARGETS[t]
    except KeyError:
        pass
    except TypeError:  # an unhashable target: worked out every time
        return _work_out_target(t)
    info = _TARGETS[t] = _work_out_target(t)
    return info


def _work_out_target(t):
    if t is operator.getitem:
        name = "getitem"
    elif isinstance(t, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        name = str(t)
    elif isinstance(t, torch._ops.HigherOrderOperator):
        name = "higher_order." + t.name()
    else:
        mod = (getattr(t, "__module__", None) or "").replace("_operator", "operator")
        name = getattr(t, "__name__", None) or str(t)
        name = "%s.%s" % (mod, name) if mod else name
    if isinstance(t, torch._ops.OpOverload):
        base = t._schema.name.split("::")[-1]
    elif isinstance(t, torch._ops.HigherOrderOperator):
        base = t.name()
    else:
        base = getattr(t, "__name__", "")
    alias = None
    flops = None
    if isinstance(t, torch._ops.OpOverload):
        rets = t._schema.returns
        if base in _EXTRA_VIEWS:
            alias = "view"
        elif rets and rets[0].alias_info is not None:
            if rets[0].alias_info.is_write:
                alias = "write"
            elif base in ("reshape", "reshape_as", "contiguous"):
                alias = "maybe"
            else:
                alias = "view"
        flops = _flop_formula(t)
    tagged = hasattr(t, "tags") and torch.Tag.nondeterministic_seeded in t.tags
    if isinstance(t, torch._ops.OpOverload):
        effectful = bool(t._schema.is_mutable)
        collective = t.namespace in ("_c10d_functional", "c10d_functional", "c10d", "_dtensor")
    elif isinstance(t, torch._ops.HigherOrderOperator):
        effectful = t.name() in ("with_effects", "auto_functionalized",
                                 "triton_kernel_wrapper_mutation")
        collective = False
    else:
        effectful, collective = t in (print,), False
    return (name, base, alias, flops, tagged, effectful, collective)


def _flop_formula(t):
    """PyTorch's flop counter formula for OpOverload `t`, or None."""
    try:
        from torch.utils.flop_counter import flop_registry
    except ImportError:
        return None
    f = flop_registry.get(t.overloadpacket)
    name = t.overloadpacket.__name__
    if f is None and "_for_cpu" in name:
        # CPU flash attention takes (q, k, v, ...) / (grad_out, q, k, v, ...) like the
        # CUDA kernels the registry knows.
        f = flop_registry.get(getattr(torch.ops.aten, name.replace("_for_cpu", ""), None))
    return f


def _node_inputs(node):
    """The fx.Node arguments in order (args, then kwargs), flattened from lists, tuples and
    dicts (what pytree flattens in an fx argument). The same node may appear twice
    (mul(x, x)); it is kept twice."""
    out: List[fx.Node] = []
    _collect_nodes(node.args, out)
    if node.kwargs:
        _collect_nodes(node.kwargs.values(), out)
    return out


def _nested_positions(node):
    """Positions in _node_inputs(node) of the inputs that are not direct positional
    arguments (inside a list, tuple or dict argument: aten.index.Tensor's indices; or a
    keyword argument). torch's min-cut sums only the direct ones' sizes when it bans
    recomputing a reduction (docs/format.md "nested_inputs")."""
    out, k = [], 0
    for a in node.args:
        if isinstance(a, fx.Node):
            k += 1
            continue
        inner: List[fx.Node] = []
        _collect_nodes([a], inner)
        out.extend(range(k, k + len(inner)))
        k += len(inner)
    inner = []
    if node.kwargs:
        _collect_nodes(node.kwargs.values(), inner)
    out.extend(range(k, k + len(inner)))
    return out


def _collect_nodes(args, out):
    for a in args:
        if isinstance(a, fx.Node):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            _collect_nodes(a, out)
        elif isinstance(a, dict):
            _collect_nodes(a.values(), out)


def size_hint(v: Any, fallback: int = 1) -> int:
    """A symbolic int's hint (its value in the example inputs), `fallback` for an unbacked
    one; torch 2.6 names that hint_int, 2.14 optimization_hint."""
    from torch.fx.experimental import symbolic_shapes as s
    hint = getattr(s, "hint_int", None) or s.optimization_hint
    return int(hint(v, fallback=fallback))


def _int(v):
    if isinstance(v, torch.SymInt):
        return size_hint(v, fallback=1)
    return int(v)


def _tensor_bytes(t):
    return _numel(t) * t.element_size()


def _numel(t):
    n = 1
    for d in t.shape:
        n *= _int(d)
    return n


def _is_tensor(v):
    return isinstance(v, torch.Tensor)


def _is_sym(v):
    return isinstance(v, (torch.SymInt, torch.SymFloat, torch.SymBool, int, float, bool))


def _value_fields(val):
    """shape/dtype/bytes/tuple fields for a node whose value is `val`."""
    if _is_tensor(val):
        out = {"shape": [_int(d) for d in val.shape]}
        short = _DTYPES.get(val.dtype)
        if short is not None:
            out["dtype"] = short
        else:
            del out["shape"]
            out["bytes"] = _tensor_bytes(val)
        return out
    if isinstance(val, (tuple, list)):
        return {"tuple": True}
    if isinstance(val, torch.SymFloat):
        # a symbolic scalar (docs/format.md "sym"): torch's partitioners weigh it as
        # such, and it has no storage
        return {"bytes": 8, "sym": "float"}
    if isinstance(val, (torch.SymInt, torch.SymBool)):
        return {"bytes": 8, "sym": "int"}
    if _is_sym(val):
        return {"bytes": 8}
    return {"bytes": 0}


def _value_bytes(val):
    if _is_tensor(val):
        return _tensor_bytes(val)
    if isinstance(val, (tuple, list)):
        return sum(_value_bytes(v) for v in val)
    if _is_sym(val):
        return 8
    return 0


def _alias_kind(node, ins=None):
    """'view' if the op's result aliases its first tensor input, 'write' if it mutates it
    in place (and returns it), None otherwise. ins: _node_inputs(node), when known."""
    if not isinstance(node.target, torch._ops.OpOverload):
        return None
    alias = _target_info(node.target)[2]
    if alias == "maybe":
        # "may alias": only a view when the fake values share storage.
        ins = _node_inputs(node) if ins is None else ins
        if ins and _same_storage(node.meta.get("val"), ins[0].meta.get("val")):
            return "view"
        return None
    return alias


def _same_storage(a, b):
    try:
        return a.untyped_storage()._cdata == b.untyped_storage()._cdata
    except Exception:  # noqa: BLE001 - fake tensors without storage, sym values
        return False


def _const_arg(node, name):
    """The value of schema argument `name` of `node` when it is a constant (not a node):
    (True, value), its default when not passed; (False, None) when the schema has no such
    argument or the value is computed."""
    t = node.target
    if not isinstance(t, torch._ops.OpOverload):
        return False, None
    for i, a in enumerate(t._schema.arguments):
        if a.name != name:
            continue
        if not a.kwarg_only and i < len(node.args):
            v = node.args[i]
        elif name in node.kwargs:
            v = node.kwargs[name]
        elif a.has_default_value():
            v = a.default_value
        else:
            return False, None
        if isinstance(v, fx.Node):
            return False, None
        return True, v
    return False, None


def _draws(node):
    """False for a dropout or attention op whose result does not depend on the RNG state:
    SDPA variants with dropout_p == 0, native_dropout/dropout with p == 0 or train False
    (torch tags them nondeterministic_seeded all the same)."""
    base = _op_basename(node)
    if "scaled_dot_product" in base:
        known, p = _const_arg(node, "dropout_p")
        return not (known and p == 0)
    if "dropout" in base:
        known, train = _const_arg(node, "train")
        if known and train is False:
            return False
        known, p = _const_arg(node, "p")
        return not (known and p == 0)
    return True


def _is_random(node):
    """Does `node` draw random numbers its result depends on (a dropout or SDPA without
    dropout does not, although torch tags it nondeterministic_seeded)?"""
    info = _target_info(node.target)
    if info[4]:
        return _draws(node)
    return info[1] in _RANDOM_NAMES and _draws(node)


def _is_collective(node):
    return _target_info(node.target)[6]


def _is_effectful(node):
    return _target_info(node.target)[5]


def _flops(node):
    f = _target_info(node.target)[3]
    if f is None:
        return 0

    def val(a):
        return a.meta.get("val") if isinstance(a, fx.Node) else a

    args = pytree.tree_map(val, node.args)
    kwargs = pytree.tree_map(val, node.kwargs)
    try:
        n = f(*args, out_val=node.meta.get("val"), **kwargs)
    except Exception:  # noqa: BLE001 - a formula that does not fit this overload
        return 0
    try:
        return max(0, _int(n))
    except (TypeError, ValueError):
        return 0


def _rng_state_bytes(graph):
    """Bytes of the RNG state PyTorch saves to replay a random op (run_and_save_rng_state):
    the generator state of the random ops' device (5056 on CPU, 16 on CUDA)."""
    for node in graph.nodes:
        if node.op == "call_function" and _is_random(node):
            v = node.meta.get("val")
            for t in (v if isinstance(v, (tuple, list)) else (v,)):
                if isinstance(t, torch.Tensor) and t.device.type == "cuda":
                    return 16
            break
    return int(torch.get_rng_state().numel())


def _policy_name(p):
    if p is None:
        return None
    name = getattr(p, "name", None)
    if name is None:
        name = str(p).split(".")[-1]
    return name


def _placeholder_kind(node):
    name = str(node.target)
    if "tangents" in name or "bwd_seed" in name or "bwd_base_offset" in name:
        return "tangent"
    return "primal"


# The AOTAutograd functions that call the partitioner with its metadata in their locals
# (fw_metadata, inner_meta, aot_config): torch 2.6's aot_dispatch_autograd, torch 2.14's
# _partition_joint_graph_into_fw_bw.
_AOT_PARTITION_CALLERS = ("aot_dispatch_autograd", "_partition_joint_graph_into_fw_bw")


def _aot_dispatch_locals():
    """The locals of the AOTAutograd call that is partitioning now (a partition_fn is
    given no such argument), or None outside one."""
    import inspect

    f = inspect.currentframe()
    try:
        while f is not None:
            if f.f_code.co_name in _AOT_PARTITION_CALLERS and "aot_config" in f.f_locals:
                return dict(f.f_locals)
            f = f.f_back
    finally:
        del f
    return None


def _aot_mutated_inputs():
    """(indices of the inputs AOTAutograd's metadata says the function writes in place,
    number of inputs, number of effect tokens), read from the aot_dispatch_autograd call that is
    partitioning now, or None outside one."""
    loc = _aot_dispatch_locals()
    if loc is None:
        return None
    meta = loc.get("inner_meta") or loc.get("fw_metadata")
    info = getattr(meta, "input_info", None)
    if info is None:
        return None
    return ([i for i, x in enumerate(info)
             if getattr(x, "mutates_data", False)
             or getattr(x, "mutates_metadata", False)], len(info),
            len(getattr(meta, "tokens", None) or ()))


def _aot_param_inputs():
    """(indices of the inputs that are module parameters or buffers, number of inputs,
    number of effect tokens) in the aot_dispatch_autograd call partitioning now, or None
    outside one or when they cannot be told apart reliably.

    torch 2.6 passes them in one of two ways. With torch._dynamo.config.
    inline_inbuilt_nn_modules (the default), dynamo lifts parameters and buffers to graph
    inputs and marks them static (mark_static_address): AOTAutograd lists their positions
    in fw_metadata.static_input_indices (tensors a user marked static are there too; they
    also live across calls). Without it they are the module's attributes, passed first:
    the first aot_config.num_params_buffers inputs. Both are positions among the inputs
    before AOTAutograd removes duplicated inputs or adds synthetic bases, and
    remove_dupe_metadata drops static_input_indices: when the inputs no longer match the
    sources dynamo recorded one to one, nothing is marked."""
    loc = _aot_dispatch_locals()
    if loc is None:
        return None
    cfg = loc.get("aot_config")
    outer = loc.get("fw_metadata")
    meta = loc.get("inner_meta") or outer
    info = getattr(meta, "input_info", None)
    if cfg is None or info is None:
        return None
    n_inputs = len(info)
    sources = getattr(cfg, "aot_autograd_arg_pos_to_source", None)
    if sources is not None and len(sources) != n_inputs:
        return None
    idx = set(getattr(meta, "static_input_indices", None) or ())
    if meta is outer:  # no tensor subclass: the inputs are the flat arguments
        idx.update(range(int(getattr(cfg, "num_params_buffers", 0) or 0)))
    return (sorted(i for i in idx if 0 <= i < n_inputs), n_inputs,
            len(getattr(meta, "tokens", None) or ()))


def _primals_at(placeholders, found, what):
    """Names of the primal placeholders at AOTAutograd input positions found = (indices,
    number of inputs, number of tokens); the joint graph's primals are the tokens, then the
    inputs, or the inputs alone."""
    idx, n_inputs, tokens = found
    primals = [n for n in placeholders if str(n.target).startswith("primals")]
    offset = {n_inputs + tokens: tokens, n_inputs: 0}.get(len(primals))
    if offset is None:
        if idx:
            warnings.warn("ilpart: cannot match AOTAutograd's %d inputs to the joint "
                          "graph's %d primals: %s (%s) are not marked" %
                          (n_inputs, len(primals), what, idx))
        return set()
    return {primals[i + offset].name for i in idx}


def param_primals(joint_module: fx.GraphModule) -> Set[str]:
    """Names of the primal placeholders that are module parameters or buffers (docs/format.md
    "param"), from AOTAutograd's metadata when called while it partitions (under
    torch.compile: a partition_fn, ilpart.backend, ilpart.capture); empty elsewhere."""
    found = _aot_param_inputs()
    if found is None:
        return set()
    placeholders = list(joint_module.graph.find_nodes(op="placeholder"))
    names = _primals_at(placeholders, found, "its parameters and buffers")
    return {n.name for n in placeholders
            if n.name in names and _placeholder_kind(n) == "primal"}


def mutated_primals(joint_module: fx.GraphModule) -> Set[str]:
    """Names of the primal placeholders the compiled function writes in place (docs/format.md
    "mutated": BatchNorm's running statistics, a buffer's add_). AOTAutograd applies such a
    write after the forward (or inside it, as a copy_ into the placeholder): a saved input,
    or an op reading it that the backward recomputes, would see the written value, and
    autograd rejects the saved tensor ("modified by an inplace operation"). Found from the
    in-graph writes, and from AOTAutograd's metadata when called while it partitions."""
    graph = joint_module.graph
    placeholders = list(graph.find_nodes(op="placeholder"))
    out = set()
    root = {n: n for n in placeholders}
    for node in graph.nodes:
        if node.op != "call_function":
            continue
        ins = _node_inputs(node)
        base = root.get(ins[0]) if ins else None
        kind = _alias_kind(node, ins) if base is not None else None
        if base is not None and kind == "view":
            root[node] = base
        elif base is not None and kind == "write":
            out.add(base.name)
            root[node] = base
    found = _aot_mutated_inputs()
    if found is not None:
        out.update(_primals_at(placeholders, found, "the inputs it writes in place"))
    return {n.name for n in placeholders
            if n.name in out and _placeholder_kind(n) == "primal"}


def prepare_joint(joint_module: fx.GraphModule,
                  num_fwd_outputs: Optional[int] = None) -> fx.GraphModule:
    """What PyTorch's partitioners do before choosing: dead-code elimination and, when
    torch._functorch.config.cse is on, common-subexpression elimination. Node names are
    kept. Returns the (possibly new) module; the exported graph and the split modules must
    both come from it. With num_fwd_outputs, on a torch whose CSE takes a node key (2.14),
    as its min-cut does: a value the backward outputs depend on is never merged with one
    they do not."""
    import inspect

    from torch._functorch import config as fconfig
    from torch._functorch.compile_utils import fx_graph_cse

    joint_module.graph.eliminate_dead_code()
    if not fconfig.cse:
        joint_module.recompile()
        return joint_module
    kw = {}
    if num_fwd_outputs is not None and \
            "extra_node_key" in inspect.signature(fx_graph_cse).parameters:
        outs = pytree.arg_tree_leaves(*(n.args for n in
                                        joint_module.graph.find_nodes(op="output")))
        need: Set[fx.Node] = set()
        stack = [o for o in outs[num_fwd_outputs:] if isinstance(o, fx.Node)]
        while stack:
            n = stack.pop()
            if n not in need:
                need.add(n)
                stack.extend(n.all_input_nodes)
        kw["extra_node_key"] = need.__contains__
    # the graph setter recompiles the module (once: the code of the graph before CSE
    # is never needed)
    joint_module.graph = fx_graph_cse(joint_module.graph, **kw)
    return joint_module


def has_recomputable_rng_ops(joint_module: fx.GraphModule) -> bool:
    """PyTorch functionalises the RNG state of random ops tagged for recomputation (and of
    every random op with torch._functorch.config.functionalize_rng_ops)."""
    from torch._functorch import config as fconfig
    from torch._functorch.partitioners import has_recomputable_rng_ops as f
    return bool(getattr(fconfig, "functionalize_rng_ops", False)) or f(joint_module)


def reference_name(budget: Optional[float] = None) -> str:
    """The name of PyTorch's partition as a reference: "pytorch-2.6-mincut", or with a
    memory budget F (torch._functorch.config.activation_memory_budget)
    "pytorch-2.6-mincut-budget-F" (F as Python prints it, e.g. 0.3)."""
    name = "pytorch-%s-mincut" % torch_version_tag()
    return name if budget is None else "%s-budget-%r" % (name, float(budget))


def _copy_for_partitioning(joint_module: fx.GraphModule) -> fx.GraphModule:
    """A deepcopy of `joint_module` that shares its real tensors (lifted constants such as
    the scalar of `x[:, 0] = 0.0`, parameters, buffers): partitioning never writes them,
    and copying a real tensor's storage while AOTAutograd's fake mode is active fails
    ("Attempted to set the storage of a tensor on device meta to a storage on ... cpu")."""
    memo: Dict[int, Any] = {}
    for mod in joint_module.modules():
        for v in list(vars(mod).values()) + list(mod._parameters.values()) + \
                list(mod._buffers.values()):
            if isinstance(v, torch.Tensor):
                memo[id(v)] = v
    return copy.deepcopy(joint_module, memo)


def reference_saved(joint_module: fx.GraphModule, num_fwd_outputs: int, joint_inputs: Any = None,
                    budget: Optional[float] = None,
                    static_lifetime_input_indices: Optional[Sequence[int]] = None) -> List[str]:
    """PyTorch's own min-cut partition of a deepcopy of `joint_module`: the list of joint
    node names it saves for the backward (graph order). The RNG states PyTorch adds when
    it functionalises random ops are not joint nodes and are left out. budget: run it
    with torch._functorch.config.activation_memory_budget = budget (default: as
    configured). static_lifetime_input_indices: what AOTAutograd passes the partitioner
    (torch 2.7 on: the parameters and buffers, which treat_parameters_as_free_to_save
    makes free to save); None: not passed."""
    import contextlib

    from torch._functorch import config as fconfig
    from torch._functorch.partitioners import min_cut_rematerialization_partition

    jm = _copy_for_partitioning(joint_module)
    ctx = (fconfig.patch(activation_memory_budget=float(budget)) if budget is not None
           else contextlib.nullcontext())
    kw = ({} if static_lifetime_input_indices is None else
          {"static_lifetime_input_indices": list(static_lifetime_input_indices)})
    with ctx:
        _fw, bw = min_cut_rematerialization_partition(jm, joint_inputs,
                                                      num_fwd_outputs=num_fwd_outputs, **kw)
    order = {n.name: i for i, n in enumerate(joint_module.graph.nodes)}
    names = set()
    for n in bw.graph.find_nodes(op="placeholder"):
        name = n.name
        if "tangents" in name or name.startswith("rng_state_output") or name not in order:
            continue
        names.add(name)
    return sorted(names, key=order.__getitem__)


def export_graph(joint_module: fx.GraphModule, num_fwd_outputs: int, reference: bool = False,
                 joint_inputs: Any = None, description: Optional[str] = None,
                 rng_functionalized: Optional[bool] = None, prepare: bool = True,
                 budgets: Sequence[float] = (),
                 mutated: Optional[Sequence[str]] = None,
                 params: Optional[Sequence[str]] = None,
                 static_lifetime_input_indices: Optional[Sequence[int]] = None
                 ) -> Dict[str, Any]:
    """The joint graph of `joint_module` as a dict in docs/format.md's schema.

    num_fwd_outputs: how many of the graph's outputs are forward outputs (the rest are
    gradients), as aot_autograd passes it to a partition_fn.
    reference: also run PyTorch's min_cut_rematerialization_partition on a copy and record
    its saved set as reference "pytorch-X.Y-mincut" (at budget 1, torch's default).
    budgets: with reference, also PyTorch's partition at each activation_memory_budget F,
    as reference "pytorch-X.Y-mincut-budget-F".
    rng_functionalized: the value of the file's "rng_functionalized" flag; default: true
    when PyTorch would functionalise RNG state (random ops tagged for recomputation).
    prepare: apply prepare_joint() first (DCE and CSE, as PyTorch's partitioner does), in
    place on `joint_module`.
    mutated: names of the primals the function writes in place (marked "mutated"; never
    saved, their readers never recomputed); default: mutated_primals(joint_module).
    params: names of the primals that are module parameters or buffers (marked "param":
    alive for the whole run, so ilpart does not charge them as saved bytes); default:
    param_primals(joint_module), found while AOTAutograd partitions.
    static_lifetime_input_indices: what AOTAutograd passed the partition function, handed
    on to PyTorch's partition for the references (torch 2.7 on saves those inputs freely).
    """
    if prepare:
        joint_module = prepare_joint(joint_module, num_fwd_outputs)
    graph = joint_module.graph
    mutated = set(mutated_primals(joint_module) if mutated is None else mutated)
    if params is None:
        params = param_primals(joint_module)
        if static_lifetime_input_indices is not None:
            # torch 2.7 on hands the partitioner its static-lifetime inputs (parameters,
            # buffers, inputs marked static), indices into its _is_primal placeholders
            prim = [n for n in graph.find_nodes(op="placeholder")
                    if _placeholder_kind(n) == "primal" and "fwd_seed" not in str(n.target)
                    and "fwd_base_offset" not in str(n.target)]
            params = set(params) | {prim[i].name for i in static_lifetime_input_indices
                                    if 0 <= i < len(prim)}
    params = set(params)
    nodes = []
    index = {}
    view_base = {}  # node name -> storage base name (for getitem of aliasing tuple ops)
    for node in graph.nodes:
        if node.op == "output":
            continue
        rec = {"name": node.name}
        val = node.meta.get("val")
        if node.op == "get_attr" and val is None:
            val = getattr(joint_module, str(node.target), None)
        if node.op == "placeholder":
            rec["kind"] = _placeholder_kind(node)
            rec.update(_value_fields(val))
            if node.name in mutated and rec["kind"] == "primal":
                rec["mutated"] = True
            if node.name in params and rec["kind"] == "primal":
                rec["param"] = True
        else:
            ins = _node_inputs(node)
            rec["kind"] = "op"
            rec["target"] = _target_name(node)
            rec["inputs"] = [a.name for a in ins]
            nested = _nested_positions(node)
            if nested:
                rec["nested_inputs"] = nested
            rec.update(_value_fields(val))
            if node.target is operator.getitem:
                rec["index"] = int(node.args[1])
                parent = ins[0].name if ins else None
                if parent in view_base and _is_tensor(val):
                    rec["view_of"] = view_base[parent]
                rec["bytes_read"] = 0
                rec["bytes_written"] = 0
            else:
                alias = _alias_kind(node, ins)
                if alias is not None and ins:
                    if isinstance(val, (tuple, list)):
                        view_base[node.name] = ins[0].name
                    elif _is_tensor(val) and _is_tensor(ins[0].meta.get("val")):
                        rec["view_of"] = ins[0].name
                flops = _flops(node)
                if flops:
                    rec["flops"] = flops
                if alias == "view":
                    rec["bytes_read"] = 0
                    rec["bytes_written"] = 0
                elif isinstance(val, (tuple, list)):
                    rec["bytes_read"] = sum(_value_bytes(a.meta.get("val")) for a in ins)
                    rec["bytes_written"] = _value_bytes(val)
            rp = _policy_name(node.meta.get("recompute"))
            if rp is not None:
                rec["recompute"] = rp
                gid = node.meta.get("ac_graph_id")
                if gid is not None:
                    rec["ac_graph_id"] = int(gid)
            if _is_random(node):
                rec["random"] = True
            if _is_effectful(node):
                rec["effectful"] = True
            if _is_collective(node):
                rec["collective"] = True
        budget = node.meta.get("memory_budget")
        if isinstance(budget, float):  # torch reads only a float (docs/mincut.md item 9)
            rec["memory_budget"] = budget
        index[node.name] = len(nodes)
        nodes.append(rec)

    outs = pytree.arg_tree_leaves(*(n.args for n in graph.find_nodes(op="output")))
    names = [o.name if isinstance(o, fx.Node) else None for o in outs]
    if rng_functionalized is None:
        rng_functionalized = has_recomputable_rng_ops(joint_module)
    doc = {
        "format": "ilpart-joint-graph",
        "version": 1,
        "description": description or ("AOTAutograd joint graph exported by python/ilpart "
                                        "from torch %s" % torch_version_tag()),
        **device_field(joint_module),  # the CLI's default cost model (docs/format.md)
        "rng_functionalized": bool(rng_functionalized),
        "nodes": nodes,
        "outputs": {"forward": names[:num_fwd_outputs], "backward": names[num_fwd_outputs:]},
    }
    if any(r.get("random") for r in nodes):
        doc["rng_state_bytes"] = _rng_state_bytes(graph)
    if reference:
        refs = []
        for f in (None,) + tuple(budgets):
            try:
                saved = reference_saved(joint_module, num_fwd_outputs, joint_inputs,
                                        budget=1.0 if f is None else f,
                                        static_lifetime_input_indices=(
                                            static_lifetime_input_indices))
            except Exception as e:  # noqa: BLE001 - PyTorch's partitioner failing on it
                # A reference is for comparison only: the graph is exported without it.
                from .runner import IlpartWarning
                warnings.warn("PyTorch's own partition of this joint graph%s failed, so it is "
                              "not recorded as reference %s: %s: %s" % (
                                  "" if f is None else " at activation_memory_budget %r" % f,
                                  reference_name(f), type(e).__name__,
                                  str(e).strip().splitlines()[0][:200] if str(e).strip() else ""),
                              IlpartWarning, stacklevel=2)
                continue
            refs.append({"name": reference_name(f), "saved": saved})
        if refs:
            doc["reference"] = refs
    doc["meta"] = {"torch": torch.__version__, "num_fwd_outputs": int(num_fwd_outputs)}
    return doc
