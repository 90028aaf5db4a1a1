"""Small real models for the bridge tests and the corpus (CPU, float32)."""

import functools

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import (CheckpointPolicy, checkpoint,
                                    create_selective_checkpoint_contexts)

aten = torch.ops.aten


def save_ops_policy(ops, otherwise=CheckpointPolicy.PREFER_RECOMPUTE):
    """The seed's _custom_policy: listed ops MUST_SAVE, everything else `otherwise`."""
    ops = tuple(ops)

    def policy(ctx, func, *args, **kwargs):
        return CheckpointPolicy.MUST_SAVE if func in ops else otherwise
    return policy


def sac_context(policy):
    return functools.partial(create_selective_checkpoint_contexts, policy)


def sac(fn, *args, context):
    """fn(*args) in a SAC region. `context` comes from sac_context() and must be made
    outside the compiled code (dynamo needs it as a constant): modules make it in __init__."""
    return checkpoint(fn, *args, use_reentrant=False, context_fn=context)


class MLP(nn.Module):
    def __init__(self, d_in=32, d_hidden=64, d_out=16, depth=3):
        super().__init__()
        dims = [d_in] + [d_hidden] * (depth - 1) + [d_out]
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims, dims[1:]))

    def forward(self, x):
        for i, lin in enumerate(self.layers):
            x = lin(x)
            if i + 1 < len(self.layers):
                x = F.gelu(x) if i % 2 == 0 else torch.tanh(x)
        return x


class Block(nn.Module):
    """Pre-norm transformer block: causal scaled_dot_product_attention + GELU MLP."""

    def __init__(self, d=32, heads=4, mlp=4):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, mlp * d)
        self.fc2 = nn.Linear(mlp * d, d)

    def attn(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (t.view(b, s, self.heads, d // self.heads).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, s, d))

    def mlp(self, x):
        return self.fc2(F.gelu(self.fc1(self.ln2(x))))

    def forward(self, x):
        x = x + self.attn(x)
        return x + self.mlp(x)


class Transformer(nn.Module):
    def __init__(self, layers=2, d=32, heads=4, checkpointing=None, policies=None):
        """checkpointing: None, "plain" (torch.utils.checkpoint per block) or "sac" with
        `policies`, one per block (cycled)."""
        super().__init__()
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.checkpointing = checkpointing
        self.contexts = [sac_context(p) for p in (policies or ())]

    def forward(self, x):
        for i, blk in enumerate(self.blocks):
            if self.checkpointing == "plain":
                x = checkpoint(blk, x, use_reentrant=False)
            elif self.checkpointing == "sac":
                x = sac(blk, x, context=self.contexts[i % len(self.contexts)])
            else:
                x = blk(x)
        return self.ln(x)


class ConvNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.c2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.c1(x))), 2)
        x = F.relu(self.c2(x))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


class DropoutSAC(nn.Module):
    """Linear -> relu -> dropout -> linear inside a SAC region that saves only matmuls."""

    def __init__(self, d=32, p=0.3):
        super().__init__()
        self.l1 = nn.Linear(d, d, bias=False)
        self.l2 = nn.Linear(d, d, bias=False)
        self.p = p
        self.context = sac_context(save_ops_policy([aten.mm.default]))

    def body(self, x):
        y = F.dropout(torch.relu(self.l1(x)), self.p, training=True)
        return torch.sin(self.l2(y))

    def forward(self, x):
        return x + sac(self.body, x, context=self.context)


F8_MAX = 448.0


def to_float8(t):
    """The seed's dynamic float8 cast, emulated: amax, scale, clamp, cast to e4m3fn."""
    amax = t.abs().max().to(torch.float32)
    scale = F8_MAX / amax.clamp(min=1e-12)
    t8 = (t * scale).clamp(-F8_MAX, F8_MAX).to(torch.float8_e4m3fn)
    return t8, scale


