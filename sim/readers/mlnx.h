/*
 * NVIDIA/Mellanox host configs: the text `mlnx_qos -i IF` prints (mlnx-tools'
 * mlnx_qos) and the mlx5 DCQCN `cc_params` (Linux mlx5 cong.c), as a copied
 * debugfs folder (one file per parameter holding its value) or as the
 * output of `grep -r . cc_params` ("cc_params/rp_gd:11" per line).
 */
#ifndef ROCESIM_MLNX_H
#define ROCESIM_MLNX_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine/diag.h"

struct mlnx_qos {
	char file[256];
	int has_trust, trust_dscp; /* "Priority trust state: dscp" (else pcp) */
	int trust_none;		   /* "none": the NIC cannot trust DSCP (read as pcp) */
	int trust_line;
	uint8_t dscp2prio[64];
	uint64_t dscp_given; /* bit d: the mapping lists DSCP d */
	int dscp_line[64];   /* line that maps DSCP d */
	int has_pfc;
	uint8_t pfc_enabled; /* "enabled" row of the PFC table */
	int pfc_line;
	int has_buffer;
	uint32_t rx_buffer[8]; /* "Receive buffer size (bytes)" */
	uint64_t rx_total;     /* its total_size= (or max_buffer_size=), 0 if none */
	int rx_line;	       /* the line of the receive buffer sizes, 0 if none */
	int has_default_prio;  /* "default priority:" then "prio:N" (non-IP traffic) */
	uint8_t default_prio;
	int default_prio_line;
	uint8_t prio_buffer[8]; /* "buffer" row of the PFC table */
	int prio_buffer_line;	/* its line, 0 if none */
	int has_tc;
	uint8_t prio_tc[8];    /* which tc each priority is in */
	char tsa[8][8];	       /* per tc: "ets", "strict", "vendor", "unknown" (another
				  algorithm, or none printed); "" = no such tc */
	uint8_t bw[8];	       /* per tc, % (ets) */
	uint64_t ratelimit[8]; /* per tc, bit/s ("ratelimit: 150.0 Gbps"); 0 = unlimited */
	int tc_line[8];
	int prio_tc_line[8];	  /* the "priority:" line that put priority p in its tc, or 0 */
	int has_cable, cable_len; /* "Cable len: 7" (metres) */
	int cable_line;
};

/* Read @file. 0, or -EINVAL with @d naming the file, the line and what
 * is wrong (a dscp2prio line cut short, a value that is not a number,
 * ...); -ENOMEM. */
int mlnx_qos_read(const char *file, struct mlnx_qos *out, struct diag *d);
/* mlnx_qos_read on @len bytes of text in memory (NUL bytes allowed: an
 * error naming their line); @file names it in @out and @d, may be "". */
int mlnx_qos_parse(const char *text, size_t len, const char *file, struct mlnx_qos *out,
		   struct diag *d);

struct cc_entry {
	char name[64];	 /* as written: rp_gd, np_min_time_between_cnps, ... */
	char value[64];	 /* as written, trimmed */
	char device[64]; /* the PCI device whose cc_params folder holds it
			    ("0000:3b:00.1"), "" when its path names none */
	char file[256];	 /* the file it came from */
	int line;	 /* line in that file (1 for a folder's one-value file) */
};

struct cc_params {
	struct cc_entry *v;
	size_t n;
};

/*
 * Read @path: a folder of parameter files, or a text file of
 * "[folder/]name:value" lines (grep output; blank lines and # comments
 * skipped). Names and values are not judged here (the scenario knows the
 * names and ranges): a line that has no name or no value is -EINVAL with
 * @d. 0, -EINVAL or -ENOMEM.
 */
int cc_params_read(const char *path, struct cc_params *out, struct diag *d);
/* cc_params_read on @len bytes of the text form in memory, named @file. */
int cc_params_parse(const char *text, size_t len, const char *file, struct cc_params *out,
		    struct diag *d);
void cc_params_free(struct cc_params *cc);
/*
 * The devices @cc names, in the order they first appear: how many, the
 * first @max of them into @dev (borrowed from @cc). Entries whose path
 * names no device are every device's; a file of only such entries is one
 * device, "".
 */
size_t cc_params_devices(const struct cc_params *cc, const char **dev, size_t max);
/* Keep only the entries of @device (and those of every device); how many are left. */
size_t cc_params_keep(struct cc_params *cc, const char *device);
/* A name that devices @a and @b set differently: each one's entry (the
 * later where one device gives the name twice), NULL where it gives none. */
struct cc_diff {
	const struct cc_entry *a, *b;
};
/* The names @a and @b give different values (or one does not give), @a's
 * in file order then @b's own: how many, the first @max into @out. */
size_t cc_params_diff(const struct cc_params *cc, const char *a, const char *b, struct cc_diff *out,
		      size_t max);
/* The names cc_params_diff finds, in words ("rp_gd 11 (line 3) against 7
 * (line 25), ..." and "and N more" past four) into @buf; how many. */
size_t cc_params_diff_str(const struct cc_params *cc, const char *a, const char *b, char *buf,
			  size_t size);
/* Devices that differ: the first device and the first other device that
 * sets a name otherwise, into *@a and *@b (borrowed); 0 when all agree. */
size_t cc_params_first_differ(const struct cc_params *cc, const char **a, const char **b);

#endif
