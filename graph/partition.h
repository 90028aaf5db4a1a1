/*
 * partition.h - a save/recompute decision for one graph (internal layout of the
 * public ilp_partition). Read and written by graph/partition.c.
 */
#ifndef ILPART_GRAPH_PARTITION_H
#define ILPART_GRAPH_PARTITION_H

#include <stddef.h>
#include <stdint.h>

#include "graph/graph.h"
#include "graph/solve_options.h"

enum {
	ILPI_P_SAVED = 1u << 0,       /* handed from the forward to the backward */
	ILPI_P_RECOMPUTED = 1u << 1,  /* non-backward op executed in the backward */
	ILPI_P_RNG_SAVED = 1u << 2,   /* recomputed random op: the forward saves its RNG
	                               * state, the backward replays it (g->rng_state_bytes) */
	ILPI_P_OFFLOADED = 1u << 3    /* saved value copied to host memory after its last
	                               * forward use and back before its first backward use
	                               * (docs/partition.md "Offload") */
};

/* Soft mode: a preference the optimum overrides, and what overriding it gains. */
typedef struct ilpi_override {
	int32_t node;
	uint8_t tag;        /* the ilpi_tag that was overridden */
	double gain;        /* objective units gained by overriding */
} ilpi_override;

/* One recorded option (graph/solve_options.h's RECORD column says which member). */
typedef struct ilpi_run_value {
	int64_t i;                /* REC_INT, REC_INT_OR_NUM's first */
	double num, num2;         /* REC_NUM; the OR forms' second (num2: of two numbers) */
	char str[96];             /* REC_STR */
} ilpi_run_value;

/* The request that produced a partition, written under "options" (docs/partition.md):
 * one slot per row of graph/solve_options.h. Strings are "" and numbers negative when
 * absent. */
typedef struct ilpi_run_options {
	int known;                /* 0: nothing recorded (older files, hand-written ones) */
	ilpi_run_value v[ILPI_OPT_COUNT];
	char policy_name[256];
	char policy_sha256[65];
	char version[32];         /* ilpart's */
} ilpi_run_options;

struct ilp_partition {
	size_t n;                 /* graph node count */
	uint8_t *state;           /* ILPI_P_* per node */

	/* What produced it (informational; written under "producer"): copies held in the
	 * partition, truncated to fit, set by ilpi_partition_set_producer or read from a
	 * partition file's "producer" object (which may hold any string). */
	char method[32];          /* "ilp", "mincut", "reference", "save-all"; "file": none */
	char objective[32];       /* "memory", "runtime", "weighted", "" */
	char prefer[16];          /* "hard", "pytorch", "soft", "" */
	char status[32];          /* "optimal", "feasible", "time-limit", "heuristic", "" */
	double gap;               /* proven relative gap, 0 when optimal, < 0 unknown */
	double objective_value;   /* < 0 unknown */
	int64_t budget_bytes;     /* < 0 none */
	int64_t peak_cap_bytes;   /* the simulated peak it was solved within at a fraction:
	                           * PyTorch's partition's (solver/driver/dominate.c); < 0 none */
	char note[640];           /* ilp_partition_note: "" when nothing to say */

	/* Costs as evaluated by graph/cost.c when known (has_cost != 0). */
	int has_cost;
	int64_t saved_bytes;
	double recompute_flops;
	double recompute_time_us;

	ilpi_override *overrides;
	size_t n_overrides, cap_overrides;

	/* The graph it was made for ("" when the file does not say) and the request. */
	char graph_fp[65];
	ilpi_run_options opt;
};

static inline int ilpi_saved(const ilp_partition *p, size_t i)
{
	return (p->state[i] & ILPI_P_SAVED) != 0;
}
static inline int ilpi_recomputed(const ilp_partition *p, size_t i)
{
	return (p->state[i] & ILPI_P_RECOMPUTED) != 0;
}
/* A copy of p (overrides left out) for g (p made for g); NULL when out of memory. The
 * caller owns it. */
ilp_partition *ilpi_partition_clone(const ilp_graph *g, const ilp_partition *p);
static inline int ilpi_offloaded(const ilp_partition *p, size_t i)
{
	return (p->state[i] & ILPI_P_OFFLOADED) != 0;
}
/* The transfer model's parameters of a partition (docs/partition.md "Offload"): the
 * device its options name (a profile or FLOPS:BYTES_PER_S; h100 when none or unknown)
 * and the host-link bandwidth it records, else that device's. */
void ilpi_partition_transfer(const ilp_partition *p, ilp_device *dev, double *host_bw);
/* Bytes of the offloaded values (each is its own storage: ilp_check). */
int64_t ilpi_partition_offloaded_bytes(const ilp_graph *g, const ilp_partition *p);
/* Records an override (soft mode); -1 when out of memory. */
int ilpi_partition_add_override(ilp_partition *p, int32_t node, uint8_t tag, double gain);
/* Copies the producer strings into p (truncated to the field sizes); NULL leaves a
 * field unchanged. */
void ilpi_partition_set_producer(ilp_partition *p, const char *method, const char *objective,
    const char *prefer, const char *status);
/* Records in p what it was made for: g's fingerprint and policy, and the options
 * (`o`; objective, budget, time limit and gap only when p->method is "ilp"). */
void ilpi_partition_record(ilp_partition *p, const ilp_graph *g, const ilp_solve_options *o);
/* Bytes of the saved values, each storage counted once (views share their base's). */
int64_t ilpi_partition_saved_bytes(const ilp_graph *g, const ilp_partition *p);
/* Sets ILPI_P_RNG_SAVED on exactly the recomputed random ops of a graph whose RNG is
 * not functionalized: they replay the RNG state the forward saves, which costs
 * ilpi_rng_state_bytes(g) each in the saved bytes. */
void ilpi_partition_mark_rng(const ilp_graph *g, ilp_partition *p);

/* Completes a partition from its saved set: RECOMPUTED is set on exactly the forward
 * and unclaimed ops the backward must execute and cannot get otherwise (walking back
 * from the backward ops and the gradients, stopping at saved values). With prune,
 * saved values the backward never reads are dropped (as PyTorch's
 * _extract_fwd_bwd_modules does). Values the backward needs but cannot get (an unsaved
 * primal) are left for ilp_check to report. Used for partition files without a
 * "recomputed" list (PyTorch's saved sets), references, save-all and min-cut. */
void ilpi_partition_complete(const ilp_graph *g, ilp_partition *p, int prune);
/* A reference partition of the graph file (g->ref[k]): its saved list, completed
 * without pruning; method "reference". The caller owns *out. */
int ilpi_partition_from_ref(const ilp_graph *g, size_t k, ilp_partition **out,
    ilp_error *err);
/* Save everything needed: every boundary value (tuples excepted: they have no
 * storage) saved, completed; method "save-all". The caller owns *out. */
int ilpi_partition_save_all(const ilp_graph *g, ilp_partition **out, ilp_error *err);
/* The prefer mode the partition was made under (producer.prefer), hard when unset. */
ilp_prefer_mode ilpi_partition_prefer(const ilp_partition *p);
/* Counts of saved and recomputed nodes. */
size_t ilpi_partition_count(const ilp_partition *p, unsigned state_bit);
/* 0 when `p` was made for a graph of g's size; else -1 with ILP_ERR_INPUT. Every
 * function that indexes p by g's nodes asks first. */
int ilpi_partition_fits(const ilp_graph *g, const ilp_partition *p, ilp_error *err);

#endif /* ILPART_GRAPH_PARTITION_H */
