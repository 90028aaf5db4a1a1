/*
 * blocks_windows.c - the repeated layers of a plan (blocks_windows.h).
 */
#include "config.h"

#include "solver/blocks/blocks_plan.h"
#include "solver/blocks/blocks_windows.h"

size_t
ilpi_blocks_windows(const ilpi_blocks *b, int32_t *win, int32_t *off, size_t *per_win)
{
	size_t ns = b->n_seg, best_cover = 0, best_p = 0, best_a = 0, best_run = 0;
	size_t n_win, start, bw;

	*per_win = 0;
	for (size_t it = 0; it < b->red->n_items; it++)
		win[it] = off[it] = -1;
	/* For each period p, the longest run of segments equal to the one p before. */
	for (size_t p = 1; 3 * p <= ns; p++) {
		size_t run = 0;

		for (size_t i = 0; i + p < ns; i++) {
			run = b->seg[i].cls == b->seg[i + p].cls ? run + 1 : 0;
			/* segments [i + 1 - run, i + 1 + p) hold run / p + 1 copies */
			if (run > 0 && (run / p + 1) * p > best_cover && run / p + 1 >= 3) {
				best_cover = (run / p + 1) * p;
				best_p = p;
				best_a = i + 1 - run;
				best_run = run + p;
			}
		}
	}
	if (best_p == 0)
		return 0;
	/* The start among the run's first p segments whose cut is narrowest. */
	start = best_a;
	bw = ilpi_blocks_cut_len(b, best_a);
	for (size_t a = best_a + 1; a < best_a + best_p && a + 3 * best_p <= best_a + best_run;
	    a++)
		if (ilpi_blocks_cut_len(b, a) < bw) {
			bw = ilpi_blocks_cut_len(b, a);
			start = a;
		}
	n_win = (best_a + best_run - start) / best_p;
	if (n_win < 3)
		return 0;
	for (size_t w = 0; w < n_win; w++) {
		int32_t o = 0;

		for (size_t s = start + w * best_p; s < start + (w + 1) * best_p; s++)
			for (int32_t q = b->seg[s].lo; q < b->seg[s].hi; q++) {
				win[b->ord[q]] = (int32_t)w;
				off[b->ord[q]] = o++;
			}
		if (w == 0)
			*per_win = (size_t)o;
	}
	return n_win;
}
