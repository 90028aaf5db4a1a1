/* names.c - spellings of kinds, classes, SAC tags and dtypes. */
#include "config.h"

#include <string.h>

#include "graph/graph.h"

static const struct {
	const char *canon;
	int size;
	const char *alias[3];
} dtypes[] = {
	{ "f64", 8, { "float64", "double", NULL } },
	{ "f32", 4, { "float32", "float", NULL } },
	{ "f16", 2, { "float16", "half", NULL } },
	{ "bf16", 2, { "bfloat16", NULL, NULL } },
	{ "f8e4m3fn", 1, { "float8_e4m3fn", NULL, NULL } },
	{ "f8e4m3fnuz", 1, { "float8_e4m3fnuz", NULL, NULL } },
	{ "f8e5m2", 1, { "float8_e5m2", NULL, NULL } },
	{ "f8e5m2fnuz", 1, { "float8_e5m2fnuz", NULL, NULL } },
	{ "c64", 8, { "complex64", "cfloat", NULL } },
	{ "c128", 16, { "complex128", "cdouble", NULL } },
	{ "i64", 8, { "int64", "long", NULL } },
	{ "i32", 4, { "int32", "int", NULL } },
	{ "i16", 2, { "int16", "short", NULL } },
	{ "i8", 1, { "int8", NULL, NULL } },
	{ "u8", 1, { "uint8", NULL, NULL } },
	{ "b8", 1, { "bool", NULL, NULL } },
};

const char *
ilpi_dtype_canonical(const char *name)
{
	if (strncmp(name, "torch.", 6) == 0)
		name += 6;
	for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++) {
		if (strcmp(name, dtypes[i].canon) == 0)
			return dtypes[i].canon;
		for (int k = 0; k < 3 && dtypes[i].alias[k] != NULL; k++)
			if (strcmp(name, dtypes[i].alias[k]) == 0)
				return dtypes[i].canon;
	}
	return NULL;
}

int
ilpi_dtype_size(const char *dtype)
{
	for (size_t i = 0; dtype != NULL && i < sizeof dtypes / sizeof dtypes[0]; i++)
		if (strcmp(dtype, dtypes[i].canon) == 0)
			return dtypes[i].size;
	return 0;
}

const char *
ilpi_kind_name(ilpi_kind k)
{
	static const char *const names[] = { "primal", "tangent", "op" };

	return (unsigned)k < 3 ? names[k] : "?";
}

const char *
ilpi_class_name(ilpi_class c)
{
	static const char *const names[] = { "dead", "forward", "backward", "unclaimed" };

	return (unsigned)c < 4 ? names[c] : "?";
}

static const char *const tag_names[] = {
	"", "MUST_SAVE", "PREFER_SAVE", "MUST_RECOMPUTE", "PREFER_RECOMPUTE",
	"MUST_CPU_OFFLOAD", "PREFER_CPU_OFFLOAD"
};
#define N_TAGS (sizeof tag_names / sizeof tag_names[0])

const char *
ilpi_tag_name(ilpi_tag t)
{
	return (unsigned)t < N_TAGS ? tag_names[t] : "?";
}

int
ilpi_tag_parse(const char *s, ilpi_tag *out)
{
	if (strncmp(s, "CheckpointPolicy.", 17) == 0)
		s += 17;
	for (size_t i = 1; i < N_TAGS; i++)
		if (strcmp(s, tag_names[i]) == 0) {
			*out = (ilpi_tag)i;
			return 0;
		}
	return -1;
}

/* ---- --prefer and --bans (public: include/ilpart.h) ---------------------------------------------------------- */

static const char *const prefer_names[] = { "hard", "pytorch", "soft" };
static const char *const bans_names[] = { "pytorch", "none" };

int
ilp_prefer_parse(const char *s, ilp_prefer_mode *out, ilp_error *err)
{
	ilpi_err_clear(err);
	for (int i = 0; i < 3; i++)
		if (s != NULL && strcmp(s, prefer_names[i]) == 0) {
			*out = (ilp_prefer_mode)i;
			return 0;
		}
	ilpi_err(err, ILP_ERR_INPUT, "option '--prefer': unknown mode '%.60s' "
	    "(hard, pytorch or soft)", s != NULL ? s : "");
	return -1;
}

int
ilp_bans_parse(const char *s, ilp_bans *out, ilp_error *err)
{
	ilpi_err_clear(err);
	for (int i = 0; i < 2; i++)
		if (s != NULL && strcmp(s, bans_names[i]) == 0) {
			*out = (ilp_bans)i;
			return 0;
		}
	ilpi_err(err, ILP_ERR_INPUT, "option '--bans': unknown mode '%.60s' (pytorch or none)",
	    s != NULL ? s : "");
	return -1;
}

const char *
ilp_prefer_name(ilp_prefer_mode m)
{
	return (unsigned)m < 3 ? prefer_names[m] : "?";
}

const char *
ilp_bans_name(ilp_bans b)
{
	return (unsigned)b < 2 ? bans_names[b] : "?";
}

static const char *const offload_names[] = { "tags", "none", "free" };

int
ilp_offload_parse(const char *s, ilp_offload *out, ilp_error *err)
{
	ilpi_err_clear(err);
	for (int i = 0; i < 3; i++)
		if (s != NULL && strcmp(s, offload_names[i]) == 0) {
			*out = (ilp_offload)i;
			return 0;
		}
	ilpi_err(err, ILP_ERR_INPUT, "option '--offload': unknown mode '%.60s' (tags, none or "
	    "free)", s != NULL ? s : "");
	return -1;
}

const char *
ilp_offload_name(ilp_offload mode)
{
	return (unsigned)mode < 3 ? offload_names[mode] : "?";
}
