"""Model code nobody here wrote: transformers' GPT-2, Llama, Qwen2, BERT, T5 and Falcon
and torchvision's ResNet-18, ViT and MobileNetV3 (EXTRA: 112 more; VARIED: 21 variations
of them at another width, dtype, SAC policy or training-code pattern; selected by
name), at tiny sizes with random initialisation (no download), each plain, with the
library's own gradient checkpointing, and under a SAC policy that saves matmuls. Used by
tests/python/test_realmodels.py and bench/partition_bench.py.

`build(name, variant)` returns (module, inputs): the module's forward returns the scalar
training loss, so `module(*inputs).backward()` is one training step. `available()` says
whether this torch has transformers and torchvision (Debian's torch 2.6 chroot has
neither: the tests skip there)."""

import functools
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

# Falcon (lifted constants: get_attr, lift_fresh_copy) and MobileNetV3 (hardswish, not
# recomputable in torch) joined the first seven after the sweep found ilpart wrong on them.
MODELS = ("gpt2", "llama", "qwen2", "bert", "t5", "resnet18", "vit", "falcon", "mobilenet_v3")
# Other architectures, at the same tiny sizes, selectable by name (tests/python/
# test_realmodels.py: ILPART_REALMODELS_MODELS; docs/python.md "Other architectures").
EXTRA = ("mistral", "phi", "phi3", "gpt_neox", "opt", "gemma2", "stablelm", "roberta",
         "distilbert", "albert", "bart", "whisper", "efficientnet", "convnext", "swin",
         "densenet", "regnet", "squeezenet",
         # the second sweep (docs/python.md "Widths, dtypes and policies"): mixture of
         # experts, ALiBi, multi-query, disentangled attention, random masking, a
         # two-tower contrastive loss; bottleneck and channel-shuffle convolutions
         "qwen3_moe", "mixtral", "qwen3", "gptj", "bloom", "gpt_bigcode", "deberta_v2",
         "electra", "vitmae", "clip", "resnet50", "shufflenet", "mobilenet_v2", "mnasnet",
         # the third sweep (docs/python.md "A third sweep"): local attention, state-space
         # and recurrent models, two-stream and relative attention, pooling between
         # blocks, sliding-window and LSH attention, a non-parametric layer norm;
         # auxiliary classifiers, 3D and dilated convolutions, multi-axis attention, fused
         # MBConv, CTC with random time masking, relative position bias, a segmentation
         # head, DINOv2
         "gpt_neo", "mamba", "rwkv", "xlnet", "funnel", "longformer", "reformer", "olmo",
         "googlenet", "inception_v3", "r3d", "maxvit", "efficientnet_v2", "deeplabv3",
         "wav2vec2", "beit", "segformer", "dinov2",
         # the fourth sweep (docs/python.md "A fourth sweep"): local and global layers
         # with q/k norms, scaling multipliers, parallel blocks with interleaved rotary,
         # post-norms, a shared expert beside routed ones, per-layer relative position
         # bias, sinusoidal positions, bottlenecks with a no-op norm, Fourier mixing
         # (complex numbers), relative position buckets; global response norm, attention
         # with BatchNorm between, continuous position bias, optical flow (a correlation
         # volume sampled by grid_sample), a lite segmentation head, a detector's losses
         "gemma3", "granite", "cohere", "olmo2", "qwen2_moe", "umt5", "marian", "mobilebert",
         "fnet", "mpnet", "convnextv2", "levit", "swin_v2", "raft", "lraspp", "fasterrcnn",
         # the fifth sweep (docs/python.md "A fifth sweep"): alternating local and global
         # attention with GeGLU, chunked state-space duality, latent attention with grouped
         # expert routing, squared ReLU, token dropout, dynamic span convolutions, grouped
         # 1D convolutions, a gated linear recurrence, short convolutions, a gated delta
         # rule, top-1 expert routing with a capacity, a Mamba-2 and attention hybrid,
         # sliding windows in an encoder-decoder, pre-norm, a sigmoid pairwise loss, strided
         # GLU convolutions over filterbanks, latent cross-attention; attention over
         # unfolded patches, pooling as the token mixer, mask-unit attention, convolutional
         # attention projections; a one-stage detector (SSDlite), focal loss (RetinaNet)
         "modernbert", "mamba2", "deepseek_v3", "nemotron", "esm", "convbert", "squeezebert",
         "recurrent_gemma", "lfm2", "qwen3_next", "mobilevit", "poolformer",
         "switch_transformers", "bamba", "hiera", "cvt", "ssdlite",
         "led", "pegasus", "siglip", "speech2text", "perceiver", "retinanet",
         # the sixth sweep (docs/python.md "A sixth sweep"): attention sinks with clamped
         # SwiGLU experts, a Mamba/attention/experts hybrid, Mamba with normed B/C/dt,
         # q/k norms with experts in every layer, differential attention, rotary values;
         # gated relative position bias over audio frames, focal modulation,
         # spatial-reduction attention, additive attention; an anchor-free detector
         # (FCOS), pooling attention over a clip (MViT v2)
         "gpt_oss", "jamba", "falcon_mamba", "olmoe", "diffllama", "roformer", "wavlm",
         "focalnet", "pvt_v2", "swiftformer", "fcos", "mvit",
         # its second part: ternary weights through a straight-through estimator, xIELU,
         # layers without rotary positions, dynamic mask attention, lightning (linear)
         # attention beside softmax attention with experts, rotary over a model-parallel
         # qkv layout, integer-only quantised BERT; weight-standardised convolutions,
         # divided space-time attention over a clip, masked patches of a time series, a
         # pyramid-pooling segmentation head
         "bitnet", "apertus", "smollm3", "doge", "minimax", "codegen", "ibert", "bit",
         "timesformer", "patchtst", "upernet")
# Cases whose compiled backward fails run as eager code, with torch's own partition as
# with ilpart's (torch's failure, not the partition's: PyTorch's aot_eager fails the same
# way), and which train under Inductor, which compiles the view into its kernel. Their
# harness (test_realmodels.Case) compiles under Inductor: mincut and budget run on their
# graphs; train, peak and the partition_fn half of the Inductor comparison run split
# graphs as they are and are skips with the reason.
_SOFTPLUS_VIEW = ("torch 2.14.1's own partition fails the same way as eager code "
                  "(aot_eager: aten.view of softplus_backward's gradient, not contiguous on "
                  "the CPU: the time step of transformers' sequential Mamba scan, Doge's "
                  "dynamic mask); under Inductor both train (docs/python.md \"A sixth "
                  "sweep\")")
EAGER_CODEGEN_FAILS = {
    ("qwen3_next", "plain"): "torch 2.14.1's own partition fails the same way as eager "
    "code (aot_eager: aten.view of a non-contiguous gradient in the backward of "
    "transformers' grouped_mm_fallback, the experts' grouped matmul); under Inductor "
    "ilpart's partition trains (docs/python.md \"A fifth sweep\")",
}
EAGER_CODEGEN_FAILS.update({(m, v): _SOFTPLUS_VIEW
                            for m in ("mamba", "jamba", "falcon_mamba", "doge")
                            for v in ("plain", "ckpt", "sac")})
EAGER_CODEGEN_FAILS.update({("whisper", v): (
    "torch 2.14.1's own partition fails the same way as eager code (aot_eager: aten.view "
    "of native_dropout_backward's gradient, whose CPU strides are not the fake tensor's); "
    "under Inductor both train (docs/python.md \"Other architectures\")")
    for v in ("plain", "ckpt", "sac")})
EAGER_CODEGEN_FAILS[("patchtst", "plain")] = (
    "torch 2.14.1's own partition fails the same way as eager code (aot_eager: aten.view "
    "in the forward of a transposed BatchNorm output over the patches, whose CPU strides "
    "are not the fake tensor's); under Inductor both train (docs/python.md \"A sixth "
    "sweep\")")
# transformers' models with training-mode BatchNorm: checkpointed, it is a GroupNorm
# (as torchvision's ResNet-18 below). torch 2.14's own partition recomputes the
# statistics from running statistics the forward has updated in place and the backward
# fails ("modified by an inplace operation"); ilpart refuses the tags at compile time
# (a conflict that names prefer="soft", with which it trains: docs/python.md "A fifth
# sweep").
BATCHNORM_TO_GROUPNORM = ("mobilevit", "swiftformer")
# Models whose graphs take index-like floats (torchvision's roi_align reads a box's image
# index from a float column without a bound check): the harness's inputs for their
# split graphs are uniform in [0, 1) (peakmem.make_inputs(uniform=True)), not normal.
UNIFORM_INPUTS = ("fasterrcnn",)
# Models with graphs whose inputs must agree with each other in their values (FCOS's
# centerness target: a boolean mask of positive locations and the index tensor of their
# classes, whose count must equal the mask's number of True; I-BERT's quantisation scales,
# not finite from normal inputs): the harness runs their
# split graphs on the primals each graph's forward received in the model's own step
# (test_realmodels.Case records them), the tangents synthetic.
RECORDED_INPUTS = ("fcos", "ibert")
# Variants of a zoo model at another size, dtype or SAC policy (NAME_SUFFIX; VARIATIONS
# says what each suffix changes), selected by name as EXTRA's are: "wide" is 4 layers,
# hidden 256, sequence 128; "bf16" the model in bfloat16; "f8" the MLP's
# linears cast to float8 (e4m3fn) and back before their matmul, as the seed's model
# (../shared/seed), the SAC policy saving only aten.mm; "sdpa", "prefer" and "norm" only
# change the SAC policy (their plain and ckpt variants are the base model's: skipped).
# The training-code patterns: "amp" the step under CPU autocast (Autocast), "lora" the
# base frozen with adapters on the attention projections (add_lora), "flex" transformers'
# FlexAttention (torch's CPU guard lifted: lift_flex_cpu_guard), "cl" a torchvision
# model and its input in channels_last.
VARIATIONS = {
    "wide": "4 layers, hidden 256 (4 heads), intermediate 512, sequence 128",
    "bf16": "the model in bfloat16",
    "f8": "MLP linears through an emulated float8 (e4m3fn) cast; SAC saves only aten.mm",
    "sdpa": "SAC: MUST_SAVE on scaled_dot_product attention only, PREFER_RECOMPUTE the rest",
    "prefer": "SAC: PREFER_SAVE on matmuls, PREFER_RECOMPUTE the rest (no MUST tag)",
    "norm": "SAC: matmuls MUST_SAVE, the norm (native_layer_norm, rsqrt) MUST_RECOMPUTE, "
            "PREFER_RECOMPUTE the rest",
    # training-code patterns (docs/python.md "Training-code patterns")
    "amp": "the step under torch.autocast('cpu', bfloat16), float32 weights",
    "lora": "base weights frozen; low-rank adapters (rank 4) on the attention projections",
    "flex": "transformers' attn_implementation='flex_attention' (Llama only in 5.12.1; "
            "torch's CPU guard on its backward lifted)",
    "cl": "torchvision: model and input in channels_last",
}
VARIED = ("llama_wide", "gpt2_wide", "llama_bf16", "llama_f8", "llama_sdpa", "gpt2_prefer",
          "gpt2_norm", "llama_norm",
          # training-code patterns
          "llama_amp", "gpt2_amp", "resnet18_amp", "t5_amp", "bert_amp", "vit_amp",
          "llama_lora", "gpt2_lora", "qwen2_lora", "llama_flex", "resnet18_cl", "convnext_cl",
          "mobilenet_v2_cl")
