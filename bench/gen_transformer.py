#!/usr/bin/env python3
"""gen_transformer.py - a synthetic AOTAutograd-style joint graph of a pre-LN transformer
stack (no checkpointing), in ilpart's joint-graph format (docs/format.md).

Per layer, as torch 2.6 traces it: native_layer_norm (tuple + getitems), t/view views,
addmm for the QKV, output and MLP projections, unbind of the QKV, flash attention
(tuple: out, logsumexp, rng state), transpose+clone+_unsafe_view, gelu, residual adds;
and the matching backward: mm/t/sum for every linear, gelu_backward,
native_layer_norm_backward, _scaled_dot_product_flash_attention_backward, stack/permute
for the QKV gradient. Transposes of weights that only the backward needs (t of t) come
out unclaimed, as in PyTorch. flops are the usual 2*M*N*K for matmuls, 4*B*H*S^2*Dh for
attention (2.5x that backward), a few per element for pointwise ops and norms.

usage: gen_transformer.py [--layers N] [--batch B] [--seq S] [--hidden D] [--heads H]
                          [--tags none|sac] [-o FILE]
"""
import argparse
import json
import sys


class Graph:
    def __init__(self):
        self.nodes = []
        self.names = set()
        self.counter = {}

    def fresh(self, base):
        k = self.counter.get(base, 0)
        self.counter[base] = k + 1
        name = base if k == 0 else "%s_%d" % (base, k)
        assert name not in self.names
        self.names.add(name)
        return name

    def add(self, base, kind, shape=None, dtype="bf16", target=None, inputs=(), **kw):
        name = self.fresh(base)
        n = {"name": name, "kind": kind}
        if target is not None:
            n["target"] = target
        if kind == "op":
            n["inputs"] = list(inputs)
        if kw.get("tuple"):
            n["tuple"] = True
        else:
            n["shape"] = list(shape)
            n["dtype"] = dtype
        for key in ("index", "view_of", "flops", "recompute", "ac_graph_id"):
            if key in kw and kw[key] is not None:
                n[key] = kw[key]
        self.nodes.append(n)
        return name

    def shape(self, name):
        for n in reversed(self.nodes):
            if n["name"] == name:
                return n.get("shape")
        raise KeyError(name)


def numel(shape):
    p = 1
    for d in shape:
        p *= d
    return p


