/*
 * evq_sort: the sort of one calendar bucket's timers by (when, key), for
 * evq.c alone (its functions are inline, so that each use is compiled for
 * its case: by key alone when every entry has the same time).
 */
#ifndef ROCESIM_EVQ_SORT_H
#define ROCESIM_EVQ_SORT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sim/engine/evq_timer.h"

#define SORT_SMALL 16 /* this many entries or fewer are sorted by insertion */

/* A timer being sorted, with what orders it (read once from the timer). */
struct sort_entry {
	simtime_t when;
	uint64_t key;
	struct evq_timer *t;
};

/* @a before @b; @one_time: every entry has the same time (the key alone
 * decides: a constant, so each caller gets its own copy of the sort). */
static inline int sort_before(const struct sort_entry *a, const struct sort_entry *b, int one_time)
{
	if (one_time)
		return a->key < b->key;
	return a->when < b->when || (a->when == b->when && a->key < b->key);
}

/* End of the ascending run of @v that starts at @i (< @n). */
static inline size_t run_end(const struct sort_entry *v, size_t i, size_t n, int one_time)
{
	while (++i < n && !sort_before(&v[i], &v[i - 1], one_time))
		;
	return i;
}

/* @a[0..na) and @b[0..nb), each sorted, into @out. */
static inline void merge(const struct sort_entry *a, size_t na, const struct sort_entry *b,
			 size_t nb, struct sort_entry *out, int one_time)
{
	size_t i = 0, j = 0;

	while (i < na && j < nb)
		*out++ = sort_before(&b[j], &a[i], one_time) ? b[j++] : a[i++];
	memcpy(out, a + i, (na - i) * sizeof(*out));
	memcpy(out, b + j, (nb - j) * sizeof(*out));
}

/*
 * Sort @v[0..n) by (when, key), through @tmp[0..n) (or in place when
 * @tmp is NULL); returns which of the two holds the result. A bucket out
 * of order is a few ascending runs (the events of one time armed by two or
 * three kinds of event, each kind in key order: on the k = 16 AllReduce,
 * buckets of a hundred or more events of one time, in two runs for the
 * median one), so a natural merge sort (Knuth, TAOCP vol. 3, 5.2.4) takes
 * one or two passes, and a pass that merged two runs into one is the last.
 */
static inline __attribute__((always_inline)) struct sort_entry *
sort_entries(struct sort_entry *v, struct sort_entry *tmp, size_t n, int one_time)
{
	static const size_t gaps[] = {1750, 701, 301, 132, 57, 23, 10, 4, 1};
	const size_t n_gaps = sizeof(gaps) / sizeof(gaps[0]);

	if (n <= SORT_SMALL || !tmp) {
		/* insertion sort (the last gap alone) on a small bucket; Shell sort
		 * (gaps after Ciura, 2001) in place when there is no room to merge */
		for (size_t g = n <= SORT_SMALL ? n_gaps - 1 : 0; g < n_gaps; g++) {
			for (size_t i = gaps[g]; i < n; i++) {
				struct sort_entry e = v[i];
				size_t j = i;

				for (; j >= gaps[g] && sort_before(&e, &v[j - gaps[g]], one_time);
				     j -= gaps[g])
					v[j] = v[j - gaps[g]];
				v[j] = e;
			}
		}
		return v;
	}
	for (struct sort_entry *x;; x = v, v = tmp, tmp = x) {
		size_t i = 0;

		while (i < n) {
			size_t m = run_end(v, i, n, one_time), e;

			if (m == n) {
				if (!i)
					return v;
				memcpy(tmp + i, v + i, (n - i) * sizeof(*tmp));
				break;
			}
			e = run_end(v, m, n, one_time);
			merge(v + i, m - i, v + m, e - m, tmp + i, one_time);
			if (!i && e == n)
				return tmp;
			i = e;
		}
	}
}

#endif
