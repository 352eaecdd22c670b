/*
 * textfile: read a whole input file (scenario, topology, real configs)
 * into memory, refusing what is not a regular text file of sane size.
 */
#ifndef ROCESIM_TEXTFILE_H
#define ROCESIM_TEXTFILE_H

#include <stddef.h>

#define TEXTFILE_MAX (64u << 20)

/*
 * Read @path into a new NUL-terminated buffer (*@text, free() it) of
 * *@len bytes. Returns 0 or a negative errno: -EINVAL when it is not a
 * regular file or holds a NUL byte, -EFBIG when larger than TEXTFILE_MAX.
 */
int textfile_read(const char *path, char **text, size_t *len);
/* Words for the errors above. */
const char *textfile_strerror(int err);

#endif
