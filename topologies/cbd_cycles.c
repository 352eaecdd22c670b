/*
 * Cyclic buffer dependencies (cbd.h): the cycles of a dependency graph
 * (cbd.c builds the graph of the fabric).
 *
 * Cycles: Tarjan's algorithm (iterative) finds the strongly connected
 * components; only the non-trivial ones (two nodes or more, or a self-loop)
 * hold cycles. The elementary cycles are then listed shortest first, by
 * increasing length L: for each start node s (ascending), a depth-first
 * search over the nodes of s's component above s, pruned by the distance
 * back to s, finds the cycles of exactly L buffers whose smallest node is
 * s, so each cycle is found once, already rotated to start at its smallest
 * port. The search stops once max_cycles + 1 are known (truncated) or when
 * a work budget (CBD_WORK_BUDGET edge visits per priority) runs out; the
 * number of elementary cycles can grow exponentially, the budget keeps the
 * worst case bounded. Cycles found before the budget ran out are exact and
 * the shortest; a component left without any listed cycle then gets one
 * (a shortest cycle through its smallest node, found by breadth-first
 * search) so that every component shows at least one cycle.
 */
#include "topologies/cbd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "topologies/cbd_impl.h"

#define CBD_UNKNOWN (UINT32_MAX - 1)
#define CBD_EMPTY UINT64_MAX
/* Edge visits allowed to the cycle search of one priority (~0.1 s). */
#define CBD_WORK_BUDGET ((uint64_t)1 << 25)
/* More cycles than anyone reads: a bound on max_cycles. */
#define CBD_MAX_CYCLES (1u << 20)

/* A graph in compressed rows, both directions. */
struct cbd_graph {
	uint32_t n;
	size_t m;
	uint32_t *out_off, *out; /* [n + 1], [m] */
	uint32_t *in_off, *in;
};

/* A cycle found by the search, with its rank for the final order. */
struct cbd_found {
	uint32_t n, seq;
	uint32_t *nodes;
};

/* The search of one graph: cycles found so far and the work spent. */
struct cbd_search {
	const struct cbd_graph *g;
	uint32_t max; /* cycles wanted: max_cycles + 1 proves truncation */
	struct cbd_found *found;
	uint32_t n_found;
	uint64_t work;
	/* scratch, [n] each */
	uint32_t *comp, *dist, *queue, *path, *iter;
	uint8_t *on_path;
};

static uint64_t cbd_hash(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ULL;
	x ^= x >> 29;
	return x;
}

int cbd_set_init(struct cbd_set *s, size_t cap)
{
	s->cap = cap;
	s->n = 0;
	s->keys = malloc(cap * sizeof(*s->keys));
	if (!s->keys)
		return -ENOMEM;
	memset(s->keys, 0xff, cap * sizeof(*s->keys));
	return 0;
}

static void cbd_set_clear(struct cbd_set *s)
{
	memset(s->keys, 0xff, s->cap * sizeof(*s->keys));
	s->n = 0;
}

static void cbd_set_put(struct cbd_set *s, uint64_t key)
{
	size_t mask = s->cap - 1, i = cbd_hash(key) & mask;

	while (s->keys[i] != CBD_EMPTY) {
		if (s->keys[i] == key)
			return;
		i = (i + 1) & mask;
	}
	s->keys[i] = key;
	s->n++;
}

/* Add @key, growing the table to keep it at most half full. */
int cbd_set_add(struct cbd_set *s, uint64_t key)
{
	if ((s->n + 1) * 2 > s->cap) {
		struct cbd_set bigger;
		size_t i;

		if (cbd_set_init(&bigger, s->cap * 2))
			return -ENOMEM;
		for (i = 0; i < s->cap; i++)
			if (s->keys[i] != CBD_EMPTY)
				cbd_set_put(&bigger, s->keys[i]);
		free(s->keys);
		*s = bigger;
	}
	cbd_set_put(s, key);
	return 0;
}

