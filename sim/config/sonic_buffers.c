/*
 * The buffer tables of config_db.json (the SONiC reader, sonic.c):
 * BUFFER_POOL, BUFFER_PROFILE and BUFFER_PG, down to the profile of the
 * lossless priority groups and its pool.
 */
#include "sim/config/sonic.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/sonic_impl.h"
#include "sim/engine/checked.h"

/* BUFFER_POOL|@name: size, shared headroom (xoff), mode. */
int sonic__read_pool(struct sonic_ctx *c, const char *name, const json_t *p, struct sonic_cfg *out)
{
	char b[SHOW_SIZE];
	const char *mode;
	uint64_t size = 0, xoff = 0;
	int has, err;

	err = sonic__need_object(c, "BUFFER_POOL", name, p);
	if (!err)
		err = sonic__get_u64(c, p, "BUFFER_POOL", name, "size", UINT64_MAX, &size, &has);
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
		err = sonic__find_ref(c, tbl, name, "pool", c->pools, "BUFFER_POOL", pr->pool,
				      &pool);
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

/* Fill the lossless profile @name (row @row) and its pool. */
static int fill_profile(struct sonic_ctx *c, struct sonic_ref name, const json_t *row)
{
	struct sonic_cfg *cfg = c->cfg;
	struct sonic_profile pr;
	char pname[256];
	json_t *pool;
	int err;

	err = sonic__copy_ref(c, "BUFFER_PROFILE", NULL, NULL, pname, sizeof(pname), name);
	if (!err)
		err = sonic__copy_ref(c, "BUFFER_PROFILE", pname, NULL, cfg->profile,
				      sizeof(cfg->profile), name);
	if (!err)
		err = read_profile(c, pname, row, &pr);
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
	sonic__set_at(c, &cfg->xon_at, "BUFFER_PROFILE", pname, "xon");
	sonic__set_at(c, &cfg->xon_offset_at, "BUFFER_PROFILE", pname, "xon_offset");
	sonic__set_at(c, &cfg->xoff_at, "BUFFER_PROFILE", pname, "xoff");
	sonic__set_at(c, &cfg->dynamic_th_at, "BUFFER_PROFILE", pname, "dynamic_th");
	sonic__set_at(c, &cfg->static_th_at, "BUFFER_PROFILE", pname, "static_th");
	pool = json_object_getn(c->pools, pr.pool.s, pr.pool.len);
	/* read_profile found it; the name is the key, so copy it for messages */
	err = sonic__copy_ref(c, "BUFFER_POOL", NULL, NULL, pname, sizeof(pname), pr.pool);
	if (err)
		return err;
	return sonic__read_pool(c, pname, pool, cfg);
}

/*
 * BUFFER_PG and BUFFER_QUEUE: every profile exists; the profile most
 * lossless PGs use is the lossless profile.
 */
int sonic__read_pgs(struct sonic_ctx *c)
{
	uint64_t lossless = sonic__lossless_of(c->cfg, c->cfg->tc_to_pg);
	struct sonic_vote *v = NULL, *nv = NULL;
	const struct sonic_vote *w;
	size_t n = 0, nn = 0, i = 0;
	char b[SHOW_SIZE];
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

	err = sonic__get_table(c, "BUFFER_PG", &t);
	if (err)
		return err;
	v = sonic__votes_for(t);
	nv = sonic__votes_for(t);
	if (!v || !nv) {
		err = sonic__nomem(c);
		goto out_free;
	}
	json_object_foreach(t, key, row) {
		struct sonic_ref r;
		uint64_t mask;
		int cand;

		err = sonic__index_key(c, "BUFFER_PG", key, 7, &mask);
		if (!err)
			err = buffer_ref(c, "BUFFER_PG", key, row, &r, &prof, &null);
		if (err)
			goto out_free;
		if (c->cfg->has_pfc_enable)
			cand = (mask & lossless) != 0;
		else
			cand = null || json_object_get(prof, "xoff");
		if (cand && null)
			nv[nn++] = (struct sonic_vote){.name = r, .order = i, .key = key};
		else if (cand)
			v[n++] = (struct sonic_vote){.name = r, .order = i, .key = key};
		i++;
	}
	/* a profile with numbers tells more than "NULL" where both appear */
	w = sonic__vote_winner(v, n);
	if (!w)
		w = sonic__vote_winner(nv, nn);
	if (!w)
		goto out_free;
	snprintf(c->cfg->pg_where, sizeof(c->cfg->pg_where), "BUFFER_PG|%s",
		 sonic__shows(b, w->key));
	if (n == 0) {
		c->cfg->pg_null = 1;
		goto out_free;
	}
	err = fill_profile(c, w->name, json_object_getn(c->profiles, w->name.s, w->name.len));
out_free:
	free(nv);
	free(v);
	return err;
}
