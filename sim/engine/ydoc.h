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

#include <stddef.h>

#include "sim/engine/diag.h"

struct ydoc_entry {
	char *path;
	char *value; /* NULL for a mapping or sequence */
	int line;    /* 1-based line of the key (or of the item) */
};

struct ydoc;

/* Index @len bytes of YAML @text read from @file. Returns 0, or a negative
 * error with @d naming the line where the YAML is malformed. */
int ydoc_parse(const char *file, const char *text, size_t len, struct ydoc **out,
	       struct diag *d);
void ydoc_free(struct ydoc *y);

/* Line of @path, or 0 when the file does not hold it. */
int ydoc_line(const struct ydoc *y, const char *path);
/* Entry of @path, or NULL. Borrowed. */
const struct ydoc_entry *ydoc_find(const struct ydoc *y, const char *path);
size_t ydoc_count(const struct ydoc *y);
const struct ydoc_entry *ydoc_at(const struct ydoc *y, size_t i);
const char *ydoc_file(const struct ydoc *y);

#endif