# the variations a torchvision model takes (the others change transformers' models)
TV_VARIATIONS = ("amp", "cl")
LORA_RANK, LORA_ALPHA = 4, 8
# the projections LoRA wraps: Llama's q/k/v/o (nn.Linear), GPT-2's c_attn and the
# attention's c_proj (transformers' Conv1D: weight [in, out])
LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "c_attn")
POLICY_ONLY = ("sdpa", "prefer", "norm")
VARIANTS = ("plain", "ckpt", "sac")
VOCAB, SEQ, BATCH = 128, 16, 2
IMAGE = 32
WIDE_SEQ = 128
TS_CONTEXT = 32  # a time series' context length (PatchTST)


def split_name(name):
    """(base model, variation or "") of a zoo name: "llama_wide" -> ("llama", "wide")."""
    base, _, suffix = name.rpartition("_")
    if base and suffix in VARIATIONS:
        return base, suffix
    return name, ""


# transformers' models without gradient checkpointing: plain only.
NO_CHECKPOINTING = {"albert": "AlbertForMaskedLM", "xlnet": "XLNetLMHeadModel",
                    "funnel": "FunnelForMaskedLM", "reformer": "ReformerModelWithLMHead",
                    "mpnet": "MPNetForMaskedLM",
                    "convnextv2": "ConvNextV2ForImageClassification",
                    "levit": "LevitForImageClassification",
                    "squeezebert": "SqueezeBertForMaskedLM",
                    "poolformer": "PoolFormerForImageClassification",
                    "cvt": "CvtForImageClassification",
                    "perceiver": "PerceiverForMaskedLM", "ibert": "IBertForMaskedLM",
                    "bit": "BitForImageClassification",
                    "patchtst": "PatchTSTForPretraining",
                    "upernet": "UperNetForSemanticSegmentation"}


@functools.lru_cache(maxsize=None)
def flex_backward_refused():
    """Why this torch cannot train FlexAttention on CPU ("" when it can): torch 2.14
    refuses its backward on CPU (`_validate_device`, eagerly and while Dynamo traces it,
    with any backend: docs/python.md "Training-code patterns")."""
    try:
        from torch.nn.attention.flex_attention import flex_attention
    except ImportError as e:
        return "this torch has no flex_attention (%s)" % e
    q = torch.zeros(1, 1, 16, 8, requires_grad=True)
    try:
        flex_attention(q, q, q)
    except NotImplementedError as e:
        return "torch %s: %s" % (torch.__version__, e)
    return ""


def lift_flex_cpu_guard():
    """Let FlexAttention's backward run on CPU: torch 2.14's flex_attention refuses CPU
    inputs that need a gradient before it reaches the higher-order op
    (nn/attention/flex_attention.py `_validate_device`), although the op's CPU
    implementation (a dense one under aot_eager) trains. The "flex" variation lifts that
    guard, for this process, so that ilpart meets the flex_attention and
    flex_attention_backward ops; the other devices' checks stay. Returns a function that
    puts the guard back (a test that lifts it calls it when done)."""
    import torch.nn.attention.flex_attention as fa
    guard = getattr(fa, "_validate_device", None)
    if guard is None or getattr(guard, "ilpart_lifted", False):
        return lambda: None  # a torch without that guard, or lifted already

    def validate(query, key, value):
        if query.device.type == "cpu":
            return None
        return guard(query, key, value)
    validate.ilpart_lifted = True
    fa._validate_device = validate

    def restore():
        fa._validate_device = guard
    return restore


def unsupported(name, variant):
    """Why model `name` cannot be built in `variant` ("" when it can)."""
    base, var = split_name(name)
    if var in POLICY_ONLY and variant != "sac":
        return ("%s changes only the SAC policy: its %s variant is %s/%s"
                % (name, variant, base, variant))
    if name in NO_CHECKPOINTING and variant != "plain":
        return ("transformers' %s does not support gradient checkpointing "
                "(supports_gradient_checkpointing is False)" % NO_CHECKPOINTING[name])
    return ""


def selected(default=MODELS):
    """The model names $ILPART_REALMODELS_MODELS lists (comma-separated; "extra": EXTRA,
    "all": MODELS and EXTRA), else `default`. An unknown name is a KeyError."""
    sel = os.environ.get("ILPART_REALMODELS_MODELS", "").strip()
    if not sel:
        return tuple(default)
    names = []
    for n in (x.strip() for x in sel.split(",")):
        group = {"all": MODELS + EXTRA + VARIED, "extra": EXTRA, "varied": VARIED}.get(n, (n,))
        for g in group:
            if g not in MODELS + EXTRA + VARIED:
                raise KeyError("ILPART_REALMODELS_MODELS: unknown model %r (known: %s)"
                               % (g, ", ".join(MODELS + EXTRA + VARIED)))
            if g not in names:
                names.append(g)
    return tuple(names)


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


def sdpa_ops():
    """The fused attention ops (CPU's flash attention first: what transformers' "sdpa"
    attention dispatches to on CPU)."""
    aten = torch.ops.aten
    return tuple(getattr(aten, n).default for n in (
        "_scaled_dot_product_flash_attention_for_cpu", "_scaled_dot_product_flash_attention",
        "_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention")
        if hasattr(aten, n))


def policy(variation=""):
    """The SAC policy of a variation (VARIATIONS; "": save_matmuls)."""
    from torch.utils.checkpoint import CheckpointPolicy as P
    aten = torch.ops.aten
    if variation == "f8":
        only_mm = (aten.mm.default,)
        return lambda ctx, func, *a, **k: P.MUST_SAVE if func in only_mm else P.PREFER_RECOMPUTE
    if variation == "sdpa":
        attn = sdpa_ops()
        return lambda ctx, func, *a, **k: P.MUST_SAVE if func in attn else P.PREFER_RECOMPUTE
    if variation == "prefer":
        return lambda ctx, func, *a, **k: (P.PREFER_SAVE if func in matmul_ops()
                                           else P.PREFER_RECOMPUTE)
    if variation == "norm":
        norms = (aten.native_layer_norm.default, aten.rsqrt.default)

        def norm(ctx, func, *args, **kwargs):
            if func in matmul_ops():
                return P.MUST_SAVE
            return P.MUST_RECOMPUTE if func in norms else P.PREFER_RECOMPUTE
        return norm
    return save_matmuls


def sac_context(variation=""):
    from torch.utils.checkpoint import create_selective_checkpoint_contexts
    return functools.partial(create_selective_checkpoint_contexts, policy(variation))


class Float8Linear(nn.Module):
    """An nn.Linear whose input and weight go through the seed's dynamic float8 cast
    (models.to_float8: amax, scale, clamp, e4m3fn) and back to the input's dtype before
    an aten.mm, then unscaled (../shared/seed: float8 casts inside a SAC region that saves
    only matmuls)."""

    def __init__(self, lin):
        super().__init__()
        self.weight, self.bias = lin.weight, lin.bias

    def forward(self, x):
        from models import to_float8
        shape = x.shape
        x8, sx = to_float8(x.reshape(-1, shape[-1]))
        w8, sw = to_float8(self.weight)
        y = torch.mm(x8.to(x.dtype), w8.to(x.dtype).t()) * (1.0 / sx) * (1.0 / sw)
        if self.bias is not None:
            y = y + self.bias
        return y.reshape(*shape[:-1], y.shape[-1])


class LoRA(nn.Module):
    """A frozen projection plus a trainable low-rank update, as LoRA training code writes
    it: y = base(x) + B(A(x)) * alpha / rank. `base` is an nn.Linear or transformers'
    Conv1D (GPT-2; weight [in, out]). B starts small and random, not zero, so that A's
    gradient is not zero in one step."""

    def __init__(self, base, rank=LORA_RANK, alpha=LORA_ALPHA):
        super().__init__()
        if isinstance(base, nn.Linear):
            n_in, n_out = base.in_features, base.out_features
        else:
            n_in, n_out = base.weight.shape
        self.base = base
        self.lora_a = nn.Linear(n_in, rank, bias=False)
        self.lora_b = nn.Linear(rank, n_out, bias=False)
        nn.init.normal_(self.lora_b.weight, std=0.02)
        self.scale = alpha / rank

    def forward(self, x):
        return self.base(x) + self.lora_b(self.lora_a(x)) * self.scale


def add_lora(model):
    """Freeze every parameter of `model`, then wrap LORA_TARGETS (and GPT-2's attention
    c_proj) in LoRA: only the adapters train."""
    for p in model.parameters():
        p.requires_grad_(False)
    for mod in list(model.modules()):
        for k, child in list(mod.named_children()):
            if isinstance(child, LoRA):
                continue
            attn = type(mod).__name__.endswith("Attention")
            if k in LORA_TARGETS or (attn and k == "c_proj"):
                setattr(mod, k, LoRA(child))
    return model


class Autocast(nn.Module):
    """The training step's forward under torch.autocast on CPU (bfloat16), as mixed
    precision training code writes it; the weights stay float32."""

    def __init__(self, model, dtype=torch.bfloat16):
        super().__init__()
        self.model = model
        self.dtype = dtype

    def forward(self, *args):
        with torch.autocast("cpu", dtype=self.dtype):
            return self.model(*args)