def build(a):
    g = Graph()
    B, S, D, H = a.batch, a.seq, a.hidden, a.heads
    Dh, F, T = D // H, 4 * D, a.batch * a.seq
    op = "op"

    def view(x, shape, target="aten.view.default"):
        return g.add("view" if "view" in target else target.split(".")[1], op, shape,
                     g.nodes_dtype(x), target, [x], view_of=x)

    g.nodes_dtype = lambda x: next(n for n in reversed(g.nodes) if n["name"] == x).get(
        "dtype", "bf16")

    def pw(base, target, inputs, shape, per=1, dtype="bf16", **kw):
        return g.add(base, op, shape, dtype, target, inputs, flops=per * numel(shape), **kw)

    def mm(base, target, inputs, m, k, n, **kw):
        return g.add(base, op, [m, n], "bf16", target, inputs, flops=2 * m * k * n, **kw)

    def getitems(tup, specs):
        out = []
        for i, (shape, dtype) in enumerate(specs):
            out.append(g.add("getitem", op, shape, dtype, "getitem", [tup], index=i))
        return out

    x = g.add("primals", "primal", [B, S, D])
    params = []
    layers = []
    for l in range(a.layers):
        p = {}
        for nm, shape in (("ln1_w", [D]), ("ln1_b", [D]), ("wqkv", [3 * D, D]),
                          ("bqkv", [3 * D]), ("wo", [D, D]), ("bo", [D]), ("ln2_w", [D]),
                          ("ln2_b", [D]), ("w1", [F, D]), ("b1", [F]), ("w2", [D, F]),
                          ("b2", [D])):
            p[nm] = g.add("primals", "primal", shape)
            params.append(p[nm])
        layers.append(p)
    tangent = None
    saved = []
    sac = a.tags == "sac"
    for l, p in enumerate(layers):
        tag = (lambda t: t) if sac else (lambda t: None)
        rid = l + 1 if sac else None
        L = {"x": x, "p": p}
        ln = g.add("native_layer_norm", op, None, None, "aten.native_layer_norm.default",
                   [x, p["ln1_w"], p["ln1_b"]], tuple=True, flops=5 * T * D,
                   recompute=tag("PREFER_RECOMPUTE"), ac_graph_id=rid)
        L["ln1"], L["mean1"], L["rstd1"] = getitems(ln, [([B, S, D], "bf16"),
                                                        ([B, S, 1], "f32"), ([B, S, 1], "f32")])
        L["ln1v"] = view(L["ln1"], [T, D])
        L["t_qkv"] = view(p["wqkv"], [D, 3 * D], "aten.t.default")
        qkv = mm("addmm", "aten.addmm.default", [p["bqkv"], L["ln1v"], L["t_qkv"]], T, D,
                 3 * D, recompute=tag("MUST_SAVE"), ac_graph_id=rid)
        qkv5 = view(qkv, [B, S, 3, H, Dh])
        perm = view(qkv5, [3, B, H, S, Dh], "aten.permute.default")
        unb = g.add("unbind", op, None, None, "aten.unbind.int", [perm], tuple=True)
        L["q"], L["k"], L["v"] = [g.add("getitem", op, [B, H, S, Dh], "bf16", "getitem",
                                        [unb], index=i, view_of=perm) for i in range(3)]
        att = g.add("_scaled_dot_product_flash_attention", op, None, None,
                    "aten._scaled_dot_product_flash_attention.default",
                    [L["q"], L["k"], L["v"]], tuple=True, flops=4 * B * H * S * S * Dh,
                    recompute=tag("MUST_SAVE"), ac_graph_id=rid)
        L["att"], L["lse"], L["seed"], L["off"] = getitems(
            att, [([B, H, S, Dh], "bf16"), ([B, H, S], "f32"), ([], "i64"), ([], "i64")])
        tr = view(L["att"], [B, S, H, Dh], "aten.transpose.int")
        cl = pw("clone", "aten.clone.default", [tr], [B, S, H, Dh], 0)
        L["attv"] = g.add("_unsafe_view", op, [T, D], "bf16", "aten._unsafe_view.default",
                          [cl], view_of=cl)
        L["t_o"] = view(p["wo"], [D, D], "aten.t.default")
        o = mm("addmm", "aten.addmm.default", [p["bo"], L["attv"], L["t_o"]], T, D, D)
        o3 = view(o, [B, S, D])
        L["res1"] = pw("add", "aten.add.Tensor", [x, o3], [B, S, D])
        ln = g.add("native_layer_norm", op, None, None, "aten.native_layer_norm.default",
                   [L["res1"], p["ln2_w"], p["ln2_b"]], tuple=True, flops=5 * T * D)
        L["ln2"], L["mean2"], L["rstd2"] = getitems(ln, [([B, S, D], "bf16"),
                                                        ([B, S, 1], "f32"), ([B, S, 1], "f32")])
        L["ln2v"] = view(L["ln2"], [T, D])
        L["t_w1"] = view(p["w1"], [D, F], "aten.t.default")
        h = mm("addmm", "aten.addmm.default", [p["b1"], L["ln2v"], L["t_w1"]], T, D, F)
        L["fc1"] = view(h, [B, S, F])
        L["gelu"] = pw("gelu", "aten.gelu.default", [L["fc1"]], [B, S, F], 8,
                       recompute=tag("PREFER_RECOMPUTE"), ac_graph_id=rid)
        L["geluv"] = view(L["gelu"], [T, F])
        L["t_w2"] = view(p["w2"], [F, D], "aten.t.default")
        h2 = mm("addmm", "aten.addmm.default", [p["b2"], L["geluv"], L["t_w2"]], T, F, D)
        h23 = view(h2, [B, S, D])
        x = pw("add", "aten.add.Tensor", [L["res1"], h23], [B, S, D])
        saved.append(L)
    out = x
    tangent = g.add("tangents", "tangent", [B, S, D])
    gx = tangent
    grads = {}

    def linear_bw(gout2d, inp2d, t_w, m, k, n, wname, bname):
        """y = inp @ t_w + b with inp [m, k], t_w [k, n]: grads of inp, w, b."""
        tt = view(t_w, [n, k], "aten.t.default")  # unclaimed: forward value only
        gin = mm("mm", "aten.mm.default", [gout2d, tt], m, n, k)
        tg = view(gout2d, [n, m], "aten.t.default")
        gw = mm("mm", "aten.mm.default", [tg, inp2d], n, m, k)
        gwt = view(gw, [k, n], "aten.t.default")
        gwt2 = view(gwt, [n, k], "aten.t.default")
        gb = pw("sum", "aten.sum.dim_IntList", [gout2d], [n], 1)
        gbv = view(gb, [n])
        grads[wname], grads[bname] = gwt2, gbv
        return gin

    for L in reversed(saved):
        p = L["p"]
        g2 = view(gx, [T, D])
        ggelu = view(linear_bw(g2, L["geluv"], L["t_w2"], T, F, D, p["w2"], p["b2"]), [B, S, F])
        gfc1 = pw("gelu_backward", "aten.gelu_backward.default", [ggelu, L["fc1"]],
                  [B, S, F], 12)
        gfc1v = view(gfc1, [T, F])
        gln2 = view(linear_bw(gfc1v, L["ln2v"], L["t_w1"], T, D, F, p["w1"], p["b1"]),
                    [B, S, D])
        lb = g.add("native_layer_norm_backward", op, None, None,
                   "aten.native_layer_norm_backward.default",
                   [gln2, L["res1"], L["mean2"], L["rstd2"], p["ln2_w"], p["ln2_b"]],
                   tuple=True, flops=8 * T * D)
        gr, gw, gb = getitems(lb, [([B, S, D], "bf16"), ([D], "bf16"), ([D], "bf16")])
        grads[p["ln2_w"]], grads[p["ln2_b"]] = gw, gb
        gres1 = pw("add", "aten.add.Tensor", [gx, gr], [B, S, D])
        g2 = view(gres1, [T, D])
        gatt = linear_bw(g2, L["attv"], L["t_o"], T, D, D, p["wo"], p["bo"])
        gatt4 = view(gatt, [B, S, H, Dh])
        gatt_t = view(gatt4, [B, H, S, Dh], "aten.transpose.int")
        ab = g.add("_scaled_dot_product_flash_attention_backward", op, None, None,
                   "aten._scaled_dot_product_flash_attention_backward.default",
                   [gatt_t, L["q"], L["k"], L["v"], L["att"], L["lse"], L["seed"], L["off"]],
                   tuple=True, flops=10 * B * H * S * S * Dh)
        gq, gk, gv = getitems(ab, [([B, H, S, Dh], "bf16")] * 3)
        st = pw("stack", "aten.stack.default", [gq, gk, gv], [3, B, H, S, Dh], 0)
        pm = view(st, [B, S, 3, H, Dh], "aten.permute.default")
        cl = pw("clone", "aten.clone.default", [pm], [B, S, 3, H, Dh], 0)
        gqkv = g.add("_unsafe_view", op, [T, 3 * D], "bf16", "aten._unsafe_view.default",
                     [cl], view_of=cl)
        gln1 = view(linear_bw(gqkv, L["ln1v"], L["t_qkv"], T, D, 3 * D, p["wqkv"],
                              p["bqkv"]), [B, S, D])
        lb = g.add("native_layer_norm_backward", op, None, None,
                   "aten.native_layer_norm_backward.default",
                   [gln1, L["x"], L["mean1"], L["rstd1"], p["ln1_w"], p["ln1_b"]],
                   tuple=True, flops=8 * T * D)
        gr, gw, gb = getitems(lb, [([B, S, D], "bf16"), ([D], "bf16"), ([D], "bf16")])
        grads[p["ln1_w"]], grads[p["ln1_b"]] = gw, gb
        gx = pw("add", "aten.add.Tensor", [gres1, gr], [B, S, D])
    primal_names = [n["name"] for n in g.nodes if n["kind"] == "primal"]
    bw = [gx] + [grads[pn] for pn in primal_names[1:]]
    return {
        "format": "ilpart-joint-graph",
        "version": 1,
        "description": "synthetic %d-layer pre-LN transformer (batch %d, seq %d, hidden %d, "
                       "heads %d, bf16), bench/gen_transformer.py" % (a.layers, B, S, D, H),
        "rng_functionalized": False,
        "nodes": g.nodes,
        "outputs": {"forward": [out], "backward": bw},
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seq", type=int, default=2048)
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--tags", choices=("none", "sac"), default="none")
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args()
    doc = build(a)
    text = json.dumps(doc, indent=1) + "\n"
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
