"""Running the `ilpart` command from Python: no torch needed.

find_binary() locates the executable, solve() runs `ilpart solve` (or `ilpart mincut`) on a
joint graph and returns the partition file as a dict.
"""

import json
import os
import shutil
import subprocess
import tempfile
import warnings
from typing import Any, Dict, List, Optional, Sequence, Union

PathLike = Union[str, "os.PathLike[str]"]
# A memory budget: a float is PyTorch's activation_memory_budget fraction, an int bytes, a
# string anything `--memory-budget` takes ("512MiB").
Budget = Union[None, float, int, str]

__all__ = ["IlpartError", "IlpartWarning", "find_binary", "solve"]


class IlpartError(RuntimeError):
    """`ilpart` failed; .status is its exit status (2 input, 3 conflict, 4 no solution)."""

    def __init__(self, msg: str, status: Optional[int] = None) -> None:
        super().__init__(msg)
        self.status = status


class IlpartWarning(UserWarning):
    """Something ilpart did but the user probably did not mean (a policy rule that
    matches no op, an untagged op inside a checkpoint region)."""


def find_binary() -> str:
    """The ilpart executable: $ILPART_BIN, else the build tree next to this package
    (../../build/ilpart), else `ilpart` on PATH."""
    env = os.environ.get("ILPART_BIN")
    if env:
        if not os.access(env, os.X_OK) or os.path.isdir(env):
            raise IlpartError("ilpart binary not found: ILPART_BIN=%s is not an executable "
                              "file (build it with ./scripts/setup.sh build)" % env)
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    cand = os.path.normpath(os.path.join(here, "..", "..", "build", "ilpart"))
    if os.access(cand, os.X_OK):
        return cand
    found = shutil.which("ilpart")
    if found:
        return found
    raise IlpartError("ilpart binary not found: set ILPART_BIN or build with ./scripts/setup.sh")


def _args(command: str, objective: str, memory_budget: Budget, prefer: str,
          time_limit: Optional[float], policy: Optional[PathLike], extra: Optional[Sequence[Any]],
          device: Optional[str] = None, time_budget: Optional[str] = None) -> List[str]:
    """Options common to solve and mincut, then (solve only) the ILP's own."""
    args = ["--prefer", prefer]
    if device is not None:
        args += ["--device", str(device)]
    if policy is not None:
        args += ["--policy", os.fspath(policy)]
    args += [str(a) for a in (extra or ())]
    if command != "solve":
        if memory_budget is not None:
            # the min-cut takes torch's activation_memory_budget fraction only
            if not isinstance(memory_budget, float):
                raise ValueError("mincut: memory_budget must be a fraction (a float), not %r"
                                 % (memory_budget,))
            args += ["--memory-budget", repr(memory_budget)]
        return args
    args += ["--objective", objective]
    if time_budget is not None:
        # `--time-budget` as time_budget_arg() writes it ("4e-06", "pytorch:0.3")
        args += ["--time-budget", str(time_budget)]
    if memory_budget is not None:
        # A float is PyTorch's activation_memory_budget fraction ("0.0" .. "1.0"); an int
        # is bytes; a string ("512MiB") goes through as it is.
        if isinstance(memory_budget, float):
            memory_budget = repr(memory_budget)
        args += ["--memory-budget", str(memory_budget)]
    if time_limit is not None:
        args += ["--time-limit", str(time_limit)]
    return args


def solve(graph: Union[Dict[str, Any], PathLike], objective: str = "memory",
          memory_budget: Budget = None, prefer: str = "hard", time_limit: Optional[float] = None,
          policy: Optional[PathLike] = None, extra_args: Optional[Sequence[Any]] = None,
          binary: Optional[str] = None, command: str = "solve",
          device: Optional[str] = None, time_budget: Optional[str] = None) -> Dict[str, Any]:
    """Run `ilpart solve` on `graph` (a dict from export_graph, or a path) and return the
    partition file as a dict. command="mincut" runs ilpart's min-cut heuristic instead (it
    takes prefer, policy, device, extra_args and a fractional memory_budget, torch's
    activation_memory_budget; objective and time limit are ILP options). device: the cost
    model's profile (`--device`: h100, a100, cpu, FLOPS:BW). time_budget: `--time-budget`
    (least saved bytes with recompute time at most it; "pytorch:F" or seconds)."""
    binary = binary or find_binary()
    with tempfile.TemporaryDirectory(prefix="ilpart-") as tmp:
        if isinstance(graph, dict):
            gpath = os.path.join(tmp, "graph.json")
            with open(gpath, "w") as f:
                # dumps, not dump: one call of the C encoder (dump streams through the
                # pure-Python one); compact, the reader needs no whitespace
                f.write(json.dumps(graph, separators=(",", ":")))
        else:
            gpath = os.fspath(graph)
        ppath = os.path.join(tmp, "partition.json")
        argv = [binary, command, gpath, "-o", ppath]
        argv += _args(command, objective, memory_budget, prefer, time_limit, policy, extra_args,
                      device, time_budget)
        try:
            proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  universal_newlines=True)
        except OSError as e:
            raise IlpartError("cannot run the ilpart binary %s: %s" % (binary, e)) from e
        if proc.returncode != 0:
            err = proc.stderr.strip()
            if proc.returncode == 3 and "--prefer soft" in err:
                # the conflict's hint, in the bridge's terms
                err += ' (here: prefer="soft", e.g. ilpart.partition_fn(prefer="soft"))'
            raise IlpartError("%s failed (exit %d): %s" % (" ".join(argv[:2]), proc.returncode,
                                                           err), proc.returncode)
        for line in proc.stderr.splitlines():
            if line.startswith("ilpart: warning: "):
                warnings.warn(line[len("ilpart: warning: "):], IlpartWarning, stacklevel=2)
        with open(ppath) as f:
            return json.loads(f.read())
