"""ilpart: optimal save/recompute partitioning of PyTorch autograd joint graphs.

    import ilpart
    ilpart.capture(model, x, path="model.json")     # then: ilpart solve model.json
    torch.compile(model, backend=ilpart.backend())    # train with ilpart's partition

See docs/python.md. torch is imported lazily, on first use of a name below, so that
submodules that do not need it (ilpart.plot) work where torch is not installed.
"""

import importlib

_EXPORTS = {
    "export_graph": "export", "prepare_joint": "export", "reference_saved": "export",
    "partition_fn": "bridge", "capture": "bridge", "backend": "bridge",
    "nop_compiler": "bridge", "solve": "runner", "split_modules": "bridge",
    "find_binary": "runner", "saved_bytes": "graphfile", "IlpartError": "runner",
    "IlpartWarning": "runner", "calibrate": "calibration", "untagged_in_regions": "graphfile",
    "dumps": "graphfile", "write_json": "graphfile", "read_json": "graphfile",
    "Store": "store", "store_solver": "store", "budget_in_effect": "bridge",
    "reference_name": "export", "history": "bridge", "measure_workspace": "workspace",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    mod = _EXPORTS.get(name)
    if mod is None:
        raise AttributeError("module 'ilpart' has no attribute %r" % name)
    value = getattr(importlib.import_module("." + mod, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + __all__)