static int cbd_u64_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static void cbd_graph_free(struct cbd_graph *g)
{
	free(g->out_off);
	free(g->out);
	free(g->in_off);
	free(g->in);
}

/* The graph on nodes 0..@n-1 with the distinct sorted edges @keys. */
static int cbd_graph_init(struct cbd_graph *g, uint32_t n, const uint64_t *keys, size_t m)
{
	uint32_t *fill;
	size_t i;

	memset(g, 0, sizeof(*g));
	g->n = n;
	g->m = m;
	g->out_off = calloc((size_t)n + 1, sizeof(*g->out_off));
	g->in_off = calloc((size_t)n + 2, sizeof(*g->in_off));
	g->out = malloc((m + 1) * sizeof(*g->out));
	g->in = malloc((m + 1) * sizeof(*g->in));
	fill = malloc(((size_t)n + 1) * sizeof(*fill));
	if (!g->out_off || !g->in_off || !g->out || !g->in || !fill) {
		free(fill);
		cbd_graph_free(g);
		return -ENOMEM;
	}
	for (i = 0; i < m; i++) {
		g->out_off[(keys[i] >> 32) + 1]++;
		g->in_off[(uint32_t)keys[i] + 1]++;
		g->out[i] = (uint32_t)keys[i];
	}
	for (i = 0; i < n; i++) {
		g->out_off[i + 1] += g->out_off[i];
		g->in_off[i + 1] += g->in_off[i];
	}
	memcpy(fill, g->in_off, (size_t)n * sizeof(*fill));
	/* keys are sorted by source: each in-list comes out sorted too */
	for (i = 0; i < m; i++)
		g->in[fill[(uint32_t)keys[i]]++] = (uint32_t)(keys[i] >> 32);
	free(fill);
	return 0;
}

/*
 * Tarjan's strongly connected components without recursion. Fills
 * s->comp[v] with a component id; returns the number of non-trivial
 * components and marks them in @nontrivial (indexed by component id).
 */
