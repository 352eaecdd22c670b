/*
 * textfile: the one way every input file (scenario, topology, real
 * configs) is read: opened without blocking, refused unless it is a
 * regular file of sane size, and read whole into memory for the parsers.
 * A FIFO, a device or a folder is refused at once instead of hanging.
 * And the one way a whole output file is replaced (textfile_replace).
 */
#ifndef ROCESIM_TEXTFILE_H
#define ROCESIM_TEXTFILE_H

#include <stddef.h>

#include "sim/engine/diag.h"

/* The cap on an input file: configs are small, a larger file is a mistake. */
#define TEXTFILE_MAX (64u << 20)

/*
 * Open @path for reading (close-on-exec) and return its descriptor, or a
 * negative errno: -EINVAL when it is not a regular file (the open does not
 * block on a FIFO), -EFBIG when it is larger than TEXTFILE_MAX.
 */
int textfile_open(const char *path);
/*
 * Read @path whole into a new NUL-terminated buffer (*@text, free() it) of
 * *@len bytes, NUL bytes included. Returns 0 or a negative errno as
 * textfile_open (-EFBIG also when the file grows past the cap while read).
 */
int textfile_read_bytes(const char *path, char **text, size_t *len);
/* textfile_read_bytes, and -EILSEQ when the file holds a NUL byte. */
int textfile_read(const char *path, char **text, size_t *len);
/* Words for the errors above ("not a regular file", ...). */
const char *textfile_strerror(int err);
/*
 * textfile_read (textfile_read_bytes when @keep_nul) that also says why in
 * @d, as every reader words it: "@path: cannot read: not a regular file".
 * Returns as they do.
 */
int textfile_load(const char *path, int keep_nul, char **text, size_t *len, struct diag *d);

/*
 * Write @text (@len bytes) as the whole of @path: into a new file beside
 * it (".NAME.XXXXXX", with the mode a new file gets under the umask),
 * fsync'ed when @sync, then renamed over @path, so that a reader finds the
 * old file or the new one, never a part. 0 or a negative errno (the
 * temporary file removed).
 */
int textfile_replace(const char *path, const char *text, size_t len, int sync);

#endif
