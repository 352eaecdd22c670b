/*
 * The set of measured counters the readers of measured.h fill: adding one,
 * reading a value, the difference of two readings, and where results.json
 * keeps each counter's simulated counterpart.
 */
#include "sim/readers/measured.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/mlnx_impl.h"

char *mc__start(struct mc_set *out, enum mc_kind kind, const char **file, const char *text,
		size_t len, struct diag *d)
{
	memset(out, 0, sizeof(*out));
	out->kind = kind;
	if (!*file)
		*file = "";
	snprintf(out->file, sizeof(out->file), "%s", *file);
	return mlnx__text_copy(text, len, *file, d);
}

int mc__add(struct mc_set *s, const char *file, int line, const char *scope, const char *name,
	    uint64_t value, int na, struct diag *d)
{
	struct mc_counter *c;

	if (strlen(name) >= sizeof(c->name) || strlen(scope) >= sizeof(c->scope)) {
		diag_set(d, file, line, "", "counter name \"%.80s\" is longer than %zu characters",
			 strlen(name) >= sizeof(c->name) ? name : scope, sizeof(c->name) - 1);
		return -EINVAL;
	}
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64;
		struct mc_counter *v = realloc(s->v, ncap * sizeof(*v));

		if (!v) {
			diag_set(d, file, line, "", "out of memory");
			return -ENOMEM;
		}
		s->v = v;
		s->cap = ncap;
	}
	c = &s->v[s->n++];
	memset(c, 0, sizeof(*c));
	memcpy(c->scope, scope, strlen(scope) + 1);
	memcpy(c->name, name, strlen(name) + 1);
	snprintf(c->file, sizeof(c->file), "%s", file);
	c->value = na ? 0 : value;
	c->na = na;
	c->line = line;
	return 0;
}

int mc__number(const char *s, int commas, int na_ok, uint64_t *v, int *na)
{
	uint64_t x = 0;
	int group = -1; /* digits since the last separator; -1 before any */
	size_t i;

	*na = 0;
	*v = 0;
	if (na_ok && !strcmp(s, "N/A")) {
		*na = 1;
		return 0;
	}
	if (!*s)
		return -1;
	for (i = 0; s[i]; i++) {
		if (s[i] == ',' && commas) {
			/* the first group has 1-3 digits, each later one 3 */
			if (i == 0 || (group >= 0 && group != 3) || (group < 0 && i > 3))
				return -1;
			group = 0;
			continue;
		}
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (x > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(s[i] - '0');
		if (group >= 0)
			group++;
	}
	if (group >= 0 && group != 3)
		return -1;
	*v = x;
	return 0;
}

void mc_free(struct mc_set *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

static int mc_cmp(const void *a, const void *b)
{
	const struct mc_counter *x = *(const struct mc_counter *const *)a;
	const struct mc_counter *y = *(const struct mc_counter *const *)b;
	int c = strcmp(x->scope, y->scope);

	return c ? c : strcmp(x->name, y->name);
}

const struct mc_counter *mc_find(const struct mc_set *s, const char *scope, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].scope, scope) && !strcmp(s->v[i].name, name))
			return &s->v[i];
	return NULL;
}

/* "PFC3 Rx" in Ethernet0 as "Ethernet0 PFC3 Rx"; a NIC's counter by its name. */
static const char *mc_label(const struct mc_counter *c, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s", c->scope, c->scope[0] ? " " : "", c->name);
	return buf;
}

int mc_diff(const struct mc_set *before, const struct mc_set *after, struct mc_set *out,
	    struct diag *d)
{
	const struct mc_counter **idx = NULL;
	unsigned char *used = NULL;
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->kind = after->kind;
	snprintf(out->file, sizeof(out->file), "%s", after->file);
	/* @before sorted by scope and name: a reading of mlx5 `ethtool -S`
	 * has thousands of counters (one set a channel) */
	if (before->n) {
		idx = malloc(before->n * sizeof(*idx));
		used = calloc(before->n, 1);
		if (!idx || !used) {
			free(idx);
			free(used);
			diag_set(d, after->file, 0, "", "out of memory");
			return -ENOMEM;
		}
		for (size_t i = 0; i < before->n; i++)
			idx[i] = &before->v[i];
		qsort(idx, before->n, sizeof(*idx), mc_cmp);
	}
	for (size_t i = 0; i < after->n && !err; i++) {
		const struct mc_counter *a = &after->v[i], *key = a, **hit = NULL, *b;
		char l[140];

		if (idx)
			hit = bsearch(&key, idx, before->n, sizeof(*idx), mc_cmp);
		b = hit ? *hit : NULL;
		if (b)
			used[b - before->v] = 1;
		if (b && !b->na && !a->na && a->value < b->value) {
			diag_set(d, a->file, a->line, "",
				 "%s went back from %llu (%s:%d) to %llu: cleared or wrapped "
				 "between the two readings",
				 mc_label(a, l, sizeof(l)), (unsigned long long)b->value, b->file,
				 b->line, (unsigned long long)a->value);
			err = -EINVAL;
			break;
		}
		err = mc__add(out, a->file, a->line, a->scope, a->name,
			      b ? a->value - b->value : a->value, a->na || (b && b->na), d);
	}
	for (size_t i = 0; !err && i < before->n; i++)
		out->only_before += !used[i];
	free(idx);
	free(used);
	if (err)
		mc_free(out);
	return err;
}

