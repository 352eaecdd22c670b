/*
 * Diagnostics: a caller-owned record of the first error met while reading
 * input, naming the file, the line, the key path and what was expected.
 * Printed as one line: `incast.yaml:14: switch.ecn.kmax: "1.2XB" is not a size`.
 */
#ifndef ROCESIM_DIAG_H
#define ROCESIM_DIAG_H

#include <stdio.h>

struct diag {
	char file[256]; /* "" when the input is not a file */
	int line;	/* 1-based; 0 when unknown */
	char path[160]; /* key path such as "workload.flows[2].src"; may be "" */
	char msg[512];
};

/* Fill @d; a later call overwrites an earlier one. */
void diag_set(struct diag *d, const char *file, int line, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Write the one-line form of @d to @f, with a final newline. */
void diag_print(const struct diag *d, FILE *f);

/* The one-line form into @buf (no newline); returns @buf. */
const char *diag_str(const struct diag *d, char *buf, size_t size);

#endif
