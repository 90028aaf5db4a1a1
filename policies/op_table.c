/*
 * op_table.c - PyTorch 2.6's operator classes (get_default_op_list() in
 * torch/_functorch/partitioners.py), by overload packet: the one table both the ban
 * rules (policies/rules.c) and the min-cut heuristic (solver/mincut/mincut.c) read.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/rules.h"

#define R ILPI_OPC_RECOMPUTABLE
#define V (ILPI_OPC_VIEW | ILPI_OPC_RECOMPUTABLE)

/* Pointwise ops stand for torch's pointwise_ops() (every aten op tagged
 * torch.Tag.pointwise); that list cannot be read without torch, so it is a fixed
 * list here (docs/mincut.md), checked against torch 2.6's get_default_op_list() for
 * its functional ops (hardswish, leaky_relu, float_power, floor_divide, fill and the
 * pointwise-looking backward ops are not tagged there; torch 2.14 adds leaky_relu,
 * float_power, ldexp and equal: solver/mincut/mincut.c op_class_2_14). */
static const struct {
	const char *packet;
	unsigned cls;
} op_table[] = {
	/* default_recomputable_ops, first list */
	{ "aten.add", R }, { "aten.sub", R }, { "aten.div", R }, { "aten.atan2", R },
	{ "aten.mul", R }, { "aten.max", R }, { "aten.min", R }, { "aten.pow", R },
	{ "aten.remainder", R }, { "aten.fmod", R }, { "aten.__and__", R },
	{ "aten.__or__", R }, { "aten.__xor__", R }, { "aten.__lshift__", R },
	{ "aten.__rshift__", R }, { "aten.eq", R }, { "aten.ne", R }, { "aten.ge", R },
	{ "aten.gt", R }, { "aten.le", R }, { "aten.lt", R }, { "aten.abs", R },
	{ "aten.bitwise_not", R }, { "aten.ceil", R }, { "aten.floor", R },
	{ "aten.frac", R }, { "aten.neg", R }, { "aten.relu", R }, { "aten.round", R },
	{ "aten.silu", R }, { "aten.trunc", R }, { "aten.log", R }, { "aten.log10", R },
	{ "aten.log1p", R }, { "aten.log2", R }, { "aten.lgamma", R }, { "aten.exp", R },
	{ "aten.expm1", R }, { "aten.erf", R }, { "aten.erfc", R }, { "aten.cos", R },
	{ "aten.acos", R }, { "aten.cosh", R }, { "aten.sin", R }, { "aten.asin", R },
	{ "aten.sinh", R }, { "aten.tan", R }, { "aten.atan", R }, { "aten.tanh", R },
	{ "aten.atanh", R }, { "aten.sqrt", R }, { "aten.rsqrt", R },
	{ "aten.reciprocal", R }, { "aten.sigmoid", R }, { "aten.softplus", R },
	{ "aten.threshold", R }, { "aten.threshold_backward", R }, { "aten.clamp", R },
	{ "aten.where", R }, { "aten.lerp", R }, { "aten.addcmul", R }, { "aten.gelu", R },
	{ "aten.gelu_backward", R }, { "aten.sum", R }, { "aten.mean", R },
	{ "aten._grad_sum_to_size", R }, { "aten.sum_to_size", R }, { "aten.amax", R },
	{ "aten.to", R }, { "aten.type_as", R }, { "getitem", R },
	{ "aten.squeeze", V }, { "aten.unsqueeze", V }, { "aten.rsub", R },
	{ "aten._to_copy", R },
	/* view ops */
	{ "aten.alias", V }, { "aten.view", V }, { "aten.slice", V }, { "aten.t", V },
	{ "prims.broadcast_in_dim", V }, { "aten.expand", V }, { "aten.as_strided", V },
	{ "aten.permute", V }, { "aten.select", V },
	/* default_recomputable_ops, second list */
	{ "prims.div", R }, { "prims.convert_element_type", R }, { "aten.clone", R },
	{ "aten.full_like", R }, { "prims.var", R }, { "prims.sum", R }, { "aten.var", R },
	{ "aten.std", R }, { "aten._unsafe_view", R }, { "aten.reshape", R },
	{ "aten.broadcast_tensors", R }, { "aten.scalar_tensor", R }, { "aten.ones", R },
	{ "aten.new_zeros", R }, { "aten.lift_fresh_copy", R | ILPI_OPC_LIFT },
	{ "aten.lift_fresh", ILPI_OPC_LIFT }, { "aten.arange", R }, { "aten.triu", R },
	{ "aten.var_mean", R }, { "aten.isinf", R }, { "aten.any", R }, { "aten.full", R },
	{ "aten.zeros", R }, { "aten.empty", R }, { "aten.empty_like", R },
	{ "aten.argmax", R }, { "aten.maximum", R }, { "prims.iota", R },
	{ "prims._low_memory_max_pool2d_offsets_to_indices", R },
	{ "aten.index", R }, { "aten.gather", R }, { "aten.zeros_like", R },
	/* pointwise_ops(): aten ops tagged pointwise (beyond the lists above) */
	{ "aten.acosh", R }, { "aten.addcdiv", R }, { "aten.asinh", R },
	{ "aten.bitwise_and", R }, { "aten.bitwise_left_shift", R },
	{ "aten.bitwise_or", R }, { "aten.bitwise_right_shift", R },
	{ "aten.bitwise_xor", R }, { "aten.clamp_max", R }, { "aten.clamp_min", R },
	{ "aten.copysign", R }, { "aten.deg2rad", R }, { "aten.digamma", R },
	{ "aten.elu", R }, { "aten.erfinv", R }, { "aten.exp2", R },
	{ "aten.fmax", R }, { "aten.fmin", R }, { "aten.hardsigmoid", R },
	{ "aten.hardtanh", R }, { "aten.heaviside", R }, { "aten.hypot", R },
	{ "aten.i0", R }, { "aten.igamma", R }, { "aten.igammac", R },
	{ "aten.isfinite", R }, { "aten.isnan", R }, { "aten.isneginf", R },
	{ "aten.isposinf", R }, { "aten.logaddexp", R },
	{ "aten.logaddexp2", R }, { "aten.logical_and", R }, { "aten.logical_not", R },
	{ "aten.logical_or", R }, { "aten.logical_xor", R }, { "aten.logit", R },
	{ "aten.masked_fill", R }, { "aten.minimum", R }, { "aten.mish", R },
	{ "aten.nan_to_num", R }, { "aten.nextafter", R }, { "aten.polygamma", R },
	{ "aten.positive", R }, { "aten.rad2deg", R }, { "aten.sgn", R },
	{ "aten.sign", R }, { "aten.signbit", R }, { "aten.sinc", R },
	{ "aten.square", R }, { "aten.true_divide", R }, { "aten.xlogy", R },
	{ "aten.mvlgamma", R }, { "aten.special_erfcx", R },
	{ "aten.angle", R }, { "aten.celu", R }, { "aten.clip", R },
	{ "aten.conj_physical", R }, { "aten.frexp", R }, { "aten.gcd", R },
	{ "aten.hardshrink", R }, { "aten.lcm", R }, { "aten.relu6", R }, { "aten.rrelu", R },
	{ "aten.selu", R }, { "aten.softshrink", R }, { "aten.special_airy_ai", R },
	{ "aten.special_bessel_j0", R }, { "aten.special_bessel_j1", R },
	{ "aten.special_bessel_y0", R }, { "aten.special_bessel_y1", R },
	{ "aten.special_chebyshev_polynomial_t", R }, { "aten.special_chebyshev_polynomial_u", R },
	{ "aten.special_chebyshev_polynomial_v", R }, { "aten.special_chebyshev_polynomial_w", R },
	{ "aten.special_entr", R }, { "aten.special_hermite_polynomial_h", R },
	{ "aten.special_hermite_polynomial_he", R }, { "aten.special_i0e", R },
	{ "aten.special_i1", R }, { "aten.special_i1e", R },
	{ "aten.special_laguerre_polynomial_l", R }, { "aten.special_legendre_polynomial_p", R },
	{ "aten.special_log_ndtr", R }, { "aten.special_modified_bessel_i0", R },
	{ "aten.special_modified_bessel_i1", R }, { "aten.special_modified_bessel_k0", R },
	{ "aten.special_modified_bessel_k1", R }, { "aten.special_ndtri", R },
	{ "aten.special_scaled_modified_bessel_k0", R },
	{ "aten.special_scaled_modified_bessel_k1", R },
	{ "aten.special_shifted_chebyshev_polynomial_t", R },
	{ "aten.special_shifted_chebyshev_polynomial_u", R },
	{ "aten.special_shifted_chebyshev_polynomial_v", R },
	{ "aten.special_shifted_chebyshev_polynomial_w", R },
	{ "aten.special_spherical_bessel_j0", R }, { "aten.special_xlog1py", R },
	{ "aten.special_zeta", R },
	/* pointwise backward ops (torch.Tag.pointwise); hardswish_backward, elu_backward,
	 * leaky_relu_backward and the like are not tagged, hence not here */
	{ "aten.sigmoid_backward", R }, { "aten.silu_backward", R },
	{ "aten.tanh_backward", R }, { "aten.logit_backward", R },
	{ "aten.native_dropout_backward", R },
	/* random_ops (fusible, not recomputable) */
	{ "aten.native_dropout", ILPI_OPC_RANDOM }, { "aten.rand_like", ILPI_OPC_RANDOM },
	{ "aten.randn_like", ILPI_OPC_RANDOM },
	/* compute_intensive_ops */
	{ "aten.mm", ILPI_OPC_COMPUTE }, { "aten.convolution", ILPI_OPC_COMPUTE },
	{ "aten.convolution_backward", ILPI_OPC_COMPUTE }, { "aten.bmm", ILPI_OPC_COMPUTE },
	{ "aten.addmm", ILPI_OPC_COMPUTE },
	{ "aten._scaled_dot_product_flash_attention", ILPI_OPC_COMPUTE },
	{ "aten._scaled_dot_product_efficient_attention", ILPI_OPC_COMPUTE },
	{ "aten._flash_attention_forward", ILPI_OPC_COMPUTE },
	{ "aten._efficient_attention_forward", ILPI_OPC_COMPUTE },
	{ "aten.upsample_bilinear2d", ILPI_OPC_COMPUTE }, { "aten._scaled_mm", ILPI_OPC_COMPUTE },
	{ "aten.cat", ILPI_OPC_CAT },
	/* method_to_operator(magic_methods): arithmetic on symbolic sizes (a graph compiled
	 * with dynamic shapes), as the exporter names the targets; torch 2.14 adds
	 * operator.xor (solver/mincut/mincut.c op_class_2_14). torch's anonymous lambdas
	 * (sym_node's "<lambda>") have no name to match. */
	{ "builtins.round", R }, { "math.ceil", R }, { "math.floor", R }, { "math.trunc", R },
	{ "operator.abs", R }, { "operator.add", R }, { "operator.and_", R },
	{ "operator.eq", R }, { "operator.floordiv", R }, { "operator.ge", R },
	{ "operator.gt", R }, { "operator.le", R }, { "operator.lshift", R },
	{ "operator.lt", R }, { "operator.mod", R }, { "operator.mul", R },
	{ "operator.ne", R }, { "operator.neg", R }, { "operator.or_", R },
	{ "operator.pos", R }, { "operator.pow", R }, { "operator.rshift", R },
	{ "operator.sub", R }, { "operator.truediv", R }, { "torch._sym_acos", R },
	{ "torch._sym_asin", R }, { "torch._sym_atan", R }, { "torch._sym_cos", R },
	{ "torch._sym_cosh", R }, { "torch._sym_log2", R }, { "torch._sym_sin", R },
	{ "torch._sym_sinh", R }, { "torch._sym_sqrt", R }, { "torch._sym_tan", R },
	{ "torch._sym_tanh", R }, { "torch.sym_float", R }, { "torch.sym_ite", R },
	{ "torch.sym_max", R }, { "torch.sym_min", R }, { "torch.sym_not", R },
};

