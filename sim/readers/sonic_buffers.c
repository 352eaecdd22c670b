/*
 * The buffer tables of config_db.json (the SONiC reader, sonic.c):
 * BUFFER_POOL, BUFFER_PROFILE and BUFFER_PG, down to the profile of each
 * port's lossless priority groups, and the switch's (most ports') with its
 * pool.
 */
#include "sim/readers/sonic_cfg.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/sonic_ctx.h"
#include "sim/engine/checked.h"

/* BUFFER_POOL|@name: size, shared headroom (xoff), mode. */
int sonic__read_pool(struct sonic_ctx *c, const char *name, const json_t *p, struct sonic_cfg *out)
{
	char b[SHOW_SIZE];
	const char *mode;
	uint64_t size = 0, xoff = 0;
	int has, has_size = 0, err;

	err = sonic__need_object(c, "BUFFER_POOL", name, p);
	if (!err)
		err =
		    sonic__get_u64(c, p, "BUFFER_POOL", name, "size", UINT64_MAX, &size, &has_size);
	if (!err)
		err = sonic__get_u64(c, p, "BUFFER_POOL", name, "xoff", UINT64_MAX, &xoff, &has);
	if (!err)
		err = sonic__get_str(c, p, "BUFFER_POOL", name, "mode", &mode);
	if (err)
		return err;
	if (mode && strcmp(mode, "dynamic") && strcmp(mode, "static"))
		return sonic__fail(c, "BUFFER_POOL", name, "mode",
				   "\"%s\" is not dynamic or static", sonic__shows(b, mode));
	if (out) {
		/* the pool and its shared headroom make the buffer: the sum must fit */
		if (ck_add(size, xoff, &out->buffer_size))
			return sonic__fail(c, "BUFFER_POOL", name, "xoff",
					   "size %llu B + xoff %llu B does not fit in 64 bits",
					   (unsigned long long)size, (unsigned long long)xoff);
		out->has_pool = 1;
		out->has_pool_size = has_size;
		out->pool_size = size;
		out->pool_xoff = xoff;
		out->pool_dynamic = mode && !strcmp(mode, "dynamic");
		sonic__set_at(c, &out->pool_size_at, "BUFFER_POOL", name, "size");
		sonic__set_at(c, &out->pool_xoff_at, "BUFFER_POOL", name, "xoff");
	}
	return 0;
}

/* BUFFER_PROFILE|@name, its pool checked against BUFFER_POOL. */
static int read_profile(struct sonic_ctx *c, const char *name, const json_t *p,
			struct sonic_profile *pr)
{
	const char *tbl = "BUFFER_PROFILE", *s;
	json_t *pool;
	int err;

	memset(pr, 0, sizeof(*pr));
	err = sonic__need_object(c, tbl, name, p);
	if (!err)
		err = sonic__get_str(c, p, tbl, name, "pool", &s);
	if (err)
		return err;
	if (!s)
		return sonic__fail(c, tbl, name, "pool",
				   "missing: a profile names its BUFFER_POOL");
	err = sonic__get_ref(c, tbl, name, "pool", s, "BUFFER_POOL", &pr->pool);
	if (!err)
		err =
		    sonic__find_ref(c, tbl, name, "pool", c->pools, "BUFFER_POOL", pr->pool, &pool);
	if (!err)
		err = sonic__get_u64(c, p, tbl, name, "xon", UINT64_MAX, &pr->xon, &pr->has_xon);
	if (!err)
		err = sonic__get_u64(c, p, tbl, name, "xon_offset", UINT64_MAX, &pr->xon_offset,
				     &pr->has_xon_offset);
	if (!err)
		err = sonic__get_u64(c, p, tbl, name, "xoff", UINT64_MAX, &pr->xoff, &pr->has_xoff);
	if (!err)
		err = sonic__get_u64(c, p, tbl, name, "size", UINT64_MAX, &pr->size, &pr->has_size);
	if (!err)
		err = sonic__get_u64(c, p, tbl, name, "static_th", UINT64_MAX, &pr->static_th,
				     &pr->has_static_th);
	/* SAI takes the dynamic threshold as an int8 exponent */
	if (!err)
		err = sonic__get_int(c, p, tbl, name, "dynamic_th", -128, 127, &pr->dynamic_th,
				     &pr->has_dynamic_th);
	if (err)
		return err;
	if (pr->has_dynamic_th && pr->has_static_th)
		return sonic__fail(c, tbl, name, NULL, "has both dynamic_th and static_th");
	return 0;
}