/* The priority of a name "PREFIXprioN_REST" (ethtool's per-priority
 * counters), with REST into @rest; -1 when it is none. */
static int mc_prio(const char *name, const char *prefix, const char **rest)
{
	size_t n = strlen(prefix);

	if (strncmp(name, prefix, n) || name[n] < '0' || name[n] > '7' || name[n + 1] != '_')
		return -1;
	*rest = name + n + 2;
	return name[n] - '0';
}

static const char *mc_ethtool_name(const char *name, char *buf, size_t size)
{
	/* the ethtool names results.json's hosts keep as they are (docs/results.md) */
	static const char *const same[] = {"tx_packets_phy",  "rx_packets_phy",
					   "tx_bytes_phy",    "rx_bytes_phy",
					   "rx_discards_phy", "np_ecn_marked_roce_packets"};
	const char *rest;

	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		if (!strcmp(name, same[i]))
			goto same;
	if ((mc_prio(name, "tx_prio", &rest) >= 0 && !strcmp(rest, "pause")) ||
	    (mc_prio(name, "rx_prio", &rest) >= 0 &&
	     (!strcmp(rest, "pause") || !strcmp(rest, "pause_duration"))))
		goto same;
	return NULL;
same:
	snprintf(buf, size, "hosts[].%s", name);
	return buf;
}

static const char *mc_hw_name(const char *name, char *buf, size_t size)
{
	static const char *const same[] = {
	    "np_cnp_sent",	     "rp_cnp_handled",
	    "rp_cnp_ignored",	     "out_of_sequence",
	    "packet_seq_err",	     "duplicate_request",
	    "local_ack_timeout_err", "np_ecn_marked_roce_packets",
	};

	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		if (!strcmp(name, same[i])) {
			snprintf(buf, size, "hosts[].%s", name);
			return buf;
		}
	return NULL;
}

/* pfcstat's "PFCn Rx" and "PFCn Tx": PFC frames, XOFF and XON alike */
static const char *mc_pfc_name(const char *name, char *buf, size_t size)
{
	if (strncmp(name, "PFC", 3) || name[3] < '0' || name[3] > '7' || name[4] != ' ')
		return NULL;
	if (!strcmp(name + 5, "Rx"))
		snprintf(buf, size, "switches[].ports[].pfc[priority=%c].rx_pause+rx_resume",
			 name[3]);
	else if (!strcmp(name + 5, "Tx"))
		snprintf(buf, size, "switches[].ports[].pfc[priority=%c].tx_pause+tx_resume",
			 name[3]);
	else
		return NULL;
	return buf;
}

/* queuestat's unicast queue UCn: its drops and nothing else (rocesim keeps
 * no per-queue packet or byte counts) */
static const char *mc_queue_name(const struct mc_counter *c, char *buf, size_t size)
{
	const char *q = strrchr(c->scope, ' ');

	if (!q || strncmp(q + 1, "UC", 2) || q[3] < '0' || q[3] > '7' || q[4] ||
	    strcmp(c->name, "Drop/pkts"))
		return NULL;
	snprintf(buf, size, "switches[].ports[].queues[queue=%c].drops", q[3]);
	return buf;
}

const char *mc_rocesim_name(enum mc_kind kind, const struct mc_counter *c, char *buf, size_t size)
{
	switch (kind) {
	case MC_ETHTOOL:
		return mc_ethtool_name(c->name, buf, size);
	case MC_HW_COUNTERS:
		return mc_hw_name(c->name, buf, size);
	case MC_PFCSTAT:
		return mc_pfc_name(c->name, buf, size);
	case MC_QUEUESTAT:
		return mc_queue_name(c, buf, size);
	}
	return NULL;
}

static const char *const mc_kinds[] = {"ethtool", "hw-counters", "pfcstat", "queuestat"};

const char *mc_kind_name(enum mc_kind kind)
{
	return (unsigned)kind < sizeof(mc_kinds) / sizeof(mc_kinds[0]) ? mc_kinds[kind] : "?";
}

int mc_kind_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(mc_kinds) / sizeof(mc_kinds[0]); i++)
		if (!strcmp(name, mc_kinds[i]))
			return (int)i;
	return -1;
}
