/* fuzz_solve.c - end to end on small graphs: ilp_solve, ilp_mincut and ilp_rules_check
 * on the same graph and options must agree about feasibility (a partition or
 * ILP_ERR_CONFLICT, nothing else), every partition they give passes ilp_check, and the
 * ILP's saved bytes are never above min-cut's when it minimises memory.
 *
 * An input starting with '{' is a JSON graph (read from an unterminated buffer, at most
 * MAX_JSON_NODES nodes); the options come from its length. Any other input is decoded
 * by decode() below into a small joint graph, written as JSON and read the same way, so
 * the graphs the fuzzer builds are mostly valid. Layout of a binary input:
 *   byte 0  options: bits 0-1 prefer (3 = hard), bit 2 bans none, bit 3
 *           rng_functionalized, bits 4-5 objective (0, 1 memory, 2 runtime under a
 *           budget fraction, 3 weighted), bits 6-7 budget fraction 0.1 .. 0.7
 *   byte 1  bits 0-1: primals - 1 (1..3, 3 = 1), bit 2: two tangents, bits 3-4 RNG
 *           replay (0, 3 auto, 1 never, 2 always), bit 5: the last primal is mutated
 *           (written in place: never saved, its readers never recomputed), bits 6-7
 *           the recent paths (run_extra): 0 none, 1 the least-peak objective (its
 *           rows through running sums when byte 0 bit 6 is set, as a long chain's
 *           are), 2 the
 *           runtime objective under a peak budget (from byte 0 bits 6-7), 3 a budget
 *           fraction (byte 0 bits 6-7) with the normalised cap and a 1 ms time limit,
 *           then min-cut's budget path with each knapsack solver and estimator
 *   then 5 bytes per op, at most MAX_OPS: target, first input, second input,
 *   attributes (bits 0-2 tag, 3-4 region, 5 view, 6-7 size), output bits (bit 0
 *   forward output, bit 1 backward output, bit 2 random, bits 3-4 flops, bit 5 getitem
 *   region differs from its tuple's, bit 6 a null gradient before it, bit 7 a primal
 *   returned as a gradient).
 *
 * min-cut is PyTorch's heuristic and is allowed what torch does (docs/mincut.md): no
 * finite cut (ILP_ERR_CONFLICT), or a partition the checker rejects, refused with
 * ILP_ERR_VIOLATION, where the ILP finds one. FUZZ_SOLVE_STRICT=1 in the environment
 * demands that min-cut and the ILP agree as well. Min-cut replays a random op's RNG
 * state as torch does; the ILP only when its options allow it (rng_replay), so a
 * min-cut partition that replays is compared with the ILP only then. Under a budget
 * only the budget is checked (the ILP lifts the bans there). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/partition.h"
#include "graph/strbuf.h"
#include "solver/mincut/mincut.h"
#include "solver/driver/solve.h"
#include "tests/fuzz/fuzz.h"

#define MAX_OPS 14
#define MAX_JSON_NODES 48
#define MAX_NODES (3 + 2 + 3 * MAX_OPS)

enum { T_VIEW = 1, T_TUPLE = 2, T_UNARY = 4 };

static const struct {
	const char *target;
	unsigned what;
} ops[] = {
	{ "aten.mm.default", 0 },
	{ "aten.relu.default", T_UNARY },
	{ "aten.add.Tensor", 0 },
	{ "aten.mul.Tensor", 0 },
	{ "aten.sum.dim_IntList", T_UNARY },
	{ "aten.t.default", T_VIEW | T_UNARY },
	{ "aten.view.default", T_VIEW | T_UNARY },
	{ "aten.expand.default", T_VIEW | T_UNARY },
	{ "aten.native_dropout.default", T_TUPLE | T_UNARY },
	{ "aten.native_layer_norm.default", T_TUPLE },
	{ "aten.rand_like.default", T_UNARY },
	{ "aten.sin.default", T_UNARY },
	{ "aten.exp.default", T_UNARY },
	{ "aten.clone.default", T_UNARY },
	{ "aten.threshold_backward.default", 0 },
	{ "aten.convolution.default", 0 },
	{ "_c10d_functional.all_reduce.default", T_UNARY },
	{ "aten.index_put_.default", 0 },
	{ "aten.lift_fresh_copy.default", T_UNARY },
	{ "aten.amax.default", T_UNARY },
	{ "prims.convert_element_type.default", T_UNARY },
	{ "aten.cat.default", 0 },
	{ "aten._scaled_dot_product_flash_attention.default", T_TUPLE },
	{ "aten.where.self", 0 },
};
#define N_OPS (sizeof ops / sizeof ops[0])

static const char *const tags[8] = { NULL, "MUST_SAVE", "PREFER_SAVE", "MUST_RECOMPUTE",
	"PREFER_RECOMPUTE", NULL, NULL, "PREFER_RECOMPUTE" };
static const int64_t sizes[4] = { 4, 64, 1024, 0 };
static const double flops[4] = { -1, 1e3, 1e6, 1e9 };

typedef struct node {
	char name[16];
	int tangent;   /* depends on a tangent */
	int tuple;     /* no value of its own: only getitems may use it */
} node;