/* Check every pool and profile. */
int sonic__check_buffers(struct sonic_ctx *c)
{
	struct sonic_profile pr;
	const char *key;
	json_t *row;
	int err;

	err = sonic__get_table(c, "BUFFER_POOL", &c->pools);
	if (!err)
		err = sonic__get_table(c, "BUFFER_PROFILE", &c->profiles);
	if (err)
		return err;
	json_object_foreach(c->pools, key, row) {
		err = sonic__read_pool(c, key, row, NULL);
		if (err)
			return err;
	}
	json_object_foreach(c->profiles, key, row) {
		err = read_profile(c, key, row, &pr);
		if (err)
			return err;
	}
	return 0;
}

/* Bits of the PGs (@pg) or queues the pfc_enable priorities map to. */
uint64_t sonic__lossless_of(const struct sonic_cfg *cfg, const uint8_t *map)
{
	uint64_t m = 0;

	for (int p = 0; p < 8; p++) {
		if (cfg->pfc_enable & (1u << p))
			m |= 1ULL << (map[p] & 63);
	}
	return m;
}

/*
 * The profile of row @key of @table (BUFFER_PG or BUFFER_QUEUE), checked
 * against BUFFER_PROFILE: *@null when it is "NULL" (only BUFFER_PG).
 */
static int buffer_ref(struct sonic_ctx *c, const char *table, const char *key, const json_t *row,
		      struct sonic_ref *r, json_t **prof, int *null)
{
	const char *s;
	int err;

	*prof = NULL;
	*null = 0;
	err = sonic__need_object(c, table, key, row);
	if (!err)
		err = sonic__get_str(c, row, table, key, "profile", &s);
	if (err)
		return err;
	if (!s)
		return sonic__fail(c, table, key, "profile", "missing");
	if (!strcmp(s, "NULL") && !strcmp(table, "BUFFER_PG")) {
		*r = (struct sonic_ref){s, 4};
		*null = 1;
		return 0;
	}
	err = sonic__get_ref(c, table, key, "profile", s, "BUFFER_PROFILE", r);
	if (!err)
		err = sonic__find_ref(c, table, key, "profile", c->profiles, "BUFFER_PROFILE", *r,
				      prof);
	return err;
}

/* The profile @r in sonic_cfg.profiles (added when first used): its index, or an error. */
static int use_profile(struct sonic_ctx *c, const struct sonic_rows *rows, const char *key,
		       struct sonic_ref r, int *index)
{
	struct sonic_cfg *cfg = c->cfg;
	struct sonic_profile_use *u;
	struct sonic_profile pr;
	char name[sizeof(u->name)];
	int err;

	err = sonic__copy_ref(c, "BUFFER_PG", key, "profile", name, sizeof(name), r);
	if (err)
		return err;
	for (uint32_t i = 0; i < cfg->n_profiles; i++)
		if (!strcmp(cfg->profiles[i].name, name)) {
			*index = (int)i;
			return 0;
		}
	if (cfg->n_profiles == SONIC_PROFILES_MAX)
		return sonic__fail(c, "BUFFER_PG", key, "profile",
				   "more than %d profiles on lossless PGs", SONIC_PROFILES_MAX);
	err = read_profile(c, name, json_object_get(c->profiles, name), &pr);
	if (err)
		return err;
	u = &cfg->profiles[cfg->n_profiles];
	*u = (struct sonic_profile_use){.xon = pr.xon,
					.xon_offset = pr.xon_offset,
					.xoff = pr.xoff,
					.size = pr.size,
					.static_th = pr.static_th,
					.has_xon = pr.has_xon,
					.has_xon_offset = pr.has_xon_offset,
					.has_xoff = pr.has_xoff,
					.has_dynamic_th = pr.has_dynamic_th,
					.has_static_th = pr.has_static_th,
					.dynamic_th = pr.dynamic_th};
	memcpy(u->name, name, sizeof(name));
	u->line = sonic__rows_line(c, rows, name, NULL);
	u->xoff_line = sonic__rows_line(c, rows, name, "xoff");
	u->xon_line = sonic__rows_line(c, rows, name, "xon");
	u->xon_offset_line = sonic__rows_line(c, rows, name, "xon_offset");
	u->th_line = sonic__rows_line(c, rows, name, pr.has_static_th ? "static_th" : "dynamic_th");
	*index = (int)cfg->n_profiles++;
	return 0;
}

