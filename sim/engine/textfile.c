/* textfile: whole-file reads of user input (see textfile.h). */
#include "sim/engine/textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int textfile_open(const char *path)
{
	struct stat st;
	int fd, flags, err;

	/* O_NONBLOCK: opening a FIFO with no writer returns at once */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = -EINVAL;
	else if ((uint64_t)st.st_size > TEXTFILE_MAX)
		err = -EFBIG;
	else if ((flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK))
		err = -errno;
	else
		return fd;
	close(fd);
	return err;
}

int textfile_read_bytes(const char *path, char **text, size_t *len)
{
	struct stat st;
	size_t n = 0, cap;
	char *buf;
	int fd, err = 0;

	*text = NULL;
	*len = 0;
	fd = textfile_open(path);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st)) {
		err = -errno;
		goto out_close;
	}
	/* read to the end: the size may be 0 (debugfs, procfs) or change */
	cap = (size_t)st.st_size + 1;
	buf = malloc(cap);
	if (!buf) {
		err = -ENOMEM;
		goto out_close;
	}
	for (;;) {
		ssize_t r;

		if (n + 1 == cap) {
			size_t ncap = cap < 4096 ? 4096 : 2 * cap;
			char *b;

			if (ncap > (size_t)TEXTFILE_MAX + 2)
				ncap = (size_t)TEXTFILE_MAX + 2;
			if (n + 1 == ncap) {
				err = -EFBIG;
				break;
			}
			b = realloc(buf, ncap);
			if (!b) {
				err = -ENOMEM;
				break;
			}
			buf = b;
			cap = ncap;
		}
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			break;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	if (!err && n > TEXTFILE_MAX)
		err = -EFBIG;
	if (err) {
		free(buf);
		goto out_close;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
out_close:
	close(fd);
	return err;
}

int textfile_read(const char *path, char **text, size_t *len)
{
	int err = textfile_read_bytes(path, text, len);

	if (!err && memchr(*text, '\0', *len)) {
		free(*text);
		*text = NULL;
		*len = 0;
		return -EILSEQ;
	}
	return err;
}

const char *textfile_strerror(int err)
{
	switch (err) {
	case -EINVAL:
		return "not a regular file";
	case -EFBIG:
		return "larger than 64 MiB, the cap on an input file";
	case -EILSEQ:
		return "holds a NUL byte: not a text file";
	default:
		return strerror(-err);
	}
}

int textfile_load(const char *path, int keep_nul, char **text, size_t *len, struct diag *d)
{
	int err = keep_nul ? textfile_read_bytes(path, text, len) : textfile_read(path, text, len);

	if (err)
		diag_set(d, path, 0, "", "cannot read: %s", textfile_strerror(err));
	return err;
}

int textfile_replace(const char *path, const char *text, size_t len, int sync)
{
	const char *slash = strrchr(path, '/');
	size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
	char *tmp = malloc(strlen(path) + 16);
	mode_t mask = umask(0);
	int fd, err = 0;

	umask(mask);
	if (!tmp)
		return -ENOMEM;
	sprintf(tmp, "%.*s.%s.XXXXXX", (int)dlen, path, path + dlen);
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		free(tmp);
		return err;
	}
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, text + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			err = -errno;
			break;
		}
		off += (size_t)w;
	}
	if (!err && fchmod(fd, 0666 & ~mask))
		err = -errno;
	if (!err && sync && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}
