"""Op workspace: the bytes an op allocates and frees again before it returns (oneDNN's
scratch in a convolution and its backward, batch norm's backward, cuDNN's workspace), above
its inputs and its output. The memory simulator counts a node's `workspace` field at the
op's step (docs/format.md, docs/partition.md "Peak memory"); this module measures it on
this machine, as `time_ops` measures run time. Used by the bridge (backend(calibrate=True))
and by ilpart.calibrate; it imports neither.

Each of PyTorch's own ops (aten, prims) in the joint graph, forward and backward, runs
once on made-up inputs of the recorded shapes, dtypes and strides (timing.made_up_runs,
after its warm-up call), each under its own profiler mark. The allocator's memory events
inside the mark give the op's high-water mark and what it still holds when it returns (its
output); the difference is the workspace. On CUDA the device's counters give the same. The
figure depends on the machine: the number of threads (oneDNN keeps scratch per thread),
the kernel library and the device.
"""

from typing import Any, Dict, List, Tuple

import torch
import torch.fx as fx

__all__ = ["measure_workspace", "trace_events"]


def _cuda_workspace(node: fx.Node, args: Any, kwargs: Any) -> int:
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    out = node.target(*args, **kwargs)
    torch.cuda.synchronize()
    top, end = torch.cuda.max_memory_allocated(), torch.cuda.memory_allocated()
    del out
    return max(0, top - end)


def trace_events(prof) -> List[Dict[str, Any]]:
    """The events of a finished profile, from its chrome trace (the memory events are
    there one by one, with their sizes and nanosecond times)."""
    import json
    import os
    import tempfile
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        with open(path) as f:
            trace = json.load(f)
    finally:
        os.unlink(path)
    return trace["traceEvents"] if isinstance(trace, dict) else trace


def _cpu_workspaces(runs: List[Tuple[fx.Node, Any, Any]]) -> Dict[str, int]:
    """Workspace of each CPU op of `runs`, from one profile: each op in its own mark, its
    output kept until the mark is closed."""
    from torch.profiler import ProfilerActivity, profile, record_function
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        for node, args, kwargs in runs:
            with record_function("ilpart::ws::" + node.name):
                out = node.target(*args, **kwargs)
            del out
    events = trace_events(prof)
    mem = sorted((e for e in events if e.get("name") == "[memory]"),
                 key=lambda e: (e["ts"], e["args"].get("Ev Idx", 0)))
    marks = sorted((e for e in events if e.get("ph") == "X" and
                    str(e.get("name", "")).startswith("ilpart::ws::")), key=lambda e: e["ts"])
    found, j = {}, 0
    for m in marks:
        t0, t1 = m["ts"], m["ts"] + m["dur"]
        while j < len(mem) and mem[j]["ts"] < t0:
            j += 1
        cur = top = 0
        while j < len(mem) and mem[j]["ts"] <= t1:
            cur += mem[j]["args"]["Bytes"]
            top = max(top, cur)
            j += 1
        if top > cur:
            found[m["name"][len("ilpart::ws::"):]] = top - cur
    return found


def measure_workspace(joint_module: fx.GraphModule, graph: Dict[str, Any]) -> int:
    """Measure each aten or prims op of `joint_module` (forward and backward) once on this
    machine and write what it allocates and frees before returning, above its output, into
    `graph`'s node of the same name as `workspace` (bytes; only where it is not 0). Ops that
    cannot run on made-up inputs are left without. Returns the number of nodes given one."""
    from .timing import _on_cuda, made_up_runs, runnable
    by_name = {n["name"]: n for n in graph["nodes"]}
    # PyTorch's own ops only (timing.runnable; collectives live in namespaces of their own)
    ops = [n for n in joint_module.graph.nodes if runnable(n)]
    with made_up_runs(ops, by_name) as ran:
        runs = [r for r in ran if not _on_cuda(r[0])]
        cuda = [r for r in ran if _on_cuda(r[0])]
        found = _cpu_workspaces(runs) if runs else {}
        for node, args, kwargs in cuda:
            found[node.name] = _cuda_workspace(node, args, kwargs)
    given = 0
    for name, b in sorted(found.items()):
        if b > 0:
            by_name[name]["workspace"] = int(b)
            given += 1
    return given
