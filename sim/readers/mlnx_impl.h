/*
 * What the two NVIDIA/Mellanox config readers share (mlnx.c reads mlnx_qos
 * and holds these, cc_params.c reads cc_params): text taken line by line as
 * people paste it, blanks, numbers, and quoting in messages.
 */
#ifndef ROCESIM_MLNX_IMPL_H
#define ROCESIM_MLNX_IMPL_H

#include <stddef.h>

#include "sim/engine/diag.h"

/*
 * Line splitter over a mutable buffer of @len bytes (NULs allowed): each
 * call NUL-terminates the next line, drops its CR, and returns it with its
 * length, or NULL at the end. A UTF-8 byte order mark at the start is
 * dropped too (editors on other systems add one).
 */
struct lines {
	char *p, *end;
	int no;
};

/* mlnx.c */
int mlnx__is_blank(int c);
/* Split @s at blanks, in place, into at most @max words in @w; how many
 * (@max + 1: more than that). */
int mlnx__words(char *s, char **w, int max);
char *mlnx__trim(char *s);
const char *mlnx__quote(char *buf, size_t size, const char *s, size_t len);
int mlnx__find_binary(const char *s, size_t len);
char *mlnx__text_copy(const char *text, size_t len, const char *file, struct diag *d);
void lines_init(struct lines *ls, char *buf, size_t len);
char *lines_next(struct lines *ls, size_t *len);

#endif
