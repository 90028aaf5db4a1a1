"""One training process for test_store.py: compile models with ilpart.partition_fn(store=DIR),
run forward and backward, compare with eager, print one JSON line with what happened.

    python3 store_run.py DIR ON_MISS MODEL[,MODEL...] [REPEAT]

Run as a separate process so that every run starts fresh (no dynamo or ilpart state)."""

import json
import os
import sys

import torch
import torch._dynamo
from torch._dynamo.backends.common import aot_autograd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ilpart  # noqa: E402
import models  # noqa: E402
import util  # noqa: E402

MODELS = {
    "mlp": lambda: (models.MLP(), [torch.randn(16, 32, requires_grad=True)]),
    "mlp-wide": lambda: (models.MLP(d_hidden=96), [torch.randn(16, 32, requires_grad=True)]),
    "mixed": lambda: (models.MixedRegions(), [torch.randn(2, 8, 32, requires_grad=True)]),
}


def one(store, on_miss, name):
    torch.manual_seed(0)
    model, inputs = MODELS[name]()
    eager = util.run(model, inputs)
    torch._dynamo.reset()
    pf = ilpart.partition_fn(store=store, on_miss=on_miss, time_limit=60)
    compiled = torch.compile(model, backend=aot_autograd(
        fw_compiler=ilpart.nop_compiler, bw_compiler=ilpart.nop_compiler, partition_fn=pf))
    got = util.run(compiled, inputs)
    (eo, eg), (co, cg) = eager, got
    diff = max([(eo - co).abs().max().item()] +
               [(a - b).abs().max().item() for a, b in zip(eg, cg) if a is not None])
    return {"model": name, "how": [h["partition"]["store"]["how"] for h in pf.history],
            "keys": [h["partition"]["store"]["key"] for h in pf.history],
            "saved": [h["partition"]["saved"] for h in pf.history],
            "max_diff": diff,
            "close": all(torch.allclose(a, b, rtol=1e-5, atol=1e-6)
                         for a, b in [(eo, co)] + [(a, b) for a, b in zip(eg, cg)
                                                   if a is not None])}


def main():
    store, on_miss, names = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
    repeat = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    out = [one(store, on_miss, n) for _ in range(repeat) for n in names]
    print("RESULT " + json.dumps(out))


if __name__ == "__main__":
    main()
