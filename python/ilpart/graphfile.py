"""Joint-graph and partition files as dicts: canonical text, atomic writes, saved bytes.
Standard library only (usable where torch is not installed)."""

import json
import os
from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

PathLike = Union[str, "os.PathLike[str]"]

__all__ = ["dumps", "write_json", "read_json", "saved_bytes", "node_bytes",
           "untagged_in_regions"]


def read_json(path: PathLike) -> Any:
    with open(path) as f:
        return json.load(f)


def dumps(doc: Dict[str, Any]) -> str:
    """Canonical text of a graph or partition dict: keys in the order they were built (the
    order docs/format.md gives), one node per line, no trailing spaces, final newline."""
    if "nodes" not in doc:
        return json.dumps(doc, indent=1) + "\n"
    lines = ["{"]
    keys = list(doc)
    for i, k in enumerate(keys):
        comma = "," if i + 1 < len(keys) else ""
        if k == "nodes":
            lines.append(' "nodes": [')
            nodes = doc["nodes"]
            for j, n in enumerate(nodes):
                lines.append("  " + json.dumps(n) + ("," if j + 1 < len(nodes) else ""))
            lines.append(" ]" + comma)
        else:
            lines.append(" %s: %s%s" % (json.dumps(k), json.dumps(doc[k]), comma))
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_json(path: PathLike, doc: Dict[str, Any]) -> None:
    """Write dumps(doc) to `path` atomically (a temporary file renamed into place); a
    path that exists and is not a regular file (/dev/null, a FIFO) is written directly,
    never replaced."""
    path = os.fspath(path)
    if os.path.exists(path) and not os.path.isfile(path):
        with open(path, "w") as f:
            f.write(dumps(doc))
        return
    tmp = "%s.tmp%d" % (path, os.getpid())
    try:
        with open(tmp, "w") as f:
            f.write(dumps(doc))
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_graphs(graphs: List[Dict[str, Any]], path: Optional[PathLike],
                 description: Optional[str] = None) -> None:
    """Label `graphs` with `description` and write them: the first to `path`, the
    others to PATH-1.json, PATH-2.json, ... (one per compiled graph, e.g. after a
    graph break). Nothing is written when `path` is None."""
    for g in graphs:
        if description:
            g["description"] = description
    if path is None:
        return
    path = os.fspath(path)
    stem = path[:-5] if path.endswith(".json") else path
    for i, g in enumerate(graphs):
        write_json(path if i == 0 else "%s-%d.json" % (stem, i), g)


def saved_bytes(graph: Dict[str, Any], saved: Iterable[str]) -> int:
    """Bytes of a saved set as ilpart counts them: every storage once (views of one base
    share it), symbolic values 8 bytes, a parameter's or buffer's ("param") none."""
    by_name = {n["name"]: n for n in graph["nodes"]}
    roots = set()
    for name in saved:
        n = by_name[name]
        while "view_of" in n:
            n = by_name[n["view_of"]]
        roots.add(n["name"])
    return sum(node_bytes(by_name[r]) for r in roots if not by_name[r].get("param"))


_ITEMSIZE = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "f8e4m3fn": 1, "f8e4m3fnuz": 1,
             "f8e5m2": 1, "f8e5m2fnuz": 1, "c64": 8, "c128": 16, "i64": 8, "i32": 4,
             "i16": 2, "i8": 1, "u8": 1, "b8": 1}


def node_bytes(n: Dict[str, Any]) -> int:
    if "bytes" in n:
        return int(n["bytes"])
    if n.get("tuple"):
        return 0
    numel = 1
    for d in n["shape"]:
        numel *= d
    return numel * _ITEMSIZE[n["dtype"]]


# Ops that have no SAC tag of their own inside a region, by design: getitem (its tuple's
# tag holds) and what torch.utils.checkpoint's SAC_IGNORED_OPS passes through untagged
# (aten.detach, prim.device: AC adds different numbers of them in forward and recompute).
_SAC_NEVER_TAGS = ("getitem", "aten.detach.default", "prim.device.default")


def untagged_in_regions(graph: Dict[str, Any]) -> List[Tuple[str, str, Any]]:
    """Forward ops without a SAC tag that sit inside a checkpoint region: they carry the
    region's ac_graph_id, or they take an input from a tagged op of a region and feed a
    tagged op of the same region (typically ops a graph pass inserted after dynamo tagged
    the region). ilpart treats them as untagged, i.e. free to save or recompute. Ops
    torch's SAC never tags (detach, getitem) are not reported.
    Returns [(name, target, region)] in graph order."""
    nodes = graph["nodes"]
    if not any(n.get("recompute") or n.get("ac_graph_id") is not None for n in nodes):
        return []  # no region at all: the common case, without the passes below
    by_name = {n["name"]: n for n in nodes}
    users = {}
    for n in nodes:
        for i in n.get("inputs", ()):
            users.setdefault(i, []).append(n)
    backward = set()
    for n in nodes:
        if n["kind"] == "tangent" or any(i in backward for i in n.get("inputs", ())):
            backward.add(n["name"])

    def region(n):
        return n.get("ac_graph_id") if n.get("recompute") else None

    out = []
    for n in nodes:
        if n["kind"] != "op" or n["name"] in backward or n.get("recompute") \
                or n.get("target") in _SAC_NEVER_TAGS:
            continue
        rid = n.get("ac_graph_id")
        if rid is None:
            before = {region(by_name[i]) for i in n.get("inputs", ())} - {None}
            after = {region(u) for u in users.get(n["name"], ())} - {None}
            common = sorted(before & after)
            rid = common[0] if common else None
        if rid is not None:
            out.append((n["name"], n.get("target", ""), rid))
    return out
