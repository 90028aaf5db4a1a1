"""One partition for every rank when a graph may recompute a collective.

A collective runs only when every rank of its group runs it, in the same order. When the
SAC tags let ilpart recompute a collective (its own MUST_RECOMPUTE or PREFER_RECOMPUTE
tag, docs/policies.md), the backward graph runs it again, at a place that depends on the
rest of the partition. Proven answers are the same on every rank, but an answer cut
short by its time limit can differ from rank to rank (docs/solver.md "Which answers
depend on timing"), and two ranks running their recomputed collectives in different
orders wait for each other for ever.

So the bridge makes the ranks agree: on a graph with such a collective, every rank of
the collectives' process groups takes the partition of the lowest rank among them
(`all_gather_object` within each group, repeated once per group, which carries the
lowest rank's partition across meshes of several groups). The decision to agree is
read off the graph alone (the same on every rank of an SPMD program), never off the
partition, so every rank calls the same collectives. Graphs without such a collective,
and processes without torch.distributed, are left alone.
"""

from typing import Any, Dict, List, Optional, Tuple

import torch.fx as fx

from .runner import IlpartError

RECOMPUTE_TAGS = ("MUST_RECOMPUTE", "PREFER_RECOMPUTE")


def _dist():
    """torch.distributed when a default process group is up, else None."""
    try:
        import torch.distributed as dist
    except ImportError:
        return None
    if not dist.is_available() or not dist.is_initialized():
        return None
    return dist


def _resolve(name: str):
    try:
        from torch._C._distributed_c10d import _resolve_process_group
    except ImportError:
        return None
    try:
        return _resolve_process_group(name)
    except (RuntimeError, ValueError, TypeError):
        return None


def _group_of(node: fx.Node):
    """The process group a collective node names (the functional collectives' group_name
    argument), None when it names none (wait_tensor), "?" when it names one this
    process cannot resolve (a ProcessGroup among the graph's inputs, legacy c10d ops)."""
    args = list(node.args) + list(node.kwargs.values())
    strs = [a for a in args if isinstance(a, str)]
    for s in strs:
        pg = _resolve(s)
        if pg is not None:
            return pg
    if any(isinstance(a, fx.Node) and _script_object(a.meta.get("val")) for a in args):
        return "?"  # the group itself among the graph's inputs: not resolvable here
    return None


def _script_object(v) -> bool:
    return v is not None and type(v).__name__ in ("ScriptObject", "FakeScriptObject")


def recomputable_collective_groups(joint_module: fx.GraphModule,
                                   graph: Dict[str, Any]) -> Tuple[List[Any], List[str]]:
    """(the process groups of the graph's collectives that carry a recompute tag, in the
    order the graph first names them; the names of such collectives whose group cannot
    be told)."""
    tagged = {n["name"] for n in graph.get("nodes", ())
              if n.get("collective") and n.get("recompute") in RECOMPUTE_TAGS}
    groups, unknown, seen = [], [], set()
    if not tagged:
        return groups, unknown
    for node in joint_module.graph.nodes:
        if node.name not in tagged:
            continue
        pg = _group_of(node)
        if pg is None:
            continue
        if isinstance(pg, str):
            unknown.append(node.name)
            continue
        if id(pg) not in seen:
            seen.add(id(pg))
            groups.append(pg)
    return groups, unknown


def _names(part: Dict[str, Any]) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
    return tuple(sorted(part.get("saved", ()))), tuple(sorted(part.get("recomputed", ())))


def agree(joint_module: fx.GraphModule, graph: Dict[str, Any],
          part: Dict[str, Any]) -> Tuple[Dict[str, Any], Optional[Dict[str, Any]]]:
    """(the partition every rank uses, what agreeing did or None when nothing was to
    agree on). The dict: from_rank (whose partition), ranks (the groups' size, largest),
    own_differed (whether this rank's own answer was another partition), unknown (the
    collectives whose group could not be told: those ranks are not made to agree)."""
    dist = _dist()
    if dist is None:
        return part, None
    groups, unknown = recomputable_collective_groups(joint_module, graph)
    groups = [g for g in groups if dist.get_world_size(g) > 1]
    if not groups:
        return part, ({"from_rank": dist.get_rank(), "ranks": 1, "own_differed": False,
                       "unknown": unknown} if unknown else None)
    me = dist.get_rank()
    cand = (me, part)
    # aot_autograd partitions under its fake tensor mode: the exchange needs real tensors
    from torch.utils._python_dispatch import _disable_current_modes
    with _disable_current_modes():
        for _ in range(len(groups)):
            for g in groups:
                got: List[Any] = [None] * dist.get_world_size(g)
                dist.all_gather_object(got, cand, group=g)
                cand = min(got, key=lambda c: c[0])
    origin, agreed = cand
    names = {n["name"] for n in graph.get("nodes", ())}
    missing = [x for x in list(agreed.get("saved", ())) + list(agreed.get("recomputed", ()))
               if x not in names]
    if missing:
        raise IlpartError("rank %d: rank %d's partition names %s, which this rank's joint "
                          "graph does not have: the ranks traced different graphs and cannot "
                          "share a partition that recomputes a collective" % (
                              me, origin, missing[0]))
    return agreed, {"from_rank": origin,
                    "ranks": max(dist.get_world_size(g) for g in groups),
                    "own_differed": _names(agreed) != _names(part), "unknown": unknown}
