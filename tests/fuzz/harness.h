/*
 * What the libFuzzer harnesses (tests/fuzz_*.c) share: a broken promise
 * that aborts with the harness's name, a scratch folder made afresh under
 * $TMPDIR and removed with all it holds, a scratch file written whole, and
 * a word looked for in an input.
 *
 * A harness defines FUZZ_NAME (its program's name, "fuzz_hpcc") before it
 * includes this header. Every function is static inline: a harness that
 * uses only some of them compiles without a word about the others.
 */
#ifndef ROCESIM_TESTS_FUZZ_HARNESS_H
#define ROCESIM_TESTS_FUZZ_HARNESS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FUZZ_NAME
#error "define FUZZ_NAME, the harness's name, before including tests/fuzz/harness.h"
#endif

/* A promise of the code under test: when @ok is 0, say @what and abort. */
static inline void fuzz_check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, FUZZ_NAME ": broken promise: %s\n", what);
		abort();
	}
}

/* Whether @word occurs in the @size bytes of @data. */
static inline int fuzz_has(const uint8_t *data, size_t size, const char *word)
{
	size_t n = strlen(word);

	for (size_t i = 0; i + n <= size; i++)
		if (!memcmp(data + i, word, n))
			return 1;
	return 0;
}

/*
 * A new folder "$TMPDIR/fuzz-@tag-XXXXXX" (/tmp without TMPDIR), its path in
 * @dir (@n bytes); a harness that cannot make it exits 1.
 */
static inline void fuzz_scratch(char *dir, size_t n, const char *tag)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, n, "%s/fuzz-%s-XXXXXX", tmp && tmp[0] ? tmp : "/tmp", tag);
	if (!mkdtemp(dir)) {
		perror(FUZZ_NAME ": mkdtemp");
		exit(1);
	}
}

/* Write @size bytes of @data to @path, replacing what was there; a link is not followed. */
static inline void fuzz_put(const char *path, const void *data, size_t size)
{
	const char *p = data;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);

	fuzz_check(fd >= 0, "the scratch file can be written");
	while (size) {
		ssize_t n = write(fd, p, size);

		if (n < 0 && errno == EINTR)
			continue;
		fuzz_check(n > 0, "the scratch file can be written");
		p += n;
		size -= (size_t)n;
	}
	close(fd);
}

/* Remove @name in the folder @parent and all it holds; links are not followed. */
static inline void fuzz_rm_at(int parent, const char *name)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	struct dirent *de;
	DIR *dir;

	if (fd < 0) {
		unlinkat(parent, name, 0);
		return;
	}
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return;
	}
	while ((de = readdir(dir)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			fuzz_rm_at(dirfd(dir), de->d_name);
	closedir(dir);
	unlinkat(parent, name, AT_REMOVEDIR);
}

/*
 * Remove @path and all it holds, relative to open folders all the way down:
 * a harness may make paths longer than PATH_MAX under it.
 */
static inline void fuzz_rm_tree(const char *path)
{
	const char *slash = strrchr(path, '/');
	char parent[8192];
	int fd;

	if (!slash)
		return;
	snprintf(parent, sizeof(parent), "%.*s", (int)(slash - path), path);
	fd = open(parent[0] ? parent : "/", O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return;
	fuzz_rm_at(fd, slash + 1);
	close(fd);
}

#endif