typedef struct decoder {
	const uint8_t *d;
	size_t size, pos;
	node nd[MAX_NODES];
	int n, np;             /* nodes, primals (the first np nodes) */
	ilpi_buf b, fw, bw;
	int n_fw, n_bw;
} decoder;

static int extra, extra_level;  /* byte 1 bits 6-7, byte 0 bits 6-7 (decode) */

static int
next(decoder *x)
{
	return x->pos < x->size ? x->d[x->pos++] : -1;
}

/* The i-th node (mod the count) that holds a value. */
static int
pick(const decoder *x, int i)
{
	int vals[MAX_NODES], k = 0;

	for (int j = 0; j < x->n; j++)
		if (!x->nd[j].tuple)
			vals[k++] = j;
	return vals[i % k];
}

static void
add_output(ilpi_buf *b, int *count, const char *name)
{
	ilpi_buf_puts(b, *count > 0 ? ", " : "");
	ilpi_buf_puts(b, name != NULL ? "\"" : "null");
	if (name != NULL) {
		ilpi_buf_puts(b, name);
		ilpi_buf_puts(b, "\"");
	}
	++*count;
}

static void
leaf(decoder *x, const char *prefix, int k, const char *kind, int tangent, int mutated)
{
	node *v = &x->nd[x->n++];

	snprintf(v->name, sizeof v->name, "%s%d", prefix, k);
	v->tangent = tangent;
	ilpi_buf_printf(&x->b, "%s{\"name\": \"%s\", \"kind\": \"%s\", \"bytes\": %d%s}",
	    x->n > 1 ? ",\n" : "", v->name, kind, 64 << k, mutated ? ", \"mutated\": true" : "");
}

