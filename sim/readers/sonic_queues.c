/*
 * The queue tables of config_db.json (the SONiC reader, sonic.c): the
 * WRED_PROFILE that QUEUE binds to each port's lossless queues (ECN
 * marking) and the one most of them use, and PFC_WD, the PFC watchdog.
 */
#include "sim/readers/sonic_cfg.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/sonic_ctx.h"
#include "sim/engine/units.h"

/* ECN modes of WRED_PROFILE.ecn; RoCE traffic is green. */
static const struct {
	const char *name;
	int green;
} sonic_ecn_modes[] = {
    {"ecn_none", 0},	     {"ecn_green", 1},	   {"ecn_yellow", 0},	  {"ecn_red", 0},
    {"ecn_green_yellow", 1}, {"ecn_green_red", 1}, {"ecn_yellow_red", 0}, {"ecn_all", 1},
};

static const char *const sonic_wd_actions[] = {"drop", "forward", "alert"};

/* PFC_WD times in ms: at most the longest time a scenario takes (10^6 s). */
#define SONIC_WD_MAX_MS (UNITS_TIME_MAX / SIMTIME_MS)

/* WRED_PROFILE|@name. */
static int read_wred(struct sonic_ctx *c, const char *name, const json_t *p, struct sonic_wred *wr)
{
	const char *tbl = "WRED_PROFILE", *ecn;
	char b[SHOW_SIZE];
	int has, err;

	memset(wr, 0, sizeof(*wr));
	err = sonic__need_object(c, tbl, name, p);
	if (!err)
		err = sonic__get_u64(c, p, tbl, name, "green_min_threshold", UINT64_MAX, &wr->kmin,
				     &has);
	if (!err)
		err = sonic__get_u64(c, p, tbl, name, "green_max_threshold", UINT64_MAX, &wr->kmax,
				     &has);
	if (!err)
		err =
		    sonic__get_u64(c, p, tbl, name, "green_drop_probability", 100, &wr->prob, &has);
	if (!err)
		err = sonic__get_str(c, p, tbl, name, "ecn", &ecn);
	if (err || !ecn)
		return err;
	for (size_t i = 0; i < sizeof(sonic_ecn_modes) / sizeof(sonic_ecn_modes[0]); i++) {
		if (!strcmp(ecn, sonic_ecn_modes[i].name)) {
			wr->ecn_marking = sonic_ecn_modes[i].green;
			return 0;
		}
	}
	return sonic__fail(c, tbl, name, "ecn",
			   "\"%s\" is not an ECN mode (ecn_none, ecn_green, ..., ecn_all)",
			   sonic__shows(b, ecn));
}

/* The WRED profile @r in sonic_cfg.wreds (added when first used): its index, or an error. */
static int use_wred(struct sonic_ctx *c, const char *key, struct sonic_ref r, int *index)
{
	struct sonic_cfg *cfg = c->cfg;
	struct sonic_wred_use *u;
	struct sonic_wred wr;
	char name[sizeof(u->name)];
	int err;

	err = sonic__copy_ref(c, "QUEUE", key, "wred_profile", name, sizeof(name), r);
	if (err)
		return err;
	for (uint32_t i = 0; i < cfg->n_wreds; i++)
		if (!strcmp(cfg->wreds[i].name, name)) {
			*index = (int)i;
			return 0;
		}
	if (cfg->n_wreds == SONIC_WREDS_MAX)
		return sonic__fail(c, "QUEUE", key, "wred_profile",
				   "more than %d WRED profiles on lossless queues",
				   SONIC_WREDS_MAX);
	err = read_wred(c, name, json_object_get(c->wreds, name), &wr);
	if (err)
		return err;
	u = &cfg->wreds[cfg->n_wreds];
	*u = (struct sonic_wred_use){.kmin = wr.kmin,
				     .kmax = wr.kmax,
				     .pmax = (double)wr.prob / 100.0,
				     .ecn_marking = wr.ecn_marking};
	memcpy(u->name, name, sizeof(name));
	u->kmin_line = sonic__line_of(c, "WRED_PROFILE", name, "green_min_threshold");
	u->kmax_line = sonic__line_of(c, "WRED_PROFILE", name, "green_max_threshold");
	u->pmax_line = sonic__line_of(c, "WRED_PROFILE", name, "green_drop_probability");
	u->ecn_line = sonic__line_of(c, "WRED_PROFILE", name, "ecn");
	*index = (int)cfg->n_wreds++;
	return 0;
}

