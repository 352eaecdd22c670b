/*
 * What the two files of the Kubernetes manifest reader share: pod_scan.c
 * scans the text (which document, and is it safe to expand), pod.c loads
 * that document and collects its NCCL_* variables.
 */
#ifndef ROCESIM_POD_IMPL_H
#define ROCESIM_POD_IMPL_H

#include <stddef.h>
#include <stdint.h>

#define POD_DEPTH 64	    /* as ydoc: deeper is refused */
#define POD_MAX_ANCHORS 256 /* per document; libcyaml searches them linearly */

struct pod_frame {
	int is_map;
	size_t kids;	 /* nodes read in this collection (keys and values) */
	uint64_t weight; /* events this collection expands to, so far */
	char *anchor;	 /* its &anchor, or NULL */
};

struct pod_anchor {
	char *name;
	uint64_t weight;
};

/* One document as the scan saw it. */
struct pod_doc {
	int index;	   /* 1-based */
	size_t start, end; /* libyaml character indices: where it starts and ends */
	size_t start_col;
	int start_line; /* 0-based */
	int has_end;	/* 0: runs to the end of the text */
	char kind[32];	/* "" when the root has no scalar kind */
	int bad_line;	/* 1-based line of the refusal below, when bad_msg[0] */
	char bad_msg[160];
};

struct pod_scan {
	struct pod_doc cur, first, pick;
	int ndocs, picked;
	int depth;
	struct pod_frame st[POD_DEPTH];
	struct pod_anchor anchors[POD_MAX_ANCHORS];
	int n_anchors;
	uint64_t expanded;
	/* libyaml's error, when the text is not YAML */
	int yaml_err, yaml_line;
	char yaml_msg[160];
};

/* pod.c */
int pod_kind(const char *kind);

/* pod_scan.c */
int pod_scan(struct pod_scan *s, const char *text, size_t len);
int pod_slice(const char *text, size_t len, const struct pod_doc *doc, const char **out,
	      size_t *out_len, char **buf);

#endif