class LossOf(nn.Module):
    """A transformers model called with labels: forward returns its loss. `keys` names the
    arguments (input_ids, labels; encoder-decoders add decoder_input_ids)."""

    def __init__(self, model, keys=None, extra=None):
        super().__init__()
        self.model = model
        self.keys = keys
        self.extra = dict(extra or {})

    def forward(self, *args):
        if self.keys is not None:
            return self.model(**dict(zip(self.keys, args)), **self.extra).loss
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


class AuxClassify(nn.Module):
    """GoogLeNet, Inception v3: in training their forward returns the logits with one or
    two auxiliary classifiers' logits; the loss is the sum of their cross-entropies."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x, y):
        out = self.model(x)
        logits = [t for t in out if t is not None] if isinstance(out, tuple) else [out]
        return sum(F.cross_entropy(t, y) for t in logits)


class Segment(nn.Module):
    """A torchvision segmentation model: cross-entropy of out["out"] against a label per
    pixel."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x, y):
        return F.cross_entropy(self.model(x)["out"], y)


class SquareLoss(nn.Module):
    """A transformers backbone (DINOv2): the mean square of its last hidden state."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(pixel_values=x).last_hidden_state.pow(2).mean()


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


def _hf(name, wide=False):
    import transformers as T
    common = dict(vocab_size=VOCAB, use_cache=False)
    if name == "gpt2":
        size = (dict(n_layer=4, n_embd=256, n_head=4, n_positions=WIDE_SEQ) if wide else
                dict(n_layer=2, n_embd=32, n_head=2, n_positions=64))
        cfg = T.GPT2Config(bos_token_id=0, eos_token_id=0, **size, **common)
        return T.GPT2LMHeadModel(cfg)
    if name == "llama":
        size = (dict(hidden_size=256, intermediate_size=512, num_hidden_layers=4,
                     num_attention_heads=4, num_key_value_heads=4,
                     max_position_embeddings=WIDE_SEQ) if wide else
                dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                     num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=64))
        return T.LlamaForCausalLM(T.LlamaConfig(**size, **common))
    if wide:
        raise KeyError(name + "_wide")
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
    return _hf_extra(T, name, common)


# The extra architectures' configs: 2 layers, width 32, 2 heads (as Llama's above).
_DECODER = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                num_attention_heads=2, max_position_embeddings=64)


def _hf_extra(T, name, common):
    if name == "mistral":
        return T.MistralForCausalLM(T.MistralConfig(num_key_value_heads=1, sliding_window=8,
                                                    **_DECODER, **common))
    if name == "phi":
        # partial rotary embedding, parallel attention and MLP, GELU
        return T.PhiForCausalLM(T.PhiConfig(partial_rotary_factor=0.5, **_DECODER, **common))
    if name == "phi3":
        # fused qkv and gate_up projections
        return T.Phi3ForCausalLM(T.Phi3Config(pad_token_id=0, bos_token_id=1, eos_token_id=2,
                                              **_DECODER, **common))
    if name == "gpt_neox":
        return T.GPTNeoXForCausalLM(T.GPTNeoXConfig(rotary_pct=0.5, **_DECODER, **common))
    if name == "opt":
        cfg = T.OPTConfig(hidden_size=32, ffn_dim=64, num_hidden_layers=2,
                          num_attention_heads=2, max_position_embeddings=64,
                          word_embed_proj_dim=32, pad_token_id=1, **common)
        return T.OPTForCausalLM(cfg)
    if name == "falcon":
        cfg = T.FalconConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                             max_position_embeddings=64, **common)
        return T.FalconForCausalLM(cfg)
    if name == "gemma2":
        # logit soft-capping (tanh), sliding-window layers, pre- and post-norms
        cfg = T.Gemma2Config(head_dim=16, num_key_value_heads=1, sliding_window=8,
                             **_DECODER, **common)
        return T.Gemma2ForCausalLM(cfg)
    if name == "stablelm":
        return T.StableLmForCausalLM(T.StableLmConfig(num_key_value_heads=2, **_DECODER,
                                                      **common))
    enc = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
               intermediate_size=64, max_position_embeddings=64)
    if name == "roberta":
        return T.RobertaForMaskedLM(T.RobertaConfig(pad_token_id=1, **enc, **common))
    if name == "distilbert":
        cfg = T.DistilBertConfig(dim=32, n_layers=2, n_heads=2, hidden_dim=64,
                                 max_position_embeddings=64, vocab_size=VOCAB)
        return T.DistilBertForMaskedLM(cfg)
    if name == "albert":
        # one layer's weights shared by both layers; factorised embedding
        return T.AlbertForMaskedLM(T.AlbertConfig(embedding_size=16, **enc, **common))
    if name == "bart":
        cfg = T.BartConfig(d_model=32, encoder_layers=2, decoder_layers=2,
                           encoder_attention_heads=2, decoder_attention_heads=2,
                           encoder_ffn_dim=64, decoder_ffn_dim=64,
                           max_position_embeddings=64, **common)
        return T.BartForConditionalGeneration(cfg)
    if name == "whisper":
        # convolutional audio front end (2 conv1d) over SEQ * 2 frames of 8 mel bins
        cfg = T.WhisperConfig(d_model=32, encoder_layers=2, decoder_layers=2,
                              encoder_attention_heads=2, decoder_attention_heads=2,
                              encoder_ffn_dim=64, decoder_ffn_dim=64, num_mel_bins=8,
                              max_source_positions=SEQ, max_target_positions=64,
                              decoder_start_token_id=1, pad_token_id=0, bos_token_id=1,
                              eos_token_id=2, begin_suppress_tokens=None, dropout=0.1,
                              **common)
        return T.WhisperForConditionalGeneration(cfg)
    return _hf_third(T, name, common, enc)


def _hf_fifth(T, name):
    vit = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, image_size=IMAGE,
               patch_size=8)
    if name == "wav2vec2":
        # convolutional feature extractor (kernels 10, 3; strides 5, 2) over raw audio,
        # a grouped positional convolution (weight norm), random time masking (numpy's
        # random spans, then masked_spec_embed written over them), CTC loss
        cfg = T.Wav2Vec2Config(vocab_size=32, hidden_size=32, num_hidden_layers=2,
                               num_attention_heads=2, intermediate_size=64, conv_dim=(32, 32),
                               conv_stride=(5, 2), conv_kernel=(10, 3),
                               num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2,
                               mask_time_prob=0.2, mask_time_length=2,
                               ctc_loss_reduction="mean", pad_token_id=0)
        return T.Wav2Vec2ForCTC(cfg)
    if name == "beit":
        # relative position bias per layer, layer scale, mean pooling. Classification: the
        # masked-image-modeling head indexes by a boolean mask (a data-dependent shape)
        cfg = T.BeitConfig(intermediate_size=64, use_relative_position_bias=True,
                           use_mean_pooling=True, layer_scale_init_value=0.1,
                           drop_path_rate=0.1, num_labels=10, **vit)
        return T.BeitForImageClassification(cfg)
    if name == "segformer":
        # two stages of overlapping patch embeddings, spatial-reduction attention (sr 2),
        # Mix-FFN (depthwise conv), an all-MLP decode head (BatchNorm), upsampled loss
        cfg = T.SegformerConfig(num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1],
                                hidden_sizes=[16, 32], patch_sizes=[7, 3], strides=[4, 2],
                                num_attention_heads=[1, 2], mlp_ratios=[2, 2],
                                decoder_hidden_size=32, num_labels=4, drop_path_rate=0.1)
        return T.SegformerForSemanticSegmentation(cfg)
    if name == "dinov2":
        # layer scale, stochastic depth; the loss is the mean square of the last hidden state
        cfg = T.Dinov2Config(mlp_ratio=2, layerscale_value=0.1, drop_path_rate=0.1, **vit)
        return T.Dinov2Model(cfg)
    return _hf_sixth(T, name)


def _hf_sixth(T, name):
    # the fourth sweep (docs/python.md "A fourth sweep")
    common = dict(vocab_size=VOCAB, use_cache=False)
    if name == "gemma3":
        # text only: a sliding-window and a global layer (their own rotary bases), q and k
        # RMS-normed per head, pre- and post-norms
        cfg = T.Gemma3TextConfig(head_dim=16, num_key_value_heads=1, sliding_window=8,
                                 layer_types=["sliding_attention", "full_attention"],
                                 **_DECODER, **common)
        return T.Gemma3ForCausalLM(cfg)
    if name == "granite":
        # embedding, residual, attention and logit multipliers
        cfg = T.GraniteConfig(num_key_value_heads=2, embedding_multiplier=12.0,
                              residual_multiplier=0.22, attention_multiplier=0.0625,
                              logits_scaling=8.0, **_DECODER, **common)
        return T.GraniteForCausalLM(cfg)
    if name == "cohere":
        # parallel attention and MLP, bias-free LayerNorm, interleaved rotary, logit scale
        cfg = T.CohereConfig(num_key_value_heads=2, logit_scale=0.0625, pad_token_id=0,
                             bos_token_id=1, eos_token_id=2, **_DECODER, **common)
        return T.CohereForCausalLM(cfg)
    if name == "olmo2":
        # norms after attention and MLP, q and k RMS-normed over the whole projection
        cfg = T.Olmo2Config(num_key_value_heads=2, pad_token_id=1, bos_token_id=0,
                            eos_token_id=2, **_DECODER, **common)
        return T.Olmo2ForCausalLM(cfg)
    if name == "qwen2_moe":
        # 4 routed experts (2 per token) and a shared expert behind a sigmoid gate
        cfg = T.Qwen2MoeConfig(num_key_value_heads=1, moe_intermediate_size=32,
                               shared_expert_intermediate_size=64, num_experts=4,
                               num_experts_per_tok=2, decoder_sparse_step=1, **_DECODER,
                               **common)
        return T.Qwen2MoeForCausalLM(cfg)
    if name == "umt5":
        # T5 with a relative position bias in every layer (not only the first), gated GELU
        cfg = T.UMT5Config(d_model=32, d_ff=64, d_kv=16, num_layers=2, num_decoder_layers=2,
                           num_heads=2, decoder_start_token_id=0, pad_token_id=0,
                           eos_token_id=1, **common)
        return T.UMT5ForConditionalGeneration(cfg)
    if name == "marian":
        # sinusoidal position embeddings, a scaled embedding
        cfg = T.MarianConfig(d_model=32, encoder_layers=2, decoder_layers=2,
                             encoder_attention_heads=2, decoder_attention_heads=2,
                             encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64,
                             pad_token_id=0, eos_token_id=1, decoder_start_token_id=0,
                             forced_eos_token_id=1, **common)
        return T.MarianMTModel(cfg)
    if name == "mobilebert":
        # trigram input embedding, bottlenecks (16 wide inside the 32 wide layers), two
        # stacked feed-forward networks, NoNorm (an elementwise affine map)
        cfg = T.MobileBertConfig(hidden_size=32, embedding_size=16, intra_bottleneck_size=16,
                                 num_hidden_layers=2, num_attention_heads=2,
                                 intermediate_size=32, num_feedforward_networks=2,
                                 max_position_embeddings=64, **common)
        return T.MobileBertForMaskedLM(cfg)
    if name == "fnet":
        # token mixing by a 2D Fourier transform (complex tensors; its real part), no
        # attention
        cfg = T.FNetConfig(hidden_size=32, num_hidden_layers=2, intermediate_size=64,
                           max_position_embeddings=64, use_tpu_fourier_optimizations=False,
                           **common)
        return T.FNetForMaskedLM(cfg)
    if name == "mpnet":
        # relative position buckets added to the attention scores
        cfg = T.MPNetConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                            intermediate_size=64, max_position_embeddings=64, pad_token_id=1,
                            **common)
        return T.MPNetForMaskedLM(cfg)
    if name == "convnextv2":
        # depthwise 7x7 convolutions, global response normalisation, stochastic depth
        cfg = T.ConvNextV2Config(num_stages=2, hidden_sizes=[16, 32], depths=[1, 1],
                                 num_labels=10, drop_path_rate=0.1, image_size=IMAGE)
        return T.ConvNextV2ForImageClassification(cfg)
    if name == "levit":
        # convolutional patch embedding (4 stride-2 convolutions), attention with learned
        # biases per offset, BatchNorm after every linear, subsampling attention between
        # its 3 stages (transformers' LeViT takes 3)
        cfg = T.LevitConfig(image_size=IMAGE, hidden_sizes=[32, 48, 64],
                            num_attention_heads=[2, 2, 2], depths=[1, 1, 1], key_dim=[8, 8, 8],
                            mlp_ratio=[2, 2, 2], attention_ratio=[2, 2, 2], num_labels=10)
        return T.LevitForImageClassification(cfg)
    return _hf_seventh(T, name, common)


def _hf_seventh(T, name, common):
    # the fifth sweep (docs/python.md "A fifth sweep")
    if name == "modernbert":
        # alternating global and local (window 8) attention, GeGLU, no biases, rotary
        cfg = T.ModernBertConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                 num_attention_heads=2, global_attn_every_n_layers=2,
                                 local_attention=8, max_position_embeddings=64,
                                 pad_token_id=0, bos_token_id=1, eos_token_id=2, cls_token_id=1,
                                 sep_token_id=2, **common)
        return T.ModernBertForMaskedLM(cfg)
    if name == "mamba2":
        # state-space duality: the sequence in chunks (chunk 8), a segment sum of the
        # decays (cumsum, exp, masked tril), gated RMS norm; transformers' torch path
        cfg = T.Mamba2Config(hidden_size=32, num_hidden_layers=2, state_size=8, expand=2,
                             head_dim=16, num_heads=4, n_groups=1, chunk_size=8,
                             conv_kernel=4, **common)
        return T.Mamba2ForCausalLM(cfg)
    if name == "deepseek_v3":
        # multi-head latent attention (low-rank q and kv, decoupled rotary part) and a
        # mixture of 4 routed experts in 2 groups (top 1 group, 2 experts) with a shared
        # expert, after one dense layer
        cfg = T.DeepseekV3Config(hidden_size=32, intermediate_size=64, moe_intermediate_size=32,
                                 num_hidden_layers=2, num_attention_heads=2,
                                 num_key_value_heads=2, q_lora_rank=16, kv_lora_rank=16,
                                 qk_rope_head_dim=8, qk_nope_head_dim=8, v_head_dim=16,
                                 n_routed_experts=4, n_shared_experts=1, num_experts_per_tok=2,
                                 n_group=2, topk_group=1, first_k_dense_replace=1,
                                 max_position_embeddings=64, **common)
        return T.DeepseekV3ForCausalLM(cfg)
    if name == "nemotron":
        # squared-ReLU MLP (no gate), LayerNorm1P (weight + 1), partial rotary
        cfg = T.NemotronConfig(num_key_value_heads=2, partial_rotary_factor=0.5,
                               pad_token_id=0, bos_token_id=1, eos_token_id=2, **_DECODER,
                               **common)
        return T.NemotronForCausalLM(cfg)
    if name == "esm":
        # rotary attention, token dropout (masked tokens zeroed, the rest rescaled by the
        # mask ratio), pre-norm
        cfg = T.EsmConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2,
                          num_attention_heads=2, intermediate_size=64,
                          max_position_embeddings=64, position_embedding_type="rotary",
                          token_dropout=True, mask_token_id=4, pad_token_id=1)
        return T.EsmForMaskedLM(cfg)
    if name == "convbert":
        # span-based dynamic convolution heads beside attention heads (unfold), grouped
        # linear feed-forward
        cfg = T.ConvBertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                               intermediate_size=64, max_position_embeddings=64,
                               embedding_size=32, head_ratio=2, conv_kernel_size=3,
                               num_groups=2, vocab_size=VOCAB)
        return T.ConvBertForMaskedLM(cfg)
    if name == "squeezebert":
        # grouped 1D convolutions in place of the linears, channels-first layout
        cfg = T.SqueezeBertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                  intermediate_size=64, max_position_embeddings=64,
                                  embedding_size=32, q_groups=2, k_groups=2, v_groups=2,
                                  post_attention_groups=2, intermediate_groups=2,
                                  output_groups=2, vocab_size=VOCAB)
        return T.SqueezeBertForMaskedLM(cfg)
    if name == "recurrent_gemma":
        # Griffin: a real-gated linear recurrent unit (a scan over the positions) beside
        # a local attention layer, a short temporal convolution, logit soft-capping
        cfg = T.RecurrentGemmaConfig(hidden_size=32, intermediate_size=64,
                                     num_hidden_layers=2, num_attention_heads=2,
                                     num_key_value_heads=1, head_dim=16, lru_width=32,
                                     attention_window_size=8, conv1d_width=4,
                                     block_types=["recurrent", "attention"],
                                     pad_token_id=0, bos_token_id=1, eos_token_id=2, **common)
        return T.RecurrentGemmaForCausalLM(cfg)
    if name == "lfm2":
        # gated short convolutions (kernel 3) in most layers, attention in the others
        cfg = T.Lfm2Config(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                           num_attention_heads=2, num_key_value_heads=1,
                           max_position_embeddings=64, conv_L_cache=3,
                           layer_types=["conv", "full_attention"], pad_token_id=0,
                           bos_token_id=1, eos_token_id=2, **common)
        return T.Lfm2ForCausalLM(cfg)
    if name == "qwen3_next":
        # a gated delta-rule linear attention layer (chunked, transformers' torch path)
        # and a gated full attention layer, a mixture of 4 experts with a shared one
        cfg = T.Qwen3NextConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                num_attention_heads=2, num_key_value_heads=1, head_dim=16,
                                linear_num_value_heads=2, linear_num_key_heads=2,
                                linear_key_head_dim=8, linear_value_head_dim=8,
                                linear_conv_kernel_dim=4, moe_intermediate_size=32,
                                shared_expert_intermediate_size=32, num_experts=4,
                                num_experts_per_tok=2, decoder_sparse_step=1,
                                layer_types=["linear_attention", "full_attention"],
                                max_position_embeddings=64, **common)
        return T.Qwen3NextForCausalLM(cfg)
    if name == "mobilevit":
        # MobileNetV2 blocks, then transformers over unfolded 2x2 patches, folded back
        cfg = T.MobileViTConfig(image_size=IMAGE, hidden_sizes=[16, 24, 32],
                                neck_hidden_sizes=[8, 8, 16, 16, 24, 24, 32], num_labels=10,
                                num_attention_heads=2)
        return T.MobileViTForImageClassification(cfg)
    if name == "poolformer":
        # average pooling as the token mixer, GroupNorm, layer scale, stochastic depth
        cfg = T.PoolFormerConfig(num_encoder_blocks=2, depths=[1, 1], hidden_sizes=[16, 32],
                                 patch_sizes=[7, 3], strides=[4, 2], padding=[2, 1],
                                 drop_path_rate=0.1, num_labels=10)
        return T.PoolFormerForImageClassification(cfg)
    if name == "switch_transformers":
        # T5 with top-1 routed experts (4, capacity factor 1: tokens over capacity skip
        # the layer) in every other layer, router jitter noise, the router's z- and
        # auxiliary losses beside the language model's
        cfg = T.SwitchTransformersConfig(d_model=32, d_ff=64, d_kv=16, num_layers=2,
                                         num_decoder_layers=2, num_heads=2, num_experts=4,
                                         expert_capacity=8, encoder_sparse_step=2,
                                         decoder_sparse_step=2, router_jitter_noise=0.01,
                                         decoder_start_token_id=0, pad_token_id=0,
                                         eos_token_id=1, **common)
        return T.SwitchTransformersForConditionalGeneration(cfg)
    if name == "bamba":
        # a Mamba-2 mixer layer (chunked scan) and an attention layer
        cfg = T.BambaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                            num_attention_heads=2, num_key_value_heads=1, mamba_n_heads=4,
                            mamba_d_head=16, mamba_n_groups=1, mamba_d_state=8,
                            mamba_chunk_size=8, mamba_expand=2, attn_layer_indices=[1],
                            max_position_embeddings=64, pad_token_id=0, bos_token_id=1,
                            eos_token_id=2, **common)
        return T.BambaForCausalLM(cfg)
    if name == "hiera":
        # hierarchical ViT: attention within mask units, then across them after pooling
        # the queries (stride 2), no relative position bias
        cfg = T.HieraConfig(image_size=[IMAGE, IMAGE], patch_size=[3, 3], patch_stride=[2, 2],
                            patch_padding=[1, 1], embed_dim=16, depths=[1, 1],
                            num_heads=[1, 2], query_stride=[2, 2], masked_unit_size=[4, 4],
                            masked_unit_attention=[True, False], num_query_pool=1,
                            drop_path_rate=0.1, num_labels=10)
        return T.HieraForImageClassification(cfg)
    if name == "cvt":
        # convolutional token embeddings; q, k, v projected by depthwise convolutions
        # (BatchNorm between), k and v strided; a class token in the last stage. Depths 1
        # and 2: transformers 5.12.1 picks a layer's drop-path rate by its stage's index
        # within the stage's layers (IndexError with depth 1 in the second stage)
        cfg = T.CvtConfig(num_stages=2, patch_sizes=[7, 3], patch_stride=[4, 2],
                          patch_padding=[2, 1], embed_dim=[16, 32], num_heads=[1, 2],
                          depth=[1, 2], mlp_ratio=[2.0, 2.0], cls_token=[False, True],
                          drop_path_rate=[0.0, 0.1], qkv_projection_method=["dw_bn", "dw_bn"],
                          kernel_qkv=[3, 3], padding_kv=[1, 1], stride_kv=[2, 2],
                          padding_q=[1, 1], stride_q=[1, 1], attention_drop_rate=[0.0, 0.0],
                          drop_rate=[0.0, 0.0], num_labels=10)
        return T.CvtForImageClassification(cfg)
    return _hf_eighth(T, name, common)


def _hf_eighth(T, name, common):
    # the fifth sweep, second part (docs/python.md "A fifth sweep")
    if name == "led":
        # Longformer's sliding-window attention (window 4) in a BART-like encoder-decoder
        cfg = T.LEDConfig(d_model=32, encoder_layers=2, decoder_layers=2,
                          encoder_attention_heads=2, decoder_attention_heads=2,
                          encoder_ffn_dim=64, decoder_ffn_dim=64, attention_window=[4, 4],
                          max_encoder_position_embeddings=64,
                          max_decoder_position_embeddings=64, pad_token_id=1, bos_token_id=0,
                          eos_token_id=2, decoder_start_token_id=2, **common)
        return T.LEDForConditionalGeneration(cfg)
    if name == "pegasus":
        # pre-norm encoder-decoder, sinusoidal positions, scaled embedding
        cfg = T.PegasusConfig(d_model=32, encoder_layers=2, decoder_layers=2,
                              encoder_attention_heads=2, decoder_attention_heads=2,
                              encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64,
                              pad_token_id=0, eos_token_id=1, decoder_start_token_id=0,
                              **common)
        return T.PegasusForConditionalGeneration(cfg)
    if name == "siglip":
        # two towers, a sigmoid loss over every text-image pair (a learned scale and bias)
        tower = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                     num_attention_heads=2)
        cfg = T.SiglipConfig(text_config=dict(vocab_size=VOCAB, max_position_embeddings=SEQ,
                                              **tower),
                             vision_config=dict(image_size=IMAGE, patch_size=8, **tower))
        return T.SiglipModel(cfg)
    if name == "speech2text":
        # two strided 1D convolutions (GLU) over filterbank frames, then an
        # encoder-decoder with sinusoidal positions
        cfg = T.Speech2TextConfig(d_model=32, encoder_layers=2, decoder_layers=2,
                                  encoder_attention_heads=2, decoder_attention_heads=2,
                                  encoder_ffn_dim=64, decoder_ffn_dim=64, conv_channels=32,
                                  input_feat_per_channel=8, max_source_positions=64,
                                  max_target_positions=64, pad_token_id=1, bos_token_id=0,
                                  eos_token_id=2, decoder_start_token_id=2, **common)
        return T.Speech2TextForConditionalGeneration(cfg)
    if name == "perceiver":
        # byte-level input cross-attended into 8 latents, self-attention over the
        # latents, decoded back to every position by cross-attention
        cfg = T.PerceiverConfig(num_latents=8, d_latents=32, d_model=32, num_blocks=1,
                                num_self_attends_per_block=2, num_self_attention_heads=2,
                                num_cross_attention_heads=2, qk_channels=32, v_channels=32,
                                vocab_size=VOCAB, max_position_embeddings=SEQ)
        return T.PerceiverForMaskedLM(cfg)
    return _hf_ninth(T, name, common)


def _hf_ninth(T, name, common):
    # the sixth sweep (docs/python.md "A sixth sweep")
    ids = dict(pad_token_id=0, bos_token_id=1, eos_token_id=2)
    if name == "gpt_oss":
        # attention sinks (a learned logit per head beside the keys), sliding and full
        # layers, 4 experts (top 2) with a clamped SwiGLU, the router's auxiliary loss
        cfg = T.GptOssConfig(num_key_value_heads=1, head_dim=16, num_local_experts=4,
                             num_experts_per_tok=2, sliding_window=8,
                             layer_types=["sliding_attention", "full_attention"],
                             output_router_logits=True, **_DECODER, **common)
        return T.GptOssForCausalLM(cfg)
    if name == "jamba":
        # a Mamba mixer (the sequential scan: no kernels here) and an attention layer, a
        # mixture of 4 experts in every other layer
        cfg = T.JambaConfig(num_key_value_heads=1, num_experts=4, num_experts_per_tok=2,
                            expert_layer_period=2, expert_layer_offset=1, attn_layer_period=2,
                            attn_layer_offset=1, mamba_d_state=8, mamba_d_conv=4,
                            mamba_expand=2, mamba_dt_rank=4, use_mamba_kernels=False, **ids,
                            **_DECODER, **common)
        return T.JambaForCausalLM(cfg)
    if name == "falcon_mamba":
        # Mamba with RMS norms on B, C and the time step, the sequential scan
        cfg = T.FalconMambaConfig(hidden_size=32, num_hidden_layers=2, state_size=8, expand=2,
                                  conv_kernel=4, time_step_rank=4, use_mambapy=False, **ids,
                                  **common)
        return T.FalconMambaForCausalLM(cfg)
    if name == "olmoe":
        # q/k norms, 4 experts (top 2) in every layer, the router's auxiliary loss
        cfg = T.OlmoeConfig(num_key_value_heads=2, num_experts=4, num_experts_per_tok=2,
                            output_router_logits=True, **ids, **_DECODER, **common)
        return T.OlmoeForCausalLM(cfg)
    if name == "diffllama":
        # differential attention: two softmax maps, one subtracted with a learned lambda
        cfg = T.DiffLlamaConfig(num_key_value_heads=2, **_DECODER, **common)
        return T.DiffLlamaForCausalLM(cfg)
    if name == "roformer":
        # rotary positions in a BERT encoder, applied to the values too
        cfg = T.RoFormerConfig(hidden_size=32, embedding_size=32, num_hidden_layers=2,
                               num_attention_heads=2, intermediate_size=64,
                               max_position_embeddings=64, rotary_value=True, vocab_size=VOCAB)
        return T.RoFormerForMaskedLM(cfg)
    if name == "wavlm":
        # gated relative position bias (buckets), a convolutional feature encoder, random
        # time masking, CTC
        cfg = T.WavLMConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                            intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 2),
                            conv_kernel=(10, 3), num_conv_pos_embeddings=16,
                            num_conv_pos_embedding_groups=2, num_buckets=32,
                            max_bucket_distance=64, vocab_size=32, mask_time_prob=0.1,
                            mask_time_length=2, ctc_loss_reduction="mean", pad_token_id=0)
        return T.WavLMForCTC(cfg)
    if name == "focalnet":
        # focal modulation: depthwise convolutions at two levels, gated and summed, in
        # place of attention; layer scale, stochastic depth
        cfg = T.FocalNetConfig(image_size=IMAGE, patch_size=4, embed_dim=16, depths=[1, 1],
                               focal_levels=[2, 2], focal_windows=[3, 3], drop_path_rate=0.1,
                               use_layerscale=True, num_labels=10)
        return T.FocalNetForImageClassification(cfg)
    if name == "pvt_v2":
        # spatial-reduction attention (keys and values from a strided convolution),
        # overlapping patch embeddings, a depthwise convolution in the MLP
        cfg = T.PvtV2Config(image_size=IMAGE, num_encoder_blocks=2, depths=[1, 1],
                            sr_ratios=[2, 1], hidden_sizes=[16, 32], patch_sizes=[7, 3],
                            strides=[4, 2], num_attention_heads=[1, 2], mlp_ratios=[2, 2],
                            drop_path_rate=0.1, num_labels=10)
        return T.PvtV2ForImageClassification(cfg)
    if name == "swiftformer":
        # efficient additive attention (a learned global query, no key-query matrix),
        # convolutional encoders, BatchNorm
        cfg = T.SwiftFormerConfig(image_size=IMAGE, depths=[1, 1, 1, 1],
                                  embed_dims=[8, 16, 24, 32], mlp_ratio=2, drop_path_rate=0.1,
                                  num_labels=10)
        return T.SwiftFormerForImageClassification(cfg)
    return _hf_tenth(T, name, common)


def _hf_tenth(T, name, common):
    # the sixth sweep, second part (docs/python.md "A sixth sweep")
    ids = dict(pad_token_id=0, bos_token_id=1, eos_token_id=2)
    if name == "bitnet":
        # BitLinear: weights ternarised and activations quantised to 8 bits, each through
        # a straight-through estimator (x + (q(x) - x).detach()), a sub-layer norm
        cfg = T.BitNetConfig(num_key_value_heads=2, **ids, **_DECODER, **common)
        return T.BitNetForCausalLM(cfg)
    if name == "apertus":
        # xIELU activation (learned, piecewise: quadratic and an exponential branch), q/k
        # norms
        cfg = T.ApertusConfig(num_key_value_heads=2, **ids, **_DECODER, **common)
        return T.ApertusForCausalLM(cfg)
    if name == "smollm3":
        # one layer with rotary positions, one without (NoPE)
        cfg = T.SmolLM3Config(num_key_value_heads=2, no_rope_layers=[1, 0], **ids, **_DECODER,
                              **common)
        return T.SmolLM3ForCausalLM(cfg)
    if name == "doge":
        # dynamic mask attention: a mask per head from the values (top 8 positions kept)
        cfg = T.DogeConfig(num_key_value_heads=2, is_moe=False, keep_window_size=8, **ids,
                           **_DECODER, **common)
        return T.DogeForCausalLM(cfg)
    if name == "minimax":
        # lightning attention (linear attention in blocks of 8, decays) in one layer,
        # softmax attention in the other; 4 experts, the router's auxiliary loss
        cfg = T.MiniMaxConfig(num_key_value_heads=2, head_dim=16, num_local_experts=4,
                              num_experts_per_tok=2,
                              layer_types=["linear_attention", "full_attention"], block_size=8,
                              output_router_logits=True, **ids, **_DECODER, **common)
        return T.MiniMaxForCausalLM(cfg)
    if name == "codegen":
        # q, k and v from one projection in a model-parallel layout (4 shards), rotary
        # on 4 dimensions, attention and MLP in parallel
        cfg = T.CodeGenConfig(n_embd=32, n_layer=2, n_head=4, n_positions=64, rotary_dim=4,
                              **common)
        return T.CodeGenForCausalLM(cfg)
    if name == "ibert":
        # integer-only BERT (quant_mode): quantised linears, integer GELU, softmax and
        # layer norm emulated in floats by custom autograd functions (floor, round)
        cfg = T.IBertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                            intermediate_size=64, max_position_embeddings=64, quant_mode=True,
                            vocab_size=VOCAB)
        return T.IBertForMaskedLM(cfg)
    if name == "bit":
        # BiT: weight-standardised convolutions (a batch norm over each filter's weights
        # in the forward), GroupNorm, "SAME" padding computed from the input
        cfg = T.BitConfig(embedding_size=32, hidden_sizes=[128, 128], depths=[1, 1],
                          layer_type="bottleneck", global_padding="SAME", num_labels=10)
        return T.BitForImageClassification(cfg)
    if name == "timesformer":
        # divided space-time attention: over the frames at each patch, then over the
        # patches of each frame
        cfg = T.TimesformerConfig(image_size=IMAGE, patch_size=8, num_frames=FRAMES,
                                  hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                  intermediate_size=64, num_labels=10)
        return T.TimesformerForVideoClassification(cfg)
    if name == "patchtst":
        # a time series of 3 channels cut into patches, 40 % of them masked at random,
        # reconstructed (masked pretraining)
        cfg = T.PatchTSTConfig(num_input_channels=3, context_length=TS_CONTEXT, patch_length=4,
                               patch_stride=4, d_model=32, num_hidden_layers=2,
                               num_attention_heads=2, ffn_dim=64, do_mask_input=True,
                               mask_type="random", random_mask_ratio=0.4)
        return T.PatchTSTForPretraining(cfg)
    if name == "upernet":
        # UperNet over a ConvNeXt backbone: a pyramid pooling module and a feature pyramid,
        # an auxiliary FCN head's loss beside the main one
        backbone = T.ConvNextConfig(hidden_sizes=[16, 32, 32, 32], depths=[1, 1, 1, 1],
                                    out_features=["stage1", "stage2", "stage3", "stage4"])
        cfg = T.UperNetConfig(backbone_config=backbone, hidden_size=16,
                              auxiliary_in_channels=32, auxiliary_channels=16, num_labels=4)
        return T.UperNetForSemanticSegmentation(cfg)
    raise KeyError(name)


def _hf_third(T, name, common, enc):
    if name == "qwen3_moe":
        # mixture of experts: a router picks 2 of 4 experts per token (data-dependent)
        cfg = T.Qwen3MoeConfig(num_key_value_heads=1, head_dim=16, moe_intermediate_size=32,
                               num_experts=4, num_experts_per_tok=2, decoder_sparse_step=1,
                               **_DECODER, **common)
        return T.Qwen3MoeForCausalLM(cfg)
    if name == "mixtral":
        # mixture of experts through transformers' "batched_mm" experts: every token's
        # chosen experts' weights gathered by index (one graph; the default "eager" experts
        # loop over experts with nonzero/where and break the graph: qwen3_moe)
        cfg = T.MixtralConfig(num_key_value_heads=1, num_local_experts=4,
                              num_experts_per_tok=2, experts_implementation="batched_mm",
                              **_DECODER, **common)
        return T.MixtralForCausalLM(cfg)
    if name == "qwen3":
        # q and k RMS-normed per head
        return T.Qwen3ForCausalLM(T.Qwen3Config(num_key_value_heads=1, head_dim=16,
                                                **_DECODER, **common))
    if name == "gptj":
        # rotary on the first 8 dimensions of each head, interleaved; parallel attention/MLP
        cfg = T.GPTJConfig(n_embd=32, n_layer=2, n_head=2, rotary_dim=8, n_positions=64,
                           n_inner=64, bos_token_id=0, eos_token_id=0, **common)
        return T.GPTJForCausalLM(cfg)
    if name == "bloom":
        # ALiBi position biases added to the attention scores (baddbmm)
        cfg = T.BloomConfig(hidden_size=32, n_layer=2, n_head=2, bos_token_id=0,
                            eos_token_id=0, **common)
        return T.BloomForCausalLM(cfg)
    if name == "gpt_bigcode":
        # multi-query attention: one key/value head for all query heads
        cfg = T.GPTBigCodeConfig(n_embd=32, n_layer=2, n_head=2, n_positions=64, n_inner=64,
                                 multi_query=True, bos_token_id=0, eos_token_id=0, **common)
        return T.GPTBigCodeForCausalLM(cfg)
    if name == "deberta_v2":
        # disentangled attention: content-to-position and position-to-content terms
        cfg = T.DebertaV2Config(relative_attention=True, position_buckets=8,
                                max_relative_positions=16, pos_att_type=["p2c", "c2p"],
                                **enc, **common)
        return T.DebertaV2ForMaskedLM(cfg)
    if name == "electra":
        # factorised embedding (16) projected to the hidden width
        return T.ElectraForMaskedLM(T.ElectraConfig(embedding_size=16, **enc, **common))
    if name == "vitmae":
        # random masking of 75 % of the patches (rand, argsort, gather), a decoder
        cfg = T.ViTMAEConfig(image_size=IMAGE, patch_size=8, hidden_size=32,
                             num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                             decoder_hidden_size=32, decoder_num_hidden_layers=1,
                             decoder_num_attention_heads=2, decoder_intermediate_size=64,
                             mask_ratio=0.75)
        return T.ViTMAEForPreTraining(cfg)
    if name == "clip":
        # two towers, a contrastive loss over the batch's text-image pairs
        tower = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                     num_attention_heads=2, projection_dim=16)
        cfg = T.CLIPConfig(text_config=dict(vocab_size=VOCAB, max_position_embeddings=64,
                                            **tower),
                           vision_config=dict(image_size=IMAGE, patch_size=8, **tower),
                           projection_dim=16)
        return T.CLIPModel(cfg)
    return _hf_fourth(T, name, common, enc)


def _hf_fourth(T, name, common, enc):
    # the third sweep (docs/python.md "A third sweep")
    if name == "gpt_neo":
        # alternating global and local (window 8) attention layers
        cfg = T.GPTNeoConfig(hidden_size=32, num_layers=2, num_heads=2, intermediate_size=64,
                             attention_types=[[["global", "local"], 1]], window_size=8,
                             max_position_embeddings=64, bos_token_id=0, eos_token_id=0,
                             **common)
        return T.GPTNeoForCausalLM(cfg)
    if name == "mamba":
        # selective scan, no attention (the slow path: no CUDA kernels on CPU)
        cfg = T.MambaConfig(hidden_size=32, state_size=8, num_hidden_layers=2, expand=2,
                            conv_kernel=4, time_step_rank=4, use_mambapy=False,
                            bos_token_id=0, eos_token_id=0, pad_token_id=0, **common)
        return T.MambaForCausalLM(cfg)
    if name == "rwkv":
        # time mixing (a recurrence over the sequence) and channel mixing
        cfg = T.RwkvConfig(hidden_size=32, attention_hidden_size=32, intermediate_size=64,
                           num_hidden_layers=2, context_length=64, bos_token_id=0,
                           eos_token_id=0, **common)
        return T.RwkvForCausalLM(cfg)
    if name == "xlnet":
        # two-stream attention over relative positions
        cfg = T.XLNetConfig(d_model=32, n_layer=2, n_head=2, d_inner=64, bos_token_id=0,
                            eos_token_id=0, pad_token_id=0, **common)
        return T.XLNetLMHeadModel(cfg)
    if name == "funnel":
        # the sequence pooled (halved) between blocks, upsampled for the masked-LM head
        cfg = T.FunnelConfig(d_model=32, n_head=2, d_head=16, d_inner=64,
                             block_sizes=[1, 1], num_decoder_layers=1, **common)
        return T.FunnelForMaskedLM(cfg)
    if name == "longformer":
        # sliding-window attention (window 4 over SEQ 16) with global attention
        cfg = T.LongformerConfig(attention_window=4, pad_token_id=1, **enc, **common)
        return T.LongformerForMaskedLM(cfg)
    if name == "reformer":
        # LSH and local attention, reversible layers (custom autograd Functions)
        cfg = T.ReformerConfig(hidden_size=32, attention_head_size=16, num_attention_heads=2,
                               feed_forward_size=64, attn_layers=["local", "lsh"],
                               axial_pos_embds=False, max_position_embeddings=SEQ,
                               local_attn_chunk_length=8, lsh_attn_chunk_length=8,
                               num_buckets=2, num_hashes=1, is_decoder=True,
                               pad_token_id=0, eos_token_id=2, **common)
        return T.ReformerModelWithLMHead(cfg)
    if name == "olmo":
        # non-parametric layer norm (no weight or bias)
        return T.OlmoForCausalLM(T.OlmoConfig(num_key_value_heads=2, pad_token_id=1,
                                              bos_token_id=0, eos_token_id=2, **_DECODER,
                                              **common))
    return _hf_fifth(T, name)


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
    return _tv_extra(torchvision, name, variant)


def _batchnorm_to_groupnorm(m):
    """Every BatchNorm2d (and BatchNorm3d) of `m` replaced by a GroupNorm over the same
    channels (see ResNet-18 above: checkpointed training-mode BatchNorm fails in
    torch.compile)."""
    for parent in list(m.modules()):
        for k, child in list(parent.named_children()):
            if isinstance(child, (nn.BatchNorm2d, nn.BatchNorm3d)):
                c = child.num_features
                setattr(parent, k, nn.GroupNorm(next(g for g in (8, 4, 2, 1) if c % g == 0), c))
    return m


def _tv_extra(torchvision, name, variant):
    tvm = torchvision.models
    if name == "mobilenet_v3":
        # hardswish, squeeze-and-excitation (an average pool scaling the channels)
        m = tvm.mobilenet_v3_small(num_classes=10)
        blocks = m.features[1:-1]
    elif name == "efficientnet":
        # SiLU, squeeze-and-excitation, stochastic depth (a random op per block)
        m = tvm.efficientnet_b0(num_classes=10)
        blocks = m.features[1:-1]
    elif name == "convnext":
        from torchvision.models.convnext import CNBlockConfig
        m = tvm.ConvNeXt([CNBlockConfig(16, 32, 2), CNBlockConfig(32, None, 1)],
                         stochastic_depth_prob=0.1, num_classes=10)
        blocks = [b for stage in m.features[1::2] for b in stage]
    elif name == "swin":
        # shifted windows (roll), relative position bias, attention masks
        m = tvm.SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 1],
                                num_heads=[2, 2], window_size=[2, 2],
                                stochastic_depth_prob=0.1, num_classes=10)
        blocks = [b for stage in m.features[1::2] for b in stage]
    elif name == "densenet":
        # concatenation of every earlier layer's output
        m = tvm.DenseNet(growth_rate=8, block_config=(2, 2), num_init_features=16,
                         bn_size=2, num_classes=10)
        blocks = [m.features.denseblock1, m.features.transition1, m.features.denseblock2]
    elif name == "regnet":
        # grouped convolutions, squeeze-and-excitation
        from torchvision.models.regnet import BlockParams
        m = tvm.RegNet(BlockParams.from_init_params(depth=3, w_0=16, w_a=8.0, w_m=2.0,
                                                    group_width=8, se_ratio=0.25),
                       stem_width=16, num_classes=10)
        blocks = [b for stage in m.trunk_output for b in stage]
    elif name == "squeezenet":
        # Fire modules (two branches concatenated), dropout, a convolutional classifier
        m = tvm.squeezenet1_1(num_classes=10)
        blocks = [f for f in m.features if type(f).__name__ == "Fire"]
    elif name == "resnet50":
        # bottleneck blocks (1x1, 3x3, 1x1; expansion 4)
        m = tvm.resnet50(num_classes=10)
        blocks = [b for layer in (m.layer1, m.layer2, m.layer3, m.layer4) for b in layer]
    elif name == "shufflenet":
        # channel split (chunk), channel shuffle (view, transpose, contiguous, view)
        m = tvm.shufflenet_v2_x0_5(num_classes=10)
        blocks = [b for stage in (m.stage2, m.stage3, m.stage4) for b in stage]
    elif name == "mobilenet_v2":
        # inverted residuals, ReLU6 (hardtanh)
        m = tvm.mobilenet_v2(num_classes=10)
        blocks = m.features[1:-1]
    elif name == "mnasnet":
        m = tvm.mnasnet0_5(num_classes=10)
        blocks = [b for stage in m.layers[8:14] for b in stage]
    else:
        m, blocks = _tv_third(tvm, name)
    if variant == "plain":
        return m
    _batchnorm_to_groupnorm(m)
    # In-place activations (ReLU, SiLU, Hardswish inplace=True) write tensors a SAC
    # region caches: eager torch refuses ("Tensor cached during selective activation
    # checkpoint has been mutated").
    for mod in m.modules():
        if getattr(mod, "inplace", False) is True:
            mod.inplace = False
    ctx = sac_context() if variant == "sac" else None
    wrapped = {id(b): Checkpointed(b, ctx) for b in blocks}
    for parent in list(m.modules()):
        for k, child in list(parent.named_children()):
            if id(child) in wrapped:
                setattr(parent, k, wrapped[id(child)])
    return m


def _tv_third(tvm, name):
    """The third sweep's torchvision models and the blocks their checkpointed variants wrap."""
    if name == "googlenet":
        # inception modules (four concatenated branches), two auxiliary classifiers
        m = tvm.googlenet(num_classes=10, aux_logits=True, init_weights=True)
        blocks = [getattr(m, "inception" + k) for k in
                  ("3a", "3b", "4a", "4b", "4c", "4d", "4e", "5a", "5b")]
    elif name == "inception_v3":
        # factorised 7x7 convolutions, an auxiliary classifier; 299x299 (build: the
        # auxiliary classifier's pooling needs 17x17 at Mixed_6e)
        m = tvm.inception_v3(num_classes=10, aux_logits=True, init_weights=True)
        blocks = [getattr(m, "Mixed_" + k) for k in
                  ("5b", "5c", "5d", "6a", "6b", "6c", "6d", "6e", "7a", "7b", "7c")]
    elif name == "r3d":
        # 3D convolutions over a clip of FRAMES frames (BatchNorm3d)
        m = tvm.video.r3d_18(num_classes=10)
        blocks = [b for layer in (m.layer1, m.layer2, m.layer3, m.layer4) for b in layer]
    elif name == "maxvit":
        # MBConv, block attention and grid attention (window partitions of 2x2), relative
        # position bias
        m = tvm.MaxVit(input_size=(IMAGE, IMAGE), stem_channels=16, partition_size=2,
                       block_channels=[16, 32], block_layers=[1, 1], head_dim=8,
                       stochastic_depth_prob=0.1, num_classes=10)
        blocks = [layer for block in m.blocks for layer in block.layers]
    elif name == "efficientnet_v2":
        # efficientnet_v2_s's first four stages, one layer each: fused MBConv (expanding
        # 3x3 convolution), then MBConv with squeeze-and-excitation
        import dataclasses
        from torchvision.models.efficientnet import _efficientnet_conf
        setting, _ = _efficientnet_conf("efficientnet_v2_s")
        setting = [dataclasses.replace(c, num_layers=1) for c in setting[:4]]
        m = tvm.EfficientNet(setting, dropout=0.2, stochastic_depth_prob=0.2, num_classes=10,
                             last_channel=256)
        blocks = m.features[1:-1]
    elif name == "deeplabv3":
        # MobileNetV3-large with dilated convolutions in its last stage, atrous spatial
        # pyramid pooling (dilations 12, 24, 36 and an image pool), 4 classes per pixel
        from torchvision.models.segmentation import deeplabv3_mobilenet_v3_large
        m = deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=4)
        blocks = [b for k, b in m.backbone.named_children() if type(b).__name__ ==
                  "InvertedResidual"]
    else:
        return _tv_fourth(tvm, name)
    return m, blocks