#undef R
#undef V

/* "torch.ops.aten.mm.default" / "aten.mm.default" / "aten.mm" -> "aten.mm";
 * "operator.getitem" -> "getitem". */
static void
packet_name(const char *target, char *buf, size_t size)
{
	const char *last;
	int dots = 0;

	if (strncmp(target, "torch.ops.", 10) == 0)
		target += 10;
	if (strcmp(target, "operator.getitem") == 0 || strcmp(target, "_operator.getitem") == 0)
		target = "getitem";
	snprintf(buf, size, "%s", target);
	for (const char *p = buf; *p != '\0'; p++)
		dots += *p == '.';
	if (dots >= 2 && (last = strrchr(buf, '.')) != NULL)
		buf[last - buf] = '\0';
}

enum { N_OPS = sizeof op_table / sizeof op_table[0] };

static int
cmp_packet(const void *x, const void *y)
{
	return strcmp(op_table[*(const uint16_t *)x].packet, op_table[*(const uint16_t *)y].packet);
}

/* The table's rows by packet name, made on first use (the same array in every thread
 * that makes it, published once complete). */
static const uint16_t *
by_packet(void)
{
	static uint16_t sorted[N_OPS];
	static int ready;

	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
		uint16_t t[N_OPS];

		for (size_t i = 0; i < N_OPS; i++)
			t[i] = (uint16_t)i;
		qsort(t, N_OPS, sizeof t[0], cmp_packet);
		for (size_t i = 0; i < N_OPS; i++)
			__atomic_store_n(&sorted[i], t[i], __ATOMIC_RELAXED);
		__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	}
	return sorted;
}

