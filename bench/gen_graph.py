#!/usr/bin/env python3
"""gen_graph.py - write a realistic random joint graph of exactly N nodes.

usage: gen_graph.py N [--seed S] [-o FILE]

The graph is a transformer-like stack as AOTAutograd would trace it: embedding,
pre-LayerNorm blocks (native_layer_norm tuples with getitem, q/k/v/o projections through
weight transposes that are views, bmm attention, softmax, native_dropout tuples, GELU MLP,
residual adds), the logits, then the backward mirror driven by one tangent: *_backward ops,
matmuls against transposed saved values (some unclaimed: weight transposes computed from
primals only), gradient accumulation with add, and one gradient output per primal (null for
the integer tokens). Some blocks carry SAC tags and an ac_graph_id. Layers are added until
the next one would not fit, then dead clone nodes pad the graph to exactly N nodes.
Deterministic for a given N and seed.
"""
import argparse
import json
import random
import sys


class Graph:
    def __init__(self):
        self.nodes = []
        self.by_name = {}
        self.count = {}

    def fresh(self, base):
        k = self.count.get(base, 0)
        self.count[base] = k + 1
        return base if k == 0 else "%s_%d" % (base, k)

    def add(self, base, kind, target=None, inputs=(), shape=None, dtype="bf16", **extra):
        name = self.fresh(base)
        n = {"name": name, "kind": kind}
        if kind == "op":
            n["target"] = target
            n["inputs"] = list(inputs)
        if shape is not None:
            n["shape"] = list(shape)
            n["dtype"] = dtype
        n.update(extra)
        self.nodes.append(n)
        self.by_name[name] = n
        return name

    def shape(self, name):
        return self.by_name[name].get("shape")


def numel(shape):
    p = 1
    for d in shape:
        p *= d
    return p


