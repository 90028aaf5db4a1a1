#!/usr/bin/env python3
"""capture_100l.py - capture transformers' GPT2LMHeadModel or LlamaForCausalLM with many
layers at tiny widths (those of tests/python/zoo.py: hidden 32, 2 heads, vocab 128,
sequence 16, batch 2), fresh with `ilpart.capture(..., execute=False)`, and write the
joint graph as JSON. Run inside the sid chroot (torch 2.14 + transformers):

    ILPART_SUITE=sid ./scripts/torch-chroot.sh python3 bench/capture_100l.py \
        {gpt2|llama} LAYERS OUT.json

Plain variant (no checkpointing), training mode, random initialisation (no download),
on the CPU: torch 2.6 loses nll_loss's gradients on the meta device (docs/python.md), and
at these widths the real device costs nothing. PyTorch's own min-cut partition is
recorded as the graph's reference (`reference=True`). Prints the node count and the
capture's wall time on standard error."""
import os
import sys
import time

# bench/timeit.py would shadow the standard module torch imports: drop the script's own
# directory from the path, put tests/python (zoo.py) there instead.
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
sys.path.insert(0, os.path.join(_here, "..", "tests", "python"))

import torch  # noqa: E402
import zoo  # noqa: E402 - LossOf and the widths the tests use

import ilpart  # noqa: E402


def model(name, layers):
    import transformers as T
    common = dict(vocab_size=zoo.VOCAB, use_cache=False)
    if name == "gpt2":
        cfg = T.GPT2Config(n_layer=layers, n_embd=32, n_head=2, n_positions=64,
                           bos_token_id=0, eos_token_id=0, **common)
        return T.GPT2LMHeadModel(cfg)
    if name == "llama":
        cfg = T.LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=layers,
                            num_attention_heads=2, num_key_value_heads=2,
                            max_position_embeddings=64, **common)
        return T.LlamaForCausalLM(cfg)
    raise SystemExit("capture_100l: model must be gpt2 or llama, not %r" % name)


def main():
    if len(sys.argv) != 4:
        raise SystemExit("usage: capture_100l.py {gpt2|llama} LAYERS OUT.json")
    name, layers, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    m = zoo.LossOf(model(name, layers))
    m.train()
    ids = torch.randint(0, zoo.VOCAB, (zoo.BATCH, zoo.SEQ), generator=g)
    labels = torch.randint(0, zoo.VOCAB, (zoo.BATCH, zoo.SEQ), generator=g)
    t0 = time.perf_counter()
    graphs = ilpart.capture(m, ids, labels, path=out, execute=False,
                            description="transformers %s, %d layers, tiny widths (bench/"
                                        "capture_100l.py)" % (name, layers))
    print("capture_100l: %s %d layers: %d graph(s), %d nodes, %.1f s" % (
        name, layers, len(graphs), len(graphs[0]["nodes"]), time.perf_counter() - t0),
        file=sys.stderr)


if __name__ == "__main__":
    main()
