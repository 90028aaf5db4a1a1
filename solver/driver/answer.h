/* answer.h - solver/driver/answer.c, internal to solver/driver/. */
#ifndef ILPART_SOLVER_DRIVER_ANSWER_H
#define ILPART_SOLVER_DRIVER_ANSWER_H

#include "solver/driver/ctx.h"

int
drv_seed_items(solve_ctx *c, const ilp_partition *p, uint8_t *s, uint8_t *r, uint8_t *need);
int drv_to_nodes(solve_ctx *c);
int drv_make_partition(solve_ctx *c, ilp_partition **out, ilp_error *err);
const char *
drv_breaks_rules(const solve_ctx *c, const ilp_partition *p, char *buf, size_t len);
/* A new partition of the node answer (c->node_s, c->node_r: drv_to_nodes), or NULL
 * when out of memory; the caller frees it. */
ilp_partition *drv_node_partition(const solve_ctx *c);

#endif /* ILPART_SOLVER_DRIVER_ANSWER_H */
