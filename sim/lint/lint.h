/*
 * The check rules (sim/lint): the findings of one check of a scenario, how
 * a rule adds one, and the rules each file holds. lint.c loads and
 * analyses a scenario (chk_analyse); sim/cli/check.c is the verb that
 * prints what it finds.
 */
#ifndef ROCESIM_LINT_H
#define ROCESIM_LINT_H

#include "sim/config/scenario.h"
#include "sim/engine/exit_codes.h"
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

#define CHK_MAX_CYCLES 10 /* cycles listed per priority unless asked for more */

/* What a check is asked: the scenario and its changes, the links down, the
 * pairs and cycles analysed; json, junit and sarif are the verb's outputs. */
struct chk_args {
	const char *scenario;
	const char **sets, **fails, **withs;
	size_t n_sets, n_fails, n_withs;
	int json, all_pairs;
	uint32_t max_cycles;
	const char *junit, *sarif; /* report files to write, or NULL */
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

/* lint.c */
/*
 * Load @a's scenario leniently and run every check on it into @c (sorted:
 * errors, then warnings, then info, each in the order found), leaving the
 * scenario, topology and routes in *@sp, *@tp, *@rp for the caller to free
 * (and @c, with chk_free) whatever it returns. 0, or ROCESIM_EXIT_INPUT
 * having said why on stderr unless @quiet.
 */
int chk_analyse(const struct chk_args *a, struct chk *c, struct scenario **sp, struct topo **tp,
		struct topo_routes **rp, int quiet);
void chk_free(struct chk *c);
/*
 * The errors `rocesim check` finds on @scenario with these overlays and
 * overrides: how many (-1 when it cannot check it), the first as "CODE
 * where: message" into @first ("" when none), in its terminal form
 * (sim/engine/textsafe.h: valid UTF-8, no control character). Prints
 * nothing.
 */
int chk_errors(const char *scenario, const char *const *withs, size_t n_withs,
	       const char *const *sets, size_t n_sets, char *first, size_t size);
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

/* check_config.c */
void chk_thresholds(struct chk *c, const struct scenario *s);
void chk_configs(struct chk *c, const struct scenario *s, const struct topo *t);

/* check_nccl.c: the jobs' NCCL_IB_HCA against the servers' NICs */
void chk_nccl(struct chk *c, const struct scenario *s, const struct topo *t);
/* check_buffer.c: the buffer's size, headroom and shared pool against XOFF */
void chk_buffer(struct chk *c, const struct scenario *s, const struct topo *t);

/* check_sonic.c: switch.sonic port by port */
void chk_sonic(struct chk *c, const struct scenario *s, const struct topo *t);
/*
 * The checks of the configuration (chk_thresholds, chk_configs) for every
 * switch: with a config_db.json per switch (switch.sonic a folder or a
 * mapping), once per config on its switches, each finding said once and
 * prefixed with the switches it concerns unless it concerns them all.
 */
void chk_switches(struct chk *c, const struct scenario *s, const struct topo *t);

/* check_nic.c: the NIC's classes, and what nic.mlnx_qos gives that is not modelled */
void chk_nic(struct chk *c, const struct scenario *s);

/* check_fabric.c */
int chk_deadlock(struct chk *c, const struct scenario *s, const struct topo *t,
		 const struct topo_routes *r, const struct chk_args *a);
int chk_reach(struct chk *c, const struct scenario *s, const struct topo *t,
	      const struct topo_routes *r, const struct chk_args *a);
/* --fail NAME: a link, or a node (all its links), down. */
int chk_fail_link(struct chk *c, struct topo *t, const char *name);

#endif
