#!/usr/bin/env python3
"""offload_bench.py - what offloading saved values buys (issue 26; docs/solver.md "Offload"),
side by side: each figure with `--offload free` over the same figure with `--offload tags`
(today's partition), h100 profile, 25 GB/s host link.

  python3 bench/offload_bench.py [--ilpart build/ilpart] [--peak] [--pareto GRAPH] [GRAPH...]

Per graph (default: tests/data/corpus/*.json):
  bytes   least saved bytes on the device (memory objective): free / tags (<= 1 by
          construction: o = 0 is feasible), and the simulated exposed transfer time of
          the free answer
  budget  least recompute time within 0.3 (--bans none): free / tags of the model's time
          (recompute + transfer; '*': 0.3 is out of reach without offload, whose answer
          is then the least bytes over the budget, and within reach with it), and
          simulated over model (the model's transfer time is an upper bound: <= 1)
  peak    (--peak) least simulated peak: free / tags (<= 1 where both searches are
          proven; under the time limit either may stop higher, docs/solver.md "Offload")
--pareto GRAPH: device budgets from the least to the runtime optimum's bytes, 8 points,
the least model time without and with offload at each (a Pareto curve on the same axes;
'-': out of reach).
--big GRAPH (e.g. bench/corpus/transformer-48l.json): per objective (least device bytes,
least time within 10 GB and within 4 GB with --bans none, least peak) the solve with --offload tags and with
--offload free side by side in the same run: the objective's value, device bytes,
simulated peak, exposed transfer time, status and the solve's CPU seconds (user + sys of
the child), with free/tags ratios.
"""
import argparse
import glob
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def solve(ilpart, graph, args, limit):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    t0 = time.time()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([ilpart, "solve", graph, "-o", out, "--device", "h100",
                        "--offload-bw", "25e9", "--time-limit", str(limit)] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    secs = time.time() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if p.returncode != 0:
        os.unlink(out)
        return None, secs, p.stderr.strip().splitlines()[-1:]
    with open(out) as f:
        part = json.load(f)
    c = subprocess.run([ilpart, "check", graph, out], stdout=subprocess.PIPE,
                       universal_newlines=True)
    os.unlink(out)
    m = re.search(r"peak (\d+) bytes", c.stdout)
    part["_peak"] = int(m.group(1)) if m else None
    m = re.search(r"offloaded \d+ \((\d+) bytes\), transfer time exposed ([0-9.e+-]+) us",
                  c.stdout)
    part["_off"] = int(m.group(1)) if m else 0
    part["_exposed"] = float(m.group(2)) if m else 0.0
    part["_ok"] = c.returncode == 0
    part["_cpu"] = cpu
    return part, secs, None


def device_bytes(p):
    return p["cost"]["saved_bytes"] - p["_off"]


def ratio(a, b):
    return "-" if not b else "%.3f" % (a / b)


def pareto(ilpart, graph, limit):
    lo, _, _ = solve(ilpart, graph, ["--offload", "free", "--bans", "none"], limit)
    hi, _, _ = solve(ilpart, graph, ["--objective", "runtime", "--bans", "none"], limit)
    if lo is None or hi is None:
        print("pareto: no range")
        return
    a, b = device_bytes(lo), hi["cost"]["saved_bytes"]
    print("\n%s: device budget, least time without offload, with offload (us, model)"
          % os.path.basename(graph))
    print("%14s %14s %14s %8s" % ("budget_bytes", "tags_us", "free_us", "free/tags"))
    for k in range(8):
        bud = int(a + (b - a) * k / 7)
        t, _, _ = solve(ilpart, graph, ["--memory-budget", str(bud), "--bans", "none",
                                        "--offload", "tags"], limit)
        f, _, _ = solve(ilpart, graph, ["--memory-budget", str(bud), "--bans", "none",
                                        "--offload", "free"], limit)
        # a budget out of reach without offload has no point on its curve
        tv = t["producer"]["objective_value"] if t and not t["producer"].get("note") else None
        fv = f["producer"]["objective_value"] if f else None
        print("%14d %14s %14s %8s" % (bud, "-" if tv is None else "%.6g" % tv,
                                      "-" if fv is None else "%.6g" % fv,
                                      ratio(fv, tv) if fv is not None and tv else "-"))


def big(ilpart, graph, limit):
    """One graph, each objective with --offload tags and free side by side."""
    print("\n%s: --offload tags against free (h100, 25 GB/s, %gs limit per solve)"
          % (os.path.basename(graph), limit))
    print("%-8s %-5s %14s %12s %12s %11s %-10s %8s" % (
        "solve", "mode", "value", "device_B", "peak_B", "exposed_us", "status", "cpu_s"))
    # a byte budget (a fraction adds the no-worse-than-PyTorch peak solve, docs/solver.md)
    cases = [("bytes", []), ("budget", ["--memory-budget", "10GB", "--bans", "none"]),
             ("budget2", ["--memory-budget", "4GB", "--bans", "none"]),
             ("peak", ["--objective", "peak"])]
    for name, args in cases:
        res = {}
        for mode in ("tags", "free"):
            p, _, why = solve(ilpart, graph, args + ["--offload", mode], limit)
            res[mode] = p
            if p is None:
                print("%-8s %-5s failed: %s" % (name, mode, why))
                continue
            print("%-8s %-5s %14.6g %12d %12s %11.4g %-10s %8.1f%s" % (
                name, mode, p["producer"]["objective_value"], device_bytes(p),
                p["_peak"], p["_exposed"], p["producer"]["status"], p["_cpu"],
                "" if p["_ok"] else "  CHECK FAILED"))
            sys.stdout.flush()
        t, f = res["tags"], res["free"]
        if t and f:
            print("%-8s %-5s %14s %12s %12s %11s %-10s %8s" % (
                name, "f/t", ratio(f["producer"]["objective_value"],
                                   t["producer"]["objective_value"]),
                ratio(device_bytes(f), device_bytes(t)), ratio(f["_peak"], t["_peak"]),
                "", "", ratio(f["_cpu"], t["_cpu"])))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ilpart", default=os.path.join(TOP, "build", "ilpart"))
    ap.add_argument("--peak", action="store_true")
    ap.add_argument("--pareto")
    ap.add_argument("--big")
    ap.add_argument("--time-limit", type=float, default=60)
    ap.add_argument("graphs", nargs="*")
    a = ap.parse_args()
    if a.big:
        big(a.ilpart, a.big, a.time_limit)
        return
    graphs = a.graphs or sorted(glob.glob(os.path.join(TOP, "tests", "data", "corpus", "*.json")))
    print("%-22s %10s %10s %9s %11s | %9s %9s | %12s %12s %9s" % (
        "graph", "dev_tags", "dev_free", "free/tags", "exposed_us", "time f/t", "sim/model",
        "peak_tags", "peak_free", "free/tags"))
    for g in graphs:
        t, _, _ = solve(a.ilpart, g, ["--offload", "tags"], a.time_limit)
        f, _, _ = solve(a.ilpart, g, ["--offload", "free"], a.time_limit)
        bt, _, _ = solve(a.ilpart, g, ["--memory-budget", "0.3", "--bans", "none",
                                       "--offload", "tags"], a.time_limit)
        bf, _, _ = solve(a.ilpart, g, ["--memory-budget", "0.3", "--bans", "none",
                                       "--offload", "free"], a.time_limit)
        row = [os.path.basename(g)[:22]]
        if t and f:
            row += [str(device_bytes(t)), str(device_bytes(f)),
                    ratio(device_bytes(f), device_bytes(t)), "%.4g" % f["_exposed"]]
        else:
            row += ["-"] * 4
        if bt and bf:
            model = bf["producer"]["objective_value"]
            sim = bf["cost"]["recompute_time_us"] + bf["_exposed"]
            # '*': 0.3 is out of reach without offload (answered with the least bytes,
            # over the budget) and within reach with it: slower, but within the budget
            star = "*" if bt["producer"].get("note") and not bf["producer"].get("note") \
                else ""
            row += [star + ratio(model, bt["producer"]["objective_value"]), ratio(sim, model)]
        else:
            row += ["-", "-"]
        if a.peak:
            pt, _, _ = solve(a.ilpart, g, ["--objective", "peak", "--offload", "tags"],
                             a.time_limit)
            pf, _, _ = solve(a.ilpart, g, ["--objective", "peak", "--offload", "free"],
                             a.time_limit)
            row += [str(pt["_peak"]) if pt else "-", str(pf["_peak"]) if pf else "-",
                    ratio(pf["_peak"], pt["_peak"]) if pt and pf else "-"]
        else:
            row += ["-", "-", "-"]
        ok = all(p is None or p["_ok"] for p in (t, f, bt, bf))
        print("%-22s %10s %10s %9s %11s | %9s %9s | %12s %12s %9s%s" % (
            tuple(row) + ("" if ok else "  CHECK FAILED",)))
        sys.stdout.flush()
    if a.pareto:
        pareto(a.ilpart, a.pareto, a.time_limit)


if __name__ == "__main__":
    main()
