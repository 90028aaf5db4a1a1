"""Training with Inductor on CPU: PyTorch's partitioner against ilpart's, measured at run time.

Per model one fresh process (python3 bench/train_bench.py --one MODEL ...) compiles the model
once per partitioner (a copy with the same initial weights; each compile with a fresh, empty
Inductor cache: torch._inductor.utils.fresh_inductor_cache), then times the training steps of
all of them interleaved: --rounds rounds, in each round every partitioner runs one untimed
and --steps timed SGD steps, the order rotating from round to round, so that a change of the
machine's load hits every partitioner alike.

  compile_s   wall time of the first training step (dynamo, AOTAutograd, partition,
              Inductor's C++ compiles, cold cache) minus the median step
  step_ms     median wall time of all timed steps; step_iqr_ms their interquartile range
  cpu_ms      the same in process CPU time (time.process_time: one thread, so less
              sensitive to other processes on the machine than wall time)
  saved_B     bytes the compiled forward hands to the backward, measured at run time:
              every tensor the compiled call passes to save_for_backward (torch.autograd.
              graph.saved_tensors_hooks around that call only), each storage once, the
              model's parameters and buffers excluded (they live for the whole run); a
              saved batch input counts, as in PyTorch's and ilpart's own byte counts
  peak_B      peak of the CPU allocator's live bytes during one step above the bytes live
              before it (the profiler's allocation events, profile_memory=True)

Partitioners: PyTorch's min-cut (torch.compile's default) at activation_memory_budget 1.0,
0.5 and 0.3; ilpart's memory objective (the no-budget counterpart of PyTorch's default);
ilpart's runtime objective at 0.5 and 0.3 (ilpart.backend(objective="runtime",
memory_budget=F, calibrate=True): op times measured on this machine, as the cost model's
roofline profile does not know the machine's BLAS). The comparison table pairs each ilpart
row with PyTorch's at the same budget: ratios ilpart/PyTorch of the median step time (and in
brackets the lowest and highest of the per-round ratios: a range containing 1.00 is within
the measured noise), of the CPU time, of saved bytes and of peak memory. Run through the
chroot:

    ./scripts/setup.sh build
    ./scripts/torch-chroot.sh python3 bench/train_bench.py [--models llama,gpt] [--rounds 7]

Under torch 2.14 (ILPART_SUITE=sid) the models also include transformers' own GPT-2 and Llama
(hf-gpt2, hf-llama; tests/python/zoo.py's wrapper, random init):

    ILPART_SUITE=sid ./scripts/torch-chroot.sh python3 bench/train_bench.py \\
        --models hf-gpt2,hf-llama,llama,gpt
"""

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(here)
# Not bench/ itself: bench/timeit.py would shadow the standard library's timeit, which
# torch imports.
sys.path = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
sys.path.insert(0, os.path.join(top, "tests", "python"))
sys.path.insert(0, os.path.join(top, "python"))

PARTITIONERS = [
    ("pytorch", {"budget": 1.0}),
    ("pytorch@0.5", {"budget": 0.5}),
    ("pytorch@0.3", {"budget": 0.3}),
    ("ilpart-memory", {"objective": "memory"}),
    ("ilpart-runtime@0.5", {"objective": "runtime", "memory_budget": 0.5, "calibrate": True}),
    ("ilpart-runtime@0.3", {"objective": "runtime", "memory_budget": 0.3, "calibrate": True}),
    # Not run by default: the runtime objective on the roofline `cpu` profile.
    ("ilpart-roofline@0.5", {"objective": "runtime", "memory_budget": 0.5}),
    ("ilpart-roofline@0.3", {"objective": "runtime", "memory_budget": 0.3}),
]
DEFAULT = [p for p, _ in PARTITIONERS if "roofline" not in p]

# ilpart row -> PyTorch row at the same budget (the memory objective has no budget: it is
# compared with PyTorch's default).
PAIRS = {"ilpart-memory": "pytorch"}
for _p, _o in PARTITIONERS:
    if "memory_budget" in _o:
        PAIRS[_p] = "pytorch@%g" % _o["memory_budget"]


