#!/usr/bin/env python3
"""random_graph.py SEED OUT.json - a structured random joint graph, the same for the
same SEED: primals (some mutated), tangents, up to 60 ops from a table of ATen targets
(views, tuples with getitems, random, effectful, collective), SAC tags and regions,
backward ops, null gradients, primals returned as gradients, references, extreme but
valid sizes and costs (0 bytes, 2^62-near bytes, 1e30 flops, 5e-324), and in 5 % of
graphs one invalid field (the graph must then be refused with exit 2).
RANDOM_GRAPH_MAX_OPS=N in the environment draws up to N ops instead (N > 60).
scripts/random_verdicts.py runs every subcommand on them (docs/testing.md)."""
import json, random, sys

seed = int(sys.argv[1]); out = sys.argv[2]
R = random.Random(seed)
mode = R.random()

TARGETS = [
    ("aten.mm.default", 2, ""), ("aten.relu.default", 1, ""), ("aten.add.Tensor", 2, ""),
    ("aten.mul.Tensor", 2, ""), ("aten.sum.dim_IntList", 1, ""), ("aten.t.default", 1, "view"),
    ("aten.view.default", 1, "view"), ("aten.expand.default", 1, "view"),
    ("aten.native_dropout.default", 1, "tuple"), ("aten.native_layer_norm.default", 3, "tuple"),
    ("aten.rand_like.default", 1, "rand"), ("aten.sin.default", 1, ""), ("aten.exp.default", 1, ""),
    ("aten.clone.default", 1, ""), ("aten.threshold_backward.default", 2, ""),
    ("aten.convolution.default", 2, ""), ("_c10d_functional.all_reduce.default", 1, "coll"),
    ("aten.amax.default", 1, ""), ("prims.convert_element_type.default", 1, ""),
    ("aten.cat.default", 3, ""), ("aten._scaled_dot_product_flash_attention.default", 3, "tuple"),
    ("aten.where.self", 3, ""), ("aten.gelu.default", 1, ""), ("aten.bmm.default", 2, ""),
    ("aten._scaled_mm.default", 2, ""), ("aten.native_batch_norm.default", 3, "tuple"),
    ("aten.copy_.default", 2, "eff"), ("aten.add_.Tensor", 2, "eff"),
    ("aten.permute.default", 1, "view"), ("aten.slice.Tensor", 1, "view"),
    ("aten.embedding.default", 2, ""), ("aten.var_mean.correction", 1, "tuple"),
    ("aten.bernoulli.p", 1, "rand"), ("aten.detach.default", 1, "view"),
]
TAGS = [None]*6 + ["MUST_SAVE", "PREFER_SAVE", "MUST_RECOMPUTE", "PREFER_RECOMPUTE"]
DT = ["f32", "f16", "bf16", "f8e4m3fn", "i64", "b8", "f64", "c64"]

def size(n):
    r = R.random()
    if r < 0.06: n["bytes"] = 0
    elif r < 0.08 and mode < 0.3: n["bytes"] = R.choice([2**62, 2**62 - 1, 2**61, 2**60 + 7, 2**40])
    elif r < 0.5: n["bytes"] = R.choice([1, 2, 4, 16, 64, 256, 1024, 4096, 1 << 20, 3 << 22])
    else:
        n["shape"] = [R.choice([0, 1, 2, 3, 4, 8, 16, 64, 128]) for _ in range(R.randint(0, 3))]
        n["dtype"] = R.choice(DT)

def cost(n):
    if R.random() < 0.5:
        n["flops"] = R.choice([0, 1, 1e3, 1e6, 1e9, 1e12, 1e15, 1e30, 1e-300, 5e-324])
    if R.random() < 0.3:
        n["time_us"] = R.choice([0, 1e-9, 0.5, 3, 100, 1e6, 1e15])
    if R.random() < 0.15:
        n["bytes_read"] = R.choice([0, 1, 1e12, 2.0**62])
    if R.random() < 0.15:
        n["bytes_written"] = R.choice([0, 1, 1e12, 2.0**62])

nodes = []
vals = []          # names that hold a value: (name, tangent_dependent)
np_ = R.randint(1, 4); nt = R.randint(1, 3)
prim = []
for k in range(np_):
    n = {"name": f"p{k}", "kind": "primal"}
    size(n)
    if R.random() < 0.15: n["mutated"] = True
    nodes.append(n); vals.append((n["name"], False)); prim.append(n["name"])
