"""The partition call, side by side: ilpart's bridge against PyTorch's own partitioner on the
same joint graph (issue 22, acceptance).

For each model, torch.compile(model) runs Inductor's path up to its partition step; there the
joint graph Inductor hands its partitioner (its decompositions, its joint-graph passes) is
partitioned by each side once untimed, then --rounds times alternately (the order swapping
every round, each call on a fresh deepcopy of the graph made outside the timing, after a
full garbage collection outside the timing: each call pays for the collections its own
allocations cause, not for a full collection of the other side's garbage that happens to
fall due within it, which made single rounds 4-5x slower on either side), and the compile
stops (no code generation by Inductor). Each timed call includes generating the Python code
of the two modules it returns (torch.fx's lazy modules would otherwise defer it past the
call, as both sides' modules can be). Times are CPU time of the process and its children
(ilpart's solve is a child process), so that other processes on a shared machine disturb
them less than wall time; the wall-time ratio is shown too:

  pytorch   torch._functorch.partitioners.min_cut_rematerialization_partition(gm,
            joint_inputs, compiler="inductor", num_fwd_outputs=..., static_lifetime_input_
            indices=...) — exactly the call Inductor makes
  ilpart    ilpart.partition_fn()(gm, joint_inputs, num_fwd_outputs=...) — the bridge's whole
            call: DCE/CSE, export to the graph format, `ilpart solve` (a child process: the
            least-bytes ILP, proven), lowering to forward/backward modules with PyTorch's
            extraction and the autograd-order backward
  export/solve/lower   the three parts of ilpart's call, timed separately in the same round

Models: tests/python/zoo.py (transformers' GPT-2, Llama, Qwen2, BERT, T5, torchvision's
ResNet-18 and ViT; plain, library checkpointing, SAC saving matmuls) where transformers and
torchvision are installed, and the in-tree GPT and Llama of tests/python/models.py with and
without SAC everywhere (so torch 2.6 has rows too). The table gives medians and the ratio
ilpart/pytorch of the medians with the range of the per-round ratios. `--models` may also
name the zoo's EXTRA and VARIED models (`--models llama_wide,gpt2_wide`: 4 layers, hidden
256, sequence 128). Run in each chroot:

    ./scripts/setup.sh build
    ILPART_SUITE=sid ./scripts/torch-chroot.sh python3 bench/partition_bench.py
    ./scripts/torch-chroot.sh python3 bench/partition_bench.py          # torch 2.6
"""

import argparse
import gc
import json
import os
import statistics
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(here)
# not bench/ itself: bench/timeit.py would shadow the standard library's timeit
sys.path = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
sys.path.insert(0, os.path.join(top, "tests", "python"))
sys.path.insert(0, os.path.join(top, "python"))


class _Stop(Exception):
    pass


def cpu_now():
    """CPU seconds of this process and its waited-for children (ilpart's solve is a
    child): less sensitive to other processes on a shared machine than wall time."""
    import resource
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def intree(name):
    import torch
    import models
    torch.manual_seed(0)
    if name == "gpt":
        m = models.GPT(vocab=256, seq=32, layers=2, d=64, heads=4)
        return m, [torch.randint(0, 256, (2, 32)), torch.randint(0, 256, (2, 32))]
    if name == "gpt-sac":
        m = models.GPT(vocab=256, seq=32, layers=2, d=64, heads=4, checkpointing="sac",
                       policies=[models.save_ops_policy([torch.ops.aten.mm.default,
                                                         torch.ops.aten.addmm.default])])
        return m, [torch.randint(0, 256, (2, 32)), torch.randint(0, 256, (2, 32))]
    if name == "llama":
        return (lambda m: (m, [torch.randn(2, 16, 64)]))(
            models.Llama(layers=2, d=64, heads=4, seq=16))
    if name == "llama-sac":
        return (lambda m: (m, [torch.randn(2, 16, 64)]))(models.Llama(
            layers=2, d=64, heads=4, seq=16, checkpointing="sac",
            policies=[models.save_ops_policy([torch.ops.aten.mm.default])]))
    raise KeyError(name)


