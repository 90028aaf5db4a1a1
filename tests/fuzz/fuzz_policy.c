/* fuzz_policy.c - the policy reader and ilp_policy_apply: any input is read (from an
 * unterminated buffer); a policy that reads is applied to the fixed graph, looked up,
 * and the tagged graph goes through the rules check in every prefer mode, and must
 * still write and read back. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"

static const char *const targets[] = {
	"aten.mm.default", "aten.relu.default", "aten.native_dropout.default", "getitem",
	"aten.sum.dim_IntList", "aten.t.default", "aten.mul.Tensor", "aten.rand_like.default",
	"_c10d_functional.all_reduce.default", "aten.mm", "", "torch.ops.aten.mm.default",
};

static void
rules_all_modes(const ilp_graph *g)
{
	for (int m = ILP_PREFER_HARD; m <= ILP_PREFER_SOFT; m++)
		for (int b = ILP_BANS_PYTORCH; b <= ILP_BANS_NONE; b++) {
			ilp_error err;

			if (ilp_rules_check(g, (ilp_prefer_mode)m, (ilp_bans)b, &err) != 0)
				FZ_ASSERT(err.kind == ILP_ERR_CONFLICT,
				    "rules check failed with kind %d: %s", err.kind, err.msg);
		}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fz_exact(data, size);
	ilp_policy *pol = NULL;
	ilp_graph *g, *g2 = NULL;
	ilp_error err;
	char *json = NULL;
	int rc = ilp_policy_read_buffer(buf, size, "pol", &pol, &err);

	free(buf);
	if (rc != 0) {
		FZ_ASSERT(pol == NULL, "failed read left a policy");
		FZ_ASSERT(err.kind == ILP_ERR_INPUT || err.kind == ILP_ERR_SYSTEM,
		    "read failed with kind %d: %s", err.kind, err.msg);
		FZ_ASSERT(strchr(err.msg, '\n') == NULL, "multi-line message: %s", err.msg);
		return 0;
	}
	for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
		(void)ilp_policy_lookup(pol, targets[i]);
	g = fz_fixed_graph();
	if (ilp_policy_apply(pol, g, &err) != 0) {
		FZ_ASSERT(err.kind == ILP_ERR_INPUT, "apply failed with kind %d: %s", err.kind,
		    err.msg);
	} else {
		rules_all_modes(g);
		if (ilp_graph_to_json(g, &json, &err) != 0)
			fz_fail("tagged graph does not write: %s", err.msg);
		buf = fz_exact((const uint8_t *)json, strlen(json));
		if (ilp_graph_read_buffer(buf, strlen(json), "tagged", &g2, &err) != 0)
			fz_fail("tagged graph does not read back: %s\n%s", err.msg, json);
		free(buf);
		free(json);
		ilp_graph_free(g2);
	}
	ilp_graph_free(g);
	ilp_policy_free(pol);
	return 0;
}
