"""Model code nobody here wrote: transformers' GPT-2, Llama, Qwen2, BERT and T5 and
torchvision's ResNet-18 and ViT, at tiny sizes with random initialisation (no download),
each plain, with the library's own gradient checkpointing, and under a SAC policy that
saves matmuls. Used by tests/python/test_realmodels.py and bench/partition_bench.py.

`build(name, variant)` returns (module, inputs): the module's forward returns the scalar
training loss, so `module(*inputs).backward()` is one training step. `available()` says
whether this torch has transformers and torchvision (Debian's torch 2.6 chroot has
neither: the tests skip there)."""

import functools

import torch
import torch.nn as nn
import torch.nn.functional as F

MODELS = ("gpt2", "llama", "qwen2", "bert", "t5", "resnet18", "vit")
VARIANTS = ("plain", "ckpt", "sac")
VOCAB, SEQ, BATCH = 128, 16, 2
IMAGE = 32


def missing():
    """Why the zoo cannot be built here ("" when it can)."""
    out = []
    for mod in ("transformers", "torchvision"):
        try:
            __import__(mod)
        except Exception as e:  # noqa: BLE001 - ImportError or a broken install
            out.append("%s (%s)" % (mod, type(e).__name__))
    return ("this torch %s has no %s" % (torch.__version__, " and no ".join(out))) if out else ""


def matmul_ops():
    """The ops the SAC policy saves: matmuls (and convolutions, ResNet's matmuls)."""
    aten = torch.ops.aten
    return (aten.mm.default, aten.addmm.default, aten.bmm.default, aten.baddbmm.default,
            aten.convolution.default)


def save_matmuls(ctx, func, *args, **kwargs):
    from torch.utils.checkpoint import CheckpointPolicy
    if func in matmul_ops():
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


def sac_context():
    from torch.utils.checkpoint import create_selective_checkpoint_contexts
    return functools.partial(create_selective_checkpoint_contexts, save_matmuls)


class LossOf(nn.Module):
    """A transformers model called with labels: forward returns its loss."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, *args):
        if len(args) == 2:
            return self.model(input_ids=args[0], labels=args[1]).loss
        return self.model(input_ids=args[0], decoder_input_ids=args[1], labels=args[2]).loss


class Classify(nn.Module):
    """A torchvision classifier: forward returns the cross-entropy of its logits."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x, y):
        return F.cross_entropy(self.model(x), y)


class Checkpointed(nn.Module):
    """`block` under torch.utils.checkpoint (non-reentrant), with `context_fn` for SAC."""

    def __init__(self, block, context_fn=None):
        super().__init__()
        self.block = block
        self.kw = {"use_reentrant": False}
        if context_fn is not None:
            self.kw["context_fn"] = context_fn

    def forward(self, *args):
        from torch.utils.checkpoint import checkpoint
        return checkpoint(self.block, *args, **self.kw)


def _hf(name):
    import transformers as T
    common = dict(vocab_size=VOCAB, use_cache=False)
    if name == "gpt2":
        cfg = T.GPT2Config(n_layer=2, n_embd=32, n_head=2, n_positions=64, bos_token_id=0,
                           eos_token_id=0, **common)
        return T.GPT2LMHeadModel(cfg)
    if name == "llama":
        cfg = T.LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                            num_attention_heads=2, num_key_value_heads=2,
                            max_position_embeddings=64, **common)
        return T.LlamaForCausalLM(cfg)
    if name == "qwen2":
        # grouped-query attention: 4 query heads share 2 key/value heads
        cfg = T.Qwen2Config(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                            num_attention_heads=4, num_key_value_heads=2,
                            max_position_embeddings=64, **common)
        return T.Qwen2ForCausalLM(cfg)
    if name == "bert":
        cfg = T.BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                           intermediate_size=64, max_position_embeddings=64, **common)
        return T.BertForMaskedLM(cfg)
    if name == "t5":
        cfg = T.T5Config(d_model=32, d_ff=64, d_kv=16, num_layers=2, num_decoder_layers=2,
                         num_heads=2, decoder_start_token_id=0, **common)
        return T.T5ForConditionalGeneration(cfg)
    raise KeyError(name)


def _tv(name, variant):
    import torchvision
    if name == "resnet18":
        if variant == "plain":
            return torchvision.models.resnet18(num_classes=10)
        # Checkpointed: GroupNorm (torchvision's norm_layer argument) in place of
        # BatchNorm. torch.compile of a checkpointed training-mode BatchNorm fails in torch
        # 2.14 itself ("modified by an inplace operation": the recomputation reads the
        # running statistics the forward has since updated), with PyTorch's partition as
        # with ilpart's.
        m = torchvision.models.resnet18(num_classes=10,
                                        norm_layer=lambda c: nn.GroupNorm(8, c))
        ctx = sac_context() if variant == "sac" else None
        for layer in (m.layer1, m.layer2, m.layer3, m.layer4):
            for i in range(len(layer)):
                layer[i] = Checkpointed(layer[i], ctx)
        return m
    if name == "vit":
        m = torchvision.models.VisionTransformer(image_size=IMAGE, patch_size=8, num_layers=2,
                                                 num_heads=2, hidden_dim=32, mlp_dim=64,
                                                 num_classes=10)
        # torchvision zeroes the head: no gradient would reach the encoder
        nn.init.normal_(m.heads.head.weight, std=0.02)
        if variant != "plain":
            ctx = sac_context() if variant == "sac" else None
            layers = m.encoder.layers
            for i in range(len(layers)):
                layers[i] = Checkpointed(layers[i], ctx)
        return m
    raise KeyError(name)


def build(name, variant="plain", seed=0):
    """(module returning the loss, inputs) for model `name` in `variant`: "plain", "ckpt"
    (transformers' gradient_checkpointing_enable(); torchvision: torch.utils.checkpoint
    around every block) or "sac" (the same regions under create_selective_checkpoint_
    contexts with save_matmuls). Training mode (dropout on where the config has it)."""
    if variant not in VARIANTS:
        raise KeyError(variant)
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed + 1)
    if name in ("resnet18", "vit"):
        model = Classify(_tv(name, variant))
        inputs = [torch.randn(BATCH, 3, IMAGE, IMAGE, generator=g),
                  torch.randint(0, 10, (BATCH,), generator=g)]
    else:
        hf = _hf(name)
        if variant == "ckpt":
            hf.gradient_checkpointing_enable(gradient_checkpointing_kwargs={
                "use_reentrant": False})
        elif variant == "sac":
            hf.gradient_checkpointing_enable(gradient_checkpointing_kwargs={
                "use_reentrant": False, "context_fn": sac_context()})
        model = LossOf(hf)
        ids = torch.randint(0, VOCAB, (BATCH, SEQ), generator=g)
        labels = torch.randint(0, VOCAB, (BATCH, SEQ), generator=g)
        inputs = [ids, labels]
        if name == "t5":
            inputs = [ids, torch.randint(0, VOCAB, (BATCH, SEQ // 2), generator=g),
                      torch.randint(0, VOCAB, (BATCH, SEQ // 2), generator=g)]
    model.train()
    return model, inputs


def has_dropout(model):
    return any(isinstance(m, nn.Dropout) and m.p > 0 for m in model.modules()) or any(
        getattr(getattr(m, "config", None), k, 0) for m in model.modules()
        for k in ("attention_dropout", "attention_probs_dropout_prob", "attn_pdrop"))