static int cbd_tarjan(struct cbd_search *s, uint8_t **nontrivial, uint32_t *n_nontrivial)
{
	const struct cbd_graph *g = s->g;
	uint32_t *index, *low, *stack, *cs_v, *cs_e, *size;
	uint32_t next = 0, n_comp = 0, sp = 0, csp = 0, v, root;
	uint8_t *on_stack, *nt;
	int err = -ENOMEM;

	index = malloc(((size_t)g->n + 1) * sizeof(*index));
	low = malloc(((size_t)g->n + 1) * sizeof(*low));
	stack = malloc(((size_t)g->n + 1) * sizeof(*stack));
	cs_v = malloc(((size_t)g->n + 1) * sizeof(*cs_v));
	cs_e = malloc(((size_t)g->n + 1) * sizeof(*cs_e));
	size = calloc((size_t)g->n + 1, sizeof(*size));
	on_stack = calloc((size_t)g->n + 1, 1);
	nt = calloc((size_t)g->n + 1, 1);
	if (!index || !low || !stack || !cs_v || !cs_e || !size || !on_stack || !nt)
		goto out_free;
	for (v = 0; v < g->n; v++)
		index[v] = CBD_NONE;

	for (root = 0; root < g->n; root++) {
		if (index[root] != CBD_NONE)
			continue;
		if (g->out_off[root] == g->out_off[root + 1]) {
			/* no way out: a component of its own, without a cycle */
			index[root] = next++;
			s->comp[root] = n_comp++;
			continue;
		}
		index[root] = low[root] = next++;
		stack[sp++] = root;
		on_stack[root] = 1;
		cs_v[csp] = root;
		cs_e[csp++] = g->out_off[root];
		while (csp) {
			uint32_t e;

			v = cs_v[csp - 1];
			e = cs_e[csp - 1];
			if (e < g->out_off[v + 1]) {
				uint32_t w = g->out[e];

				cs_e[csp - 1]++;
				if (index[w] == CBD_NONE) {
					index[w] = low[w] = next++;
					stack[sp++] = w;
					on_stack[w] = 1;
					cs_v[csp] = w;
					cs_e[csp++] = g->out_off[w];
				} else if (on_stack[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			csp--;
			if (low[v] == index[v]) {
				uint32_t w;

				do {
					w = stack[--sp];
					on_stack[w] = 0;
					s->comp[w] = n_comp;
					size[n_comp]++;
				} while (w != v);
				n_comp++;
			}
			if (csp && low[v] < low[cs_v[csp - 1]])
				low[cs_v[csp - 1]] = low[v];
		}
	}

	*n_nontrivial = 0;
	for (v = 0; v < g->n; v++) {
		uint32_t c = s->comp[v], e;
		int loop = 0;

		for (e = g->out_off[v]; e < g->out_off[v + 1] && !loop; e++)
			loop = g->out[e] == v;
		if ((size[c] > 1 || loop) && !nt[c]) {
			nt[c] = 1;
			(*n_nontrivial)++;
		}
	}
	*nontrivial = nt;
	nt = NULL;
	err = 0;
out_free:
	free(index);
	free(low);
	free(stack);
	free(cs_v);
	free(cs_e);
	free(size);
	free(on_stack);
	free(nt);
	return err;
}

static int cbd_record(struct cbd_search *s, const uint32_t *nodes, uint32_t n)
{
	struct cbd_found *f;

	f = realloc(s->found, ((size_t)s->n_found + 1) * sizeof(*f));
	if (!f)
		return -ENOMEM;
	s->found = f;
	f = &s->found[s->n_found];
	f->nodes = malloc((size_t)n * sizeof(*f->nodes));
	if (!f->nodes)
		return -ENOMEM;
	memcpy(f->nodes, nodes, (size_t)n * sizeof(*nodes));
	f->n = n;
	f->seq = s->n_found++;
	return 0;
}

/*
 * Breadth-first search backwards from @root over the nodes of its
 * component that are not below @root, up to @limit edges: s->dist[v] is
 * the number of edges from v to @root (CBD_NONE if it cannot get there
 * that way, or not within the limit). Returns how many nodes were reached;
 * s->queue[0..that) lists them, for the reset. Sets *@cut when the limit
 * left nodes unexplored.
 */
static uint32_t cbd_dist_to(struct cbd_search *s, uint32_t root, uint32_t limit, int *cut)
{
	const struct cbd_graph *g = s->g;
	uint32_t head = 0, tail = 0, c = s->comp[root];

	*cut = 0;
	s->dist[root] = 0;
	s->queue[tail++] = root;
	while (head < tail) {
		uint32_t v = s->queue[head++], e;

		if (s->dist[v] >= limit) {
			*cut |= g->in_off[v] != g->in_off[v + 1];
			continue;
		}
		for (e = g->in_off[v]; e < g->in_off[v + 1]; e++) {
			uint32_t u = g->in[e];

			s->work++;
			if (u < root || s->comp[u] != c || s->dist[u] != CBD_NONE)
				continue;
			s->dist[u] = s->dist[v] + 1;
			s->queue[tail++] = u;
		}
	}
	return tail;
}

static void cbd_dist_reset(struct cbd_search *s, uint32_t reached)
{
	for (uint32_t i = 0; i < reached; i++)
		s->dist[s->queue[i]] = CBD_NONE;
}

/*
 * For @root: the length of its shortest cycle through nodes not below it
 * (@girth; CBD_NONE if none, or none of at most @limit + 1 nodes) and a
 * bound on the longest (@bound: the nodes on some cycle through it, the
 * girth itself when those nodes and their edges form a single cycle;
 * CBD_UNKNOWN when the limit hid some of them).
 */
static void cbd_root_info(struct cbd_search *s, uint32_t root, uint32_t limit, uint32_t *girth,
			  uint32_t *bound)
{
	const struct cbd_graph *g = s->g;
	uint32_t reached, best = CBD_NONE, e, i;
	size_t edges = 0;
	int cut;

	reached = cbd_dist_to(s, root, limit, &cut);

	for (e = g->out_off[root]; e < g->out_off[root + 1]; e++) {
		uint32_t w = g->out[e];

		if (s->dist[w] != CBD_NONE && s->dist[w] + 1 < best)
			best = s->dist[w] + 1;
	}
	/* every reached node reaches root; those root reaches are on a cycle */
	for (i = 0; i < reached; i++) {
		uint32_t v = s->queue[i];

		for (e = g->out_off[v]; e < g->out_off[v + 1]; e++)
			edges += s->dist[g->out[e]] != CBD_NONE;
		s->work += g->out_off[v + 1] - g->out_off[v];
	}
	cbd_dist_reset(s, reached);
	*girth = best;
	if (best == CBD_NONE)
		*bound = 0;
	else
		*bound = cut ? CBD_UNKNOWN : edges == reached ? best : reached;
}

/* The cycles of exactly @len nodes whose smallest node is @root. */
static int cbd_cycles_from(struct cbd_search *s, uint32_t root, uint32_t len, uint64_t budget)
{
	const struct cbd_graph *g = s->g;
	uint32_t reached, c = s->comp[root];
	int32_t depth = 0;
	int err = 0, cut;

	/* a node farther than len - 1 from root cannot be on such a cycle */
	reached = cbd_dist_to(s, root, len - 1, &cut);

	s->path[0] = root;
	s->iter[0] = g->out_off[root];
	s->on_path[root] = 1;
	while (depth >= 0 && s->n_found < s->max && s->work < budget) {
		uint32_t v = s->path[depth], w;

		if (s->iter[depth] == g->out_off[v + 1]) {
			s->on_path[v] = 0;
			depth--;
			continue;
		}
		w = g->out[s->iter[depth]++];
		s->work++;
		if (w == root) {
			if ((uint32_t)depth + 1 == len && (err = cbd_record(s, s->path, len)))
				break;
			continue;
		}
		if (w < root || s->comp[w] != c || s->on_path[w] || s->dist[w] == CBD_NONE ||
		    (uint32_t)depth + 1 + s->dist[w] > len)
			continue;
		depth++;
		s->path[depth] = w;
		s->iter[depth] = g->out_off[w];
		s->on_path[w] = 1;
	}
	for (; depth >= 0; depth--)
		s->on_path[s->path[depth]] = 0;
	cbd_dist_reset(s, reached);
	return err;
}

/* A shortest cycle through @root inside its component (breadth first). */
static int cbd_one_cycle(struct cbd_search *s, uint32_t root)
{
	const struct cbd_graph *g = s->g;
	uint32_t head = 0, tail = 0, c = s->comp[root], last = CBD_NONE, n = 0, v;
	int err;

	/* dist[] holds the parent here */
	s->dist[root] = root;
	s->queue[tail++] = root;
	while (head < tail && last == CBD_NONE) {
		uint32_t e;

		v = s->queue[head++];
		for (e = g->out_off[v]; e < g->out_off[v + 1]; e++) {
			uint32_t w = g->out[e];

			if (w == root) {
				last = v;
				break;
			}
			if (s->comp[w] != c || s->dist[w] != CBD_NONE)
				continue;
			s->dist[w] = v;
			s->queue[tail++] = w;
		}
	}
	for (v = last; v != CBD_NONE; v = v == root ? CBD_NONE : s->dist[v])
		s->path[n++] = v;
	for (uint32_t i = 0; i + 1 < n - i; i++) {
		uint32_t x = s->path[i];

		s->path[i] = s->path[n - 1 - i];
		s->path[n - 1 - i] = x;
	}
	err = n ? cbd_record(s, s->path, n) : 0;
	cbd_dist_reset(s, tail);
	return err;
}

static int cbd_found_cmp(const void *x, const void *y)
{
	const struct cbd_found *a = x, *b = y;

	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

int cbd_push_cycle(struct cbd_result *out, uint8_t prio, const uint32_t *nodes, uint32_t n)
{
	struct cbd_cycle *c;

	c = realloc(out->cycles, ((size_t)out->n_cycles + 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	out->cycles = c;
	c = &out->cycles[out->n_cycles];
	c->ports = malloc((size_t)n * sizeof(*c->ports));
	if (!c->ports)
		return -ENOMEM;
	memcpy(c->ports, nodes, (size_t)n * sizeof(*nodes));
	c->n = n;
	c->prio = prio;
	out->n_cycles++;
	return 0;
}

/*
 * Components and cycles of @g, appended to @out as priority @prio (each
 * cycle's ports are node ids of @g).
 */
static int cbd_graph_cycles(const struct cbd_graph *g, uint8_t prio, uint32_t max_cycles,
			    struct cbd_result *out)
{
	struct cbd_search s = {.g = g};
	uint32_t *girth = NULL, *bound = NULL, *roots = NULL, *best = NULL, n_roots = 0, n_nt = 0;
	uint32_t n_best = 0;
	uint32_t len, v, i;
	uint8_t *nontrivial = NULL, *shown = NULL;
	int err = -ENOMEM, complete = 0;
	size_t n = (size_t)g->n + 1;

	if (max_cycles > CBD_MAX_CYCLES)
		max_cycles = CBD_MAX_CYCLES;
	s.max = max_cycles + 1;

	s.comp = malloc(n * sizeof(*s.comp));
	s.dist = malloc(n * sizeof(*s.dist));
	s.queue = malloc(n * sizeof(*s.queue));
	s.path = malloc(n * sizeof(*s.path));
	s.iter = malloc(n * sizeof(*s.iter));
	s.on_path = calloc(n, 1);
	girth = malloc(n * sizeof(*girth));
	bound = malloc(n * sizeof(*bound));
	roots = malloc(n * sizeof(*roots));
	best = malloc(((size_t)s.max + 1) * sizeof(*best));
	if (!s.comp || !s.dist || !s.queue || !s.path || !s.iter || !s.on_path || !girth ||
	    !bound || !roots || !best)
		goto out_free;
	for (v = 0; v < g->n; v++)
		s.dist[v] = CBD_NONE;
	if ((err = cbd_tarjan(&s, &nontrivial, &n_nt)))
		goto out_free;
	out->n_sccs += n_nt;
	if (!n_nt)
		goto out_free;
	if (!max_cycles) {
		out->truncated = 1;
		goto out_free;
	}

	/*
	 * The nodes that start a cycle, with their shortest and longest. Once
	 * max_cycles + 1 of them are known, their longest girth bounds the
	 * search of the others: a root whose cycles are all longer cannot
	 * make the list.
	 */
	for (v = 0; v < g->n && s.work < CBD_WORK_BUDGET; v++) {
		uint32_t limit = n_best == s.max ? best[s.max - 1] - 1 : CBD_NONE, gv, k;

		if (!nontrivial[s.comp[v]])
			continue;
		cbd_root_info(&s, v, limit, &girth[n_roots], &bound[n_roots]);
		gv = girth[n_roots];
		if (gv == CBD_NONE)
			continue;
		roots[n_roots++] = v;
		/* best[]: the s.max smallest girths so far, in order */
		if (n_best < s.max)
			k = n_best++;
		else if (gv < best[s.max - 1])
			k = s.max - 1;
		else
			continue;
		for (; k > 0 && best[k - 1] > gv; k--)
			best[k] = best[k - 1];
		best[k] = gv;
	}
	/* cycles by increasing length, until enough or out of budget */
	len = CBD_NONE;
	for (i = 0; i < n_roots; i++)
		len = girth[i] < len ? girth[i] : len;
	while (s.work < CBD_WORK_BUDGET && s.n_found < s.max) {
		uint32_t next = CBD_NONE;

		for (i = 0; i < n_roots && s.n_found < s.max && s.work < CBD_WORK_BUDGET; i++) {
			if (girth[i] <= len && len <= bound[i] &&
			    (err = cbd_cycles_from(&s, roots[i], len, CBD_WORK_BUDGET)))
				goto out_free;
			if (bound[i] > len) {
				uint32_t later = girth[i] > len + 1 ? girth[i] : len + 1;

				next = later < next ? later : next;
			}
		}
		if (i == n_roots && next == CBD_NONE && s.work < CBD_WORK_BUDGET &&
		    s.n_found < s.max) {
			complete = 1;
			break;
		}
		len = next;
		if (len == CBD_NONE)
			break;
	}
	if (!complete || s.n_found > max_cycles)
		out->truncated = 1;

	/* out of budget: still show a cycle of every component */
	shown = calloc(n, 1);
	if (!shown) {
		err = -ENOMEM;
		goto out_free;
	}
	for (i = 0; i < s.n_found; i++)
		shown[s.comp[s.found[i].nodes[0]]] = 1;
	for (v = 0; v < g->n && s.n_found < max_cycles; v++) {
		if (!nontrivial[s.comp[v]] || shown[s.comp[v]])
			continue;
		shown[s.comp[v]] = 1;
		if ((err = cbd_one_cycle(&s, v)))
			goto out_free;
	}

	if (s.n_found)
		qsort(s.found, s.n_found, sizeof(*s.found), cbd_found_cmp);
	for (i = 0; i < s.n_found && i < max_cycles; i++)
		if ((err = cbd_push_cycle(out, prio, s.found[i].nodes, s.found[i].n)))
			goto out_free;
	err = 0;
out_free:
	for (i = 0; i < s.n_found; i++)
		free(s.found[i].nodes);
	free(s.found);
	free(s.comp);
	free(s.dist);
	free(s.queue);
	free(s.path);
	free(s.iter);
	free(s.on_path);
	free(girth);
	free(bound);
	free(roots);
	free(best);
	free(nontrivial);
	free(shown);
	return err;
}

/* Sort the @m distinct edges @keys and run the cycle search on them. */
int cbd_keys_cycles(uint64_t *keys, size_t m, uint32_t n, uint8_t prio, uint32_t max_cycles,
		    struct cbd_result *out)
{
	struct cbd_graph g;
	int err;

	if (m)
		qsort(keys, m, sizeof(*keys), cbd_u64_cmp);
	err = cbd_graph_init(&g, n, keys, m);
	if (err)
		return err;
	err = cbd_graph_cycles(&g, prio, max_cycles, out);
	cbd_graph_free(&g);
	return err;
}

/* The same for the edges of a set, which is left empty. */
int cbd_set_cycles(struct cbd_set *set, uint32_t n, uint8_t prio, uint32_t max_cycles,
		   struct cbd_result *out)
{
	size_t i, m = 0;
	int err;

	for (i = 0; i < set->cap; i++)
		if (set->keys[i] != CBD_EMPTY)
			set->keys[m++] = set->keys[i];
	err = cbd_keys_cycles(set->keys, m, n, prio, max_cycles, out);
	cbd_set_clear(set);
	return err;
}

int cbd_cycles(uint32_t n_nodes, const uint32_t (*edges)[2], size_t n_edges, uint8_t prio,
	       uint32_t max_cycles, struct cbd_result *out)
{
	struct cbd_set set;
	size_t i;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = cbd_set_init(&set, 64)))
		return err;
	for (i = 0; i < n_edges && !err; i++) {
		if (edges[i][0] >= n_nodes || edges[i][1] >= n_nodes)
			err = -EINVAL;
		else
			err = cbd_set_add(&set, (uint64_t)edges[i][0] << 32 | edges[i][1]);
	}
	out->n_nodes = n_nodes;
	out->n_edges = (uint32_t)set.n;
	if (!err)
		err = cbd_set_cycles(&set, n_nodes, prio, max_cycles, out);
	free(set.keys);
	if (err)
		cbd_result_free(out);
	return err;
}

/* The result holds the cycles found: freed here, where they are made. */
void cbd_result_free(struct cbd_result *res)
{
	if (!res)
		return;
	for (uint32_t i = 0; i < res->n_cycles; i++)
		free(res->cycles[i].ports);
	free(res->cycles);
	memset(res, 0, sizeof(*res));
}
