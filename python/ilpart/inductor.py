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
from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple

import torch
import torch.fx as fx

from .runner import IlpartError

__all__ = ["inductor_compiler", "custom_partitioner"]

PartitionFn = Callable[..., Tuple[fx.GraphModule, fx.GraphModule]]


@contextlib.contextmanager
def _partitioner_installed(partition: PartitionFn, key: str) -> Iterator[None]:
    """Make compile_fx partition joint graphs with `partition` inside the block."""
    import torch._functorch.config as functorch_config
    import torch._inductor.compile_fx as compile_fx
    import torch._inductor.config as inductor_config

    # AOTAutograd's cache could return a partition made by another partitioner for the same
    # joint graph: off while ilpart partitions (it is off by default in torch 2.6).
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


def custom_partitioner(partition: PartitionFn, key: Optional[str] = None) -> Any:
    """`partition` (an aot_autograd partition_fn, e.g. ilpart.partition_fn()) as the
    `CustomPartitionerFn` that newer Inductor configs take
    (`torch._inductor.config.custom_partitioner_fn`). Inductor calls it as
    `fn(gm, joint_inputs, compiler="inductor", static_lifetime_input_indices=..., **kwargs)`;
    the first two keywords are min-cut's and are dropped. Its uuid keys Inductor's caches:
    `key` (default: the partition function's name and id) names ilpart's configuration, so
    another one misses. Needs a torch that has CustomPartitionerFn (not 2.6)."""
    if key is None:
        key = "%s %d" % (getattr(partition, "__qualname__", ""), id(partition))
    return _custom_fn(partition, key)


def _custom_fn(partition: PartitionFn, key: str) -> Any:
    from torch._inductor.custom_graph_pass import CustomPartitionerFn

    class IlpartPartitioner(CustomPartitionerFn):
        def __call__(self, gm: fx.GraphModule, joint_inputs: Any,
                     **kwargs: Any) -> Tuple[fx.GraphModule, fx.GraphModule]:
            kwargs.pop("compiler", None)
            kwargs.pop("static_lifetime_input_indices", None)
            return partition(gm, joint_inputs, **kwargs)

        def uuid(self) -> Any:
            return hashlib.sha256(("ilpart " + key).encode()).hexdigest()

    return IlpartPartitioner()


def inductor_compiler(partition: PartitionFn) -> Callable[[fx.GraphModule, List[Any]], Any]:
    """A torch.compile backend: Inductor exactly as `torch.compile(model)` runs it, with
    `partition` (an aot_autograd partition_fn) choosing what the backward recomputes."""
    from torch._inductor.compile_fx import compile_fx, compile_fx_inner

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

        key = "%s %d" % (getattr(partition, "__qualname__", ""), id(partition))
        with _partitioner_installed(counted_partition, key):
            out = compile_fx(gm, example_inputs, inner_compile=inner_compile)
        if calls["training"] and not calls["partition"]:
            raise IlpartError("this torch's Inductor (%s) compiled a training graph without "
                              "calling ilpart's partitioner; use codegen=\"eager\""
                              % torch.__version__)
        return out

    return backend