/* One QUEUE row with a WRED profile, for the ports it names. */
struct wred_row {
	const char *key;
	uint64_t queues;
	struct sonic_ref profile;
	const struct sonic_rows *rows;
};

/*
 * The profile of a port's lowest lossless queue (those its pfc_enable, or
 * the switch's, reach through its TC_TO_QUEUE_MAP; without any pfc_enable,
 * any queue with a WRED profile).
 */
static int wred_apply(struct sonic_ctx *c, struct sonic_port *p, void *arg)
{
	const struct wred_row *r = arg;
	const struct sonic_cfg *cfg = c->cfg;
	uint8_t pfc = p->has_pfc_enable ? p->pfc_enable : cfg->pfc_enable;
	uint64_t lossless = 0, mine;
	unsigned q;
	char b[SHOW_SIZE];

	for (int prio = 0; prio < 8; prio++)
		if (pfc & (1u << prio))
			lossless |= 1ULL << (p->tc_to_queue[prio] & 63);
	mine = cfg->has_pfc_enable ? r->queues & lossless : r->queues;
	if (!mine)
		return 0;
	q = (unsigned)__builtin_ctzll(mine);
	if (p->wred_queue && p->wred_queue <= q + 1)
		return 0;
	p->wred_queue = (uint8_t)(q + 1);
	snprintf(p->wred_row, sizeof(p->wred_row), "%s", sonic__shows(b, r->key));
	p->wred_line = sonic__rows_line(c, r->rows, r->key, "wred_profile");
	return use_wred(c, r->key, r->profile, &p->wred);
}

/* WRED_PROFILE and QUEUE: each port's, and the WRED profile most lossless queues use. */
int sonic__read_wreds(struct sonic_ctx *c)
{
	uint64_t lossless = sonic__lossless_of(c->cfg, c->cfg->tc_to_queue);
	struct sonic_cfg *cfg = c->cfg;
	struct sonic_vote *v = NULL;
	const struct sonic_vote *w;
	struct sonic_rows rows = {0};
	struct sonic_wred wr;
	size_t n = 0, i = 0;
	const char *key;
	json_t *t, *row, *prof;
	int err;

	err = sonic__get_table(c, "WRED_PROFILE", &c->wreds);
	if (err)
		return err;
	json_object_foreach(c->wreds, key, row) {
		err = read_wred(c, key, row, &wr);
		if (err)
			return err;
	}
	err = sonic__get_table(c, "QUEUE", &t);
	if (err)
		return err;
	if ((err = sonic__rows_index(c, "QUEUE", &rows)))
		return err;
	v = sonic__votes_for(t);
	if (!v) {
		err = sonic__nomem(c);
		goto out_free;
	}
	json_object_foreach(t, key, row) {
		struct sonic_ref r;
		const char *s;
		uint64_t mask;

		err = sonic__index_key(c, "QUEUE", key, 63, &mask);
		if (!err)
			err = sonic__need_object(c, "QUEUE", key, row);
		if (!err)
			err = sonic__get_str(c, row, "QUEUE", key, "wred_profile", &s);
		if (err)
			goto out_free;
		if (s) {
			err =
			    sonic__get_ref(c, "QUEUE", key, "wred_profile", s, "WRED_PROFILE", &r);
			if (!err)
				err = sonic__find_ref(c, "QUEUE", key, "wred_profile", c->wreds,
						      "WRED_PROFILE", r, &prof);
			if (!err) {
				struct wred_row wrow = {key, mask, r, &rows};

				err = sonic__each_port(c, key, 1, wred_apply, &wrow);
			}
			if (err)
				goto out_free;
			if (!cfg->has_pfc_enable || (mask & lossless))
				v[n++] = (struct sonic_vote){.name = r, .order = i, .key = key};
		}
		i++;
	}
	w = sonic__vote_winner(v, n);
	if (!w)
		goto out_free;
	err = sonic__copy_ref(c, "QUEUE", w->key, "wred_profile", cfg->wred, sizeof(cfg->wred),
			      w->name);
	if (err)
		goto out_free;
	read_wred(c, cfg->wred, json_object_getn(c->wreds, w->name.s, w->name.len), &wr);
	cfg->has_wred = 1;
	cfg->kmin = wr.kmin;
	cfg->kmax = wr.kmax;
	cfg->pmax = (double)wr.prob / 100.0;
	cfg->ecn_marking = wr.ecn_marking;
	sonic__set_at(c, &cfg->kmin_at, "WRED_PROFILE", cfg->wred, "green_min_threshold");
	sonic__set_at(c, &cfg->kmax_at, "WRED_PROFILE", cfg->wred, "green_max_threshold");
	sonic__set_at(c, &cfg->pmax_at, "WRED_PROFILE", cfg->wred, "green_drop_probability");
	sonic__set_at(c, &cfg->ecn_at, "WRED_PROFILE", cfg->wred, "ecn");
out_free:
	free(v);
	sonic__rows_free(&rows);
	return err;
}

