/*
 * A folder of measured files from several hosts and switches, each file
 * named for its node and its kind:
 *
 *   NODE.KIND[.before|.after][.EXT]
 *
 * KIND one of ethtool, hw-counters, pfcstat, queuestat (measured.h),
 * nccl-tests (nccl_tests_out.h) or nccl-inspector (nccl_inspector.h); EXT anything (txt, log) or
 * nothing; a hw-counters reading may be a copied folder of its own (h0.hw-counters/). A .before and
 * an .after reading of one node and kind are one entry: the counts of the run are their difference
 * (mc_diff). Examples: host3.ethtool.txt, leaf0.pfcstat.before.txt and leaf0.pfcstat.after.txt,
 * h0.nccl-tests.log. Names starting with '.' are not looked at; any other
 * name that does not read as above is listed in .skipped, so that the
 * caller can say what it did not read.
 *
 * Files named otherwise (as a lab saved them) are named in the folder's
 * map.yaml, a flat mapping of a file's name to the name it stands for:
 *
 *   sw-a-show-pfc.txt: leaf0.pfcstat
 *   dgx07-pre.txt: h3.ethtool.before
 *   dgx07-post.txt: h3.ethtool.after
 *
 * A key that is no file of the folder, a value that is no such name, is
 * refused with map.yaml's line.
 */
#ifndef ROCESIM_MEASURED_DIR_H
#define ROCESIM_MEASURED_DIR_H

#include <stddef.h>

#include "sim/engine/diag.h"
#include "sim/readers/measured.h"

/* what md_read finds beside measured.h's kinds */
#define MD_NCCL_TESTS 100
#define MD_NCCL_INSPECTOR 101

struct md_entry {
	char node[64];
	int kind;	   /* enum mc_kind, or MD_NCCL_TESTS */
	char path[4096];   /* the reading (the .after one of a pair) */
	char before[4096]; /* the .before one, "" when none */
	int after;	   /* .path is named .after */
};

struct md_dir {
	char folder[4096];
	struct md_entry *v; /* in node, then kind order */
	size_t n;
	char (*skipped)[256]; /* file names not read, in name order */
	size_t n_skipped;
};

/*
 * List @folder into @out (md_free it, also after an error): 0, -EINVAL
 * with @d naming the file (a .before without its .after or the other way
 * round, one node's kind given twice, no file to read at all, a map.yaml
 * that cannot be read or says what cannot be), -ENOMEM,
 * or the errno of a folder that cannot be listed. The files are not read.
 */
int md_read(const char *folder, struct md_dir *out, struct diag *d);
void md_free(struct md_dir *m);

/* "nccl-tests" for MD_NCCL_TESTS, "nccl-inspector" for MD_NCCL_INSPECTOR,
 * else mc_kind_name; and back (-1: none). */
const char *md_kind_name(int kind);
int md_kind_parse(const char *name);

/* mc_*_read of @kind. */
int mc_read(enum mc_kind kind, const char *path, struct mc_set *out, struct diag *d);

#endif