/* One op node (and the getitems of a tuple op). */
static void
op(decoder *x, int t, int i1, int i2, int a, int o)
{
	int tgt = t % (int)N_OPS, in1 = pick(x, i1), in2 = pick(x, i2);
	int region = (a >> 3) & 3, self = x->n;
	const char *tag = tags[a & 7];
	node *v = &x->nd[x->n++];

	snprintf(v->name, sizeof v->name, "o%d", self);
	v->tuple = (ops[tgt].what & T_TUPLE) != 0;
	v->tangent = x->nd[in1].tangent || (!(ops[tgt].what & T_UNARY) && x->nd[in2].tangent);
	ilpi_buf_printf(&x->b, ",\n{\"name\": \"%s\", \"kind\": \"op\", \"target\": \"%s\", "
	    "\"inputs\": [\"%s\"", v->name, ops[tgt].target, x->nd[in1].name);
	if (!(ops[tgt].what & T_UNARY))
		ilpi_buf_printf(&x->b, ", \"%s\"", x->nd[in2].name);
	ilpi_buf_puts(&x->b, "]");
	if (v->tuple)
		ilpi_buf_puts(&x->b, ", \"tuple\": true");
	else
		ilpi_buf_printf(&x->b, ", \"bytes\": %lld", (long long)sizes[(a >> 6) & 3]);
	if ((ops[tgt].what & T_VIEW) && (a & 32))
		ilpi_buf_printf(&x->b, ", \"view_of\": \"%s\"", x->nd[in1].name);
	if (flops[(o >> 3) & 3] >= 0)
		ilpi_buf_printf(&x->b, ", \"flops\": %g", flops[(o >> 3) & 3]);
	if (o & 4)
		ilpi_buf_puts(&x->b, ", \"random\": true");
	if (tag != NULL)
		ilpi_buf_printf(&x->b, ", \"recompute\": \"%s\"", tag);
	if (region > 0)
		ilpi_buf_printf(&x->b, ", \"ac_graph_id\": %d", region);
	ilpi_buf_puts(&x->b, "}");
	for (int k = 0; v->tuple && k < 2; k++) {
		node *gi = &x->nd[x->n++];
		int r = (o & 32) && k == 1 ? (region + 1) % 4 : region;

		snprintf(gi->name, sizeof gi->name, "o%d", self + 1 + k);
		gi->tangent = v->tangent;
		ilpi_buf_printf(&x->b, ",\n{\"name\": \"%s\", \"kind\": \"op\", \"target\": "
		    "\"getitem\", \"inputs\": [\"%s\"], \"index\": %d, \"bytes\": %d", gi->name,
		    v->name, k, k == 0 ? 256 : 16);
		if (r > 0)
			ilpi_buf_printf(&x->b, ", \"ac_graph_id\": %d", r);
		ilpi_buf_puts(&x->b, "}");
	}
	/* Outputs name a value: the op itself, or its tuple's first getitem. */
	v = &x->nd[v->tuple ? self + 1 : self];
	if ((o & 1) && !v->tangent)
		add_output(&x->fw, &x->n_fw, v->name);
	if (o & 64)
		add_output(&x->bw, &x->n_bw, NULL);
	if (o & 2)
		add_output(&x->bw, &x->n_bw, v->name);
	if (o & 128)
		add_output(&x->bw, &x->n_bw, x->nd[i2 % x->np].name);
}

/* The JSON of the graph that data decodes to, and the options from its first byte. */
static char *
decode(const uint8_t *data, size_t size, ilp_solve_options *o, int *rng)
{
	decoder x;
	int b0, b1, np, nt, last_plain = 0, last_tangent = -1;
	char *json;

	memset(&x, 0, sizeof x);
	x.d = data;
	x.size = size;
	b0 = next(&x);
	b1 = next(&x);
	if (b0 < 0 || b1 < 0)
		return NULL;
	o->prefer = (b0 & 3) == 3 ? ILP_PREFER_HARD : (ilp_prefer_mode)(b0 & 3);
	o->bans = (b0 & 4) ? ILP_BANS_NONE : ILP_BANS_PYTORCH;
	*rng = (b0 & 8) != 0;
	if (((b0 >> 4) & 3) == 2) {
		o->objective = ILP_OBJ_RUNTIME;
		o->budget_fraction = 0.1 + 0.2 * ((b0 >> 6) & 3);
	} else if (((b0 >> 4) & 3) == 3) {
		o->objective = ILP_OBJ_WEIGHTED;
		o->alpha = 1e3 * (1 + ((b0 >> 6) & 3));
	}
	extra = (b1 >> 6) & 3;
	extra_level = (b0 >> 6) & 3;
	np = (b1 & 3) == 3 ? 1 : 1 + (b1 & 3);
	nt = 1 + ((b1 >> 2) & 1);
	o->rng_replay = ((b1 >> 3) & 3) == 1 ? ILP_RNG_REPLAY_NEVER :
	    ((b1 >> 3) & 3) == 2 ? ILP_RNG_REPLAY_ALWAYS : ILP_RNG_REPLAY_AUTO;
	ilpi_buf_init(&x.b);
	ilpi_buf_init(&x.fw);
	ilpi_buf_init(&x.bw);
	ilpi_buf_printf(&x.b, "{\"format\": \"ilpart-joint-graph\", \"version\": 1, "
	    "\"rng_functionalized\": %s, \"nodes\": [\n", *rng ? "true" : "false");
	for (int k = 0; k < np; k++)
		leaf(&x, "p", k, "primal", 0, k == np - 1 && ((b1 >> 5) & 1));
	x.np = np;
	for (int k = 0; k < nt; k++)
		leaf(&x, "g", k, "tangent", 1, 0);
	for (int k = 0; k < MAX_OPS && x.pos + 5 <= x.size; k++) {
		int t = next(&x), i1 = next(&x), i2 = next(&x), a = next(&x), out = next(&x);

		op(&x, t, i1, i2, a, out);
	}
	for (int j = 0; j < x.n; j++)
		if (!x.nd[j].tuple) {
			if (x.nd[j].tangent)
				last_tangent = j;
			else
				last_plain = j;
		}
	/* A graph needs a forward output and a backward: fall back on the last values. */
	if (x.n_fw == 0)
		add_output(&x.fw, &x.n_fw, x.nd[last_plain].name);
	if (x.n_bw == 0)
		add_output(&x.bw, &x.n_bw, x.nd[last_tangent >= 0 ? last_tangent : 0].name);
	ilpi_buf_printf(&x.b, "\n],\n\"outputs\": {\"forward\": [%s], \"backward\": [%s]}}\n",
	    x.fw.data, x.bw.data);
	json = ilpi_buf_take(&x.b);
	ilpi_buf_free(&x.fw);
	ilpi_buf_free(&x.bw);
	FZ_ASSERT(json != NULL, "out of memory");
	return json;
}

