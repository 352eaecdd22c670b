/*
 * ydoc: a flat index of a YAML file, every scalar with its key path and its
 * line. libcyaml loads the scenario into structs but keeps no positions;
 * this index is how later checks (units, names, thresholds) name the line
 * of the key they refuse, and how free-form sections (expect:) are read.
 *
 * Paths join mapping keys with '.' and sequence items with "[i]", e.g.
 * "topology.link.rate" or "workload.flows[2].src". A mapping or sequence
 * also gets an entry (value NULL) at the line where its key stands.
 */
#ifndef ROCESIM_YDOC_H
#define ROCESIM_YDOC_H

#include <cyaml/cyaml.h>
#include <stdarg.h>
#include <stddef.h>

#include "sim/engine/diag.h"

struct ydoc_entry {
	char *path;
	char *value;	  /* NULL for a mapping or sequence */
	int line;	  /* 1-based line of the key (or of the item) */
	const char *file; /* the file that holds it (ydoc_set_origin), else ydoc_file() */
};

struct ydoc;

/* Index @len bytes of YAML @text read from @file. Returns 0, or a negative
 * error with @d naming the line where the YAML is malformed. */
int ydoc_parse(const char *file, const char *text, size_t len, struct ydoc **out, struct diag *d);
void ydoc_free(struct ydoc *y);

/* Line of @path, or 0 when the file does not hold it. */
int ydoc_line(const struct ydoc *y, const char *path);
/* Line of @path, or of the nearest enclosing key the file holds; 0 if none. */
int ydoc_line_near(const struct ydoc *y, const char *path);
/* Entry of @path, or NULL. Borrowed. */
const struct ydoc_entry *ydoc_find(const struct ydoc *y, const char *path);
size_t ydoc_count(const struct ydoc *y);
const struct ydoc_entry *ydoc_at(const struct ydoc *y, size_t i);
const char *ydoc_file(const struct ydoc *y);
/* The file of the entry ydoc_line_near finds for @path, else ydoc_file(). */
const char *ydoc_file_near(const struct ydoc *y, const char *path);
/*
 * Say that the value of @path was written at @file:@line (a text merged
 * from several files: the merged text's own lines mean nothing to a user).
 * 0, -ENOENT (no such path) or -ENOMEM.
 */
int ydoc_set_origin(struct ydoc *y, const char *path, const char *file, int line);

/*
 * libcyaml's refusals in our one-line form. libcyaml keeps no positions
 * either, but a failed load logs a message and a backtrace that names lines,
 * innermost first:
 *
 *   Load: Unexpected key: sizee
 *   Load: Backtrace:
 *     in mapping (line: 8, column: 12)
 *     in sequence entry '2' (line: 8, column: 7)      (entries count from 1)
 *     in mapping field 'flows' (line: 7, column: 5)
 *
 * Give ydoc_cyaml_log as the load's log_fn and a zeroed struct ydoc_cylog as
 * its log_ctx; when the load fails, ydoc_cyaml_diag turns what was kept into
 * one diag ("workload.flows[1].sizee: unknown key (expected one of: ...)"),
 * at the line ydoc @y holds for that path.
 */
#define YDOC_CY_FRAMES 16

/* One line of libcyaml's backtrace: a mapping key, a sequence entry, or neither. */
struct ydoc_cyframe {
	enum { YDOC_CY_NONE, YDOC_CY_KEY, YDOC_CY_INDEX } kind;
	char key[64];
	unsigned index; /* from 0 */
	int line;	/* 0 when not given */
};

struct ydoc_cylog {
	char msg[256]; /* the first error, without "Load: " */
	int n;
	struct ydoc_cyframe frame[YDOC_CY_FRAMES]; /* innermost first */
};

/* How a reader words some refusals (each reader kept its own wording). */
enum {
	/* unknown key "k" (expected a, b); without: unknown key (expected one of: a, b) */
	YDOC_CY_NAME_KEY = 1,
	/* expected a list, found a mapping; without: expected a list, not a mapping */
	YDOC_CY_FOUND = 2,
	/* an expected mapping is "a mapping of keys"; without: "a mapping" */
	YDOC_CY_KEYS = 4,
};

/* A cyaml_config_t log_fn: keeps the errors in the struct ydoc_cylog @ctx. */
void ydoc_cyaml_log(cyaml_log_t level, void *ctx, const char *fmt, va_list args);

/* Fill @d from @log, the log of a load of @schema that failed with @err
 * (@words: YDOC_CY_* flags). Returns -ENOMEM for CYAML_ERR_OOM, else -EINVAL. */
int ydoc_cyaml_diag(const struct ydoc *y, const cyaml_schema_value_t *schema,
		    const struct ydoc_cylog *log, cyaml_err_t err, unsigned words, struct diag *d);

#endif