def make_model(name):
    """(model, batch maker): small CPU models, float32, big enough for ms-scale steps."""
    import torch
    import models
    torch.manual_seed(0)
    if name == "llama":
        m = models.Llama(layers=4, d=128, heads=4, seq=128)
        return m, lambda: (torch.randn(4, 128, 128),)
    if name == "llama-sac":
        m = models.Llama(layers=4, d=128, heads=4, seq=128, checkpointing="sac",
                         policies=[models.save_ops_policy([torch.ops.aten.mm.default])])
        return m, lambda: (torch.randn(4, 128, 128),)
    if name == "gpt":
        m = models.GPT(vocab=1024, seq=128, layers=4, d=128, heads=4)
        return m, lambda: (torch.randint(0, 1024, (4, 128)), torch.randint(0, 1024, (4, 128)))
    if name in ("hf-gpt2", "hf-llama"):
        return hf_model(name)
    raise SystemExit("unknown model %r" % name)


def hf_model(name):
    """transformers' own GPT-2 and Llama (random init, no download) at the in-tree models'
    sizes; the forward returns the language-model loss. GPT-2's dropout is off: on torch 2.14
    ilpart.backend() cannot compile dropout yet (issue 22 item 4)."""
    import torch
    import transformers as T
    torch.manual_seed(0)
    if name == "hf-gpt2":
        cfg = T.GPT2Config(vocab_size=1024, n_positions=128, n_layer=4, n_embd=128, n_head=4,
                           bos_token_id=0, eos_token_id=0,
                           resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, use_cache=False)
        hf = T.GPT2LMHeadModel(cfg)
    else:
        cfg = T.LlamaConfig(vocab_size=1024, hidden_size=128, intermediate_size=344,
                            num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=4,
                            max_position_embeddings=128, use_cache=False)
        hf = T.LlamaForCausalLM(cfg)
    import zoo
    m = zoo.LossOf(hf)
    return m, lambda: (torch.randint(0, 1024, (4, 128)), torch.randint(0, 1024, (4, 128)))


def loss_of(out):
    return out if out.dim() == 0 else out.float().square().mean()


class Run:
    """One partitioner's compiled copy of the model, its optimizer and its step timings."""

    def __init__(self, base, label, time_limit):
        import torch
        import ilpart
        self.label = label
        self.model = copy.deepcopy(base)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=1e-3)
        opts = dict(PARTITIONERS)[label]
        self.budget = opts.get("budget")
        if label.startswith("pytorch"):
            # torch.compile(model)'s Inductor path, through a backend object of this run's
            # own: dynamo would otherwise hand this copy the code it compiled for an
            # earlier copy (same code, same backend) at another budget.
            from torch._inductor.compile_fx import compile_fx

            def inductor(gm, example_inputs):
                return compile_fx(gm, example_inputs)
            self.compiled = torch.compile(self.model, backend=inductor)
        else:
            self.partition_fn = ilpart.partition_fn(time_limit=time_limit, **opts)
            self.compiled = torch.compile(self.model, backend=ilpart.backend(
                partition=self.partition_fn))
        self.wall, self.cpu = [], []
        self.warnings = []  # str of every warning the first (compiling) step raised
        self.rounds = []  # per round: median wall time of its steps
        self.rounds_cpu = []  # per round: median CPU time of its steps

    def step(self, x, hooks=None):
        import contextlib
        import torch
        import torch._functorch.config as fc
        # PyTorch's partitioner reads its budget when it partitions (the first step).
        ctx = fc.patch(activation_memory_budget=self.budget) if self.budget is not None \
            else contextlib.nullcontext()
        self.opt.zero_grad(set_to_none=True)
        with ctx:
            if hooks is None:
                out = self.compiled(*x)
            else:  # the compiled call only: loss_of's own saved tensors are not counted
                with torch.autograd.graph.saved_tensors_hooks(*hooks):
                    out = self.compiled(*x)
            loss_of(out).backward()
        self.opt.step()

    def timed(self, x):
        w0, c0 = time.perf_counter(), time.process_time()
        self.step(x)
        self.wall.append(time.perf_counter() - w0)
        self.cpu.append(time.process_time() - c0)


def saved_storages(run, inputs):
    """[nbytes, shape, dtype] of every storage the compiled call saves for its backward
    (parameters and buffers excluded), largest first: the saved_B column is their sum."""
    keep = {p.untyped_storage().data_ptr() for p in run.model.parameters()}
    keep |= {b.untyped_storage().data_ptr() for b in run.model.buffers()}
    seen = {}

    def pack(t):
        s = t.untyped_storage()
        if s.data_ptr() not in keep:
            seen[s.data_ptr()] = [s.nbytes(), list(t.shape), str(t.dtype).replace("torch.", "")]
        return t

    run.step(inputs, hooks=(pack, lambda t: t))
    return sorted(seen.values(), key=lambda v: (-v[0], v[1], v[2]))