static ilp_graph *
read_graph(const char *json, size_t len)
{
	char *buf = fz_exact((const uint8_t *)json, len);
	ilp_graph *g = NULL;
	ilp_error err;

	if (ilp_graph_read_buffer(buf, len, "in", &g, &err) != 0)
		FZ_ASSERT(err.kind == ILP_ERR_INPUT, "read failed with kind %d: %s", err.kind,
		    err.msg);
	free(buf);
	return g;
}

static int strict = -1;

/* A result: 1 partition, 0 conflict, -1 a min-cut refusal (ILP_ERR_VIOLATION, not in
 * strict mode); anything else fails the run. */
static int
verdict(const char *who, int rc, const ilp_error *err, int may_refuse)
{
	if (rc == 0)
		return 1;
	if (may_refuse && !strict && err->kind == ILP_ERR_VIOLATION)
		return -1;
	if (err->kind != ILP_ERR_CONFLICT)
		fz_fail("%s: neither a partition nor a conflict (kind %d): %s", who, err->kind,
		    err->msg);
	FZ_ASSERT(err->msg[0] != '\0', "%s: conflict without a message", who);
	return 0;
}

static void
checked(const char *who, const ilp_graph *g, const ilp_partition *p, ilp_prefer_mode m)
{
	ilp_check_options co = { m };
	ilp_error err;
	char *out = NULL;

	if (ilp_check(g, p, &co, &err) != 0)
		fz_fail("%s: ilp_check rejects the partition: %s", who, err.msg);
	if (ilp_split_render(g, p, ILP_SPLIT_TEXT, &out, &err) != 0)
		fz_fail("%s: the checked partition does not lower: %s", who, err.msg);
	free(out);
}

