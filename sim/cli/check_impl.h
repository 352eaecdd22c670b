/*
 * What the files of `rocesim check` share (check.c is the verb): the
 * findings of one check and how one is added, and the checks each file
 * makes.
 */
#ifndef ROCESIM_CHECK_IMPL_H
#define ROCESIM_CHECK_IMPL_H

#include "topologies/cbd.h"
#include "sim/config/scenario.h"

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

/* check.c */
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

/* check_json.c */
int chk_print_json(const struct chk *c, const struct scenario *s, const struct topo *t,
		   const struct chk_args *a);

/* check_report.c: --sarif and --junit; 0 or a negative errno. */
int chk_write_sarif(const struct chk *c, const struct scenario *s, const char *path);
int chk_write_junit(const struct chk *c, const struct scenario *s, const char *path, double secs);

#endif
