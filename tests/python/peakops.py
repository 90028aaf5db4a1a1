"""Where the measured peak of a real model's split graphs exceeds the simulated one, op by
op (a diagnostic run by hand, not a test; docs/python.md "Simulated and measured peak").

    python3 peakops.py MODEL VARIANT [PARTITION] [--no-mkldnn]
    python3 peakops.py --mm

MODEL and VARIANT as test_realmodels.py names them (zoo.py; set ILPART_REALMODELS_MODELS
for the models outside zoo.MODELS), PARTITION one of pytorch@1, pytorch@0.5, pytorch@0.3,
pytorch@0.1, ilpart (default: all). For each partition of each joint graph it prints the
simulated peak (`ilpart check`), the measured one (peakmem.measure), the highest count of
bytes live between two ops, the op the measured peak falls in with the allocations live
there, and the ops that allocate memory they free before returning (workspace: bytes
above what is live when the op returns), largest first. Each op of the split graphs runs
inside a profiler `record_function` opened by a dispatch mode, and the allocator's memory
events of the chrome trace are assigned to the op whose interval holds them.
--no-mkldnn measures with torch.backends.mkldnn disabled (simulated and measured only).
--mm prints the workspace of one CPU `torch.mm` alone per dtype, shape (M, K, N) and layout
(the first or the second operand a transposed view), and of bfloat16 with oneDNN off."""

import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile, record_function
from torch.utils._python_dispatch import TorchDispatchMode

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peakmem  # noqa: E402


class _Mark(TorchDispatchMode):
    """Wraps the k-th dispatched op in record_function("op|k|NAME|OP|SHAPES"), NAME the
    k-th ATen op node of the graphs run (getitem is Python's, not dispatched)."""

    def __init__(self, names):
        super().__init__()
        self.names, self.k = names, 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = self.names[self.k] if self.k < len(self.names) else "?"
        self.k += 1
        shapes = ";".join("%s%s/%s" % (str(a.dtype).replace("torch.", ""), list(a.shape),
                                       list(a.stride()))
                          for a in args if isinstance(a, torch.Tensor))
        with record_function("op|%d|%s|%s|%s" % (self.k - 1, name, func, shapes)):
            return func(*args, **(kwargs or {}))


def _aten_nodes(gm):
    return [n.name for n in gm.graph.nodes
            if n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload)]


def measure_ops(fw, bw, n_out, primals, tangents):
    """peakmem.measure's run, op by op: (peak, index of the peak event, memory events,
    running totals, one dict per op: name, op, before, peak, after, events)."""
    run_bw = peakmem.boxed(bw)
    names = ["fw:" + n for n in _aten_nodes(fw)] + ["bw:" + n for n in _aten_nodes(bw)]
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        with _Mark(names):
            outs = list(fw(*primals))
            args = outs[n_out:] + list(tangents)
            del outs
            run_bw(args)
            del args
    ev = peakmem.trace_events(prof)
    mem = sorted((e for e in ev if e.get("name") == "[memory]"),
                 key=lambda e: (e["ts"], e["args"].get("Ev Idx", 0)))
    marks = sorted((e for e in ev if e.get("ph") == "X" and e.get("name", "").startswith("op|")),
                   key=lambda e: e["ts"])
    cpu_ops = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "cpu_op"
               and not e["name"].startswith("op|")]
    total, cur = [], 0
    for e in mem:
        cur += e["args"]["Bytes"]
        total.append(cur)
    rows, j = [], 0
    for m in marks:
        t0, t1 = m["ts"], m["ts"] + m["dur"]
        while j < len(mem) and mem[j]["ts"] < t0:
            j += 1
        before = total[j - 1] if j else 0
        k, top = j, before
        while k < len(mem) and mem[k]["ts"] <= t1:
            top = max(top, total[k])
            k += 1
        _, _, name, op, shapes = m["name"].split("|", 4)
        rows.append({"name": name, "op": "%s %s" % (op, shapes), "before": before, "peak": top,
                     "after": total[k - 1] if k else 0, "events": range(j, k)})
    peak = max(total) if total else 0
    return peak, total.index(peak) if total else -1, mem, cpu_ops, rows


def _innermost(cpu_ops, ts):
    best = None
    for o in cpu_ops:
        if o["ts"] <= ts <= o["ts"] + o["dur"] and (best is None or o["dur"] < best["dur"]):
            best = o
    return best["name"] if best else "?"


