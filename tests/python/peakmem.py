"""Measuring the peak memory of split forward/backward graphs on CPU, the way the memory
simulator (graph/memsim.c, docs/partition.md "Peak memory") models it: run the forward,
hand the saved values to the backward, run it with its arguments stolen (as AOTAutograd
does), and take the high-water mark of the bytes the CPU allocator handed out meanwhile,
from the profiler's memory events. Inputs (primals, tangents) are allocated before the
measurement starts, so, as in the simulator, they are not counted."""

import re

import torch


def make_inputs(jm, uniform=False):
    """Real values for the joint module's placeholders: (primals, tangents). A graph
    compiled with dynamic shapes has symbolic sizes: each symbol is bound to the size it
    had at capture (its hint), in a SymInt primal and in every tensor's shape alike.
    Floating-point values are normal, or with `uniform` in [0, 1) (graphs that read an
    index from a float, as torchvision's roi_align reads a box's image index unchecked:
    zoo.UNIFORM_INPUTS); integers are 0."""
    from ilpart.export import size_hint
    prim, tang = [], []
    g = torch.Generator().manual_seed(0)
    for n in jm.graph.find_nodes(op="placeholder"):
        v = n.meta.get("val")
        if isinstance(v, (torch.SymInt, torch.SymBool, torch.SymFloat)):
            t = {torch.SymInt: int, torch.SymBool: bool, torch.SymFloat: float}[type(v)](
                size_hint(v) if isinstance(v, torch.SymInt) else v.node.hint)
        else:
            shape = [size_hint(d) for d in v.shape]
            if v.dtype.is_floating_point:
                t = (torch.rand if uniform else torch.randn)(shape, dtype=v.dtype, generator=g)
            else:
                t = torch.zeros(shape, dtype=v.dtype)
        (tang if "tangents" in n.name else prim).append(t)
    return prim, tang


def backward_args(n_user_outputs, outs, tangents):
    """The backward's arguments from the forward's outputs `outs` and the tangents. The
    extraction hands the saved tensors first and the saved symbolic sizes last out of the
    forward, and takes the sizes first into the backward (AOTAutograd's ctx.symints, then
    ctx.saved_tensors), each in the same order."""
    saved = outs[n_user_outputs:]
    syms = [v for v in saved if not isinstance(v, torch.Tensor)]
    return syms + [v for v in saved if isinstance(v, torch.Tensor)] + list(tangents)


def boxed(gm):
    """gm's generated code taking one list of arguments and clearing it, so that a value
    is freed after its last use (what compiled backward functions do with
    steal_args=True)."""
    src = gm.code
    m = re.search(r"def forward\(self, ([^)]*)\):\n", src)
    params = m.group(1).strip()
    if ":" in params:
        raise RuntimeError("annotated placeholders: %s" % params)
    head = "def forward(self, args):\n    %s, = args\n    args.clear()\n" % params
    src = src[:m.start()] + head + src[m.end():]
    scope = dict(gm.forward.__globals__)
    exec(compile(src, "<boxed %s>" % type(gm).__name__, "exec"), scope)
    return scope["forward"].__get__(gm)


def trace_events(prof):
    """The events of a finished profile, from its chrome trace (ilpart.workspace's)."""
    from ilpart.workspace import trace_events as events
    return events(prof)


def _peak(prof):
    """High-water mark of the running sum of the allocator's memory events (the chrome
    trace has them one by one, with their sizes; frees of blocks allocated before the
    profile started are not reported)."""
    mem = sorted((e for e in trace_events(prof) if e.get("name") == "[memory]"),
                 key=lambda e: (e["ts"], e["args"].get("Ev Idx", 0)))
    cur = peak = 0
    for e in mem:
        cur += e["args"]["Bytes"]
        peak = max(peak, cur)
    return peak


def measure(fw, bw, n_user_outputs, primals, tangents):
    """Peak bytes allocated while fw then bw run; returns (peak, forward outputs, grads)."""
    run_bw = boxed(bw)
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        outs = list(fw(*primals))
        user = outs[:n_user_outputs]
        args = backward_args(n_user_outputs, outs, tangents)
        del outs
        grads = run_bw(args)
        del args
    return _peak(prof), user, grads
