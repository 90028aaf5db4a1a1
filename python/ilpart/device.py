"""The cost model's device profile from the device a graph runs on."""

from typing import Any, Optional

__all__ = ["device_profile", "device_name", "device_field"]


def profile_for(device: Any) -> Optional[str]:
    """"cpu" for a CPU device, "h100"/"a100" for CUDA devices of those names (other CUDA
    devices: "h100", the CLI's default), None for meta or unknown devices."""
    import torch
    dev = torch.device(device)
    if dev.type == "cpu":
        return "cpu"
    if dev.type == "cuda":
        name = torch.cuda.get_device_name(dev).upper() if torch.cuda.is_available() else ""
        if "A100" in name or "A800" in name:
            return "a100"
        return "h100"
    return None


def device_profile(graph_module: Any) -> Optional[str]:
    """The profile for the device of the graph's tensor values (placeholders first; a CUDA
    tensor anywhere wins over CPU ones), or None when the graph has no tensor on a real
    device (meta)."""
    import torch
    found = None
    for n in graph_module.graph.nodes:
        v = n.meta.get("val")
        if isinstance(v, torch.Tensor):
            if v.device.type == "cuda":
                return profile_for(v.device)
            if found is None and v.device.type == "cpu":
                found = "cpu"
    return found


def device_name(graph_module: Any) -> Optional[str]:
    """Where the graph's tensor values live, as the graph file's "device" records it
    (docs/format.md): "cpu", "cuda:NAME" (torch.cuda.get_device_name, e.g. "cuda:NVIDIA
    A100-SXM4-80GB"; "cuda" when no CUDA device can be asked), "meta", another device
    type as torch names it; None when the graph has no tensor value. A CUDA tensor
    anywhere wins over CPU ones, as in device_profile."""
    import torch
    found = None
    for n in graph_module.graph.nodes:
        v = n.meta.get("val")
        if not isinstance(v, torch.Tensor):
            continue
        dev = v.device
        if dev.type == "cuda":
            try:
                return "cuda:%s" % torch.cuda.get_device_name(dev)
            except (RuntimeError, AssertionError):
                return "cuda"
        if found is None or (found == "meta" and dev.type != "meta"):
            found = dev.type
    return found


def device_field(graph_module: Any) -> dict:
    """{"device": device_name(...)} for the exported graph, or {} when unknown."""
    name = device_name(graph_module)
    return {} if name is None else {"device": name}
