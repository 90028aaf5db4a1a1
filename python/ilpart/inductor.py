"""Inductor with ilpart's partition: torch.compile's default path, min-cut swapped out.

`inductor_compiler(pf)` is a dynamo backend that runs `torch._inductor.compile_fx.compile_fx`
itself — Inductor's pre-grad passes, its decomposition table, AOTAutograd with Inductor's
forward/backward/inference compilers (`compile_fx_inner`, boxed calling convention, the
joint-graph passes before partitioning, the post-grad passes after) — and hands the joint
graph to `pf` where compile_fx would call `min_cut_rematerialization_partition`.

torch 2.6 has no setting for that: compile_fx's partition step calls the module-level name
`min_cut_rematerialization_partition`, which is replaced for the duration of the compile.
Newer torch releases read `torch._inductor.config.custom_partitioner_fn` (a
`CustomPartitionerFn`) instead; where that setting exists it is used. Either way the compile
fails with IlpartError if a joint graph was compiled without `pf` being called, so a torch
whose Inductor partitions some other way never trains silently with min-cut.
"""

import contextlib
import hashlib
import json
import os
import subprocess
import weakref
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import torch
import torch.fx as fx

from .runner import IlpartError, find_binary

__all__ = ["inductor_compiler", "custom_partitioner", "cache_key"]

PartitionFn = Callable[..., Tuple[fx.GraphModule, fx.GraphModule]]


@contextlib.contextmanager
def _partitioner_installed(partition: PartitionFn, key: str) -> Iterator[None]:
    """Make compile_fx partition joint graphs with `partition` inside the block."""
    import torch._functorch.config as functorch_config
    import torch._inductor.compile_fx as compile_fx
    import torch._inductor.config as inductor_config

    # AOTAutograd's cache could return a partition made by another partitioner for the same
    # joint graph, or an answer ilpart's store has since improved, and would skip the
    # partitioner (and its check below): off while ilpart partitions (off by default in
    # torch 2.6). Inductor's FX graph cache keys the partitioned graphs and stays on.
    no_cache = functorch_config.patch(enable_autograd_cache=False)
    if hasattr(inductor_config, "custom_partitioner_fn"):
        with no_cache, inductor_config.patch(custom_partitioner_fn=_custom_fn(partition, key)):
            yield
        return

    def min_cut_stand_in(joint: fx.GraphModule, joint_inputs: Any, compiler: str = "inductor",
                         **kwargs: Any) -> Tuple[fx.GraphModule, fx.GraphModule]:
        return partition(joint, joint_inputs, **kwargs)

    saved = compile_fx.min_cut_rematerialization_partition
    compile_fx.min_cut_rematerialization_partition = min_cut_stand_in
    try:
        with no_cache:
            yield
    finally:
        compile_fx.min_cut_rematerialization_partition = saved


_versions: Dict[str, str] = {}


def _binary_version(binary: Optional[str]) -> str:
    """The ilpart binary's `--version` line ("ilpart 0.1.0"), once per binary."""
    path = binary or find_binary()
    if path not in _versions:
        try:
            out = subprocess.run([path, "--version"], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, universal_newlines=True, check=True)
        except (OSError, subprocess.CalledProcessError) as e:
            raise IlpartError("%s --version failed: %s" % (path, e)) from e
        _versions[path] = out.stdout.strip().splitlines()[0] if out.stdout.strip() else ""
    return _versions[path]