unsigned
ilpi_op_class(const char *target)
{
	const uint16_t *sorted = by_packet();
	char name[256];
	unsigned cls = 0;
	size_t lo = 0, hi = N_OPS;

	if (target == NULL)
		return 0;
	packet_name(target, name, sizeof name);
	/* the first row whose packet is not below name, then every row with that packet */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(op_table[__atomic_load_n(&sorted[mid], __ATOMIC_RELAXED)].packet,
		    name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < N_OPS; lo++) {
		size_t row = __atomic_load_n(&sorted[lo], __ATOMIC_RELAXED);

		if (strcmp(op_table[row].packet, name) != 0)
			break;
		cls |= op_table[row].cls;
	}
	return cls;
}

/* Op classes per node; targets are interned, so equal targets share a pointer and
 * a small pointer-keyed cache makes this one table scan per distinct target. */
int
ilpi_op_classes(const ilp_graph *g, unsigned *opc)
{
	size_t cap = 256;
	const char **key;
	unsigned *val;

	while (cap < 2 * g->n && cap < (1u << 20))
		cap *= 2;
	key = calloc(cap, sizeof *key);
	val = calloc(cap, sizeof *val);
	if (key == NULL || val == NULL) {
		free(key);
		free(val);
		return -1;
	}
	for (size_t i = 0; i < g->n; i++) {
		const char *t = g->node[i].target;
		size_t h, probes = 0;

		opc[i] = 0;
		if (t == NULL)
			continue;
		h = ((uintptr_t)t >> 3) & (cap - 1);
		while (key[h] != NULL && key[h] != t && probes++ < cap)
			h = (h + 1) & (cap - 1);
		if (key[h] == t) {
			opc[i] = val[h];
			continue;
		}
		opc[i] = ilpi_op_class(t);
		if (key[h] == NULL) {
			key[h] = t;
			val[h] = opc[i];
		}
	}
	free(key);
	free(val);
	return 0;
}
