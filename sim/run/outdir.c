/* outdir: the output folder of one run (see outdir.h). */
#include "sim/run/outdir.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/engine/sha256.h"

static const char *const outputs[OUTDIR_FILES] = {"results.json", "timeseries.csv", "qp_rates.csv",
						  "pfc_events.csv", "timeline.csv"};

/* The pictures `rocesim plot` draws from the outputs (sim/plot.c). */
static const char *const pictures[] = {"queues.png",   "queues.svg",   "pfc.png",   "pfc.svg",
				       "rates.png",    "rates.svg",    "flows.png", "flows.svg",
				       "slowdown.png", "slowdown.svg", "ranks.png", "ranks.svg",
				       "timeline.png", "timeline.svg"};

#define N_PICTURES (sizeof(pictures) / sizeof(pictures[0]))

static void set_where(struct outdir *o, const char *name)
{
	if (name)
		snprintf(o->where, sizeof(o->where), "%s/%s", o->dir, name);
	else
		snprintf(o->where, sizeof(o->where), "%s", o->dir);
}

/* mkdir -p @path, and make sure it is a folder. */
static int make_dirs(const char *path)
{
	char buf[OUTDIR_PATH];
	size_t len = strlen(path);
	struct stat st;

	if (!len)
		return -ENOENT; /* -o "": no folder named */
	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0777) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0777) && errno != EEXIST)
		return -errno;
	if (stat(buf, &st))
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

/*
 * Is @name a temporary of a run: ".NAME.XXXXXX" (mkstemp's six letters or
 * digits) or "NAME.tmp" (earlier versions), NAME one of the outputs?
 */
static int is_temp(const char *name)
{
	static const char alnum[] =
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

	for (int i = 0; i < OUTDIR_FILES; i++) {
		size_t n = strlen(outputs[i]);
		const char *x = name + n + 2;

		if (!strncmp(name, outputs[i], n) && !strcmp(name + n, ".tmp"))
			return 1;
		if (name[0] == '.' && !strncmp(name + 1, outputs[i], n) && name[n + 1] == '.' &&
		    strlen(x) == 6 && strspn(x, alnum) == 6)
			return 1;
	}
	return 0;
}