def solves(run, dump=None):
    """What ilpart's solver reported for each joint graph this run partitioned (status, gap,
    its byte count and budget, modelled recompute time); with dump, the exported graph and
    the partition of each are written there as MODEL.LABEL.N.{graph,partition}.json."""
    out = []
    for i, h in enumerate(getattr(getattr(run, "partition_fn", None), "history", ())):
        part = h["partition"]
        prod, cost = part.get("producer", {}), part.get("cost", {})
        out.append({"nodes": len(h["graph"].get("nodes", ())), "status": prod.get("status"),
                    "gap": prod.get("gap"), "budget_bytes": prod.get("budget_bytes"),
                    "saved_bytes": cost.get("saved_bytes"),
                    "recompute_time_us": cost.get("recompute_time_us")})
        if dump:
            os.makedirs(dump, exist_ok=True)
            for what in ("graph", "partition"):
                with open(os.path.join(dump, "%s.%s.%d.%s.json" % (
                        run.model_name, run.label, i, what)), "w") as f:
                    json.dump(h[what], f)
    return out


def profiled_peak(fn):
    """Peak live CPU bytes allocated while fn() runs, above the bytes live before: the
    running sum of the profiler's allocation events (frees of blocks allocated before the
    profiler started are not reported, so they do not lower the count)."""
    from torch._C._profiler import _EventType
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()

    def walk(events):
        for e in events:
            yield e
            yield from walk(e.children)

    allocs = sorted((e.start_time_ns, e.extra_fields.alloc_size)
                    for e in walk(prof.profiler.kineto_results.experimental_event_tree())
                    if e.tag == _EventType.Allocation and e.extra_fields.device.type == "cpu")
    live = peak = 0
    for _t, delta in allocs:
        live += delta
        peak = max(peak, live)
    return peak


def run_model(model_name, labels, rounds, steps, time_limit, dump=None):
    """All partitioners of one model in this process: compile each, then interleave."""
    import warnings
    import torch
    import torch._dynamo
    from torch._inductor.utils import fresh_inductor_cache
    torch.set_num_threads(1)
    torch._dynamo.config.cache_size_limit = max(64, torch._dynamo.config.cache_size_limit)
    load0 = os.getloadavg()[0]
    base, batch = make_model(model_name)
    inputs = [batch() for _ in range(4)]
    runs, first = [], {}
    for label in labels:
        r = Run(base, label, time_limit)
        r.model_name = model_name
        with fresh_inductor_cache(), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t0 = time.perf_counter()
            r.step(inputs[0])
            first[label] = time.perf_counter() - t0
        r.warnings = ["%s: %s" % (w.category.__name__, w.message) for w in caught]
        runs.append(r)
        print("%s %s: compiled in %.1f s (load %.1f)%s" % (
            model_name, label, first[label], os.getloadavg()[0],
            "".join("\n  warning: " + w for w in r.warnings)), file=sys.stderr, flush=True)
    for k in range(rounds):
        for r in runs[k % len(runs):] + runs[:k % len(runs)]:
            r.step(inputs[(k + 1) % len(inputs)])  # untimed: caches after the others ran
            start = len(r.wall)
            for i in range(steps):
                r.timed(inputs[i % len(inputs)])
            r.rounds.append(statistics.median(r.wall[start:]))
            r.rounds_cpu.append(statistics.median(r.cpu[start:]))
    rows = []
    for r in runs:
        q = statistics.quantiles(r.wall, n=4)
        qc = statistics.quantiles(r.cpu, n=4)
        step_s = statistics.median(r.wall)
        rows.append({
            "model": model_name, "partitioner": r.label,
            "compile_s": first[r.label] - step_s, "step_ms": 1e3 * step_s,
            "step_iqr_ms": 1e3 * (q[2] - q[0]), "cpu_ms": 1e3 * statistics.median(r.cpu),
            "cpu_iqr_ms": 1e3 * (qc[2] - qc[0]), "round_ms": [1e3 * t for t in r.rounds],
            "round_cpu_ms": [1e3 * t for t in r.rounds_cpu],
            "saved": saved_storages(r, inputs[0]),
            "peak_B": profiled_peak(lambda r=r: r.step(inputs[1])),
            "solves": solves(r, dump), "warnings": r.warnings,
            "torch": torch.__version__})
        rows[-1]["saved_B"] = sum(v[0] for v in rows[-1]["saved"])
    load1 = os.getloadavg()[0]
    for row in rows:
        row["load"] = [round(load0, 2), round(load1, 2)]
    return rows


