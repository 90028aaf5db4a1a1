"""Checking ilpart's Python options when they are given, not at the first compile.

ilpart.backend(...) and ilpart.partition_fn(...) call check_partition_options() when they
are made: a misspelt objective, a budget written as a percentage or a policy file that is
not there is a ValueError naming the argument and what it may be, before torch.compile
wraps anything in BackendCompilerFailed. Standard library only.
"""

import math
import numbers
import os
import re

__all__ = ["memory_budget_value", "time_budget_arg", "peak_budget_arg", "check_partition_options",
           "OBJECTIVES", "PREFER", "METHODS", "CODEGEN", "FRACTION_CAPS", "DEVICES"]

OBJECTIVES = ("memory", "runtime", "weighted", "peak")
PREFER = ("hard", "pytorch", "soft")
METHODS = ("ilp", "mincut")
CODEGEN = ("inductor", "eager")
FRACTION_CAPS = ("pytorch", "normalised")
DEVICES = ("h100", "a100", "cpu")
ON_MISS = ("solve", "mincut", "error")

# `--memory-budget` text: bytes with an optional unit, or a fraction with a decimal point
_BYTES = re.compile(r"^\d+(\.\d*)?([eE][+-]?\d+)?(b|k|kb|kib|m|mb|mib|g|gb|gib|t|tb|tib)?$",
                    re.IGNORECASE)
_NUMBER = r"(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?"
_DEVICE = re.compile(r"^%s:%s$" % (_NUMBER, _NUMBER))
_TIME = re.compile(r"^(%s)(s|ms|us)?$" % _NUMBER)


def _choice(arg, value, valid, none_ok=False):
    if value is None and none_ok:
        return
    if not isinstance(value, str) or value not in valid:
        raise ValueError("%s=%r: expected one of %s%s" % (
            arg, value, ", ".join(repr(v) for v in valid), " (or None)" if none_ok else ""))


def memory_budget_value(value, arg="memory_budget"):
    """A memory budget as the CLI takes it: a number in [0, 1] (int or float alike) is
    torch's activation_memory_budget fraction, returned as a float; a larger number is
    bytes, returned as an int (30.0 and 30 alike; it must be whole); a string is the
    CLI's text ("512MiB", "0.3"). A whole number from 2 to 100 is refused as the
    percentage it almost surely is ("did you mean 0.3?"). None stays None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, str)):
        raise ValueError("%s=%r: expected a fraction in [0, 1] (torch's "
                         "activation_memory_budget), bytes (an int > 100) or a string such "
                         "as '512MiB'" % (arg, value))
    if isinstance(value, str):
        v = value.strip()
        if not _BYTES.match(v):
            raise ValueError("%s=%r: expected bytes ('512MiB', '2GB', '1048576') or a "
                             "fraction with a decimal point ('0.3')" % (arg, value))
        if re.match(r"^[\d.eE+-]+$", v) and any(c in v for c in ".eE"):
            return memory_budget_value(float(v), arg)
        return v
    x = float(value)
    if not math.isfinite(x) or x < 0:
        raise ValueError("%s=%r: expected a number >= 0" % (arg, value))
    if x <= 1:
        return x
    if x <= 100 and x == int(x):
        raise ValueError("%s=%r: %g bytes is below what any joint graph saves; did you "
                         "mean %g (a fraction in [0, 1]), or a string with a unit such "
                         "as '%gMiB'?" % (arg, value, x, x / 100, x))
    if x != int(x):
        raise ValueError("%s=%r: bytes must be a whole number (a fraction is in [0, 1])"
                         % (arg, value))
    return int(x)


def time_budget_arg(value, memory_budget=None, arg="time_budget"):
    """`--time-budget` text for a time budget: seconds (int or float >= 0, or a string
    "4us", "2.5ms", "0.004"), "pytorch:F" (PyTorch's recompute time at
    activation_memory_budget F), or "pytorch": PyTorch's time at `memory_budget` (a
    fraction; None: 1.0, PyTorch's partition without a budget). None stays None."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError("%s=%r: expected seconds, 'pytorch' or 'pytorch:F'" % (arg, value))
    if isinstance(value, numbers.Real):
        x = float(value)
        if not math.isfinite(x) or x < 0:
            raise ValueError("%s=%r: expected seconds >= 0" % (arg, value))
        return repr(x)
    if not isinstance(value, str):
        raise ValueError("%s=%r: expected seconds, 'pytorch' or 'pytorch:F'" % (arg, value))
    v = value.strip()
    if v == "pytorch":
        f = 1.0 if memory_budget is None else memory_budget
        if not isinstance(f, float):
            raise ValueError("%s='pytorch' reads PyTorch's recompute time at the memory "
                             "budget's fraction, but memory_budget=%r is no fraction"
                             % (arg, memory_budget))
        return "pytorch:%r" % f
    if v.startswith("pytorch:"):
        try:
            f = float(v[8:])
        except ValueError:
            f = -1.0
        if not 0 <= f <= 1:
            raise ValueError("%s=%r: expected pytorch:F with F in [0, 1]" % (arg, value))
        return "pytorch:%r" % f
    if not _TIME.match(v):
        raise ValueError("%s=%r: expected seconds (0.004, '4us', '2.5ms'), 'pytorch' or "
                         "'pytorch:F'" % (arg, value))
    return v


