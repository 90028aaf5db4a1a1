/*
 * solve_options_rec_end.h - ends one expansion of graph/solve_options.h's RECORD
 * column: graph/partition.c defines the REC_* forms for each of its three uses (set,
 * read, write) and includes this after each. No include guard on purpose.
 */
#undef REC_NONE
#undef REC_NUM
#undef REC_INT
#undef REC_STR
#undef REC_INT_OR_NUM
#undef REC_NUM_OR_NUM
#undef REC_POLICY