def report(sim, where, measured, res, limit=8):
    peak, ipk, mem, cpu_ops, rows = res
    between = max(max(r["before"], r["after"]) for r in rows) if rows else 0
    print("  simulated %d (%s), measured %d (%+d, %+.2f%%); under the dispatch mode: peak %d, "
          "most bytes live between ops %d" % (sim, where, measured, measured - sim,
                                               100.0 * (measured - sim) / max(sim, 1), peak,
                                               between))
    for r in rows:
        if ipk in r["events"]:
            print("  peak inside %s (%s): %d before, %d at the peak, %d after"
                  % (r["name"], r["op"], r["before"], r["peak"], r["after"]))
            live = {}
            for k in r["events"]:
                if k > ipk:
                    break
                a = mem[k]["args"]
                if a["Bytes"] > 0:
                    live[a["Addr"]] = (a["Bytes"], _innermost(cpu_ops, mem[k]["ts"]))
                else:
                    live.pop(a["Addr"], None)
            for size, op in live.values():
                print("    allocated inside it, live at the peak: %d bytes in %s" % (size, op))
    ws = sorted((r for r in rows if r["peak"] > r["after"]), key=lambda r: r["after"] - r["peak"])
    for r in ws[:limit]:
        print("  workspace %7d in %-26s %s (%d before, %d at its peak, %d after)"
              % (r["peak"] - r["after"], r["name"], r["op"], r["before"], r["peak"], r["after"]))


def _alone(fn):
    """(output bytes, workspace bytes) of fn() run alone under the profiler: the output is
    what is still allocated when it returns, the workspace what it held above that."""
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        out = fn()
    del out
    cur = top = 0
    for e in sorted((e for e in peakmem.trace_events(prof) if e.get("name") == "[memory]"),
                    key=lambda e: (e["ts"], e["args"].get("Ev Idx", 0))):
        cur += e["args"]["Bytes"]
        top = max(top, cur)
    return cur, top - cur


def mm_table():
    shapes = ((32, 32, 32), (32, 32, 64), (32, 64, 32), (64, 32, 32), (128, 32, 32),
              (32, 128, 32), (32, 32, 128), (128, 128, 128), (256, 256, 256))
    print("torch %s, oneDNN %s, %d thread(s)" % (torch.__version__,
                                                torch.backends.mkldnn.is_available(),
                                                torch.get_num_threads()))
    for dt in (torch.bfloat16, torch.float16, torch.float32):
        for m, k, n in shapes:
            row = []
            for ta, tb in ((0, 0), (1, 0), (0, 1)):
                a = torch.randn(k, m, dtype=dt).t() if ta else torch.randn(m, k, dtype=dt)
                b = torch.randn(n, k, dtype=dt).t() if tb else torch.randn(k, n, dtype=dt)
                row.append(_alone(lambda: torch.mm(a, b))[1])
            print("  %-8s M %3d K %3d N %3d: workspace %6d, first transposed %6d, second "
                  "transposed %6d" % (str(dt).replace("torch.", ""), m, k, n, *row))
    a = torch.randn(32, 32, dtype=torch.bfloat16)
    with torch.backends.mkldnn.flags(enabled=False):
        print("  bfloat16 M  32 K  32 N  32, oneDNN off: workspace %d"
              % _alone(lambda: torch.mm(a, a))[1])


def main(argv):
    if argv == ["--mm"]:
        mm_table()
        return
    import test_peak
    import test_realmodels as T
    from ilpart.bridge import split_modules
    no_mkldnn = "--no-mkldnn" in argv
    argv = [a for a in argv if a != "--no-mkldnn"]
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    name, variant = argv[:2]
    only = argv[2] if len(argv) == 3 else None
    c = T.case(name, variant)
    for i, ((jm, n_out), path) in enumerate(zip(c.joints, c.paths)):
        prim, tang = peakmem.make_inputs(jm)
        parts = [("pytorch@%s" % (f or 1), {"format": "ilpart-partition", "version": 1,
                                            "producer": {"prefer": "pytorch"},
                                            "saved": c.reference(f)[i]})
                 for f in (None,) + T.BUDGETS if c.reference(f)[i] is not None]
        parts.append(("ilpart", c.history[i]["partition"]))
        for label, p in parts:
            if only and label != only:
                continue
            head = "%s/%s graph %d %s" % (name, variant, i, label)
            try:
                sim, where = test_peak.simulated(path, p)
            except AssertionError as e:
                print("%s: not simulated: %s" % (head, str(e).strip()[-100:]))
                continue
            fw, bw = split_modules(jm, p["saved"], n_out, functionalize_rng=False)
            if no_mkldnn:
                with torch.backends.mkldnn.flags(enabled=False):
                    meas = peakmem.measure(fw, bw, n_out, prim, tang)[0]
                print("%s, oneDNN off: simulated %d, measured %d (%+d)"
                      % (head, sim, meas, meas - sim))
                continue
            meas = peakmem.measure(fw, bw, n_out, prim, tang)[0]
            print(head)
            try:
                ops = measure_ops(fw, bw, n_out, prim, tang)
            except RuntimeError as e:
                # an op that fails only under the dispatch mode: the other graphs go on
                print("  not measured op by op: %s" % str(e).strip().splitlines()[-1][:160])
                continue
            report(sim, where, meas, ops)


if __name__ == "__main__":
    main(sys.argv[1:])