def peak_budget_arg(value, arg="peak_budget"):
    """`--peak-budget` text for a peak budget: bytes, as an int (or a float that is a whole
    number) of at least 1, or a string with a unit as the CLI reads it ("512MiB", "2GB").
    A peak has no fraction form (PyTorch has no normalisation for it). None stays None."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError("%s=%r: expected bytes (an int, or a string such as '512MiB')"
                         % (arg, value))
    if isinstance(value, numbers.Real):
        x = float(value)
        if not math.isfinite(x) or x < 1 or x != int(x):
            raise ValueError("%s=%r: expected whole bytes >= 1 (a peak budget has no "
                             "fraction form)" % (arg, value))
        return str(int(x))
    v = value.strip() if isinstance(value, str) else ""
    if not _BYTES.match(v) or re.match(r"^[\d.]*\.[\d.]*$", v):
        raise ValueError("%s=%r: expected bytes (an int, or a string such as '512MiB'; a "
                         "peak budget has no fraction form)" % (arg, value))
    return v


def check_partition_options(objective=None, memory_budget=None, prefer="hard",
                            time_limit=None, policy=None, extra_args=None, method="ilp",
                            on_miss="solve", device=None, fraction_cap=None,
                            time_budget=None, codegen=None, peak_budget=None, **flags):
    """Raises ValueError naming the first bad argument of partition_fn/backend. Returns
    (memory_budget, time_budget) in the forms the CLI takes (memory_budget_value,
    time_budget_arg). flags: booleans (calibrate, reference, keep_history, ...)."""
    _choice("objective", objective, OBJECTIVES, none_ok=True)
    _choice("prefer", prefer, PREFER)
    _choice("method", method, METHODS)
    _choice("on_miss", on_miss, ON_MISS)
    _choice("fraction_cap", fraction_cap, FRACTION_CAPS, none_ok=True)
    if codegen is not None:
        _choice("codegen", codegen, CODEGEN)
    if device is not None and (not isinstance(device, str) or (
            device not in DEVICES and not _DEVICE.match(device))):
        raise ValueError("device=%r: expected %s or 'FLOPS:BYTES_PER_S' (e.g. "
                         "'989e12:3.35e12'), or None for the graph's own device"
                         % (device, ", ".join(repr(d) for d in DEVICES)))
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(
            time_limit, numbers.Real) or not float(time_limit) > 0):
        raise ValueError("time_limit=%r: expected seconds > 0 or None" % (time_limit,))
    if policy is not None and not os.path.isfile(os.fspath(policy)):
        raise ValueError("policy=%r: no such file" % (policy,))
    if extra_args is not None and (isinstance(extra_args, (str, bytes)) or
                                   not hasattr(extra_args, "__iter__")):
        raise ValueError("extra_args=%r: expected a list of CLI arguments" % (extra_args,))
    for name, v in flags.items():
        if v is not None and not isinstance(v, bool):
            raise ValueError("%s=%r: expected True or False" % (name, v))
    mb = memory_budget_value(memory_budget)
    tb = time_budget_arg(time_budget, mb)
    if tb is not None:
        if objective not in (None, "memory"):
            raise ValueError("time_budget=%r: the least saved bytes within a recompute "
                             "time is the memory objective, not objective=%r"
                             % (time_budget, objective))
        if method != "ilp":
            raise ValueError("time_budget=%r: an ILP option (method='ilp')" % (time_budget,))
        if mb is not None and not (isinstance(time_budget, str) and
                                   time_budget.strip() == "pytorch"):
            raise ValueError("time_budget=%r with memory_budget=%r: give one budget (or "
                             "time_budget='pytorch' to read PyTorch's time at that "
                             "fraction)" % (time_budget, memory_budget))
    pb = peak_budget_arg(peak_budget)
    if pb is not None:
        if objective not in (None, "runtime"):
            raise ValueError("peak_budget=%r: the least recompute time within a simulated "
                             "peak is the runtime objective, not objective=%r"
                             % (peak_budget, objective))
        if method != "ilp":
            raise ValueError("peak_budget=%r: an ILP option (method='ilp')" % (peak_budget,))
        if tb is not None:
            raise ValueError("peak_budget=%r with time_budget=%r: give one of them"
                             % (peak_budget, time_budget))
    if method == "mincut" and mb is not None and not isinstance(mb, float):
        raise ValueError("memory_budget=%r: method='mincut' takes a fraction only"
                         % (memory_budget,))
    return mb, tb
