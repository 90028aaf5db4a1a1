"""Op timing: every forward op of a joint graph timed on this machine with PyTorch's
profiler, written into the exported graph as `time_us` (docs/format.md). Used by the bridge
(backend(calibrate=True)) and by ilpart.calibrate (calibration.py); it imports neither.
"""

import contextlib
from typing import Any, Dict, Iterator, List, Tuple

import torch
import torch.fx as fx
import torch.utils._pytree as pytree

__all__ = ["time_ops"]


def _materialize(x: Any) -> Any:
    """A real value for a node argument, from the fake value AOTAutograd recorded: random
    floats, zeros for integer and boolean tensors (valid indices), size hints for symbols."""
    from .export import size_hint as hint_int
    if not isinstance(x, fx.Node):
        return x
    v = x.meta.get("val")
    if isinstance(v, torch.Tensor):
        shape = [hint_int(d, fallback=64) for d in v.shape]
        stride = [hint_int(d, fallback=64) for d in v.stride()]
        t = torch.empty_strided(shape, stride, dtype=v.dtype, device=v.device)
        if v.dtype.is_floating_point or v.dtype.is_complex:
            if v.dtype.itemsize == 1:  # float8: no randn kernel
                return torch.randn(shape, device=v.device).to(v.dtype)
            return t.normal_()
        return t.zero_()
    if isinstance(v, torch.SymInt):
        return hint_int(v, fallback=64)
    if isinstance(v, torch.SymFloat):
        return 1.0
    if isinstance(v, torch.SymBool):
        return True
    return v


# Only PyTorch's own ops run on made-up inputs: they check their indices. An op of
# another library may not (torchvision's roi_align reads a box's image index from a float
# unchecked: random floats crash the process), so such ops keep the roofline cost.
SAFE_NAMESPACES = ("aten", "prims")


def runnable(n: fx.Node) -> bool:
    """An ATen or prims op: safe to run on made-up inputs of its recorded shapes."""
    return n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload) and \
        n.target.namespace in SAFE_NAMESPACES


def _forward_ops(gm: fx.GraphModule) -> List[fx.Node]:
    backward = set()
    out = []
    for n in gm.graph.nodes:
        if (n.op == "placeholder" and "tangents" in n.name) or \
                any(a in backward for a in n.all_input_nodes):
            backward.add(n)
        elif runnable(n):
            out.append(n)
    return out


@contextlib.contextmanager
def made_up_runs(nodes: List[fx.Node], names: Any
                 ) -> Iterator[List[Tuple[fx.Node, Any, Any]]]:
    """Real tensors for the ops among `nodes` whose names are in `names`: yields (node,
    args, kwargs) for each that ran once on made-up inputs of its recorded shapes, dtypes
    and strides (a warm-up: a first call may fill caches that stay; one that cannot run on
    such inputs is left out). Inside, fake tensors are off and gradients too, and random
    ops draw from a forked stream: the caller's random streams stay where they were."""
    from torch._subclasses.fake_tensor import unset_fake_temporarily
    devices = list(range(torch.cuda.device_count())) if torch.cuda.is_available() else []
    with unset_fake_temporarily(), torch.no_grad(), torch.random.fork_rng(devices=devices):
        runs = []
        for node in nodes:
            if node.name not in names:
                continue
            try:
                args, kwargs = pytree.tree_map(_materialize, (node.args, node.kwargs))
                node.target(*args, **kwargs)
            except Exception:  # noqa: BLE001 - such ops keep what the graph says
                continue
            runs.append((node, args, kwargs))
        yield runs


def time_ops(joint_module: fx.GraphModule, graph: Dict[str, Any], repeat: int = 5) -> int:
    """Time each forward op of `joint_module` (an ATen OpOverload, on fresh inputs of the
    recorded shapes, dtypes and strides) `repeat` times under torch.profiler and write the
    mean into `graph`'s node of the same name as `time_us`. Ops that cannot run on made-up
    inputs keep the roofline estimate. Returns the number of ops timed."""
    from torch.profiler import ProfilerActivity, profile, record_function

    by_name = {n["name"]: n for n in graph["nodes"]}
    with made_up_runs(_forward_ops(joint_module), by_name) as runs:
        activities = [ProfilerActivity.CPU]
        if any(_on_cuda(n) for n, _a, _k in runs):
            activities.append(ProfilerActivity.CUDA)
        with profile(activities=activities) as prof:
            for node, args, kwargs in runs:
                for _ in range(repeat):
                    with record_function("ilpart::" + node.name):
                        node.target(*args, **kwargs)
                if _on_cuda(node):
                    torch.cuda.synchronize()
    timed = 0
    for evt in prof.key_averages():
        if not evt.key.startswith("ilpart::"):
            continue
        name = evt.key[len("ilpart::"):]
        us = evt.device_time_total if getattr(evt, "device_time_total", 0) > 0 \
            else evt.cpu_time_total
        by_name[name]["time_us"] = round(us / max(evt.count, 1), 3)
        timed += 1
    return timed


def _on_cuda(node: fx.Node) -> bool:
    v = node.meta.get("val")
    vals = v if isinstance(v, (list, tuple)) else (v,)
    return any(isinstance(t, torch.Tensor) and t.device.type == "cuda" for t in vals)