/* One row of BUFFER_PG, for the ports it names. */
struct pg_row {
	const char *key;
	uint64_t mask; /* its PGs */
	int candidate; /* without pfc_enable: its profile has an xoff, or is "NULL" */
	int null;
	struct sonic_ref profile;
	const struct sonic_rows *rows, *prof_rows;
	const char **key_of; /* per port: the row of its lowest lossless PG */
	uint8_t *best;	     /* per port: that PG + 1, 0: none yet */
};

/* The PGs port @p's PFC priorities reach (the switch's when it gives none). */
static uint8_t lossless_pgs(const struct sonic_cfg *cfg, const struct sonic_port *p)
{
	uint8_t pfc = p->has_pfc_enable ? p->pfc_enable : cfg->pfc_enable, m = 0;

	for (int prio = 0; prio < 8; prio++)
		if (pfc & (1u << prio))
			m |= (uint8_t)(1u << p->tc_to_pg[prio]);
	return m;
}

static int pg_apply(struct sonic_ctx *c, struct sonic_port *p, void *arg)
{
	const struct pg_row *r = arg;
	size_t i = (size_t)(p - c->cfg->ports);
	uint64_t mine;
	unsigned pg;
	char b[SHOW_SIZE];
	int err;

	if (c->cfg->has_pfc_enable) {
		mine = r->mask & lossless_pgs(c->cfg, p);
	} else {
		mine = r->candidate ? r->mask : 0;
		p->lossless_pgs |= (uint8_t)mine;
	}
	if (!mine)
		return 0;
	pg = (unsigned)__builtin_ctzll(mine);
	if (r->best[i] && r->best[i] <= pg + 1)
		return 0;
	r->best[i] = (uint8_t)(pg + 1);
	r->key_of[i] = r->key;
	p->pg_null = r->null;
	p->profile = -1;
	if (!r->null && (err = use_profile(c, r->prof_rows, r->key, r->profile, &p->profile)))
		return err;
	snprintf(p->pg_row, sizeof(p->pg_row), "%s", sonic__shows(b, r->key));
	p->pg_line = sonic__rows_line(c, r->rows, r->key, NULL);
	return 0;
}

/* Copy profile @u (the one most ports use) into the switch's fields. */
static int fill_switch_profile(struct sonic_ctx *c, const struct sonic_profile_use *u)
{
	struct sonic_cfg *cfg = c->cfg;
	struct sonic_profile pr;
	char pname[256];
	json_t *row = json_object_get(c->profiles, u->name), *pool;
	int err;

	snprintf(cfg->profile, sizeof(cfg->profile), "%s", u->name);
	err = read_profile(c, u->name, row, &pr);
	if (err)
		return err;
	cfg->has_profile = 1;
	cfg->xon = pr.xon;
	cfg->has_xon = pr.has_xon;
	cfg->xon_offset = pr.xon_offset;
	cfg->has_xon_offset = pr.has_xon_offset;
	cfg->xoff = pr.xoff;
	cfg->has_xoff = pr.has_xoff;
	cfg->size = pr.size;
	cfg->has_dynamic_th = pr.has_dynamic_th;
	cfg->dynamic_th = pr.dynamic_th;
	cfg->has_static_th = pr.has_static_th;
	cfg->static_th = pr.static_th;
	sonic__set_at(c, &cfg->xon_at, "BUFFER_PROFILE", u->name, "xon");
	sonic__set_at(c, &cfg->xon_offset_at, "BUFFER_PROFILE", u->name, "xon_offset");
	sonic__set_at(c, &cfg->xoff_at, "BUFFER_PROFILE", u->name, "xoff");
	sonic__set_at(c, &cfg->dynamic_th_at, "BUFFER_PROFILE", u->name, "dynamic_th");
	sonic__set_at(c, &cfg->static_th_at, "BUFFER_PROFILE", u->name, "static_th");
	pool = json_object_getn(c->pools, pr.pool.s, pr.pool.len);
	/* read_profile found it; the name is the key, so copy it for messages */
	err = sonic__copy_ref(c, "BUFFER_POOL", NULL, NULL, pname, sizeof(pname), pr.pool);
	if (err)
		return err;
	return sonic__read_pool(c, pname, pool, cfg);
}