static void
run(const ilp_graph *g, const ilp_solve_options *o)
{
	ilp_partition *ps = NULL, *pm = NULL;
	ilp_error es, em, er;
	int budget = o->budget_fraction >= 0 || o->budget_bytes >= 0;
	/* The ILP may replay a random op's RNG state with ILP_RNG_REPLAY_ALWAYS, or AUTO
	 * under a budget; the rules check never does. Min-cut always does, as torch. */
	int replay = o->rng_replay == ILP_RNG_REPLAY_ALWAYS ||
	    (o->rng_replay == ILP_RNG_REPLAY_AUTO && budget);
	int rules = ilp_rules_check(g, o->prefer, o->bans, &er) == 0;
	int sol = verdict("ilp_solve", ilp_solve(g, o, &ps, &es), &es, 0);
	int mc = verdict("ilp_mincut", ilp_mincut(g, o, &pm, &em), &em, 1);
	int mc_replays = mc == 1 && ilpi_partition_count(pm, ILPI_P_RNG_SAVED) > 0;

	if (!rules)
		FZ_ASSERT(er.kind == ILP_ERR_CONFLICT, "rules check failed with kind %d: %s",
		    er.kind, er.msg);
	if (sol == 1)
		checked("ilp_solve", g, ps, o->prefer);
	if (mc == 1)
		checked("ilp_mincut", g, pm, o->prefer);
	if (budget) {
		/* A budget may make the ILP infeasible, and lifts PyTorch's bans. */
		if (sol == 1)
			FZ_ASSERT(ilpi_partition_saved_bytes(g, ps) <= ps->budget_bytes ||
			    ps->budget_bytes < 0, "ilp_solve saves %lld bytes over its budget %lld",
			    (long long)ilpi_partition_saved_bytes(g, ps),
			    (long long)ps->budget_bytes);
		goto out;
	}
	if (!replay)
		FZ_ASSERT(sol == rules, "ilp_solve says %s, ilp_rules_check says %s",
		    sol ? "feasible" : es.msg, rules ? "feasible" : er.msg);
	else
		FZ_ASSERT(sol || !rules, "ilp_solve says %s, ilp_rules_check says feasible",
		    es.msg);
	/* What min-cut finds without replaying RNG, the rules and the ILP allow. */
	if (mc_replays && !replay)
		goto out;
	if (!mc_replays)
		FZ_ASSERT(rules || mc != 1, "ilp_mincut found a partition, ilp_rules_check says "
		    "%s", er.msg);
	FZ_ASSERT(sol || mc != 1, "ilp_mincut found a partition, ilp_solve says %s", es.msg);
	if (strict)
		FZ_ASSERT(mc == sol, "ilp_mincut says %s, ilp_solve says %s",
		    mc == 1 ? "feasible" : em.msg, sol ? "feasible" : es.msg);
	if (sol && mc == 1 && o->objective == ILP_OBJ_MEMORY && o->prefer != ILP_PREFER_SOFT &&
	    strcmp(ps->status, "optimal") == 0) {
		int64_t bs = ilpi_partition_saved_bytes(g, ps), bm = ilpi_partition_saved_bytes(g, pm);

		FZ_ASSERT(bs <= bm, "the ILP saves %lld bytes, min-cut %lld",
		    (long long)bs, (long long)bm);
	}
out:
	ilp_partition_free(ps);
	ilp_partition_free(pm);
}

/* An error that is a verdict: a conflict, or (1: may) a solver's honest "no answer
 * within the limits"; never an internal error. */
static void
verdict_extra(const char *who, int rc, const ilp_error *err, int may_give_up)
{
	if (rc == 0)
		return;
	FZ_ASSERT(strstr(err->msg, "internal error") == NULL, "%s: %s", who, err->msg);
	if (err->kind == ILP_ERR_CONFLICT || (may_give_up && err->kind == ILP_ERR_SOLVER))
		return;
	fz_fail("%s: neither a partition nor a conflict (kind %d): %s", who, err->kind,
	    err->msg);
}

/* The recently added paths: the least-peak objective, a peak budget, the normalised
 * fraction cap under a tight time limit, min-cut's budget path with each knapsack
 * solver and runtime estimator. Every answer passes the checker; a peak budget holds
 * in simulation; an "optimal" least peak is no more than min-cut's. */
