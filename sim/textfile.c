/* textfile: whole-file reads of user input (see textfile.h). */
#include "textfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>

int textfile_read(const char *path, char **text, size_t *len)
{
	struct stat st;
	char *buf;
	size_t n;
	FILE *f;
	int err = 0;

	*text = NULL;
	f = fopen(path, "rb");
	if (!f)
		return -errno;
	if (fstat(fileno(f), &st)) {
		err = -errno;
	} else if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
	} else if ((uint64_t)st.st_size > TEXTFILE_MAX) {
		err = -EFBIG;
	}
	if (err) {
		fclose(f);
		return err;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(buf, 1, (size_t)st.st_size, f);
	if (ferror(f))
		err = -EIO;
	fclose(f);
	if (!err && memchr(buf, '\0', n))
		err = -EINVAL;
	if (err) {
		free(buf);
		return err;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

const char *textfile_strerror(int err)
{
	switch (err) {
	case -EINVAL:
		return "not a regular text file";
	case -EFBIG:
		return "larger than 64 MB";
	default:
		return strerror(-err);
	}
}