class Builder:
    """Forward ops record how to differentiate them; backward() replays in reverse."""

    def __init__(self, rng, batch, seq, hidden, heads, vocab):
        self.g = Graph()
        self.rng = rng
        self.B, self.S, self.H, self.nh, self.V = batch, seq, hidden, heads, vocab
        self.tape = []        # (output, rule, args) in forward order
        self.items = {}       # (tuple node, index) -> getitem node
        self.primals = []     # (name, needs_grad)
        self.tag = None       # SAC tag defaults for the block being built
        self.region = None

    # ---- forward ops --------------------------------------------------------
    def primal(self, shape, dtype="bf16", grad=True):
        name = self.g.add("primals_%d" % (len(self.primals) + 1), "primal", shape=shape,
                          dtype=dtype)
        self.primals.append((name, grad))
        return name

    def op(self, base, target, inputs, shape, dtype="bf16", rule=None, args=(), flops=None,
           view=None, tag=None, **extra):
        if flops is not None:
            extra["flops"] = flops
        if view is not None:
            extra["view_of"] = view
        if self.region is not None:
            extra["ac_graph_id"] = self.region
            t = tag or self.tag
            if t is not None:
                extra["recompute"] = t
        name = self.g.add(base, "op", target, inputs, shape, dtype, **extra)
        if rule is not None:
            self.tape.append((name, rule, args))
        return name

    def tuple_op(self, base, target, inputs, rule, args, **extra):
        if self.region is not None:
            extra["ac_graph_id"] = self.region
            if self.tag is not None:
                extra["recompute"] = self.tag
        name = self.g.add(base, "op", target, inputs, None, tuple=True, **extra)
        self.tape.append((name, rule, args))
        return name

    def getitem(self, tup, index, shape, dtype="bf16"):
        name = self.op("getitem", "getitem", [tup], shape, dtype, rule="getitem",
                       args=(tup, index), index=index)
        self.items[(tup, index)] = name
        return name

    def view(self, x, shape, target="aten.view.default"):
        return self.op(target.split(".")[1], target, [x], shape, view=self._root(x),
                       rule="view", args=(x,))

    def _root(self, x):
        v = self.g.by_name[x].get("view_of")
        return v if v is not None else x

    def t(self, w):
        s = self.g.shape(w)
        return self.op("t", "aten.t.default", [w], [s[1], s[0]], view=self._root(w),
                       rule="view", args=(w,))

    def mm(self, a, b):
        m, k = self.g.shape(a)
        n = self.g.shape(b)[1]
        return self.op("mm", "aten.mm.default", [a, b], [m, n], flops=2 * m * n * k,
                       rule="mm", args=(a, b), tag="PREFER_SAVE" if self.tag else None)

    def layer_norm(self, x, w, b):
        s = self.g.shape(x)
        ln = self.tuple_op("native_layer_norm", "aten.native_layer_norm.default", [x, w, b],
                           rule="layer_norm", args=(x, w, b), flops=8 * numel(s))
        out = self.getitem(ln, 0, s)
        self.getitem(ln, 1, s[:-1] + [1], "f32")
        self.getitem(ln, 2, s[:-1] + [1], "f32")
        return out

    def block(self, h):
        B, S, H, nh = self.B, self.S, self.H, self.nh
        hd = H // nh
        w = {k: self.primal([H, H]) for k in ("wq", "wk", "wv", "wo")}
        ln1w, ln1b = self.primal([H], "f32"), self.primal([H], "f32")
        w1, w2 = self.primal([4 * H, H]), self.primal([H, 4 * H])
        ln2w, ln2b = self.primal([H], "f32"), self.primal([H], "f32")

        x = self.view(self.layer_norm(h, ln1w, ln1b), [B * S, H])
        heads = []
        for k in ("wq", "wk", "wv"):
            p = self.mm(x, self.t(w[k]))
            p = self.view(p, [B, S, nh, hd])
            p = self.view(p, [B, nh, S, hd], "aten.transpose.int")
            heads.append(self.view(p, [B * nh, S, hd], "aten._unsafe_view.default"))
        q, k, v = heads
        kt = self.view(k, [B * nh, hd, S], "aten.transpose.int")
        scores = self.op("bmm", "aten.bmm.default", [q, kt], [B * nh, S, S],
                         flops=2 * B * nh * S * S * hd, rule="bmm", args=(q, kt))
        attn = self.op("_softmax", "aten._softmax.default", [scores], [B * nh, S, S],
                       flops=5 * B * nh * S * S, rule="softmax", args=(scores,),
                       tag="PREFER_RECOMPUTE" if self.tag else None)
        if self.rng.random() < 0.5:
            d = self.tuple_op("native_dropout", "aten.native_dropout.default", [attn],
                              rule="dropout", args=(attn,), random=True)
            attn = self.getitem(d, 0, [B * nh, S, S])
            self.getitem(d, 1, [B * nh, S, S], "b8")
        ctx = self.op("bmm", "aten.bmm.default", [attn, v], [B * nh, S, hd],
                      flops=2 * B * nh * S * S * hd, rule="bmm", args=(attn, v))
        ctx = self.view(ctx, [B * S, H])
        o = self.view(self.mm(ctx, self.t(w["wo"])), [B, S, H])
        h = self.op("add", "aten.add.Tensor", [h, o], [B, S, H], flops=B * S * H,
                    rule="add", args=(h, o))

        x = self.view(self.layer_norm(h, ln2w, ln2b), [B * S, H])
        f = self.mm(x, self.t(w1))
        f = self.op("gelu", "aten.gelu.default", [f], [B * S, 4 * H], flops=8 * B * S * 4 * H,
                    rule="gelu", args=(f,), tag="MUST_RECOMPUTE" if self.tag else None)
        f = self.view(self.mm(f, self.t(w2)), [B, S, H])
        return self.op("add", "aten.add.Tensor", [h, f], [B, S, H], flops=B * S * H,
                       rule="add", args=(h, f))

    # ---- backward -------------------------------------------------------------
    def backward(self, out, tangent):
        g = self.g
        grads = {out: tangent}
        self.region = None
        self.tag = None

        def acc(x, gx):
            if x in grads:
                gx = g.add("add", "op", "aten.add.Tensor", [grads[x], gx], g.shape(x),
                           g.by_name[x]["dtype"], flops=numel(g.shape(x)))
            grads[x] = gx

        def bop(base, target, inputs, shape, dtype="bf16", **extra):
            return g.add(base, "op", target, inputs, shape, dtype, **extra)

        def tview(x, target="aten.t.default"):
            s = g.shape(x)
            shape = [s[1], s[0]] if len(s) == 2 else s[:-2] + [s[-1], s[-2]]
            root = g.by_name[x].get("view_of") or x
            return bop(target.split(".")[1], target, [x], shape, view_of=root)

        for name, rule, args in reversed(self.tape):
            if rule == "getitem":
                tup, index = args
                if name in grads:
                    grads.setdefault(("tuple", tup), {})[index] = grads[name]
                continue
            gy = grads.get(name)
            if rule in ("layer_norm", "dropout"):
                gy = grads.get(("tuple", name), {}).get(0)
            if gy is None:
                continue
            if rule == "view":
                (x,) = args
                root = g.by_name[gy].get("view_of") or gy
                acc(x, bop("view", "aten.view.default", [gy], g.shape(x), view_of=root))
            elif rule == "mm":
                a, b = args
                m, k = g.shape(a)
                n = g.shape(b)[1]
                acc(a, bop("mm", "aten.mm.default", [gy, tview(b)], [m, k], flops=2 * m * n * k))
                acc(b, bop("mm", "aten.mm.default", [tview(a), gy], [k, n], flops=2 * m * n * k))
            elif rule == "bmm":
                a, b = args
                bs, m, k = g.shape(a)
                n = g.shape(b)[2]
                tb = tview(b, "aten.transpose.int")
                ta = tview(a, "aten.transpose.int")
                acc(a, bop("bmm", "aten.bmm.default", [gy, tb], [bs, m, k],
                           flops=2 * bs * m * n * k))
                acc(b, bop("bmm", "aten.bmm.default", [ta, gy], [bs, k, n],
                           flops=2 * bs * m * n * k))
            elif rule == "add":
                a, b = args
                acc(a, gy)
                acc(b, gy)
            elif rule == "gelu":
                (x,) = args
                acc(x, bop("gelu_backward", "aten.gelu_backward.default", [gy, x], g.shape(x),
                           flops=10 * numel(g.shape(x))))
            elif rule == "softmax":
                (x,) = args
                acc(x, bop("_softmax_backward_data", "aten._softmax_backward_data.default",
                           [gy, name], g.shape(x), flops=4 * numel(g.shape(x))))
            elif rule == "dropout":
                (x,) = args
                mask = self.items[(name, 1)]
                acc(x, bop("native_dropout_backward", "aten.native_dropout_backward.default",
                           [gy, mask], g.shape(x), flops=numel(g.shape(x))))
            elif rule == "layer_norm":
                x, w, b = args
                stats = [self.items[(name, 1)], self.items[(name, 2)]]
                t = bop("native_layer_norm_backward", "aten.native_layer_norm_backward.default",
                        [gy, x] + stats + [w, b], None, tuple=True,
                        flops=12 * numel(g.shape(x)))
                acc(x, bop("getitem", "getitem", [t], g.shape(x), index=0))
                acc(w, bop("getitem", "getitem", [t], g.shape(w), "f32", index=1))
                acc(b, bop("getitem", "getitem", [t], g.shape(b), "f32", index=2))
            elif rule == "embedding":
                wte, tokens = args
                acc(wte, bop("embedding_dense_backward",
                             "aten.embedding_dense_backward.default", [gy, tokens],
                             g.shape(wte), flops=numel(g.shape(gy))))
        return [grads.get(p) if need else None for p, need in self.primals]


