#!/usr/bin/env python3
"""gen_wide.py N [-o FILE] [--chunks K] - a joint graph with one very wide op.

A primal p and N forward ops f_i = sin(p) of 1-7 KiB each; one forward op `wide`
(aten.cat) reads all N of them (N inputs) and is the forward's output. The backward
starts with one op reading the tangent, `wide` and the first half of the f_i (N/2 + 2
inputs), then K ops each reading the previous one and the next slice of the other
half, so the backward has K local maxima of live bytes. Every f_i is cheap to
recompute from p, so every one is a save/recompute choice. Deterministic.
This is the graph of docs/testing.md "Peak solves of graphs with very wide ops"
(bench/peak_wide.sh measures peak solves of it against --time-limit).
"""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("n", type=int, help="inputs of the wide op (forward values)")
    ap.add_argument("--chunks", type=int, default=32, help="backward ops after the first")
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args()
    n, k = a.n, max(1, a.chunks)
    kib = 1024
    nodes = [{"name": "p", "kind": "primal", "bytes": 64 * kib}]
    f = []
    for i in range(n):
        name = f"f{i}"
        nodes.append({"name": name, "kind": "op", "target": "aten.sin.default",
                      "inputs": ["p"], "bytes": kib * (1 + i % 7), "flops": 1e6})
        f.append(name)
    total = sum(kib * (1 + i % 7) for i in range(n))
    nodes.append({"name": "wide", "kind": "op", "target": "aten.stack.default",
                  "inputs": f, "bytes": 64 * kib, "flops": 1e6})
    # a large tangent keeps the peak in the backward
    nodes.append({"name": "t", "kind": "tangent", "bytes": 4 * total})
    half = n // 2
    nodes.append({"name": "b0", "kind": "op", "target": "aten.mul.Tensor",
                  "inputs": ["t", "wide"] + f[:half], "bytes": 64 * kib, "flops": 1e6})
    rest = f[half:]
    step = max(1, (len(rest) + k - 1) // k)
    prev = "b0"
    for j in range(k):
        part = rest[j * step:(j + 1) * step]
        name = f"b{j + 1}"
        # every other op allocates a large output: a local maximum of the live bytes
        nodes.append({"name": name, "kind": "op", "target": "aten.mul.Tensor",
                      "inputs": [prev] + part,
                      "bytes": 64 * kib * (8 if j % 2 == 0 else 1), "flops": 1e6})
        prev = name
    g = {"format": "ilpart-joint-graph", "version": 1,
         "description": f"one op with {n} inputs (bench/gen_wide.py {n} --chunks {k})",
         "nodes": nodes, "outputs": {"forward": ["wide"], "backward": [prev]}}
    out = sys.stdout if a.output == "-" else open(a.output, "w")
    json.dump(g, out)
    out.write("\n")


if __name__ == "__main__":
    main()