/* Remove the temporaries that runs killed in this folder left (under the lock). */
static void remove_stale(struct outdir *o)
{
	char path[OUTDIR_PATH + 300];
	struct dirent *e;
	DIR *d = opendir(o->dir);

	while (d && (e = readdir(d))) {
		if (!is_temp(e->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", o->dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
}

int outdir_open(struct outdir *o, const char *dir)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	mode_t mask;
	int err;

	memset(o, 0, sizeof(*o));
	o->lock_fd = -1;
	if ((size_t)snprintf(o->dir, sizeof(o->dir), "%s", dir) >= sizeof(o->dir)) {
		set_where(o, NULL);
		return -ENAMETOOLONG;
	}
	mask = umask(0);
	umask(mask);
	o->mode = 0666 & ~mask;
	set_where(o, NULL);
	if ((err = make_dirs(dir)))
		return err;
	set_where(o, OUTDIR_LOCK);
	o->lock_fd = open(o->where, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (o->lock_fd < 0)
		return -errno;
	if (fcntl(o->lock_fd, F_SETLK, &fl)) {
		if (errno != EACCES && errno != EAGAIN)
			return -errno;
		fl.l_type = F_WRLCK;
		o->holder = fcntl(o->lock_fd, F_GETLK, &fl) || fl.l_type == F_UNLCK ? 0 : fl.l_pid;
		close(o->lock_fd);
		o->lock_fd = -1;
		set_where(o, NULL);
		return -EBUSY;
	}
	remove_stale(o);
	set_where(o, NULL);
	return 0;
}

FILE *outdir_create(struct outdir *o, enum outdir_file which)
{
	char *tmp = o->out[which].tmp, name[sizeof(o->out[which].tmp)];
	int fd, err;

	snprintf(name, sizeof(name), "%s/.%s.XXXXXX", o->dir, outputs[which]);
	memcpy(tmp, name, sizeof(name));
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = errno;
		tmp[0] = '\0';
		set_where(o, NULL);
		errno = err;
		return NULL;
	}
	/* mkstemp makes it 0600: give it the mode any other new file gets */
	if (fchmod(fd, o->mode) || !(o->out[which].f = fdopen(fd, "w"))) {
		err = errno;
		close(fd);
		unlink(tmp);
		tmp[0] = '\0';
		set_where(o, NULL);
		errno = err;
		return NULL;
	}
	return o->out[which].f;
}

/* Flush, check, fsync (unless @nosync) and close one output; 0 or -errno. */
static int finish(FILE *f, int nosync)
{
	int err = 0;

	if (fflush(f))
		err = -errno;
	else if (ferror(f))
		err = -EIO;
	else if (!nosync && fsync(fileno(f)) && errno != EINVAL && errno != ENOTSUP)
		err = -errno; /* EINVAL, ENOTSUP: a file system that cannot sync */
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

int outdir_commit(struct outdir *o, int *partial)
{
	char path[OUTDIR_PATH + 64];
	int err = 0, e, written[OUTDIR_FILES] = {0}, renamed = 0, fd;

	*partial = 0;
	for (int i = 0; i < OUTDIR_FILES; i++) {
		if (!o->out[i].f)
			continue;
		written[i] = 1;
		e = finish(o->out[i].f, o->nosync);
		o->out[i].f = NULL;
		if (e && !err) {
			err = e;
			set_where(o, outputs[i]);
		}
	}
	if (err)
		return err;
	/* results.json last: once it is new, so is everything beside it */
	for (int k = 1; k <= OUTDIR_FILES; k++) {
		int i = k % OUTDIR_FILES;

		if (!written[i])
			continue;
		snprintf(path, sizeof(path), "%s/%s", o->dir, outputs[i]);
		if (rename(o->out[i].tmp, path)) {
			err = -errno;
			set_where(o, outputs[i]);
			*partial = renamed > 0;
			return err;
		}
		o->out[i].tmp[0] = '\0';
		renamed++;
	}
	/* what this run did not write belongs to an earlier one */
	for (size_t i = 0; i < OUTDIR_FILES + N_PICTURES; i++) {
		const char *name = i < OUTDIR_FILES ? outputs[i] : pictures[i - OUTDIR_FILES];

		if (i < OUTDIR_FILES && written[i])
			continue;
		snprintf(path, sizeof(path), "%s/%s", o->dir, name);
		/* a folder of that name is not a file a run wrote */
		if (unlink(path) && errno != ENOENT && errno != EISDIR && errno != EPERM && !err) {
			err = -errno;
			set_where(o, name);
			*partial = 1;
		}
	}
	/* make the renames durable; some file systems cannot sync a folder */
	fd = o->nosync ? -1 : open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	return err;
}

void outdir_close(struct outdir *o)
{
	for (int i = 0; i < OUTDIR_FILES; i++) {
		if (o->out[i].f)
			fclose(o->out[i].f);
		o->out[i].f = NULL;
		if (o->out[i].tmp[0])
			unlink(o->out[i].tmp);
		o->out[i].tmp[0] = '\0';
	}
	/* closing the descriptor releases the lock; the empty file stays */
	if (o->lock_fd >= 0)
		close(o->lock_fd);
	o->lock_fd = -1;
}

/* "+" and @s, each character a folder name takes as it is, onto @tag. */
static void tag_add(char *tag, size_t size, const char *s, size_t len)
{
	size_t at = strlen(tag);

	if (at + 1 < size)
		tag[at++] = '+';
	for (size_t i = 0; i < len && at + 1 < size; i++) {
		char c = s[i];

		tag[at++] = isalnum((unsigned char)c) || strchr(".,=-_", c) ? c : '_';
	}
	tag[at] = '\0';
}

int outdir_default(char *buf, const char *name, const char *const *withs, size_t n_withs,
		   const char *const *sets, size_t n_sets)
{
	char tag[OUTDIR_PATH] = "", hex[SHA256_HEX];

	for (size_t i = 0; i < n_withs; i++) {
		const char *base = strrchr(withs[i], '/'), *dot;

		base = base ? base + 1 : withs[i];
		dot = strrchr(base, '.');
		tag_add(tag, sizeof(tag), base,
			dot && dot != base && (!strcmp(dot, ".yaml") || !strcmp(dot, ".yml"))
			    ? (size_t)(dot - base)
			    : strlen(base));
	}
	for (size_t i = 0; i < n_sets; i++)
		tag_add(tag, sizeof(tag), sets[i], strlen(sets[i]));
	if (strlen(tag) > 80) {
		sha256_hex(tag, strlen(tag), hex);
		snprintf(tag + 64, sizeof(tag) - 64, "+%.8s", hex);
	}
	return snprintf(buf, OUTDIR_PATH, "out/%s%s", name, tag) >= OUTDIR_PATH ? -ENAMETOOLONG : 0;
}