def _file_digest(path: Any) -> Optional[str]:
    try:
        with open(os.fspath(path), "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def cache_key(partition: PartitionFn) -> str:
    """What Inductor's caches key ilpart's partitioner by: for a partition function made by
    ilpart.partition_fn, its options (a policy file by its content, a store by its path)
    and the ilpart binary's version, so another configuration or another ilpart misses and
    the same one hits, also in another process. Another partition function is keyed by
    its name and id (hits within one process only)."""
    opts = getattr(partition, "options", None)
    if not isinstance(opts, dict):
        return "%s.%s %d" % (getattr(partition, "__module__", ""),
                             getattr(partition, "__qualname__", ""), id(partition))
    opts = dict(opts)
    if opts.get("policy") is not None:
        opts["policy"] = [os.fspath(opts["policy"]), _file_digest(opts["policy"])]
    if opts.get("store") is not None:
        opts["store"] = os.path.abspath(os.fspath(opts["store"]))
    return json.dumps({"ilpart": _binary_version(opts.get("binary")), "options": opts},
                      sort_keys=True, default=repr)


# Live partitioners by key: what a pickled one (Inductor pickles its config into the FX
# graph cache's key) refers to.
_live: "weakref.WeakValueDictionary[str, Any]" = weakref.WeakValueDictionary()


def _live_partitioner(key: str) -> Any:
    fn = _live.get(key)
    if fn is None:
        raise IlpartError("no ilpart partitioner with key %s in this process (an ilpart "
                          "custom_partitioner_fn pickles by reference, for Inductor's cache "
                          "key; make it with ilpart.inductor.custom_partitioner)" % key[:200])
    return fn


def custom_partitioner(partition: PartitionFn, key: Optional[str] = None) -> Any:
    """`partition` (an aot_autograd partition_fn, e.g. ilpart.partition_fn()) as the
    `CustomPartitionerFn` that newer Inductor (torch 2.14) takes
    (`torch._inductor.config.custom_partitioner_fn`). Inductor calls it as
    `fn(gm, joint_inputs, compiler="inductor", static_lifetime_input_indices=..., **kwargs)`;
    `compiler` (min-cut's) is dropped, the rest reaches `partition`. Its uuid, and its
    pickle (Inductor pickles its config into the FX graph cache key), is `key`, default
    cache_key(partition): equal for equal ilpart configurations. Needs a torch that has
    CustomPartitionerFn (not 2.6)."""
    return _custom_fn(partition, cache_key(partition) if key is None else key)


def _custom_fn(partition: PartitionFn, key: str) -> Any:
    from torch._inductor.custom_graph_pass import CustomPartitionerFn

    global _Partitioner
    if _Partitioner is None:
        class IlpartPartitioner(CustomPartitionerFn):
            """ilpart's partition as Inductor's custom_partitioner_fn."""

            def __init__(self, partition: PartitionFn, key: str) -> None:
                self.partition = partition
                self.key = key

            def __call__(self, gm: fx.GraphModule, joint_inputs: Any,
                         **kwargs: Any) -> Tuple[fx.GraphModule, fx.GraphModule]:
                kwargs.pop("compiler", None)
                return self.partition(gm, joint_inputs, **kwargs)

            def uuid(self) -> Any:
                return hashlib.sha256(("ilpart " + self.key).encode()).hexdigest()

            def __reduce__(self) -> Any:
                return (_live_partitioner, (self.key,))

        IlpartPartitioner.__module__ = __name__
        IlpartPartitioner.__qualname__ = "IlpartPartitioner"
        _Partitioner = IlpartPartitioner
    fn = _Partitioner(partition, key)
    _live[key] = fn
    return fn


_Partitioner: Any = None


def inductor_compiler(partition: PartitionFn) -> Callable[[fx.GraphModule, List[Any]], Any]:
    """A torch.compile backend: Inductor exactly as `torch.compile(model)` runs it, with
    `partition` (an aot_autograd partition_fn) choosing what the backward recomputes."""
    from torch._inductor.compile_fx import compile_fx, compile_fx_inner

    keys: List[str] = []

    def backend(gm: fx.GraphModule, example_inputs: Sequence[Any]) -> Any:
        calls = {"partition": 0, "training": 0}

        def counted_partition(joint: fx.GraphModule, joint_inputs: Any,
                              **kwargs: Any) -> Tuple[fx.GraphModule, fx.GraphModule]:
            calls["partition"] += 1
            return partition(joint, joint_inputs, **kwargs)

        def inner_compile(g: fx.GraphModule, inputs: Sequence[Any], **kwargs: Any) -> Any:
            if not kwargs.get("is_inference") and not kwargs.get("is_backward"):
                calls["training"] += 1
            return compile_fx_inner(g, inputs, **kwargs)

        if not keys:  # at the first compile: a missing binary fails inside torch.compile
            keys.append(cache_key(partition))
        with _partitioner_installed(counted_partition, keys[0]):
            out = compile_fx(gm, example_inputs, inner_compile=inner_compile)
        if calls["training"] and not calls["partition"]:
            raise IlpartError("this torch's Inductor (%s) compiled a training graph without "
                              "calling ilpart's partitioner; use codegen=\"eager\""
                              % torch.__version__)
        return out

    return backend