def _tv_fourth(tvm, name):
    """The fourth sweep's torchvision models and the blocks their checkpointed variants wrap."""
    if name == "swin_v2":
        # Swin V2: cosine attention with a learned logit scale, a continuous position bias
        # (an MLP over log-spaced offsets), norms after attention and MLP
        from torchvision.models.swin_transformer import PatchMergingV2, SwinTransformerBlockV2
        m = tvm.SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 1],
                                num_heads=[2, 2], window_size=[2, 2],
                                stochastic_depth_prob=0.1, num_classes=10,
                                block=SwinTransformerBlockV2, downsample_layer=PatchMergingV2)
        blocks = [b for stage in m.features[1::2] for b in stage]
    elif name == "raft":
        # RAFT (small): feature and context encoders, an all-pairs correlation pyramid
        # looked up with grid_sample, a convolutional GRU; RAFT_UPDATES updates
        m = tvm.optical_flow.raft_small(weights=None)
        # (the update block's parts: RAFT reads update_block.hidden_state_size)
        u = m.update_block
        blocks = [u.motion_encoder, u.recurrent_block, u.flow_head] + [
            getattr(m.feature_encoder, k) for k in ("layer1", "layer2", "layer3")]
    elif name == "lraspp":
        # MobileNetV3-large, a lite R-ASPP head (an image-pool gate times the features,
        # a low-level branch), 4 classes per pixel
        from torchvision.models.segmentation import lraspp_mobilenet_v3_large
        m = lraspp_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=4)
        blocks = [b for b in m.backbone.children() if type(b).__name__ == "InvertedResidual"]
    elif name == "fasterrcnn":
        # Faster R-CNN on MobileNetV3-large with an FPN, training mode: anchors, the RPN's
        # proposals (NMS, random sampling of anchors), RoIAlign, the box head; the loss is
        # the sum of the four losses torchvision returns
        from torchvision.models.detection import fasterrcnn_mobilenet_v3_large_fpn
        m = fasterrcnn_mobilenet_v3_large_fpn(
            weights=None, weights_backbone=None, num_classes=3, min_size=DETECT,
            max_size=DETECT, rpn_pre_nms_top_n_train=64, rpn_post_nms_top_n_train=32,
            rpn_batch_size_per_image=32, box_batch_size_per_image=16)
        blocks = [b for b in m.backbone.body.children() if type(b).__name__ ==
                  "InvertedResidual"]
    elif name == "retinanet":
        # RetinaNet (v2) on ResNet-50 with an FPN, training mode, images at DETECT:
        # anchors matched by IoU, the sigmoid focal loss over every anchor, GIoU box loss
        from torchvision.models.detection import retinanet_resnet50_fpn_v2
        m = retinanet_resnet50_fpn_v2(weights=None, weights_backbone=None, num_classes=3,
                                      min_size=DETECT, max_size=DETECT)
        blocks = [b for layer in (m.backbone.body.layer1, m.backbone.body.layer2)
                  for b in layer]
    elif name == "ssdlite":
        # SSDlite on MobileNetV3-large, training mode, its images resized to DETECT: default
        # boxes matched to the targets by IoU, hard negative mining (the negatives' losses
        # sorted, 3 per positive kept), smooth L1 on the matched boxes (its transform's fixed
        # 320x320 set to DETECT)
        from torchvision.models.detection import ssdlite320_mobilenet_v3_large
        m = ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=3)
        m.transform.min_size, m.transform.max_size = (DETECT,), DETECT
        m.transform.fixed_size = (DETECT, DETECT)
        blocks = [b for b in m.backbone.features[0].children() if type(b).__name__ ==
                  "InvertedResidual"]
    elif name == "fcos":
        # FCOS (anchor-free) on ResNet-50 with an FPN, training mode, images at DETECT:
        # locations inside a box and its scale range are positives, focal loss, GIoU
        # box loss, a centerness branch trained by binary cross-entropy
        from torchvision.models.detection import fcos_resnet50_fpn
        m = fcos_resnet50_fpn(weights=None, weights_backbone=None, num_classes=3,
                              min_size=DETECT, max_size=DETECT)
        blocks = [b for layer in (m.backbone.body.layer1, m.backbone.body.layer2)
                  for b in layer]
    elif name == "mvit":
        # MViT v2 over a clip (sixth sweep): pooling attention (queries and keys/values
        # pooled by strided 3D convolutions), decomposed relative position bias, residual
        # pooling, a class token
        from torchvision.models.video.mvit import MSBlockConfig, MViT
        cfgs = [MSBlockConfig(1, 16, 16, [3, 3, 3], [3, 3, 3], [1, 1, 1], [1, 2, 2]),
                MSBlockConfig(2, 16, 32, [3, 3, 3], [3, 3, 3], [1, 2, 2], [1, 1, 1])]
        m = MViT(spatial_size=(IMAGE, IMAGE), temporal_size=FRAMES, block_setting=cfgs,
                 residual_pool=True, residual_with_cls_embed=False, rel_pos_embed=True,
                 proj_after_attn=True, stochastic_depth_prob=0.1, num_classes=10)
        blocks = list(m.blocks)
    else:
        raise KeyError(name)
    return m, blocks