class Float8Linear(nn.Module):
    """The seed's model on CPU: float8 linear (cast x and w to e4m3fn, back to f32, matmul,
    unscale) + relu + residual, in a SAC region whose policy saves only aten.mm."""

    def __init__(self, d=32):
        super().__init__()
        self.lin = nn.Linear(d, d)
        self.context = sac_context(save_ops_policy([aten.mm.default]))

    def body(self, x):
        x8, sx = to_float8(x)
        w8, sw = to_float8(self.lin.weight)
        y = torch.mm(x8.to(torch.float32), w8.to(torch.float32).t())
        y = y * (1.0 / sx) * (1.0 / sw) + self.lin.bias
        return x + torch.relu(y)

    def forward(self, x):
        return sac(self.body, x, context=self.context)


class MixedRegions(nn.Module):
    """Four blocks: plain checkpoint, SAC saving matmuls, SAC saving attention, and no
    checkpointing; the SAC regions also carry MUST_RECOMPUTE / PREFER_SAVE tags."""

    def __init__(self, d=32):
        super().__init__()
        self.blocks = nn.ModuleList(Block(d) for _ in range(4))
        self.ln = nn.LayerNorm(d)

        self.save_mm = sac_context(save_ops_policy([aten.mm.default, aten.addmm.default]))
        self.save_attn = sac_context(attention_policy)

    def forward(self, x):
        x = checkpoint(self.blocks[0], x, use_reentrant=False)
        x = sac(self.blocks[1], x, context=self.save_mm)
        x = sac(self.blocks[2], x, context=self.save_attn)
        x = self.blocks[3](x)
        return self.ln(x)


_ATTENTION = tuple(getattr(aten, n).default for n in (
    "_scaled_dot_product_flash_attention_for_cpu", "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_efficient_attention") if hasattr(aten, n))


def attention_policy(ctx, func, *args, **kwargs):
    """Save attention, prefer saving matmuls, recompute everything else (MUST)."""
    if func in _ATTENTION:
        return CheckpointPolicy.MUST_SAVE
    if func in (aten.addmm.default, aten.mm.default):
        return CheckpointPolicy.PREFER_SAVE
    return CheckpointPolicy.MUST_RECOMPUTE


class GPT(nn.Module):
    """Token embedding + learned positions, transformer blocks, LM head, cross-entropy loss
    inside the model (the forward output is the scalar loss)."""

    def __init__(self, vocab=512, seq=64, layers=4, d=128, heads=4, checkpointing=None,
                 policies=None):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(seq, d) * 0.02)
        self.body = Transformer(layers, d, heads, checkpointing, policies)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx, targets):
        x = self.tok(idx) + self.pos[: idx.shape[1]]
        logits = self.head(self.body(x))
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten())


class ResBlock(nn.Module):
    def __init__(self, c_in, c_out, stride):
        super().__init__()
        self.c1 = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(c_out)
        self.c2 = nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(c_out)
        self.skip = None
        if stride != 1 or c_in != c_out:
            self.skip = nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride, bias=False),
                                      nn.BatchNorm2d(c_out))

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        return F.relu(y + (x if self.skip is None else self.skip(x)))


class ResNet(nn.Module):
    """A small ResNet (BatchNorm in training mode, residual adds, max-pool, avg-pool)."""

    def __init__(self, widths=(16, 32, 64), classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, widths[0], 3, 1, 1, bias=False),
                                  nn.BatchNorm2d(widths[0]), nn.ReLU(), nn.MaxPool2d(2))
        blocks = []
        c = widths[0]
        for i, w in enumerate(widths):
            blocks += [ResBlock(c, w, 1 if i == 0 else 2), ResBlock(w, w, 1)]
            c = w
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(c, classes)

    def forward(self, x):
        return self.fc(F.adaptive_avg_pool2d(self.blocks(self.stem(x)), 1).flatten(1))