static void
run_extra(const ilp_graph *g, const ilp_solve_options *base)
{
	static const int64_t peak_budgets[4] = { 0, 256, 4096, 1 << 20 };
	ilp_solve_options o = *base;
	ilp_partition *p = NULL, *pm = NULL;
	ilp_error err;
	ilp_peak pk, pkm;
	int rc;

	o.budget_bytes = -1;
	o.budget_fraction = -1;
	o.time_limit = 5;
	if (extra == 1) {
		/* ilp_solve's hooks, with the peak rows through running sums on odd levels */
		ilpi_solve_hooks hooks = { .peak_default_limit = ILPI_PEAK_DEFAULT_LIMIT,
		    .peak_running_sums = extra_level & 1 };

		o.objective = ILP_OBJ_PEAK;
		rc = ilpi_solve_hooked(g, &o, &hooks, &p, &err);
		verdict_extra("peak objective", rc, &err, 0);
		if (rc == 0) {
			checked("peak objective", g, p, o.prefer);
			FZ_ASSERT(ilp_partition_peak(g, p, &pk, &err) == 0, "%s", err.msg);
			/* min-cut replays RNG states as torch does; the ILP only when allowed */
			if (strcmp(p->status, "optimal") == 0 &&
			    ilp_mincut(g, &o, &pm, &err) == 0 &&
			    (o.rng_replay != ILP_RNG_REPLAY_NEVER ||
			    ilpi_partition_count(pm, ILPI_P_RNG_SAVED) == 0) &&
			    ilp_partition_peak(g, pm, &pkm, &err) == 0 &&
			    ilp_check(g, pm, &(ilp_check_options){ o.prefer }, &err) == 0)
				FZ_ASSERT(pk.peak_bytes <= pkm.peak_bytes || o.prefer ==
				    ILP_PREFER_SOFT, "least peak %lld proven, min-cut's %lld",
				    (long long)pk.peak_bytes, (long long)pkm.peak_bytes);
		}
	} else if (extra == 2) {
		o.objective = ILP_OBJ_RUNTIME;
		o.peak_budget = peak_budgets[extra_level];
		rc = ilp_solve(g, &o, &p, &err);
		verdict_extra("peak budget", rc, &err, 1);
		if (rc == 0) {
			checked("peak budget", g, p, o.prefer);
			FZ_ASSERT(ilp_partition_peak(g, p, &pk, &err) == 0, "%s", err.msg);
			FZ_ASSERT(pk.peak_bytes <= o.peak_budget, "peak %lld over the budget %lld",
			    (long long)pk.peak_bytes, (long long)o.peak_budget);
		}
	} else if (extra == 3) {
		ilpi_mincut_options mo;
		static const char *const solvers[3] = { "dp", "greedy", "ilp" };
		static const char *const est[2] = { "flops", "testing" };

		o.objective = ILP_OBJ_RUNTIME;
		o.budget_fraction = 0.1 + 0.3 * (extra_level & 1) + 0.5 * (extra_level >> 1);
		o.fraction_cap = ILP_FRACTION_CAP_NORMALISED;
		o.time_limit = 0.001;
		rc = ilp_solve(g, &o, &p, &err);
		verdict_extra("normalised cap, 1 ms", rc, &err, 1);
		if (rc == 0)
			checked("normalised cap, 1 ms", g, p, o.prefer);
		for (int k = 0; k < 6; k++) {
			ilp_partition *q = NULL;

			ilpi_mincut_options_init(&mo);
			ilpi_mincut_options_from_solve(&mo, &o);
			mo.activation_memory_budget = o.budget_fraction;
			FZ_ASSERT(ilpi_mincut_options_set(&mo, "activation_memory_budget_solver",
			    solvers[k % 3]) == 0 && ilpi_mincut_options_set(&mo,
			    "activation_memory_budget_runtime_estimator", est[k / 3]) == 0,
			    "mincut options");
			rc = ilpi_mincut_run(g, &mo, &q, NULL, &err);
			if (rc != 0)
				FZ_ASSERT(err.kind == ILP_ERR_CONFLICT || err.kind == ILP_ERR_VIOLATION,
				    "min-cut %s/%s: kind %d: %s", solvers[k % 3], est[k / 3], err.kind,
				    err.msg);
			else
				checked("min-cut budget", g, q, o.prefer);
			ilp_partition_free(q);
		}
	}
	ilp_partition_free(p);
	ilp_partition_free(pm);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ilp_solve_options o;
	ilp_graph *g;
	char *json = NULL;
	int rng = 0;

	if (strict < 0)
		strict = getenv("FUZZ_SOLVE_STRICT") != NULL &&
		    strcmp(getenv("FUZZ_SOLVE_STRICT"), "0") != 0;
	ilp_solve_options_init(&o);
	o.time_limit = 20;
	if (size > 0 && data[0] == '{') {
		o.prefer = (ilp_prefer_mode)(size % 3);
		o.bans = (size / 3) % 2 ? ILP_BANS_NONE : ILP_BANS_PYTORCH;
		g = read_graph((const char *)data, size);
	} else {
		if ((json = decode(data, size, &o, &rng)) == NULL)
			return 0;
		g = read_graph(json, strlen(json));
		if (g == NULL && getenv("FUZZ_SOLVE_SHOW") != NULL)
			fputs(json, stderr);
	}
	if (g != NULL && ilp_graph_node_count(g) <= MAX_JSON_NODES) {
		if (getenv("FUZZ_SOLVE_SHOW") != NULL && json != NULL)
			fputs(json, stderr);
		run(g, &o);
		if (json != NULL && extra != 0)
			run_extra(g, &o);
	}
	ilp_graph_free(g);
	free(json);
	return 0;
}
