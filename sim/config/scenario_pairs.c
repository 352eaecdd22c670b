/*
 * scn_pairs: the (source NIC, destination NIC, traffic class) pairs the
 * resolved workload sends on, for the deadlock check: every workload flow,
 * and every network edge of every collective (a ring's hops, an
 * all-to-all's pairs) and of every training job's communicators, a
 * collective that repeats another's pairs counted once.
 */
#include "sim/config/scenario.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "models/collective.h"
#include "models/workload.h"
#include "topologies/cbd.h"
#include "topologies/topo.h"

static int by_rank(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * The ranks of collective @c as its pairs depend on them, into a new array
 * *@out: in order for a ring (its neighbours), sorted for an All-to-All
 * (every pair of the set); and their hash. 0 or -ENOMEM.
 */
static int pair_key(const struct coll_spec *c, uint32_t **out, uint64_t *hash)
{
	uint32_t *r = malloc((c->n_ranks ? c->n_ranks : 1) * sizeof(*r));
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)(c->op == COLL_ALLTOALL);

	if (!r)
		return -ENOMEM;
	memcpy(r, c->ranks, c->n_ranks * sizeof(*r));
	if (c->op == COLL_ALLTOALL)
		qsort(r, c->n_ranks, sizeof(*r), by_rank);
	for (uint32_t i = 0; i < c->n_ranks; i++)
		h = (h ^ r[i]) * 1099511628211ULL;
	*out = r;
	*hash = h;
	return 0;
}

/*
 * Collective @i repeats the pairs of an earlier one: the same kind of
 * pairs, class and ranks (@keys, @hash: pair_key of each). A thousand
 * copies of one All-to-All then cost its pairs once, not a thousand times.
 */
static int repeats(const struct scenario *s, const struct coll_spec *const *all,
		   uint32_t *const *keys, const uint64_t *hash, uint32_t i)
{
	const struct coll_spec *c = all[i];

	for (uint32_t j = 0; j < i; j++) {
		const struct coll_spec *e = all[j];

		if (hash[j] == hash[i] && e->n_ranks == c->n_ranks &&
		    (e->op == COLL_ALLTOALL) == (c->op == COLL_ALLTOALL) &&
		    s->sw.dscp_to_tc[e->dscp & 63] == s->sw.dscp_to_tc[c->dscp & 63] &&
		    !memcmp(keys[j], keys[i], c->n_ranks * sizeof(**keys)))
			return 1;
	}
	return 0;
}

/* Collective @c has ranks that share a server, or servers with several
 * NICs: its pairs are those of its network edges (coll_layout.h). */
static int laid_out(const struct coll_spec *c)
{
	return c->topo &&
	       (c->topo->n_gpus != c->topo->n_servers || c->topo->n_hosts != c->topo->n_servers);
}

/* The NIC pairs of @c's network edges, on class @tc, at @p. */
static size_t layout_pairs(const struct coll_spec *c, uint8_t tc, struct cbd_pair *p, int *err)
{
	const struct coll_place pl = coll_place_of(c);
	struct coll_layout lay;
	size_t k = 0;

	if ((*err = coll_layout_build(&pl, &lay)))
		return 0;
	for (uint32_t q = 0; q < lay.n_qps; q++) {
		uint32_t src, dst;

		coll_layout_nics(&pl, &lay, lay.qp_edge[q], &src, &dst);
		p[k++] = (struct cbd_pair){src, dst, tc};
	}
	coll_layout_free(&lay);
	return k;
}

/* Every collective of @s: the workload's, then each training job's
 * communicators (their operations run on the same pairs). */
static const struct coll_spec **all_colls(const struct scenario *s, uint32_t *n)
{
	const struct coll_spec **all;
	uint64_t count = s->n_colls;

	for (uint32_t j = 0; j < s->n_jobs; j++)
		count += s->plans[j].n_comms;
	if (count > UINT32_MAX || !(all = malloc((count ? count : 1) * sizeof(*all))))
		return NULL;
	*n = 0;
	for (uint32_t i = 0; i < s->n_colls; i++)
		all[(*n)++] = &s->colls[i];
	for (uint32_t j = 0; j < s->n_jobs; j++)
		for (uint32_t c = 0; c < s->plans[j].n_comms; c++)
			all[(*n)++] = &s->plans[j].comms[c].spec;
	return all;
}

int scn_pairs(const struct scenario *s, struct cbd_pair **out, size_t *n)
{
	uint32_t n_all = 0;
	const struct coll_spec **all = all_colls(s, &n_all);
	size_t count = s->wl.n_flows, k = 0;
	uint32_t **keys = calloc(n_all ? n_all : 1, sizeof(*keys));
	uint64_t *hash = calloc(n_all ? n_all : 1, sizeof(*hash));
	char *skip = calloc(n_all ? n_all : 1, 1);
	struct cbd_pair *p = NULL;
	int err = all && keys && hash && skip ? 0 : -ENOMEM;

	for (uint32_t i = 0; !err && i < n_all; i++)
		err = pair_key(all[i], &keys[i], &hash[i]);
	for (uint32_t i = 0; !err && i < n_all; i++) {
		const struct coll_spec *c = all[i];

		if ((skip[i] = (char)repeats(s, all, keys, hash, i)))
			continue;
		if (laid_out(c))
			count += coll_qp_count(c);
		else
			count += c->op == COLL_ALLTOALL ? (size_t)c->n_ranks * (c->n_ranks - 1)
							: c->n_ranks;
	}
	if (!err && !(p = malloc((count ? count : 1) * sizeof(*p))))
		err = -ENOMEM;
	for (uint32_t i = 0; !err && i < s->wl.n_flows; i++) {
		const struct wl_flow *f = &s->wl.flows[i];

		p[k++] = (struct cbd_pair){f->src, f->dst, s->sw.dscp_to_tc[f->dscp & 63]};
	}
	for (uint32_t i = 0; !err && i < n_all; i++) {
		const struct coll_spec *c = all[i];
		uint8_t tc = s->sw.dscp_to_tc[c->dscp & 63];

		if (!skip[i] && laid_out(c)) {
			k += layout_pairs(c, tc, &p[k], &err);
			continue;
		}
		for (uint32_t a = 0; !skip[i] && a < c->n_ranks; a++) {
			if (c->op != COLL_ALLTOALL) {
				p[k++] = (struct cbd_pair){c->ranks[a],
							   c->ranks[(a + 1) % c->n_ranks], tc};
				continue;
			}
			for (uint32_t b = 0; b < c->n_ranks; b++)
				if (a != b)
					p[k++] = (struct cbd_pair){c->ranks[a], c->ranks[b], tc};
		}
	}
	for (uint32_t i = 0; keys && i < n_all; i++)
		free(keys[i]);
	free(keys);
	free(hash);
	free(skip);
	free(all);
	if (err) {
		free(p);
		return err;
	}
	*out = p;
	*n = k;
	return 0;
}