class Flow(nn.Module):
    """RAFT: the mean absolute error of each of its flow predictions against a target
    flow, summed (RAFT's sequence loss without the decay)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, a, b, flow):
        preds = self.model(a, b, num_flow_updates=RAFT_UPDATES)
        return sum((p - flow).abs().mean() for p in preds)


class Detect(nn.Module):
    """A torchvision detector in training mode: the sum of the losses it returns for
    images (a batch tensor) and one box and label per image."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, images, boxes, labels):
        targets = [{"boxes": b, "labels": lab} for b, lab in zip(boxes, labels)]
        return sum(self.model(list(images), targets).values())


TORCHVISION = ("resnet18", "vit", "mobilenet_v3", "efficientnet", "convnext", "swin",
               "densenet", "regnet", "squeezenet", "resnet50", "shufflenet", "mobilenet_v2",
               "mnasnet", "googlenet", "inception_v3", "r3d", "maxvit", "efficientnet_v2",
               "deeplabv3", "swin_v2", "raft", "lraspp", "fasterrcnn", "ssdlite", "retinanet",
               "fcos", "mvit")
FRAMES = 4
# RAFT: 128x128 images (the least it takes: its features at 1/8, 16x16, make a
# correlation pyramid of 4 levels), 2 flow updates; the detector's images are 64x64
FLOW_IMAGE, RAFT_UPDATES, DETECT = 128, 2, 64


