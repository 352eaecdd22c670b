/*
 * libFuzzer harness for the mlx5 cc_params reader of sim/mlnx.h as it reads
 * a folder (cc_params_read on a copied debugfs cc_params folder: one file
 * per parameter, its value on the first line). The input is split at NUL
 * bytes into "name\0value\0name\0value..." records; each record becomes a
 * file of that name holding that value, in a scratch folder made afresh for
 * every input, and the folder is read with cc_params_read. The encoding can
 * also say:
 *
 *   name "dir/name"       a file inside the sub-folder "dir" (not a parameter)
 *   value "@link:target"  a symbolic link to "target" in the same folder
 *                         (a dangling one when there is no such file)
 *   value "@64M"          a sparse file of 64 MB and one byte, larger than
 *                         the reader takes
 *   first name "+deep"    the folder sits some 3900 bytes deep, so a
 *                         parameter's path outgrows the reader's buffer
 *   first name "+missing" read a folder that does not exist
 *
 * Input with no NUL byte at all is the other form, the text of
 * `grep -r . cc_params`: written to one file and read with cc_params_read
 * (a text that starts with "#64M" is first made a sparse file of 64 MB and
 * one byte, larger than the reader takes).
 *
 * A success must keep the promises of mlnx.h (names and values non-empty
 * and NUL-terminated, values trimmed, and names too in the text form, each
 * entry naming its file; a folder's entries in name order, line 1, never a
 * hidden file or a sub-folder); a refusal must carry a message and leave
 * nothing to free. Crashes, leaks, UB and broken promises (abort) are the
 * findings; refusals are expected. Only regular files, folders and links
 * inside the scratch folder are made: never a FIFO or a device.
 *
 * A last line "#failalloc N" (or "N+"), in either form, makes the N-th
 * allocation (and every later one) of cc_params_read fail
 * (tests/fuzz/oom.h): it must then refuse with -ENOMEM. The line is
 * stripped before the input is decoded.
 *
 * Not part of the meson build (it needs clang's -fsanitize=fuzzer): `make
 * fuzz` builds it with every library source below the command line and
 * runs it on its seeds (tests/fuzz/run.sh; `tests/fuzz/run.sh cc_params` runs
 * this one alone). A crash, leak or timeout is kept in
 * build-fuzz/cc_params/findings/; replay it with `build-fuzz/cc_params/fuzz_cc_params FILE`.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FUZZ_NAME "fuzz_cc_params"

#include "sim/readers/mlnx.h"
#include "tests/fuzz/harness.h"
#include "tests/fuzz/oom.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_RECORDS 64
#define DEEP_LEVELS 16 /* of 240 bytes each */

static char root[4096];	   /* the scratch folder */
static char shallow[4200]; /* root/in: the folder of an input */
static char deep[8192];	   /* root/ddd.../ddd.../in */

static void cleanup(void)
{
	fuzz_rm_tree(root);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	size_t n;

	(void)argc;
	(void)argv;
	fuzz_scratch(root, sizeof(root), "cc");
	atexit(cleanup);
	snprintf(shallow, sizeof(shallow), "%s/in", root);
	/* the deep folders are made once: only "in" is made per input */
	n = (size_t)snprintf(deep, sizeof(deep), "%s", root);
	for (int i = 0; i < DEEP_LEVELS && n + 242 < sizeof(deep); i++) {
		deep[n++] = '/';
		memset(deep + n, 'd', 240);
		n += 240;
		deep[n] = '\0';
		if (mkdir(deep, 0700) && errno != EEXIST) {
			perror("fuzz_cc_params: mkdir");
			exit(1);
		}
	}
	snprintf(deep + n, sizeof(deep) - n, "/in");
	return 0;
}

