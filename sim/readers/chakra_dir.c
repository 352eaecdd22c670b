/*
 * A folder of Chakra traces, one "<prefix>.<rank>.et" a rank, as Chakra's
 * converters name them ("%s.%d.et" in src/converter/text_converter.py) and
 * ASTRA-sim's --workload-configuration=<folder>/<prefix> reads them (see
 * chakra.h).
 */
#include "sim/readers/chakra.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A file of the folder that is a rank's trace. */
struct cd_file {
	uint32_t rank;
	char *name;
};

static int cd_cmp(const void *a, const void *b)
{
	const struct cd_file *x = a, *y = b;

	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/*
 * Whether @name is "<prefix>.<rank>.et": the prefix's length into *@plen
 * and the rank into *@rank; 1, 0 when it is no trace's name, -1 for a rank
 * with a leading zero or past CHAKRA_RANKS_MAX.
 */
static int cd_name(const char *name, size_t *plen, uint32_t *rank)
{
	size_t n = strlen(name), i;
	uint64_t v = 0;

	if (n < 6 || strcmp(name + n - 3, ".et"))
		return 0;
	i = n - 3;
	while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
		i--;
	if (i == n - 3 || i < 2 || name[i - 1] != '.')
		return 0;
	if (name[i] == '0' && i + 1 < n - 3)
		return -1;
	for (size_t k = i; k < n - 3; k++) {
		v = v * 10 + (uint64_t)(name[k] - '0');
		if (v >= CHAKRA_RANKS_MAX)
			return -1;
	}
	*plen = i - 1;
	*rank = (uint32_t)v;
	return 1;
}

void chakra_ranks_free(struct chakra_ranks *r)
{
	for (uint32_t i = 0; i < r->n; i++)
		chakra_free(&r->ranks[i]);
	free(r->ranks);
	memset(r, 0, sizeof(*r));
}

static void cd_files_free(struct cd_file *f, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free(f[i].name);
	free(f);
}

/* The rank files of @dir into *@files (*@n of them, sorted by rank). */
static int cd_scan(const char *dir, const char *key, struct chakra_ranks *r, struct cd_file **files,
		   uint32_t *n, struct diag *d)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	struct cd_file *f = NULL;
	uint32_t room = 0;
	int err = 0;

	*files = NULL;
	*n = 0;
	if (!dp) {
		diag_set(d, dir, 0, key, "cannot read the folder: %s", strerror(errno));
		return -EINVAL;
	}
	while (!err && (e = readdir(dp))) {
		size_t plen;
		uint32_t rank;
		int m = cd_name(e->d_name, &plen, &rank);

		if (!m)
			continue;
		if (m < 0) {
			diag_set(d, dir, 0, key,
				 "\"%s\": a rank is a number below %u without a leading zero",
				 e->d_name, CHAKRA_RANKS_MAX);
			err = -EINVAL;
		} else if (plen >= sizeof(r->prefix)) {
			diag_set(d, dir, 0, key, "\"%s\": a prefix of more than %zu bytes",
				 e->d_name, sizeof(r->prefix) - 1);
			err = -EINVAL;
		} else if (*n &&
			   (strlen(r->prefix) != plen || strncmp(r->prefix, e->d_name, plen))) {
			diag_set(d, dir, 0, key,
				 "traces of two prefixes: \"%s.<rank>.et\" and \"%.*s.<rank>.et\"",
				 r->prefix, (int)plen, e->d_name);
			err = -EINVAL;
		} else if (*n == CHAKRA_RANKS_MAX) {
			diag_set(d, dir, 0, key, "more than %u ranks", CHAKRA_RANKS_MAX);
			err = -EINVAL;
		} else {
			if (*n == room) {
				void *p = realloc(f, (room ? 2 * room : 16) * sizeof(*f));

				if (!p) {
					err = -ENOMEM;
					break;
				}
				f = p;
				room = room ? 2 * room : 16;
			}
			f[*n].rank = rank;
			f[*n].name = strdup(e->d_name);
			if (!f[*n].name) {
				err = -ENOMEM;
				break;
			}
			memcpy(r->prefix, e->d_name, plen);
			r->prefix[plen] = '\0';
			(*n)++;
		}
	}
	closedir(dp);
	if (!err && !*n) {
		diag_set(d, dir, 0, key, "no Chakra trace (\"<prefix>.<rank>.et\") in the folder");
		err = -EINVAL;
	}
	if (!err) {
		qsort(f, *n, sizeof(*f), cd_cmp);
		for (uint32_t i = 0; i < *n && !err; i++)
			if (f[i].rank != i) {
				diag_set(d, dir, 0, key,
					 "no \"%s.%" PRIu32 ".et\": the ranks go 0..%" PRIu32
					 " without a gap",
					 r->prefix, i, f[*n - 1].rank);
				err = -EINVAL;
			}
	}
	if (err) {
		cd_files_free(f, *n);
		*n = 0;
		return err;
	}
	*files = f;
	return 0;
}

int chakra_read_dir(const char *dir, const char *key, struct chakra_ranks *r, struct diag *d)
{
	struct cd_file *f;
	uint32_t n;
	int err;

	memset(r, 0, sizeof(*r));
	err = cd_scan(dir, key, r, &f, &n, d);
	if (err)
		return err;
	r->ranks = calloc(n, sizeof(*r->ranks));
	if (!r->ranks) {
		cd_files_free(f, n);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n && !err; i++) {
		size_t len = strlen(dir) + strlen(f[i].name) + 2;
		char *path = malloc(len);

		if (!path) {
			err = -ENOMEM;
			break;
		}
		snprintf(path, len, "%s/%s", dir, f[i].name);
		err = chakra_read(path, key, &r->ranks[i], d);
		free(path);
		if (!err)
			r->n = i + 1;
	}
	cd_files_free(f, n);
	if (err)
		chakra_ranks_free(r);
	return err;
}