/* BUFFER_QUEUE: every profile exists. */
static int check_queues(struct sonic_ctx *c)
{
	const char *key;
	json_t *t, *row, *prof;
	int err, null;

	err = sonic__get_table(c, "BUFFER_QUEUE", &t);
	if (err)
		return err;
	json_object_foreach(t, key, row) {
		struct sonic_ref r;
		uint64_t mask;

		err = sonic__index_key(c, "BUFFER_QUEUE", key, 63, &mask);
		if (!err)
			err = buffer_ref(c, "BUFFER_QUEUE", key, row, &r, &prof, &null);
		if (err)
			return err;
	}
	return 0;
}

/*
 * BUFFER_PG and BUFFER_QUEUE: every profile exists; each port's lossless
 * profile is the one on its lowest lossless PG, and the switch's is the
 * one most ports have (one with numbers before "NULL").
 */
int sonic__read_pgs(struct sonic_ctx *c)
{
	struct sonic_cfg *cfg = c->cfg;
	struct sonic_rows rows = {0}, prof_rows = {0};
	struct sonic_vote *v = NULL, *nv = NULL;
	const struct sonic_vote *w;
	const char **key_of = NULL, *key;
	uint8_t *best = NULL;
	size_t n = 0, nn = 0;
	char b[SHOW_SIZE];
	json_t *t, *row, *prof;
	int err;

	err = check_queues(c);
	if (!err)
		err = sonic__get_table(c, "BUFFER_PG", &t);
	if (!err)
		err = sonic__rows_index(c, "BUFFER_PG", &rows);
	if (!err)
		err = sonic__rows_index(c, "BUFFER_PROFILE", &prof_rows);
	if (err)
		goto out_free;
	key_of = calloc(cfg->n_ports, sizeof(*key_of));
	best = calloc(cfg->n_ports, 1);
	v = calloc(cfg->n_ports, sizeof(*v));
	nv = calloc(cfg->n_ports, sizeof(*nv));
	if (!key_of || !best || !v || !nv) {
		err = sonic__nomem(c);
		goto out_free;
	}
	for (size_t i = 0; cfg->has_pfc_enable && i < cfg->n_ports; i++)
		cfg->ports[i].lossless_pgs = lossless_pgs(cfg, &cfg->ports[i]);
	json_object_foreach(t, key, row) {
		struct pg_row r = {.key = key,
				   .rows = &rows,
				   .prof_rows = &prof_rows,
				   .key_of = key_of,
				   .best = best};

		err = sonic__index_key(c, "BUFFER_PG", key, 7, &r.mask);
		if (!err)
			err = buffer_ref(c, "BUFFER_PG", key, row, &r.profile, &prof, &r.null);
		if (!err) {
			r.candidate = r.null || json_object_get(prof, "xoff");
			err = sonic__each_port(c, key, 1, pg_apply, &r);
		}
		if (err)
			goto out_free;
	}
	for (size_t i = 0; i < cfg->n_ports; i++) {
		const struct sonic_port *p = &cfg->ports[i];

		if (p->profile >= 0)
			v[n++] = (struct sonic_vote){
			    .a = (uint64_t)p->profile, .order = i, .key = key_of[i]};
		else if (p->pg_null)
			nv[nn++] = (struct sonic_vote){.order = i, .key = key_of[i]};
	}
	/* a profile with numbers tells more than "NULL" where both appear */
	w = sonic__vote_winner(v, n);
	if (!w)
		w = sonic__vote_winner(nv, nn);
	if (!w)
		goto out_free;
	snprintf(cfg->pg_where, sizeof(cfg->pg_where), "BUFFER_PG|%s", sonic__shows(b, w->key));
	if (n == 0)
		cfg->pg_null = 1;
	else
		err = fill_switch_profile(c, &cfg->profiles[w->a]);
out_free:
	free(nv);
	free(v);
	free(best);
	free(key_of);
	sonic__rows_free(&prof_rows);
	sonic__rows_free(&rows);
	return err;
}