def build(args, blocks, seed):
    rng = random.Random(seed)
    b = Builder(rng, batch=args.batch, seq=args.seq, hidden=args.hidden, heads=args.heads,
                vocab=args.vocab)
    B, S, H = b.B, b.S, b.H
    tokens = b.primal([B, S], "i64", grad=False)
    wte = b.primal([b.V, H])
    h = b.op("embedding", "aten.embedding.default", [wte, tokens], [B, S, H],
             rule="embedding", args=(wte, tokens))
    for i in range(blocks):
        # Every third block is checkpointed with SAC tags, like a selective AC policy.
        b.region = i if i % 3 == 1 else None
        b.tag = "PREFER_SAVE" if i % 3 == 1 else None
        h = b.block(h)
    b.region = None
    b.tag = None
    x = b.view(h, [B * S, H])
    logits = b.view(b.mm(x, b.t(wte)), [B, S, b.V])
    tangent = b.g.add("tangents_1", "tangent", shape=[B, S, b.V])
    b.g.outputs = {"forward": [logits], "backward": b.backward(logits, tangent)}
    return b.g


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("n", type=int, help="number of nodes")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--output", default="-")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=1024)
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--vocab", type=int, default=50304)
    args = ap.parse_args()

    # Nodes per block vary a little (dropout or not): estimate from 20 blocks, then
    # shrink until the graph fits; padding makes up the rest.
    base = len(build(args, 0, args.seed).nodes)
    per = (len(build(args, 20, args.seed).nodes) - base) / 20.0
    blocks = max(0, int((args.n - base) / per))
    while True:
        g = build(args, blocks, args.seed)
        if len(g.nodes) <= args.n or blocks == 0:
            break
        blocks -= max(1, int((len(g.nodes) - args.n) / (per - 4)) + 1)
        blocks = max(blocks, 0)
    if len(g.nodes) > args.n:
        sys.exit("gen_graph: %d nodes is below the smallest graph (%d)" % (args.n, len(g.nodes)))
    # Pad with dead clones (computed, needed by no output: PyTorch's DCE would drop them).
    fw_nodes = [n for n in g.nodes if n["kind"] == "primal"]
    i = 0
    while len(g.nodes) < args.n:
        src = fw_nodes[i % len(fw_nodes)]
        g.add("clone", "op", "aten.clone.default", [src["name"]], src["shape"], src["dtype"])
        i += 1

    doc = {"format": "ilpart-joint-graph", "version": 1,
           "description": "bench/gen_graph.py %d --seed %d: %d transformer blocks"
           % (args.n, args.seed, blocks),
           "rng_functionalized": False}
    out = sys.stdout if args.output == "-" else open(args.output, "w")
    head = json.dumps(doc, indent=2)[:-2]
    out.write(head + ',\n  "nodes": [\n')
    out.write(",\n".join("    " + json.dumps(n) for n in g.nodes))
    out.write('\n  ],\n  "outputs": ' + json.dumps(g.outputs) + "\n}\n")
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()