tangents_at = sorted(R.sample(range(0, 30), nt))
# RANDOM_GRAPH_MAX_OPS (environment): larger graphs, up to that many ops
big = int(__import__("os").environ.get("RANDOM_GRAPH_MAX_OPS", "0"))
nops = R.randint(1, 25 if mode > 0.1 else 60) if big <= 60 else R.randint(1, big)
regions = R.randint(0, 3)
fw_vals, tangent_vals = [], []
ti = 0
idx = 0
for i in range(nops):
    while ti < nt and tangents_at[ti] <= i:
        n = {"name": f"t{ti}", "kind": "tangent"}; size(n); nodes.append(n)
        vals.append((n["name"], True)); ti += 1
    tgt, ar, what = R.choice(TARGETS)
    # bias: early ops mostly forward (no tangent inputs)
    pool = vals if R.random() < 0.5 else [v for v in vals if not v[1]] or vals
    ins = [R.choice(pool) for _ in range(ar)]
    name = f"o{i}"
    n = {"name": name, "kind": "op", "target": tgt, "inputs": [v[0] for v in ins]}
    tang = any(v[1] for v in ins)
    if what == "tuple":
        n["tuple"] = True
    else:
        size(n)
    if what == "view" and R.random() < 0.7:
        n["view_of"] = ins[0][0]
    if what == "rand" or R.random() < 0.05: n["random"] = True
    if what == "eff" or R.random() < 0.03: n["effectful"] = True
    if what == "coll": n["collective"] = True
    cost(n)
    t = R.choice(TAGS)
    if t and not tang: n["recompute"] = t
    if regions and R.random() < 0.6 and not tang: n["ac_graph_id"] = R.randint(0, regions)
    if R.random() < 0.03: n["memory_budget"] = R.choice([0.0, 0.3, 1.0, 0.5])
    nodes.append(n)
    if what == "tuple":
        for k in range(R.randint(1, 3)):
            g = {"name": f"{name}_g{k}", "kind": "op", "target": "getitem", "inputs": [name], "index": k}
            size(g)
            if R.random() < 0.1 and regions: g["ac_graph_id"] = R.randint(0, regions)
            nodes.append(g); vals.append((g["name"], tang))
    else:
        vals.append((name, tang))
while ti < nt:
    n = {"name": f"t{ti}", "kind": "tangent"}; size(n); nodes.append(n)
    vals.append((n["name"], True)); ti += 1
# add a few backward ops reading tangents and forward values
fwd_only = [v for v in vals if not v[1]]
for j in range(R.randint(1, 6)):
    a = R.choice([v for v in vals if v[1]])
    b = R.choice(fwd_only)
    n = {"name": f"b{j}", "kind": "op", "target": R.choice(["aten.mul.Tensor", "aten.mm.default", "aten.add.Tensor"]), "inputs": [a[0], b[0]]}
    size(n); cost(n); nodes.append(n); vals.append((n["name"], True))
fw_cands = [v[0] for v in vals if not v[1] and v[0] not in prim]
fw_out = R.sample(fw_cands, min(len(fw_cands), R.randint(1, 3))) if fw_cands else [prim[0]]
bw_cands = [v[0] for v in vals if v[1]]
bw_out = []
for k in range(np_):
    r = R.random()
    if r < 0.2: bw_out.append(None)
    elif r < 0.25: bw_out.append(R.choice(prim))
    elif r < 0.3 and fw_cands: bw_out.append(R.choice(fw_cands))
    else: bw_out.append(R.choice(bw_cands))
g = {"format": "ilpart-joint-graph", "version": 1, "nodes": nodes,
     "outputs": {"forward": fw_out, "backward": bw_out}}
if R.random() < 0.3: g["rng_functionalized"] = R.random() < 0.5
if R.random() < 0.3: g["rng_state_bytes"] = R.choice([0, 16, 5056, 2**40, 2**62])
if R.random() < 0.4:
    names = [n["name"] for n in nodes]
    g["reference"] = [{"name": "pytorch-2.6-mincut", "saved": R.sample(names, min(len(names), R.randint(0, 5)))}]
if R.random() < 0.05:
    n = R.choice(nodes)
    k, v = R.choice([("flops", -1), ("flops", 1e31), ("time_us", float("nan")), ("bytes", 2**62 + 4096), ("bytes", -5), ("time_us", float("inf")), ("index", -1), ("shape", [2**40, 2**40]), ("memory_budget", 1.5)])
    n[k] = v
json.dump(g, open(out, "w"), indent=None)
