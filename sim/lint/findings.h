/*
 * The findings of one check of a scenario (sim/lint): their severity,
 * code, where, message and the place (file, line, key) they come from, and
 * how a rule adds one (findings.c). Every rule and the verb that prints
 * them share these.
 */
#ifndef ROCESIM_LINT_FINDINGS_H
#define ROCESIM_LINT_FINDINGS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/config/scenario.h"
#include "topologies/cbd.h"

enum chk_severity { CHK_ERROR, CHK_WARNING, CHK_INFO };

struct chk_finding {
	enum chk_severity severity;
	const char *code;
	char *where, *message;
	/* the primary location, where known: the file (NULL: --set, or none),
	 * its 1-based line (0: not known) and the key written there */
	char *file, *key;
	int line;
};

/* What one check produces: the findings and the deadlock analysis. */
struct chk {
	uint64_t line_rate_bps; /* the fastest NIC link */
	struct chk_finding *f;
	size_t n;
	int oom;
	struct cbd_result cbd;
	uint32_t *failed; /* link indices taken down */
	uint32_t n_failed;
	const uint8_t *node_in; /* the switches the config checks look at (NULL: all) */
};

void chk_free(struct chk *c);
/* Sort @c's findings: errors, then warnings, then info, each kind in the
 * order found. */
void chk_sort(struct chk *c);
/*
 * The priorities set in @mask, ascending and joined by @sep ("3,4"), or
 * @none when it is empty; written into @buf and returned.
 */
const char *chk_prio_list(uint8_t mask, const char *sep, const char *none, char *buf, size_t size);

extern const char *const chk_severity_name[];
/* Add a finding; @where is taken as it is, the message is formatted. */
void chk_add(struct chk *c, enum chk_severity sev, const char *code, char *where, const char *fmt,
	     ...) __attribute__((format(printf, 5, 6)));
char *chk_str(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Give the finding added last its primary location: @file (NULL: none),
 * @line (0: not known), the key @key written there. */
void chk_loc(struct chk *c, const char *file, int line, const char *key);
/*
 * The same, at scenario key @path: the real config that gave its value (its
 * file, line and own key), else the scenario or overlay line that wrote it,
 * else no file (--set) or the scenario without a line (a default).
 */
void chk_loc_key(struct chk *c, const struct scenario *s, const char *path);
const char *chk_at(const struct scn_origin *o, char *buf, size_t size);
const char *chk_origin(const struct scenario *s, const char *path, char *buf, size_t size);
const char *chk_prios(uint8_t mask, char *buf, size_t size);

#endif