def build(name, variant="plain", seed=0):
    """(module returning the loss, inputs) for model `name` in `variant`: "plain", "ckpt"
    (transformers' gradient_checkpointing_enable(); torchvision: torch.utils.checkpoint
    around every block) or "sac" (the same regions under create_selective_checkpoint_
    contexts with save_matmuls, or the policy of the name's variation: VARIATIONS).
    Training mode (dropout on where the config has it)."""
    if variant not in VARIANTS:
        raise KeyError(variant)
    if unsupported(name, variant):
        raise ValueError("%s/%s: %s" % (name, variant, unsupported(name, variant)))
    base, var = split_name(name)
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed + 1)
    seq = WIDE_SEQ if var == "wide" else SEQ
    if base in TORCHVISION:
        if var and var not in TV_VARIATIONS:
            raise KeyError(name)
        tv = _tv(base, variant)
        size = 299 if base == "inception_v3" else IMAGE
        shape = ((BATCH, 3, FRAMES, size, size) if base in ("r3d", "mvit") else
                 (BATCH, 3, size, size))
        model = Classify(tv)
        inputs = [torch.randn(*shape, generator=g), torch.randint(0, 10, (BATCH,), generator=g)]
        if base in ("googlenet", "inception_v3"):
            model = AuxClassify(tv)
        elif base in ("deeplabv3", "lraspp"):
            model = Segment(tv)
            inputs[1] = torch.randint(0, 4, (BATCH, IMAGE, IMAGE), generator=g)
        elif base == "raft":
            model = Flow(tv)
            img = (BATCH, 3, FLOW_IMAGE, FLOW_IMAGE)
            inputs = [torch.randn(*img, generator=g), torch.randn(*img, generator=g),
                      torch.randn(BATCH, 2, FLOW_IMAGE, FLOW_IMAGE, generator=g)]
        elif base in ("fasterrcnn", "ssdlite", "retinanet", "fcos"):
            # one box per image, 8 to 32 pixels wide, inside the image; labels 1, 2
            model = Detect(tv)
            xy = torch.randint(0, DETECT // 2, (BATCH, 1, 2), generator=g).float()
            wh = torch.randint(8, DETECT // 2, (BATCH, 1, 2), generator=g).float()
            inputs = [torch.rand(BATCH, 3, DETECT, DETECT, generator=g),
                      torch.cat([xy, xy + wh], dim=2),
                      torch.randint(1, 3, (BATCH, 1), generator=g)]
        if var == "cl":
            model.to(memory_format=torch.channels_last)
            inputs[0] = inputs[0].contiguous(memory_format=torch.channels_last)
    else:
        if var in TV_VARIATIONS and var != "amp":
            raise KeyError(name)
        hf = _hf(base, wide=var == "wide")
        if var == "flex":
            # transformers checks the model class supports it (_supports_flex_attn)
            if flex_backward_refused():
                lift_flex_cpu_guard()
            hf.set_attn_implementation("flex_attention")
        if var == "lora":
            add_lora(hf)
        if var == "f8":
            for mod in list(hf.modules()):
                for k, child in list(mod.named_children()):
                    if k in ("gate_proj", "up_proj", "down_proj") and isinstance(child,
                                                                                 nn.Linear):
                        setattr(mod, k, Float8Linear(child))
        if var == "bf16":
            hf.to(torch.bfloat16)
        if base in BATCHNORM_TO_GROUPNORM and variant != "plain":
            _batchnorm_to_groupnorm(hf)
        if variant == "ckpt":
            hf.gradient_checkpointing_enable(gradient_checkpointing_kwargs={
                "use_reentrant": False})
        elif variant == "sac":
            hf.gradient_checkpointing_enable(gradient_checkpointing_kwargs={
                "use_reentrant": False, "context_fn": sac_context(var)})
        model = LossOf(hf)
        ids = torch.randint(0, VOCAB, (BATCH, seq), generator=g)
        labels = torch.randint(0, VOCAB, (BATCH, seq), generator=g)
        inputs = [ids, labels]
        if base in ("t5", "bart", "umt5", "marian", "switch_transformers", "led", "pegasus"):
            inputs = [ids, torch.randint(0, VOCAB, (BATCH, SEQ // 2), generator=g),
                      torch.randint(0, VOCAB, (BATCH, SEQ // 2), generator=g)]
        elif base == "whisper":
            # log-mel frames: the encoder's two convolutions halve SEQ * 2 to SEQ positions
            model = LossOf(hf, ("input_features", "decoder_input_ids", "labels"))
            inputs = [torch.randn(BATCH, hf.config.num_mel_bins, SEQ * 2, generator=g),
                      torch.randint(0, VOCAB, (BATCH, SEQ // 2), generator=g),
                      torch.randint(0, VOCAB, (BATCH, SEQ // 2), generator=g)]
        elif base == "speech2text":
            # filterbank frames (8 features): the two stride-2 convolutions make SEQ
            # positions of SEQ * 4 frames
            model = LossOf(hf, ("input_features", "decoder_input_ids", "labels"))
            inputs = [torch.randn(BATCH, SEQ * 4, 8, generator=g),
                      torch.randint(0, VOCAB, (BATCH, SEQ // 2), generator=g),
                      torch.randint(0, VOCAB, (BATCH, SEQ // 2), generator=g)]
        elif base == "siglip":
            model = LossOf(hf, ("input_ids", "pixel_values"), {"return_loss": True})
            inputs = [ids, torch.randn(BATCH, 3, IMAGE, IMAGE, generator=g)]
        elif base == "vitmae":
            model = LossOf(hf, ("pixel_values",))
            inputs = [torch.randn(BATCH, 3, IMAGE, IMAGE, generator=g)]
        elif base == "clip":
            model = LossOf(hf, ("input_ids", "pixel_values"), {"return_loss": True})
            inputs = [ids, torch.randn(BATCH, 3, IMAGE, IMAGE, generator=g)]
        elif base in ("wav2vec2", "wavlm"):
            # 400 samples: the two convolutions make 79, then 39 frames; CTC labels of 8
            # tokens (1..31; 0 is the blank)
            model = LossOf(hf, ("input_values", "labels"))
            inputs = [torch.randn(BATCH, 400, generator=g),
                      torch.randint(1, 32, (BATCH, SEQ // 2), generator=g)]
        elif base in ("beit", "segformer", "convnextv2", "levit", "mobilevit", "poolformer",
                      "hiera", "cvt", "focalnet", "pvt_v2", "swiftformer", "bit", "upernet",
                      "timesformer"):
            model = LossOf(hf, ("pixel_values", "labels"))
            labels = (torch.randint(0, 4, (BATCH, IMAGE, IMAGE), generator=g)
                      if base in ("segformer", "upernet") else
                      torch.randint(0, 10, (BATCH,), generator=g))
            shape = (BATCH, FRAMES, 3, IMAGE, IMAGE) if base == "timesformer" else (
                BATCH, 3, IMAGE, IMAGE)
            inputs = [torch.randn(*shape, generator=g), labels]
        elif base == "patchtst":
            model = LossOf(hf, ("past_values",))
            inputs = [torch.randn(BATCH, TS_CONTEXT, 3, generator=g)]
        elif base == "dinov2":
            model = SquareLoss(hf)
            inputs = [torch.randn(BATCH, 3, IMAGE, IMAGE, generator=g)]
    if var == "amp":
        model = Autocast(model)
    model.train()
    return model, inputs


def has_dropout(model):
    return any(isinstance(m, nn.Dropout) and m.p > 0 for m in model.modules()) or any(
        type(m).__name__ == "StochasticDepth" and m.p > 0 for m in model.modules()) or any(
        getattr(getattr(m, "config", None), k, 0) for m in model.modules()
        for k in ("attention_dropout", "attention_probs_dropout_prob", "attn_pdrop"))