/* Write @size bytes of @data to the new file @name in the folder @dirfd. */
static void write_file(int dirfd, const char *name, const char *data, size_t size)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);

	if (fd < 0)
		return; /* a name the file system refuses (too long, ...): no such file */
	while (size) {
		ssize_t n = write(fd, data, size);

		if (n < 0 && errno == EINTR)
			continue;
		fuzz_check(n > 0, "the scratch file can be written");
		data += n;
		size -= (size_t)n;
	}
	close(fd);
}

/* Make the file @name in the folder @dirfd sparse, 64 MB and one byte long. */
static void big_file(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_WRONLY | O_NOFOLLOW);

	if (fd < 0)
		return;
	fuzz_check(!ftruncate(fd, (64 << 20) + 1), "the scratch file can be made sparse");
	close(fd);
}

/*
 * One record: the file @name holding @value (@vlen bytes), in the folder
 * @dirfd. Made relative to the folder, so that a path longer than PATH_MAX
 * can still be made under a deep folder.
 */
static void make_record(int dirfd, const char *name, const char *value, size_t vlen)
{
	const char *slash = strchr(name, '/');
	char sub[256];
	int fd = -1;

	if (!name[0] || !strcmp(name, ".") || !strcmp(name, ".."))
		return;
	if (slash) {
		/* "dir/name": a sub-folder holding a file */
		snprintf(sub, sizeof(sub), "%.*s", (int)(slash - name), name);
		name = slash + 1;
		if (!sub[0] || !strcmp(sub, ".") || !strcmp(sub, "..") || !name[0] ||
		    strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
			return;
		if (mkdirat(dirfd, sub, 0700) && errno != EEXIST)
			return;
		fd = openat(dirfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		if (fd < 0)
			return;
		dirfd = fd;
	}
	if (vlen > 6 && !memcmp(value, "@link:", 6) && !memchr(value + 6, '/', vlen - 6) &&
	    strcmp(value + 6, "..") && !symlinkat(value + 6, dirfd, name)) {
		/* a target inside the folder only: never a FIFO or a device outside */
	} else if (!strcmp(value, "@64M")) {
		write_file(dirfd, name, "1\n", 2);
		big_file(dirfd, name);
	} else {
		write_file(dirfd, name, value, vlen);
	}
	if (fd >= 0)
		close(fd);
}

/* Is @name (from a folder's entry) one the input made a regular file of? */
static void check_entries(const struct cc_params *cc, const char *dir, int folder)
{
	size_t dl = strlen(dir);

	for (size_t i = 0; i < cc->n; i++) {
		const struct cc_entry *e = &cc->v[i];
		size_t nl, vl;

		fuzz_check(memchr(e->name, '\0', sizeof(e->name)) &&
			       memchr(e->value, '\0', sizeof(e->value)) &&
			       memchr(e->file, '\0', sizeof(e->file)),
			   "fields are NUL-terminated");
		nl = strlen(e->name);
		vl = strlen(e->value);
		fuzz_check(nl && vl, "name and value are not empty");
		fuzz_check(!strchr(" \t\v\f\r", e->value[0]) &&
			       !strchr(" \t\v\f\r", e->value[vl - 1]),
			   "the value is trimmed");
		fuzz_check(!strchr(e->name, '/'), "no folder in a name");
		if (!folder) {
			fuzz_check(!strchr(" \t\v\f\r", e->name[0]) &&
				       !strchr(" \t\v\f\r", e->name[nl - 1]),
				   "the name is trimmed");
			fuzz_check(e->line >= 1, "a line");
			continue;
		}
		/* a folder's names are its file names, as they are (" rp_gd" too) */
		fuzz_check(e->line == 1, "a folder's value is on line 1");
		fuzz_check(e->name[0] != '.', "hidden files are not parameters");
		/* e->file is cut at 255 bytes: compare what it holds */
		fuzz_check(!strncmp(e->file, dir, dl < 255 ? dl : 255),
			   "the file is in the folder");
		fuzz_check(!i || strcmp(cc->v[i - 1].name, e->name) < 0, "name order");
	}
}

static void check_result(int err, const struct cc_params *cc, const struct diag *d, const char *dir,
			 int folder)
{
	char line[1024];

	if (err) {
		fuzz_check(err < 0, "a negative error");
		fuzz_check(d->msg[0] || err == -ENOMEM,
			   "a refusal carries a message (-ENOMEM need not)");
		fuzz_check(!cc->v && !cc->n, "a refusal leaves nothing to free");
		diag_str(d, line, sizeof(line));
		return;
	}
	fuzz_check(cc->n > 0 && cc->v, "a success has entries");
	check_entries(cc, dir, folder);
}

/* cc_params_read with the allocation failure @o asks for. */
static int read_armed(const char *path, struct cc_params *cc, struct diag *d, struct fuzz_oom *o)
{
	int err, failed;

	fuzz_oom_arm(o);
	err = cc_params_read(path, cc, d);
	failed = fuzz_oom_disarm(o);
	fuzz_oom_check(failed, err, d, "cc_params_read");
	fuzz_oom_done(o);
	return err;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *end, *dir = shallow;
	struct cc_params cc = {0};
	struct diag d = {0};
	struct fuzz_oom o;
	char path[8300];
	int err, fd, records = 0;

	size = fuzz_oom_strip(data, size, &o);
	end = text + size;
	fuzz_rm_tree(shallow);
	fuzz_rm_tree(deep);
	if (!memchr(data, '\0', size)) {
		/* the grep form, one text file */
		fuzz_check(!mkdir(shallow, 0700), "the scratch folder can be made");
		fd = open(shallow, O_RDONLY | O_DIRECTORY);
		fuzz_check(fd >= 0, "the scratch folder can be opened");
		write_file(fd, "cc_params.txt", text, size);
		close(fd);
		snprintf(path, sizeof(path), "%s/cc_params.txt", shallow);
		if (size >= 4 && !memcmp(text, "#64M", 4))
			fuzz_check(!truncate(path, (64 << 20) + 1),
				   "the scratch file can be made sparse");
		err = read_armed(path, &cc, &d, &o);
		check_result(err, &cc, &d, path, 0);
		cc_params_free(&cc);
		fuzz_rm_tree(shallow);
		return 0;
	}
	if (size >= 6 && !memcmp(text, "+deep", 6)) {
		dir = deep;
		text += 6;
	} else if (size >= 9 && !memcmp(text, "+missing", 9)) {
		err = read_armed(shallow, &cc, &d, &o);
		fuzz_check(err == -ENOENT || (o.nth && err == -ENOMEM),
			   "a missing folder is -ENOENT");
		check_result(err, &cc, &d, shallow, 1);
		return 0;
	}
	fuzz_check(!mkdir(dir, 0700), "the scratch folder can be made");
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	fuzz_check(fd >= 0, "the scratch folder can be opened");
	while (text < end && records < MAX_RECORDS) {
		const char *name = text, *nul = memchr(text, '\0', (size_t)(end - text));
		const char *value, *vend;

		if (!nul)
			break; /* a name with no NUL after it: no record */
		value = nul + 1;
		vend = value < end ? memchr(value, '\0', (size_t)(end - value)) : NULL;
		if (!vend)
			vend = end;
		if ((size_t)(nul - name) < 256) {
			char nm[256], val[8192];
			size_t vlen = (size_t)(vend - value) < sizeof(val) - 1
					  ? (size_t)(vend - value)
					  : sizeof(val) - 1;

			memcpy(nm, name, (size_t)(nul - name));
			nm[nul - name] = '\0';
			memcpy(val, value, vlen);
			val[vlen] = '\0';
			make_record(fd, nm, val, vlen);
			records++;
		}
		text = vend < end ? vend + 1 : end;
	}
	close(fd);
	err = read_armed(dir, &cc, &d, &o);
	check_result(err, &cc, &d, dir, 1);
	cc_params_free(&cc);
	fuzz_rm_tree(dir);
	return 0;
}