def all_models(want=None):
    """The in-tree models and zoo.MODELS; with `want` (names), also the zoo's EXTRA and
    VARIED models it names (e.g. llama_wide: docs/python.md "Widths, dtypes and policies")."""
    import zoo
    out = [("intree-" + n, "-", lambda n=n: intree(n))
           for n in ("gpt", "gpt-sac", "llama", "llama-sac")]
    if not zoo.missing():
        names = list(zoo.MODELS) + [m for m in zoo.EXTRA + zoo.VARIED
                                    if want and any(w.split("/")[0] == m for w in want)]
        out += [(m, v, lambda m=m, v=v: zoo.build(m, v))
                for m in names for v in zoo.VARIANTS if not zoo.unsupported(m, v)]
    return out


def _generate_code(modules):
    """The Python code of the forward and backward modules, generated now: torch.fx's lazy
    graph modules (which torch's extraction makes) put it off until the module is run or
    pickled, which every compile does; without this, whichever side leaves a module lazy
    would have part of its work done after the timing."""
    for m in modules:
        m.code  # noqa: B018 - a lazy module compiles on this access


class Hook:
    """Installed as Inductor's partitioner: times both sides on the joint graph, then stops
    the compile. Works with torch 2.6 (module-level name) and newer (custom_partitioner_fn)."""

    def __init__(self, rounds):
        self.rounds = rounds
        self.rows = []

    def __call__(self, gm, joint_inputs, **kwargs):
        import ilpart
        from functorch.compile import min_cut_rematerialization_partition
        from ilpart.bridge import split_modules
        from ilpart.export import _copy_for_partitioning, export_graph, prepare_joint
        kwargs.setdefault("compiler", "inductor")
        n_out = kwargs["num_fwd_outputs"]
        t = {"pytorch": [], "ilpart": [], "export": [], "solve": [], "lower": [],
             "pytorch_wall": [], "ilpart_wall": []}
        nodes = 0
        pf = ilpart.partition_fn(keep_history=False)
        for r in range(self.rounds + 1):  # round 0 warms up both sides, untimed
            order = ("pytorch", "ilpart") if r % 2 == 0 else ("ilpart", "pytorch")
            for side in order:
                g = _copy_for_partitioning(gm)
                gc.collect()
                t0, c0 = time.perf_counter(), cpu_now()
                if side == "pytorch":
                    mods = min_cut_rematerialization_partition(g, joint_inputs, **kwargs)
                else:
                    mods = pf(g, joint_inputs, num_fwd_outputs=n_out)
                _generate_code(mods)
                t[side].append(cpu_now() - c0)
                t[side + "_wall"].append(time.perf_counter() - t0)
            # the parts of ilpart's call
            g = _copy_for_partitioning(gm)
            gc.collect()
            t0 = cpu_now()
            g = prepare_joint(g)
            doc = export_graph(g, n_out, joint_inputs=joint_inputs, prepare=False)
            t1 = cpu_now()
            part = ilpart.solve(doc, device="cpu")
            t2 = cpu_now()
            _generate_code(split_modules(g, part["saved"], n_out))
            t3 = cpu_now()
            t["export"].append(t1 - t0)
            t["solve"].append(t2 - t1)
            t["lower"].append(t3 - t2)
            nodes = len(doc["nodes"])
        self.rows.append({"nodes": nodes, "times": {k: v[1:] for k, v in t.items()}})
        raise _Stop()