def spawn(model_name, labels, args):
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", model_name,
                           "--partitioners", ",".join(labels), "--rounds", str(args.rounds),
                           "--steps", str(args.steps), "--time-limit", str(args.time_limit)]
                          + (["--dump", args.dump] if args.dump else []),
                          stdout=subprocess.PIPE, universal_newlines=True)  # stderr: ours
    if proc.returncode != 0:
        return [{"model": model_name, "partitioner": p, "error": proc.returncode}
                for p in labels]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def mib(b):
    return "%.2f" % (b / 2**20)


def table(rows):
    """The measured rows, then ilpart against PyTorch at the same budget."""
    out = ["| model | partitioner | compile s | step ms (median ± IQR/2) | CPU ms | saved MiB "
           "| peak MiB | load |", "|---|---|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        if "error" in r:
            out.append("| %s | %s | failed (exit %s) | | | | | |"
                       % (r["model"], r["partitioner"], r["error"]))
            continue
        out.append("| %s | %s | %.1f | %.1f ± %.1f | %.1f ± %.1f | %s | %s | %.1f–%.1f |" % (
            r["model"], r["partitioner"], r["compile_s"], r["step_ms"], r["step_iqr_ms"] / 2,
            r["cpu_ms"], r["cpu_iqr_ms"] / 2, mib(r["saved_B"]), mib(r["peak_B"]),
            r["load"][0], r["load"][1]))
    out += ["", "| model | ilpart | vs PyTorch | step time [per-round range] | CPU time "
            "[per-round range] | saved bytes | peak |", "|---|---|---|---:|---:|---:|---:|"]
    by = {(r["model"], r["partitioner"]): r for r in rows if "error" not in r}
    for r in rows:
        b = by.get((r["model"], PAIRS.get(r["partitioner"])))
        if "error" in r or b is None:
            continue
        per_round = [a / c for a, c in zip(r["round_ms"], b["round_ms"])]
        # rows saved before the per-round CPU times were recorded show the ratio alone
        cpu_round = [a / c for a, c in zip(r.get("round_cpu_ms", ()), b.get("round_cpu_ms", ()))]
        out.append("| %s | %s | %s | %.2f [%.2f–%.2f] | %.3f%s | %.3f | %.2f |" % (
            r["model"], r["partitioner"], b["partitioner"], r["step_ms"] / b["step_ms"],
            min(per_round), max(per_round), r["cpu_ms"] / b["cpu_ms"],
            " [%.3f–%.3f]" % (min(cpu_round), max(cpu_round)) if cpu_round else "",
            r["saved_B"] / b["saved_B"], r["peak_B"] / b["peak_B"]))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    import importlib.util
    hf = ",hf-gpt2,hf-llama" if importlib.util.find_spec("transformers") else ""
    ap.add_argument("--models", default="llama,gpt,llama-sac" + hf,
                    help="default: llama,gpt,llama-sac, and hf-gpt2,hf-llama where "
                    "transformers is installed")
    ap.add_argument("--partitioners", default=",".join(DEFAULT),
                    help="any of: " + ", ".join(p for p, _ in PARTITIONERS))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--steps", type=int, default=3, help="timed steps per round")
    ap.add_argument("--time-limit", type=float, default=60)
    ap.add_argument("--json", help="also write the rows to this file")
    ap.add_argument("--dump", metavar="DIR", help="write each ilpart run's exported joint "
                    "graph(s) and partition(s) to DIR (MODEL.LABEL.N.{graph,partition}.json)")
    ap.add_argument("--table", metavar="ROWS",
                    help="print the table of earlier rows (a --json file, or the JSON lines "
                    "a run prints on stderr) and exit")
    ap.add_argument("--one", metavar="MODEL", help=argparse.SUPPRESS)
    args = ap.parse_args()
    labels = args.partitioners.split(",")
    unknown = [p for p in labels if p not in dict(PARTITIONERS)]
    if unknown:
        ap.error("unknown partitioner(s): " + ", ".join(unknown))
    if args.table:
        with open(args.table) as f:
            text = f.read()
        rows = json.loads(text) if text.lstrip().startswith("[") else \
            [json.loads(line) for line in text.splitlines() if line.startswith("{")]
        print(table(rows))
        return 0
    if args.one:
        print(json.dumps(run_model(args.one, labels, args.rounds, args.steps,
                                   args.time_limit, args.dump)))
        return 0
    rows = []
    for m in args.models.split(","):
        for r in spawn(m, labels, args):
            rows.append(r)
            print(json.dumps(r), file=sys.stderr, flush=True)
    print(table(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 1 if any("error" in r for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
