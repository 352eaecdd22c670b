/*
 * Measured counters: what real gear counted during a lab run, read from
 * the text its tools print, to set beside what a simulated run counted.
 *
 * Four readers fill the same set of named counters, each counter kept with
 * the name the tool prints, the port or queue it belongs to, and its line:
 *
 *  - ethtool.c: `ethtool -S IF` of an mlx5 NIC ("NIC statistics:", then
 *    "     name: value" lines). Units as the kernel's mlx5 counters
 *    documentation gives them (Documentation/networking/device_drivers/
 *    ethernet/mellanox/mlx5/counters.rst): rx_prioN_pause and
 *    tx_prioN_pause count PFC frames, rx_prioN_pause_duration and
 *    tx_prioN_pause_duration are microseconds, rx_prioN_pause_transition
 *    counts XOFF to XON transitions, *_bytes bytes, *_packets packets.
 *  - hw_counters.c: the RDMA port counters of /sys/class/infiniband/DEV/
 *    ports/N/hw_counters, as `grep . .../hw_counters/[a-z]*` prints them
 *    ("PATH/np_cnp_sent:123") or as a copied folder of one-value files
 *    (meanings: the kernel's mlx5 counters documentation and NVIDIA's
 *    "Understanding mlx5 Linux Counters and Status Parameters").
 *  - pfcstat.c: SONiC's `show pfc counters` (sonic-utilities
 *    scripts/pfcstat: the "Port Rx" and "Port Tx" tables, PFC0..PFC7 a
 *    port, frames) and `show queue counters` (scripts/queuestat: a row a
 *    port and queue UC0.., MC.., ALL.., with Counter/pkts, Counter/bytes,
 *    Drop/pkts, Drop/bytes), numbers with the thousands separators newer
 *    sonic-utilities print ("1,200") and "N/A" where the switch has none.
 *
 * Two readings of one kind (before and after a run) give the run's own
 * counts with mc_diff. measured_dir.h lists a folder of several hosts' and
 * switches' files, named for their node.
 */
#ifndef ROCESIM_MEASURED_H
#define ROCESIM_MEASURED_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine/diag.h"

enum mc_kind {
	MC_ETHTOOL,
	MC_HW_COUNTERS,
	MC_PFCSTAT,
	MC_QUEUESTAT,
};

struct mc_counter {
	char scope[64]; /* the port ("Ethernet0"), the port and queue
			   ("Ethernet0 UC3"), "" for a NIC's own counter */
	char name[64];	/* as the tool prints it: rx_prio3_pause, "PFC3 Rx",
			   np_cnp_sent, "Drop/pkts" */
	uint64_t value;
	int na;		/* "N/A": no value (value 0) */
	int line;	/* in its file (1 for a folder's one-value file) */
	char file[256]; /* the file it was read from */
};

struct mc_set {
	enum mc_kind kind;
	char file[256]; /* the file or folder read */
	struct mc_counter *v;
	size_t n, cap;
	size_t only_before; /* mc_diff: counters of the before reading that the
			       after one lacks (not in .v) */
};

/* Each reads @path into @out (mc_free it, also after an error): 0,
 * -EINVAL with @d naming the file, the line and the counter (a line cut
 * short, a value that is no number, a table without its rows), -ENOMEM,
 * or the negative errno of a file that cannot be read. */
int mc_ethtool_read(const char *path, struct mc_set *out, struct diag *d);
int mc_hw_counters_read(const char *path, struct mc_set *out, struct diag *d);
int mc_pfcstat_read(const char *path, struct mc_set *out, struct diag *d);
int mc_queuestat_read(const char *path, struct mc_set *out, struct diag *d);
/* The same on @len bytes of text in memory, named @file (may be ""). */
int mc_ethtool_parse(const char *text, size_t len, const char *file, struct mc_set *out,
		     struct diag *d);
int mc_hw_counters_parse(const char *text, size_t len, const char *file, struct mc_set *out,
			 struct diag *d);
int mc_pfcstat_parse(const char *text, size_t len, const char *file, struct mc_set *out,
		     struct diag *d);
int mc_queuestat_parse(const char *text, size_t len, const char *file, struct mc_set *out,
		       struct diag *d);
/* mc_*_read of @kind. */
int mc_read(enum mc_kind kind, const char *path, struct mc_set *out, struct diag *d);

/*
 * @after minus @before, counter by counter, into @out (mc_free it): the
 * counters of @after in its order, each with its line there. A counter of
 * @after that @before lacks is taken whole, one of @before that @after
 * lacks is counted in @out's .only_before; one that went back (a counter
 * cleared or wrapped between the two readings) is -EINVAL with @d naming
 * it and both lines; N/A in either gives N/A. -ENOMEM.
 */
int mc_diff(const struct mc_set *before, const struct mc_set *after, struct mc_set *out,
	    struct diag *d);
void mc_free(struct mc_set *s);

/* The counter of @s named @name in @scope, or NULL (borrowed). */
const struct mc_counter *mc_find(const struct mc_set *s, const char *scope, const char *name);

/*
 * Where results.json keeps the simulated counterpart of @c of a set of
 * @kind, into @buf: "hosts[].rx_prio3_pause",
 * "switches[].ports[].pfc[priority=3].rx_pause+rx_resume", ...; NULL when
 * rocesim counts nothing of the kind (or @c is NULL).
 */
const char *mc_rocesim_name(enum mc_kind kind, const struct mc_counter *c, char *buf, size_t size);

/* "ethtool", "hw-counters", "pfcstat", "queuestat"; and back (-1: none). */
const char *mc_kind_name(enum mc_kind kind);
int mc_kind_parse(const char *name);

/* For the readers (measured.c): start reading @text (@len bytes) of @kind from *@file (NULL: "")
 * into @out, emptied: a copy of the text to cut into lines (the caller frees it), or NULL when out
 * of memory (with @d). */
char *mc__start(struct mc_set *out, enum mc_kind kind, const char **file, const char *text,
		size_t len, struct diag *d);
/* For the readers (measured.c): append a counter to @s; 0 or -ENOMEM with @d. */
int mc__add(struct mc_set *s, const char *file, int line, const char *scope, const char *name,
	    uint64_t value, int na, struct diag *d);
/*
 * A counter's value: digits (with thousands separators when @commas: "1,200",
 * every group after the first of three digits), "N/A" when @na_ok (*@na
 * set). 0 or -1 (not a number, or above 2^64 - 1).
 */
int mc__number(const char *s, int commas, int na_ok, uint64_t *v, int *na);

#endif
