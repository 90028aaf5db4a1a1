/*
 * policy_file.h - SAC policy files (docs/policies.md): the layout of the public
 * ilp_policy and the op-pattern matcher (internal; policies/policy_file.c).
 */
#ifndef ILPART_POLICIES_POLICY_FILE_H
#define ILPART_POLICIES_POLICY_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "ilpart.h"

typedef enum ilpi_scope {
	ILPI_SCOPE_ALL = 0,  /* every op that has an ac_graph_id */
	ILPI_SCOPE_LIST,     /* ops whose ac_graph_id is listed */
	ILPI_SCOPE_GRAPH     /* every forward op, as if one checkpoint call wrapped the model */
} ilpi_scope;

typedef struct ilpi_pattern {
	char *text;          /* without a "torch.ops." prefix */
	uint8_t tag;         /* ilpi_tag the rule gives */
	uint32_t rule;       /* index into the file's "rules" (save list: UINT32_MAX) */
	uint32_t item;       /* index into that rule's "ops" (or into "save") */
} ilpi_pattern;

struct ilp_policy {
	char *path;
	char *description;
	ilpi_scope scope;
	int32_t *regions;    /* ILPI_SCOPE_LIST */
	size_t n_regions;
	int32_t region_id;   /* ILPI_SCOPE_GRAPH: id given to ops outside any region */
	uint8_t default_tag; /* ilpi_tag; ILPI_TAG_NONE with has_default: "untag" */
	int has_default;     /* 0: unlisted ops keep their tags */
	ilpi_pattern *pat;   /* in rule order; the first match wins */
	size_t n_pat, cap_pat;
	char sha256[65];     /* of the file's bytes, recorded in partitions */
	ilp_log_fn warn;     /* ilp_policy_set_warnings; NULL: no warnings */
	void *warn_ctx;
};

/* Does pattern `pat` cover op `target`? Exact name, an overload packet ("aten.mm"
 * covers "aten.mm.default"), or a shell glob (* ? [...]); "torch.ops." is ignored on
 * both sides. */
int ilpi_op_matches(const char *pat, const char *target);
/* The policy's ilpi_tag for `target` (first matching rule, else the default); -1 when
 * the policy leaves such ops alone. */
int ilpi_policy_tag(const ilp_policy *pol, const char *target);

#endif /* ILPART_POLICIES_POLICY_FILE_H */
