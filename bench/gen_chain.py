#!/usr/bin/env python3
"""gen_chain.py - write a joint graph of one chain of N elementwise ops.

The forward is x -> sin -> sin -> ... (N ops of 1 KiB each); the backward multiplies
the incoming gradient by cos of each op's input, last op first. Every forward value is
read by one backward op, so a value saved early stays live at every later backward
step: the worst case for row sizes that grow with what is live (docs/solver.md, "Bound
rows"). Usage: gen_chain.py N -o OUT.json
"""
import argparse
import json


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, help="forward ops")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    if a.n < 1:
        ap.error("N must be at least 1")
    elem = {"shape": [256], "dtype": "f32"}
    nodes = [dict(name="x", kind="primal", **elem)]
    prev = "x"
    for i in range(a.n):
        nodes.append(dict(name=f"f{i}", kind="op", target="aten.sin.default",
                          inputs=[prev], bytes_read=1024, bytes_written=1024, **elem))
        prev = f"f{i}"
    nodes.append(dict(name="t", kind="tangent", **elem))
    grad = "t"
    for i in reversed(range(a.n)):
        src = f"f{i - 1}" if i > 0 else "x"
        nodes.append(dict(name=f"c{i}", kind="op", target="aten.cos.default",
                          inputs=[src], bytes_read=1024, bytes_written=1024, **elem))
        nodes.append(dict(name=f"b{i}", kind="op", target="aten.mul.default",
                          inputs=[grad, f"c{i}"], bytes_read=2048, bytes_written=1024,
                          **elem))
        grad = f"b{i}"
    graph = {"format": "ilpart-joint-graph", "version": 1,
             "description": f"a chain of {a.n} sin ops (bench/gen_chain.py)",
             "nodes": nodes, "outputs": {"forward": [prev], "backward": [grad]}}
    with open(a.output, "w") as f:
        json.dump(graph, f)
        f.write("\n")


if __name__ == "__main__":
    main()