class MLPDropout(nn.Module):
    """MLP with dropout outside any checkpoint region: random values must be saved."""

    def __init__(self, d=32, p=0.2):
        super().__init__()
        self.l1 = nn.Linear(d, 4 * d)
        self.l2 = nn.Linear(4 * d, d)
        self.p = p

    def forward(self, x):
        h = F.dropout(F.silu(self.l1(x)), self.p, training=True)
        return self.l2(h) + x


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotary(x, cos, sin):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return x * cos + torch.cat((-x2, x1), dim=-1) * sin


class LlamaBlock(nn.Module):
    """RMSNorm, rotary position embedding (slices, cat), SDPA, SwiGLU MLP (SiLU gate)."""

    def __init__(self, d=64, heads=4, hidden=172):
        super().__init__()
        self.heads = heads
        self.n1 = RMSNorm(d)
        self.wq = nn.Linear(d, d, bias=False)
        self.wk = nn.Linear(d, d, bias=False)
        self.wv = nn.Linear(d, d, bias=False)
        self.wo = nn.Linear(d, d, bias=False)
        self.n2 = RMSNorm(d)
        self.w1 = nn.Linear(d, hidden, bias=False)
        self.w3 = nn.Linear(d, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d, bias=False)

    def forward(self, x, cos, sin):
        b, s, d = x.shape
        h = self.n1(x)
        q, k, v = (w(h).view(b, s, self.heads, d // self.heads).transpose(1, 2)
                   for w in (self.wq, self.wk, self.wv))
        q, k = rotary(q, cos, sin), rotary(k, cos, sin)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.wo(y.transpose(1, 2).reshape(b, s, d))
        h = self.n2(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class Llama(nn.Module):
    def __init__(self, layers=2, d=64, heads=4, seq=32, checkpointing=None, policies=None):
        super().__init__()
        self.blocks = nn.ModuleList(LlamaBlock(d, heads) for _ in range(layers))
        self.norm = RMSNorm(d)
        hd = d // heads
        inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        ang = torch.outer(torch.arange(seq).float(), inv)
        ang = torch.cat((ang, ang), dim=-1)
        self.register_buffer("cos", ang.cos(), persistent=False)
        self.register_buffer("sin", ang.sin(), persistent=False)
        self.checkpointing = checkpointing
        self.contexts = [sac_context(p) for p in (policies or ())]

    def forward(self, x):
        s = x.shape[1]
        cos, sin = self.cos[:s], self.sin[:s]
        for i, blk in enumerate(self.blocks):
            if self.checkpointing == "sac":
                x = checkpoint(blk, x, cos, sin, use_reentrant=False,
                               context_fn=self.contexts[i % len(self.contexts)])
            else:
                x = blk(x, cos, sin)
        return self.norm(x)


class LSTMHead(nn.Module):
    """nn.LSTM (2 layers) + a linear head on the last step. Dynamo runs nn.LSTM eagerly
    unless torch._dynamo.config.allow_rnn: no joint graph at all by default."""

    def __init__(self, d=24, hidden=20, classes=5):
        super().__init__()
        self.lstm = nn.LSTM(d, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.head(y[:, -1])


class NonZeroSelect(nn.Module):
    """Data-dependent shapes: nonzero and masked_select (unbacked SymInts and _assert_scalar
    nodes in the joint graph with torch._dynamo.config.capture_dynamic_output_shape_ops)."""

    def __init__(self, d=24):
        super().__init__()
        self.lin = nn.Linear(d, d)

    def forward(self, x):
        y = self.lin(x)
        idx = (y > 0).nonzero()
        return y[idx[:, 0], idx[:, 1]].sum() + torch.masked_select(y, y < 0).pow(2).sum()


# User-written autograd extensions (test_extensions.py).

class ScaledTanhMM(torch.autograd.Function):
    """y = scale * tanh(x @ w) with a hand-written backward. Saves both inputs and the
    intermediate y, keeps the float `scale` on ctx, and returns a second output, the sign
    mask of x @ w, marked non-differentiable."""

    @staticmethod
    def forward(ctx, x, w, scale):
        h = x @ w
        y = torch.tanh(h) * scale
        mask = h > 0
        ctx.save_for_backward(x, w, y)
        ctx.scale = scale
        ctx.mark_non_differentiable(mask)
        return y, mask

    @staticmethod
    def backward(ctx, gy, _gmask):
        x, w, y = ctx.saved_tensors
        gh = gy * (ctx.scale - y * y / ctx.scale)  # d(s tanh h)/dh = s - y^2 / s
        return gh @ w.t(), x.t() @ gh, None


class ScaledTanhMMOnce(ScaledTanhMM):
    """The same with a once_differentiable backward (no double backward). The backward
    is written out again: dynamo fails on a backward that calls another Function's
    backward ("Expected FakeBackwardCFunction, got FunctionCtx", torch 2.6 and 2.14)."""

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, gy, _gmask):
        x, w, y = ctx.saved_tensors
        gh = gy * (ctx.scale - y * y / ctx.scale)
        return gh @ w.t(), x.t() @ gh, None


class SoftmaxScores(torch.autograd.Function):
    """Attention probabilities softmax(q k^T * scale) with a hand-written backward: saves
    q, k and the probabilities, keeps `scale` on ctx, and returns the argmax of each row
    (non-differentiable) as a second output."""

    @staticmethod
    def forward(ctx, q, k, scale):
        p = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1)
        ctx.save_for_backward(q, k, p)
        ctx.scale = scale
        top = p.argmax(dim=-1)
        ctx.mark_non_differentiable(top)
        return p, top

    @staticmethod
    def backward(ctx, gp, _gtop):
        q, k, p = ctx.saved_tensors
        gs = p * (gp - (gp * p).sum(-1, keepdim=True)) * ctx.scale
        return gs @ k, gs.transpose(-2, -1) @ q, None


class FunctionMLP(nn.Module):
    """Linear -> ScaledTanhMM (its own weight) -> masked -> Linear; with `policy`, the
    middle runs in a SAC region under that policy."""

    def __init__(self, d=32, hidden=48, once=False, policy=None):
        super().__init__()
        self.l1 = nn.Linear(d, hidden)
        self.w = nn.Parameter(torch.randn(hidden, hidden) / hidden ** 0.5)
        self.l2 = nn.Linear(hidden, d)
        self.fn = ScaledTanhMMOnce if once else ScaledTanhMM
        self.context = sac_context(policy) if policy is not None else None

    def body(self, x):
        h = self.l1(x)
        y, mask = self.fn.apply(h, self.w, 1.5)
        return self.l2(y * mask + 0.1 * y)

    def forward(self, x):
        if self.context is None:
            return self.body(x)
        return sac(self.body, x, context=self.context)


class FunctionAttention(nn.Module):
    """Single-head attention whose probabilities come from SoftmaxScores, then a
    ScaledTanhMM feed-forward; with `policy`, the block runs in a SAC region."""

    def __init__(self, d=32, policy=None):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)
        self.o = nn.Linear(d, d)
        self.w = nn.Parameter(torch.randn(d, d) / d ** 0.5)
        self.d = d
        self.context = sac_context(policy) if policy is not None else None

    def body(self, x):
        q, k, v = self.qkv(x).split(self.d, dim=-1)
        p, top = SoftmaxScores.apply(q, k, self.d ** -0.5)
        a = self.o(p @ v) + top.unsqueeze(-1).to(x.dtype) * 1e-3
        b, s, d = a.shape
        y, _mask = ScaledTanhMM.apply((x + a).reshape(b * s, d), self.w, 2.0)
        return x + a + y.reshape(b, s, d)

    def forward(self, x):
        if self.context is None:
            return self.body(x)
        return sac(self.body, x, context=self.context)
