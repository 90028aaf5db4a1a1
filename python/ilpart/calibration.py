"""Measured op costs: every forward op of a joint graph timed on this machine with PyTorch's
profiler, written into the exported graph as `time_us` (docs/format.md), which the cost
model uses in place of its roofline estimate. This is what PyTorch's profile-based runtime
estimator (activation_memory_budget_runtime_estimator="profile") does for its knapsack, on
whatever device the graph runs on. Every op, forward and backward, also gets its measured
`workspace` (ilpart.workspace): the bytes it allocates and frees while it runs, which the
peak memory counts at its step.

    graphs = ilpart.calibrate(model, x, path="model.json")    # capture + measure
    torch.compile(model, backend=ilpart.backend(objective="runtime", memory_budget=0.5,
                                                calibrate=True))  # measure at compile time
"""

from typing import Any, Dict, List, Optional

import torch
import torch.fx as fx

from .timing import time_ops
from .workspace import measure_workspace

__all__ = ["calibrate", "time_ops"]


def calibrate(model_or_fn: Any, *example_inputs: Any, path: Optional[str] = None,
              repeat: int = 5, reference: bool = True, description: Optional[str] = None,
              **example_kwargs: Any) -> List[Dict[str, Any]]:
    """capture() with measured costs: compile `model_or_fn` once on the example inputs,
    export each joint graph, time its forward ops on this machine (time_ops), measure every
    op's workspace (measure_workspace: what it allocates and frees while it runs) and return
    the graphs; with `path`, write them as capture() does (PATH, PATH-1.json, ...)."""
    import torch._dynamo
    from torch._functorch.partitioners import min_cut_rematerialization_partition

    from .bridge import _counting, backend, no_joint_graph_error
    from .export import export_graph, prepare_joint
    from .graphfile import write_graphs

    graphs: List[Dict[str, Any]] = []

    def pf(joint_module: fx.GraphModule, joint_inputs: Any, *, num_fwd_outputs: int,
           **kwargs: Any) -> Any:
        jm = prepare_joint(joint_module, num_fwd_outputs)
        g = export_graph(jm, num_fwd_outputs, reference=reference, joint_inputs=joint_inputs,
                         prepare=False)
        time_ops(jm, g, repeat)
        measure_workspace(jm, g)
        graphs.append(g)
        return min_cut_rematerialization_partition(jm, joint_inputs,
                                                   num_fwd_outputs=num_fwd_outputs, **kwargs)

    torch._dynamo.reset()
    be = _counting(backend(partition=pf, codegen="eager"))
    torch.compile(model_or_fn, backend=be)(*example_inputs, **example_kwargs)
    torch._dynamo.reset()
    if not graphs:
        raise no_joint_graph_error("calibrate", be.graphs)
    write_graphs(graphs, path, description)
    return graphs