def _install(hook):
    """A context manager making Inductor call `hook` as its partitioner."""
    import contextlib
    import torch._inductor.compile_fx as compile_fx
    import torch._inductor.config as iconfig
    import torch._functorch.config as fconfig

    @contextlib.contextmanager
    def ctx():
        nocache = fconfig.patch(enable_autograd_cache=False)
        if hasattr(iconfig, "custom_partitioner_fn"):
            from torch._inductor.custom_graph_pass import CustomPartitionerFn

            class P(CustomPartitionerFn):
                def __call__(self, gm, joint_inputs, **kw):
                    return hook(gm, joint_inputs, **kw)

                def uuid(self):
                    return "ilpart-partition-bench"
            with nocache, iconfig.patch(custom_partitioner_fn=P(), fx_graph_cache=False):
                yield
            return
        saved = compile_fx.min_cut_rematerialization_partition
        compile_fx.min_cut_rematerialization_partition = hook
        try:
            with nocache, iconfig.patch(fx_graph_cache=False):
                yield
        finally:
            compile_fx.min_cut_rematerialization_partition = saved
    return ctx()


def run_one(build, rounds):
    import torch
    import torch._dynamo
    torch._dynamo.reset()
    model, inputs = build()
    hook = Hook(rounds)
    with _install(hook):
        try:
            model(*inputs)  # eager once: lazy module state settles
            out = torch.compile(model)(*inputs)
            out.backward()
        except Exception as e:  # noqa: BLE001 - dynamo wraps _Stop
            seen, x = set(), e
            while x is not None and id(x) not in seen and not isinstance(x, _Stop):
                seen.add(id(x))
                x = x.__cause__ or x.__context__
            if not isinstance(x, _Stop):
                raise
    torch._dynamo.reset()
    return hook.rows


def med(xs):
    return statistics.median(xs) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--models", help="comma-separated names (model or model/variant)")
    ap.add_argument("--json", help="also write the rows to this file")
    args = ap.parse_args()
    import torch
    torch.set_num_threads(1)
    rows = []
    want = set(args.models.split(",")) if args.models else None
    for name, variant, build in all_models(want):
        if want and name not in want and "%s/%s" % (name, variant) not in want:
            continue
        for i, r in enumerate(run_one(build, args.rounds)):
            t = r["times"]
            ratios = [a / b for a, b in zip(t["ilpart"], t["pytorch"])]
            row = {"torch": torch.__version__, "model": name, "variant": variant, "graph": i,
                   "nodes": r["nodes"], "pytorch_ms": med(t["pytorch"]),
                   "ilpart_ms": med(t["ilpart"]), "export_ms": med(t["export"]),
                   "solve_ms": med(t["solve"]), "lower_ms": med(t["lower"]),
                   "ratio": med(t["ilpart"]) / med(t["pytorch"]),
                   "pytorch_wall_ms": med(t["pytorch_wall"]),
                   "ilpart_wall_ms": med(t["ilpart_wall"]),
                   "wall_ratio": med(t["ilpart_wall"]) / med(t["pytorch_wall"]),
                   "ratio_range": [min(ratios), max(ratios)]}
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    print("torch %s, %d rounds, 1 thread; CPU ms (process and children), medians\n"
          % (torch.__version__, args.rounds))
    print("| model | variant | graph | nodes | pytorch ms | ilpart ms | ilpart/pytorch "
          "[per-round range] | wall ratio | export ms | solve ms | lower ms |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print("| %s | %s | %d | %d | %.1f | %.1f | %.2f [%.2f–%.2f] | %.2f | %.1f | %.1f | %.1f |"
              % (r["model"], r["variant"], r["graph"], r["nodes"], r["pytorch_ms"],
                 r["ilpart_ms"], r["ratio"], r["ratio_range"][0], r["ratio_range"][1],
                 r["wall_ratio"], r["export_ms"], r["solve_ms"], r["lower_ms"]))
    if rows:
        import math
        gm = math.exp(sum(math.log(r["ratio"]) for r in rows) / len(rows))
        print("\ngeomean ilpart/pytorch %.2f over %d graphs; ilpart no slower on %d"
              % (gm, len(rows), sum(r["ratio"] <= 1 for r in rows)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
