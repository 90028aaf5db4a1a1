"""CPU-offload tags: torch's `CheckpointPolicy.MUST_CPU_OFFLOAD` / `PREFER_CPU_OFFLOAD`
(torch 2.14 has them; 2.6 does not).

torch defines them as saves: the op's output is saved in the forward, offloaded to CPU and
reloaded in the backward. ilpart's solver reads them as MUST_SAVE / PREFER_SAVE (never
recomputed; graph/region.h), and the bridge marks the tagged values so that torch's own
activation-offloading pass (torch._functorch._activation_offloading, what
min_cut_rematerialization_partition runs when torch._functorch.config.
enable_activation_offloading is on) offloads the ones ilpart saved:
`node.meta["should_offload"] = True`, the mark that pass looks for. With the switch off
the values are saved and stay where they are (an IlpartWarning says so); with it on, a
saved MUST_CPU_OFFLOAD value that torch's pass cannot offload (a view, a getitem, a
non-contiguous tensor, a model output) is an IlpartError naming the op.

With `ilpart solve --offload free` (extra_args=["--offload", "free"]) ilpart chooses which
saved values to offload (docs/solver.md "Offload"): the partition's "offloaded" list is
marked the same way; with "--offload none" the tags are not marked (their values stay
saved on the device). The host link the solve times transfers with is torch's own
torch._functorch.config.activation_offload_cpu_gpu_bw (GiB/s) unless the arguments give
--offload-bw.
"""

import operator
import warnings
from typing import Any, Dict, List, Optional, Sequence

import torch.fx as fx

from .export import _target_name
from .runner import IlpartError, IlpartWarning

__all__ = ["OFFLOAD_TAGS", "offload_tag", "offload_saved", "offload_bw_args"]

OFFLOAD_TAGS = ("MUST_CPU_OFFLOAD", "PREFER_CPU_OFFLOAD")


def _tag_name(p) -> Optional[str]:
    if p is None:
        return None
    return getattr(p, "name", None) or str(p).split(".")[-1]


def offload_tag(node: fx.Node) -> Optional[str]:
    """"MUST_CPU_OFFLOAD" or "PREFER_CPU_OFFLOAD" when `node` (or, for a getitem, its
    tuple) carries that SAC tag, else None."""
    name = _tag_name(node.meta.get("recompute"))
    if name is None and node.target is operator.getitem and node.args:
        parent = node.args[0]
        if isinstance(parent, fx.Node):
            name = _tag_name(parent.meta.get("recompute"))
    return name if name in OFFLOAD_TAGS else None


def offload_bw_args(args: Sequence[str]) -> List[str]:
    """["--offload-bw", B] with torch's activation_offload_cpu_gpu_bw in bytes/s when `args`
    ask `ilpart solve` for --offload and give no --offload-bw (and torch has the switch),
    else []."""
    args = [str(a) for a in args]
    if not any(a == "--offload" or a.startswith("--offload=") for a in args) or \
            any(a == "--offload-bw" or a.startswith("--offload-bw=") for a in args):
        return []
    from torch._functorch import config as fconfig
    gib = getattr(fconfig, "activation_offload_cpu_gpu_bw", None)
    if not isinstance(gib, (int, float)) or not gib > 0:
        return []
    return ["--offload-bw", repr(float(gib) * 1024 ** 3)]


def offload_saved(joint_module: fx.GraphModule, fw: fx.GraphModule, bw: fx.GraphModule,
                  num_fwd_outputs: int, static_lifetime_input_nodes: Sequence[fx.Node],
                  partition: Optional[Dict[str, Any]] = None) -> None:
    """Marks the values to offload in the forward module for torch's offloading pass (the
    offload-tagged ones, unless the partition was solved with --offload none, and those
    the partition's "offloaded" lists) and runs that pass when
    torch._functorch.config.enable_activation_offloading is on (as PyTorch's min-cut
    partitioner does after choosing). In place."""
    from torch._functorch import config as fconfig

    tagged: Dict[str, str] = {}
    part = partition or {}
    if part.get("options", {}).get("offload") != "none":
        for n in joint_module.graph.nodes:
            t = offload_tag(n)
            if t is not None:
                tagged[n.name] = t
    for name in part.get("offloaded", ()):
        tagged.setdefault(name, "ilpart --offload")
    for n in fw.graph.nodes:
        if n.name in tagged:
            n.meta["should_offload"] = True
    saved = [n.name for n in bw.graph.find_nodes(op="placeholder") if n.name in tagged]
    if not getattr(fconfig, "enable_activation_offloading", False):
        if saved:
            warnings.warn("%d saved value(s) tagged or chosen for CPU offload stay on their "
                          "device: "
                          "torch._functorch.config.enable_activation_offloading is off (%s)"
                          % (len(saved), ", ".join("%s (%s)" % (s, tagged[s])
                                                   for s in saved[:5])),
                          IlpartWarning, stacklevel=4)
        return
    from torch._functorch._activation_offloading.activation_offloading import (
        enable_activation_offloading)
    from torch.utils._ordered_set import OrderedSet
    enable_activation_offloading(fw, bw, num_fwd_outputs, OrderedSet(static_lifetime_input_nodes))
    by = {n.name: n for n in fw.graph.nodes}
    for s in saved:
        n = by.get(s)
        if tagged[s] == "ilpart --offload" and n is not None and \
                not n.meta.get("saved_for_offloading", False):
            warnings.warn("saved value '%s' (%s) that ilpart offloads stays on its device: "
                          "torch's activation offloading cannot offload it (a "
                          "non-contiguous tensor?)" % (s, _target_name(n)),
                          IlpartWarning, stacklevel=4)
        if tagged[s] == "MUST_CPU_OFFLOAD" and n is not None and \
                not n.meta.get("saved_for_offloading", False):
            raise IlpartError("op '%s' (%s) is tagged MUST_CPU_OFFLOAD and saved, but torch's "
                              "activation offloading cannot offload it (a view, getitem, "
                              "non-contiguous tensor or model output)" % (s, _target_name(n)))