/*
 * PFC_WD|<port> (GLOBAL holds the poll interval: skipped). A missing
 * restoration_time is the detection time and a missing action is drop,
 * as `pfcwd start` would write them.
 */
int sonic__read_watchdog(struct sonic_ctx *c)
{
	const char *tbl = "PFC_WD", *key;
	struct sonic_vote *v;
	const struct sonic_vote *w;
	size_t n = 0;
	json_t *t, *row;
	int err = sonic__get_table(c, tbl, &t);

	if (err || !t)
		return err;
	v = sonic__votes_for(t);
	if (!v)
		return sonic__nomem(c);
	json_object_foreach(t, key, row) {
		uint64_t det = 0, rest = 0, act = 0;
		const char *action;
		int has;

		if (!strcmp(key, "GLOBAL"))
			continue;
		err = sonic__need_object(c, tbl, key, row);
		if (!err)
			err = sonic__get_u64(c, row, tbl, key, "detection_time", SONIC_WD_MAX_MS,
					     &det, &has);
		if (!err && !has)
			err = sonic__fail(c, tbl, key, "detection_time", "missing");
		if (!err)
			err = sonic__get_u64(c, row, tbl, key, "restoration_time", SONIC_WD_MAX_MS,
					     &rest, &has);
		if (!err && !has)
			rest = det;
		if (!err)
			err = sonic__get_str(c, row, tbl, key, "action", &action);
		if (err)
			goto out_free;
		if (action) {
			char b[SHOW_SIZE];

			for (act = 0; act < 3; act++) {
				if (!strcmp(action, sonic_wd_actions[act]))
					break;
			}
			if (act == 3) {
				err = sonic__fail(c, tbl, key, "action",
						  "\"%s\" is not drop, forward or alert",
						  sonic__shows(b, action));
				goto out_free;
			}
		}
		v[n] = (struct sonic_vote){.a = det, .b = rest, .c = act, .order = n, .key = key};
		n++;
	}
	w = sonic__vote_winner(v, n);
	if (w) {
		c->cfg->has_watchdog = 1;
		c->cfg->wd_detection_ms = (uint32_t)w->a;
		c->cfg->wd_restoration_ms = (uint32_t)w->b;
		snprintf(c->cfg->wd_action, sizeof(c->cfg->wd_action), "%s",
			 sonic_wd_actions[w->c]);
		sonic__set_at(c, &c->cfg->wd_detection_at, tbl, w->key, "detection_time");
		sonic__set_at(c, &c->cfg->wd_restoration_at, tbl, w->key, "restoration_time");
		sonic__set_at(c, &c->cfg->wd_action_at, tbl, w->key, "action");
	}
out_free:
	free(v);
	return err;
}
