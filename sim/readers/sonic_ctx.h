/*
 * What the files of the SONiC config_db.json reader share (sonic.c reads the
 * tables in turn): the reading context, names quoted in messages, lines,
 * checked values and references, and the votes for the most common value.
 */
#ifndef ROCESIM_SONIC_CTX_H
#define ROCESIM_SONIC_CTX_H

#include <errno.h>
#include <jansson.h>

#include "sim/engine/diag.h"
#include "sim/readers/sonic_cfg.h"

/* A name quoted in a message: at most SHOW_MAX bytes of it. */
#define SHOW_MAX 48
#define SHOW_SIZE (SHOW_MAX + 4)

struct sonic_ctx {
	const char *file;
	const char *text; /* the JSON text, for lines; NULL when not at hand */
	size_t len;
	struct diag *d;
	json_t *root;
	struct sonic_cfg *cfg;
	/* tables that others name; NULL when absent */
	json_t *pools, *profiles, *dscp_maps, *pg_maps, *queue_maps, *wreds, *scheds;
};

/* Where a row of a table is in the text (sonic__rows_index). */
struct sonic_rowpos {
	const char *key; /* as written (escapes not decoded), not NUL-terminated */
	size_t len;
	const char *name; /* the key decoded (== key when written without escapes) */
	size_t name_len;
	char *own;	   /* the decoded copy name points to, or NULL */
	const char *value; /* where its object starts */
	int line;
};

/* The rows of one table, sorted by key, for their lines. */
struct sonic_rows {
	struct sonic_rowpos *v;
	size_t n;
};

/* A name one row gives of a row of another table: not NUL-terminated. */
struct sonic_ref {
	const char *s;
	size_t len;
};

/* One row's say in "the most common value": a name and/or numbers. */
struct sonic_vote {
	struct sonic_ref name;
	uint64_t a, b, c;
	size_t order;	 /* position in its table */
	const char *key; /* the row that cast it */
};

struct sonic_profile {
	struct sonic_ref pool;
	uint64_t xon, xon_offset, xoff, size, static_th;
	int has_xon, has_xon_offset, has_xoff, has_size, has_static_th;
	int has_dynamic_th, dynamic_th;
};

struct sonic_wred {
	uint64_t kmin, kmax, prob;
	int ecn_marking;
};

/* Record "out of memory" (no line) in @c's diag and return -ENOMEM. */
static inline int sonic__nomem(struct sonic_ctx *c)
{
	diag_set(c->d, c->file, 0, "", "out of memory");
	return -ENOMEM;
}

/* sonic_fields.c */
const char *sonic__shows(char *buf, const char *s);
const char *sonic__type_name(const json_t *v);
/*
 * Record an error at "@table|@key|@field" (@key and @field may be NULL, and
 * are shown cut short) and return -EINVAL.
 */
int sonic__fail(struct sonic_ctx *c, const char *table, const char *key, const char *field,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Record in @a where @table|@key|@field is (@field may be NULL). */
void sonic__set_at(const struct sonic_ctx *c, struct sonic_at *a, const char *table,
		   const char *key, const char *field);
int sonic__parse_u64(const char *s, size_t len, uint64_t max, uint64_t *v);
int sonic__need_object(struct sonic_ctx *c, const char *table, const char *key, const json_t *v);
int sonic__get_table(struct sonic_ctx *c, const char *name, json_t **t);
int sonic__need_string(struct sonic_ctx *c, const char *table, const char *key, const char *field,
		       const json_t *v);
int sonic__get_str(struct sonic_ctx *c, const json_t *obj, const char *table, const char *key,
		   const char *field, const char **s);
int sonic__get_u64(struct sonic_ctx *c, const json_t *obj, const char *table, const char *key,
		   const char *field, uint64_t max, uint64_t *v, int *has);
int sonic__get_int(struct sonic_ctx *c, const json_t *obj, const char *table, const char *key,
		   const char *field, int min, int max, int *v, int *has);
int sonic__get_ref(struct sonic_ctx *c, const char *table, const char *key, const char *field,
		   const char *s, const char *target, struct sonic_ref *r);
int sonic__copy_ref(struct sonic_ctx *c, const char *table, const char *key, const char *field,
		    char *dst, size_t size, struct sonic_ref r);
int sonic__find_ref(struct sonic_ctx *c, const char *table, const char *key, const char *field,
		    json_t *t, const char *target, struct sonic_ref r, json_t **row);
int sonic__index_key(struct sonic_ctx *c, const char *table, const char *key, unsigned max,
		     uint64_t *mask);
int sonic__pfc_list(struct sonic_ctx *c, const char *key, const char *s, uint8_t *mask);
const struct sonic_vote *sonic__vote_winner(struct sonic_vote *v, size_t n);
struct sonic_vote *sonic__votes_for(const json_t *t);

/* sonic_lines.c */
const char *sonic__json_find(const char *p, const char *end, const char *const *names, int n,
			     const char **value);
int sonic__line_at(const char *text, const char *at);
int sonic__line_of(const struct sonic_ctx *c, const char *table, const char *key,
		   const char *field);
/*
 * Index the rows of @table in one scan of the text (none without the text
 * or the table). 0 or -ENOMEM (sonic__nomem). Free with sonic__rows_free.
 */
int sonic__rows_index(struct sonic_ctx *c, const char *table, struct sonic_rows *r);
/* Line of row @key of @r, or of its @field (may be NULL); 0 when not known. */
int sonic__rows_line(const struct sonic_ctx *c, const struct sonic_rows *r, const char *key,
		     const char *field);
void sonic__rows_free(struct sonic_rows *r);

/*
 * Call @fn for each port of @c->cfg a row key names: "Ethernet0", or
 * "Ethernet0,Ethernet4" as older configs write it (before a '|' when @bar).
 * Names of no port are skipped. Stops at the first non-zero return.
 */
int sonic__each_port(struct sonic_ctx *c, const char *key, int bar,
		     int (*fn)(struct sonic_ctx *c, struct sonic_port *p, void *arg), void *arg);

/* sonic_ports.c */
int sonic__read_ports(struct sonic_ctx *c);
int sonic__read_cables(struct sonic_ctx *c);
int sonic__read_qos(struct sonic_ctx *c);

/* sonic_buffers.c */
int sonic__read_pool(struct sonic_ctx *c, const char *name, const json_t *p, struct sonic_cfg *out);
int sonic__check_buffers(struct sonic_ctx *c);
uint64_t sonic__lossless_of(const struct sonic_cfg *cfg, const uint8_t *map);
int sonic__read_pgs(struct sonic_ctx *c);

/* sonic_queues.c */
int sonic__read_wreds(struct sonic_ctx *c);
int sonic__read_watchdog(struct sonic_ctx *c);

/* sonic_device.c */
int sonic__read_metadata(struct sonic_ctx *c);
int sonic__read_schedulers(struct sonic_ctx *c);
int sonic__read_neighbors(struct sonic_ctx *c);

#endif
