/*
 * conflict.c - do the rules alone (no budget) admit any partition? A value the
 * backward needs must be saved or recomputed; one that may not be saved must be
 * recomputed, and then so must each of its inputs that may not be saved, and so on.
 * A value forced to be recomputed that may not be recomputed is a conflict. A
 * breadth-first search from the backward's needs finds the shortest such chain.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/rules.h"

#define CHAIN_SHOWN 10 /* nodes named in a message before eliding the middle */

/* Who in the backward needs boundary value v: its first backward user, or "" when it
 * is returned as a gradient itself. */
static const char *
needed_by(const ilp_graph *g, int32_t v)
{
	const ilpi_node *n = &g->node[v];
	const int32_t *use = ilpi_users(g, n);

	for (uint32_t k = 0; k < n->use_count; k++)
		if (g->node[use[k]].cls == ILPI_BACKWARD)
			return g->node[use[k]].name;
	return "";
}

/* snprintf at *off, never past the end (the message is cut, not overrun). */
static void __attribute__((format(printf, 4, 5)))
append(char *buf, size_t size, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*off >= size - 1)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *off, size - *off, fmt, ap);
	va_end(ap);
	if (k > 0)
		*off = *off + (size_t)k < size ? *off + (size_t)k : size - 1;
}

/* Whether node i's rule `bit` comes from a PREFER_* tag (its own, or its tuple's for
 * a getitem): soft preferences would lift it. */
static int
soft_reason(const ilp_graph *g, const ilpi_rules *r, int32_t i, unsigned bit)
{
	const ilpi_node *n = &g->node[i];
	int32_t t;

	if (bit == ILPI_R_NO_SAVE)
		return (r->why_no_save[i] == ILPI_WHY_TAG || r->why_no_save[i] == ILPI_WHY_GETITEM) &&
		    r->tag[i] == ILPI_TAG_PREFER_RECOMPUTE;
	if (r->why_no_recompute[i] == ILPI_WHY_TAG)
		return r->tag[i] == ILPI_TAG_PREFER_SAVE;
	if (r->why_no_recompute[i] != ILPI_WHY_GETITEM || n->in_count == 0)
		return 0;
	t = g->in[n->in_begin];
	return r->why_no_recompute[t] == ILPI_WHY_TAG && r->tag[t] == ILPI_TAG_PREFER_SAVE;
}

static void
report(const ilp_graph *g, const ilpi_rules *r, const int32_t *parent, int32_t last,
    ilp_error *err)
{
	int32_t chain[CHAIN_SHOWN + 2] = { 0 };
	size_t len = 0, total = 0, off = 0;
	char msg[sizeof err->msg] = "", a[200], b[200];
	const char *user, *hint = "";

	for (int32_t v = last; v != ILPI_NONE; v = parent[v]) {
		total++;
		if (soft_reason(g, r, v, ILPI_R_NO_SAVE) ||
		    (v == last && soft_reason(g, r, v, ILPI_R_NO_RECOMPUTE)))
			hint = "; a PREFER_* tag binds here, and --prefer soft lets such tags give way";
	}
	/* chain[] holds the source first and `last` at the end; the middle is elided. */
	for (int32_t v = last, k = 0; v != ILPI_NONE; v = parent[v], k++)
		if ((size_t)k < CHAIN_SHOWN - 1 || parent[v] == ILPI_NONE)
			chain[len++] = v;
	for (size_t i = 0; i < len / 2; i++) {
		int32_t t = chain[i];

		chain[i] = chain[len - 1 - i];
		chain[len - 1 - i] = t;
	}
	user = needed_by(g, chain[0]);
	if (total == 1) {
		ilpi_err(err, ILP_ERR_CONFLICT, "%s: conflict: '%s' is needed by the backward%s%s%s "
		    "but may not be saved (%s) and may not be recomputed (%s)%s", g->path,
		    g->node[last].name, *user ? " ('" : "", user, *user ? "')" : "",
		    ilpi_rules_explain(g, r, (size_t)last, ILPI_R_NO_SAVE, a, sizeof a),
		    ilpi_rules_explain(g, r, (size_t)last, ILPI_R_NO_RECOMPUTE, b, sizeof b), hint);
		return;
	}
	append(msg, sizeof msg, &off, "'%s' (%s) must be recomputed in "
	    "the backward%s%s%s", g->node[chain[0]].name,
	    ilpi_rules_explain(g, r, (size_t)chain[0], ILPI_R_NO_SAVE, a, sizeof a),
	    *user ? " for '" : "", user, *user ? "'" : "");
	for (size_t i = 1; i + 1 < len; i++) {
		if (i == 1 && total > len)
			append(msg, sizeof msg, &off,
			    ", which needs %zu more values that may not be saved", total - len);
		append(msg, sizeof msg, &off, ", which needs '%s' (%s)",
		    g->node[chain[i]].name,
		    ilpi_rules_explain(g, r, (size_t)chain[i], ILPI_R_NO_SAVE, a, sizeof a));
	}
	append(msg, sizeof msg, &off, ", which needs '%s' (%s), which may not be "
		    "saved (%s)", g->node[last].name,
		    ilpi_rules_explain(g, r, (size_t)last, ILPI_R_NO_RECOMPUTE, a, sizeof a),
		    ilpi_rules_explain(g, r, (size_t)last, ILPI_R_NO_SAVE, b, sizeof b));
	ilpi_err(err, ILP_ERR_CONFLICT, "%s: conflict: %s%s", g->path, msg, hint);
}

int
ilpi_rules_find_conflict(const ilp_graph *g, const ilpi_rules *r, ilp_error *err)
{
	size_t n = g->n ? g->n : 1, head = 0, tail = 0;
	int32_t *parent = malloc(n * sizeof *parent), *queue = malloc(n * sizeof *queue);
	uint8_t *seen = calloc(n, 1);
	int rc = 0;

	if (parent == NULL || queue == NULL || seen == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		rc = -1;
		goto out;
	}
	/* Sources in graph order, so that equally short chains are reported stably. */
	for (size_t i = 0; i < g->n; i++)
		if ((g->node[i].flags & ILPI_F_BOUNDARY) && g->node[i].cls != ILPI_BACKWARD &&
		    (r->bits[i] & ILPI_R_NO_SAVE)) {
			parent[i] = ILPI_NONE;
			seen[i] = 1;
			queue[tail++] = (int32_t)i;
		}
	while (head < tail) {
		int32_t v = queue[head++];
		const ilpi_node *nv = &g->node[v];
		const int32_t *in = ilpi_inputs(g, nv);

		if (r->bits[v] & ILPI_R_NO_RECOMPUTE) {
			report(g, r, parent, v, err);
			rc = -1;
			goto out;
		}
		for (uint32_t k = 0; k < nv->in_count; k++) {
			int32_t u = in[k];

			if (!seen[u] && (r->bits[u] & ILPI_R_NO_SAVE)) {
				seen[u] = 1;
				parent[u] = v;
				queue[tail++] = u;
			}
		}
	}
out:
	free(parent);
	free(queue);
	free(seen);
	return rc;
}

int
ilp_rules_check(const ilp_graph *g, ilp_prefer_mode prefer, ilp_bans bans, ilp_error *err)
{
	ilpi_rule_options o;
	ilpi_rules r;
	int rc;

	ilpi_err_clear(err);
	ilpi_rule_options_init(&o);
	o.prefer = prefer;
	o.bans = bans;
	if (ilpi_rules_build(g, &o, &r, err) != 0)
		return -1;
	rc = ilpi_rules_find_conflict(g, &r, err);
	ilpi_rules_free(&r);
	return rc;
}
