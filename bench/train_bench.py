"""Training with Inductor on CPU: PyTorch's partitioner against ilpart's, measured at run time.

For each model and partitioner, one fresh process (python3 bench/train_bench.py --one ...)
with a fresh Inductor cache directory compiles the model with torch.compile's Inductor path
and trains it:

  compile_s   wall time of the first training step (dynamo, AOTAutograd, partition,
              Inductor's C++ compiles) minus the steady-state step time
  step_ms     median wall time of --steps steps after --warmup steps
  saved_B     bytes the compiled forward hands to the backward, measured at run time:
              every tensor passed to save_for_backward (torch.autograd.graph.
              saved_tensors_hooks), each storage once, parameters and inputs excluded
  peak_B      peak of the CPU allocator's live bytes during one step above the bytes live
              before it (the profiler's allocation events, profile_memory=True)

Partitioners: PyTorch's min-cut (torch.compile's default) at activation_memory_budget 1.0,
0.5 and 0.3; ilpart's memory objective; ilpart's runtime objective at 0.5 and 0.3
(ilpart.backend(objective="runtime", memory_budget=F)). Ratios are against PyTorch's
default in the same run. Run through the chroot:

    ./scripts/setup.sh build
    ./scripts/torch-chroot.sh python3 bench/train_bench.py [--models llama,gpt] [--steps 20]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(here)
sys.path.insert(0, os.path.join(top, "tests", "python"))
sys.path.insert(0, os.path.join(top, "python"))

PARTITIONERS = [
    ("pytorch", {"budget": 1.0}),
    ("pytorch@0.5", {"budget": 0.5}),
    ("pytorch@0.3", {"budget": 0.3}),
    ("ilpart-memory", {"objective": "memory"}),
    ("ilpart-runtime@0.5", {"objective": "runtime", "memory_budget": 0.5}),
    ("ilpart-runtime@0.3", {"objective": "runtime", "memory_budget": 0.3}),
]


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
    raise SystemExit("unknown model %r" % name)


def compile_model(model, label, opts, time_limit):
    import torch
    import ilpart
    if label.startswith("pytorch"):
        import torch._functorch.config as fc
        fc.activation_memory_budget = opts["budget"]
        return torch.compile(model)
    return torch.compile(model, backend=ilpart.backend(time_limit=time_limit, **opts))


def loss_of(out):
    return out if out.dim() == 0 else out.float().square().mean()


def run_one(model_name, label, steps, warmup, time_limit):
    import torch
    torch.set_num_threads(1)
    opts = dict(PARTITIONERS)[label]
    model, batch = make_model(model_name)
    compiled = compile_model(model, label, opts, time_limit)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    inputs = [batch() for _ in range(4)]
    keep = {p.untyped_storage().data_ptr() for p in model.parameters()}
    keep |= {b.untyped_storage().data_ptr() for b in model.buffers()}

    def step(x, hooks=None):
        opt.zero_grad(set_to_none=True)
        if hooks is None:
            loss = loss_of(compiled(*x))
        else:
            with torch.autograd.graph.saved_tensors_hooks(*hooks):
                loss = loss_of(compiled(*x))
        loss.backward()
        opt.step()

    t0 = time.perf_counter()
    step(inputs[0])
    first = time.perf_counter() - t0
    for i in range(warmup):
        step(inputs[i % len(inputs)])
    times = []
    for i in range(steps):
        t0 = time.perf_counter()
        step(inputs[i % len(inputs)])
        times.append(time.perf_counter() - t0)
    step_s = statistics.median(times)

    seen = {}

    def pack(t):
        s = t.untyped_storage()
        ptr = s.data_ptr()
        if ptr not in keep and not any(ptr == x.untyped_storage().data_ptr()
                                       for x in inputs[0] if isinstance(x, torch.Tensor)):
            seen[ptr] = s.nbytes()
        return t

    step(inputs[0], hooks=(pack, lambda t: t))
    saved = sum(seen.values())

    peak = profiled_peak(lambda: step(inputs[1]))
    q = statistics.quantiles(times, n=4)
    return {"model": model_name, "partitioner": label, "compile_s": first - step_s,
            "step_ms": 1e3 * step_s, "step_ms_iqr": 1e3 * (q[2] - q[0]),
            "saved_B": saved, "peak_B": peak, "torch": torch.__version__}


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


def spawn(model_name, label, args):
    with tempfile.TemporaryDirectory(prefix="ilpart-bench-inductor-") as cache:
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache)
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", model_name,
                               label, "--steps", str(args.steps), "--warmup", str(args.warmup),
                               "--time-limit", str(args.time_limit)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, env=env)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-3000:])
        return {"model": model_name, "partitioner": label, "error": proc.returncode}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def table(rows):
    out = ["| model | partitioner | compile s | step ms (median) | vs pytorch | saved MiB | "
           "vs pytorch | peak MiB | vs pytorch |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    base = {}
    for r in rows:
        if r["partitioner"] == "pytorch" and "error" not in r:
            base[r["model"]] = r
    for r in rows:
        if "error" in r:
            out.append("| %s | %s | failed (exit %s) | | | | | | |"
                       % (r["model"], r["partitioner"], r["error"]))
            continue
        b = base.get(r["model"])

        def ratio(k):
            return "%.2f" % (r[k] / b[k]) if b and b[k] else "-"
        out.append("| %s | %s | %.1f | %.1f ± %.1f | %s | %.2f | %s | %.2f | %s |" % (
            r["model"], r["partitioner"], r["compile_s"], r["step_ms"], r["step_ms_iqr"] / 2,
            ratio("step_ms"), r["saved_B"] / 2**20, ratio("saved_B"), r["peak_B"] / 2**20,
            ratio("peak_B")))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="llama,gpt,llama-sac")
    ap.add_argument("--partitioners", default=",".join(p for p, _ in PARTITIONERS))
    ap.add_argument("--steps", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=60)
    ap.add_argument("--json", help="also write the rows to this file")
    ap.add_argument("--table", metavar="ROWS",
                    help="print the table of earlier rows (a --json file, or the JSON lines "
                    "a run prints on stderr) and exit")
    ap.add_argument("--one", nargs=2, metavar=("MODEL", "PARTITIONER"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.table:
        with open(args.table) as f:
            text = f.read()
        rows = json.loads(text) if text.lstrip().startswith("[") else \
            [json.loads(line) for line in text.splitlines() if line.startswith("{")]
        print(table(rows))
        return 0
    if args.one:
        print(json.dumps(run_one(args.one[0], args.one[1], args.steps, args.warmup,
                                 args.time_limit)))
        return 0
    rows = []
    for m in args.models.split(","):
        for p in args.partitioners.split(","):
            r = spawn(m, p, args)
            rows.append(r)
            print(json.dumps(r), file=sys.stderr, flush=True)
    print(table(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 1 if any("error" in r for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
