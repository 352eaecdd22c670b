/*
 * SHA-256 (FIPS 180-4) in lower-case hex, of bytes in memory or of an
 * input file read as every input is (textfile.h): what sha256sum prints.
 */
#ifndef ROCESIM_SHA256_H
#define ROCESIM_SHA256_H

#include <stddef.h>

#define SHA256_HEX 65 /* 64 hex digits and the NUL */

/* SHA-256 of @len bytes at @data into @hex. */
void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX]);
/* SHA-256 of the file @path into @hex: 0, or a negative errno as
 * textfile_read_bytes returns it. */
int sha256_file(const char *path, char hex[SHA256_HEX]);

#endif
