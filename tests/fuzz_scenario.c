/*
 * libFuzzer harness for the scenario loader: the input is a scenario text.
 * It is loaded three times: with scn_load_text alone; from a file (as `run`
 * and, leniently, `check` load it, or as an overlay, `--with`, onto
 * tests/fuzz/configs/overlay-base.yaml) with fixed --set overrides; and with
 * scn_load_text and the override that a "#set KEY=VALUE" line of the input
 * gives (a YAML comment, so the fuzzer can steer --set paths). An input
 * loaded as an overlay is also loaded as the scenario that overlay-base.yaml
 * is merged onto. When a load
 * succeeds and the topology is small, the topology is built and the scenario
 * resolved against it, as `rocesim run` does before simulating, and the pairs
 * the deadlock check takes are listed; as `check` does, the DSCPs of its
 * traffic are listed and the keys a config file may give are traced to
 * their origin. Every error is formatted as the CLI
 * would print it. Crashes, leaks and UB are the findings; refusals are
 * expected.
 *
 * A last line "#failalloc N" (or "N+") makes the N-th allocation (and every
 * later one) of each load, with what follows it, fail (tests/fuzz/oom.h):
 * the first error must then be -ENOMEM. The line is stripped first.
 *
 * The text is loaded as if it were tests/fuzz/configs/fuzz.yaml (the file
 * load is of a scratch folder in $TMPDIR, else /tmp, that mirrors that
 * folder with symbolic links; removed at exit), so that
 * switch.sonic, nic.mlnx_qos, nic.cc_params, workload.pod and topology.file
 * can name the good and broken real configs kept there ("sonic/pool-no-size.json",
 * "cc/bad-value", "../../../topologies/triangle.yaml"): errors from inside a
 * config file are fuzzed too. A file named by the input is only read when
 * it is missing, or a folder or regular file of at most 1 MB inside the
 * repository's tests/, experiments/ or topologies/: never a FIFO, a device
 * or a file elsewhere (an input naming one is skipped). The repository is
 * $ROCESIM_SRC, else the current folder.
 *
 * Not part of the meson build (it needs clang's -fsanitize=fuzzer): `make
 * fuzz` builds it with every library source below the command line and
 * runs it on its seeds (tests/fuzz/run.sh; `tests/fuzz/run.sh scenario` runs
 * this one alone). A crash, leak or timeout is kept in
 * build-fuzz/scenario/findings/; replay it with
 * `build-fuzz/scenario/fuzz_scenario FILE`, or copy it to tests/fuzz/configs/
 * and run `build/rocesim run tests/fuzz/configs/FILE`.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/config/scenario.h"
#include "sim/readers/ydoc.h"
#include "tests/fuzz/oom.h"
#include "topologies/cbd.h"
#include "topologies/topo.h"
#include "sim/readers/topo_read.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Building more than this is slow, not interesting: skip it. */
#define FUZZ_MAX_HOSTS 2000u
#define FUZZ_MAX_LINKS 20000u
#define FUZZ_MAX_FILE (1u << 20)
/* libcyaml replays an alias event by event, quadratic under ASan: a topology
 * file of 196 KB of aliases (tests/fuzz/topofile/seeds) takes minutes */
#define FUZZ_MAX_TOPO_FILE (16u << 10)

/* The folder the text stands in, the name it is loaded as, where files may be read. */
static char configs[PATH_MAX], name[PATH_MAX + 16];
static char allowed[3][PATH_MAX];
/* The scratch folder that mirrors configs[], and the file written there. */
static char scratch[PATH_MAX], scratch_file[PATH_MAX + 16];
/* The scenario an input is merged onto when it is loaded as an overlay. */
static char base_file[PATH_MAX + 32];

/* Remove the links and the file of the scratch folder, then the folder. */
static void cleanup(void)
{
	char path[2 * PATH_MAX];
	struct dirent *de;
	DIR *dir = opendir(scratch);

	while (dir && (de = readdir(dir))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", scratch, de->d_name);
			unlink(path);
		}
	}
	if (dir)
		closedir(dir);
	rmdir(scratch);
}

/* The scratch folder: a link to every entry of configs[]. */
static void make_scratch(void)
{
	const char *tmp = getenv("TMPDIR");
	char from[2 * PATH_MAX], to[2 * PATH_MAX];
	struct dirent *de;
	DIR *dir;

	snprintf(scratch, sizeof(scratch), "%s/fuzz-scenario-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	if (!mkdtemp(scratch)) {
		perror("fuzz_scenario: mkdtemp");
		exit(1);
	}
	atexit(cleanup);
	snprintf(scratch_file, sizeof(scratch_file), "%s/fuzz.yaml", scratch);
	snprintf(base_file, sizeof(base_file), "%s/overlay-base.yaml", scratch);
	dir = opendir(configs);
	while (dir && (de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(from, sizeof(from), "%s/%s", configs, de->d_name);
		snprintf(to, sizeof(to), "%s/%s", scratch, de->d_name);
		if (symlink(from, to)) {
			perror(to);
			exit(1);
		}
	}
	if (dir)
		closedir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const dirs[] = {"tests", "experiments", "topologies"};
	const char *src = getenv("ROCESIM_SRC");
	char path[PATH_MAX];

	(void)argc;
	(void)argv;
	if (!src || !src[0])
		src = ".";
	snprintf(path, sizeof(path), "%s/tests/fuzz/configs", src);
	if (!realpath(path, configs)) {
		fprintf(stderr,
			"fuzz_scenario: no %s: run from the source root or set ROCESIM_SRC\n",
			path);
		exit(1);
	}
	snprintf(name, sizeof(name), "%s/fuzz.yaml", configs);
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", src, dirs[i]);
		if (!realpath(path, allowed[i])) {
			perror(path);
			exit(1);
		}
	}
	make_scratch();
	return 0;
}

/*
 * May the loader read @value (as the scenario names it: relative to the
 * folder @base of the scenario, or to the current folder when --set gives
 * it, @base NULL)? Yes when it does not resolve (the reader says it cannot
 * open it), or when it is a folder or a small regular file in the
 * repository; no for anything else, FIFOs and devices above all.
 */
static int safe_path(const char *value, const char *base)
{
	char path[2 * PATH_MAX], real[PATH_MAX];
	struct stat st;

	if (value[0] == '/' || !base)
		snprintf(path, sizeof(path), "%s", value);
	else
		snprintf(path, sizeof(path), "%s/%s", base, value);
	if (!realpath(path, real))
		return 1;
	if (stat(real, &st) ||
	    !(S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && st.st_size <= FUZZ_MAX_FILE)))
		return 0;
	for (int i = 0; i < 3; i++) {
		size_t n = strlen(allowed[i]);

		if (!strncmp(real, allowed[i], n) && (real[n] == '/' || !real[n]))
			return 1;
	}
	return 0;
}

/* Keys whose value is a file the loader reads. */
static int is_file_key(const char *path)
{
	static const char *const keys[] = {"sonic", "mlnx_qos", "cc_params", "pod", "file"};
	const char *last = strrchr(path, '.');

	last = last ? last + 1 : path;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(last, keys[i]))
			return 1;
	return 0;
}

/*
 * Does every file key of @text (wherever it stands: an anchored mapping may
 * be aliased under switch:) and of the --set @kv name a safe path, for a
 * scenario in the folder @base? An alias as such a value is not followed
 * here: no.
 */
static int safe_text(const char *text, size_t len, const char *kv, const char *base)
{
	struct ydoc *y = NULL;
	struct diag d = {0};
	char key[256];
	int ok = 1;

	if (kv) {
		size_t n = strcspn(kv, "=");

		snprintf(key, sizeof(key), "%.*s", (int)n, kv);
		if (is_file_key(key) && !safe_path(kv + n + 1, NULL))
			return 0;
	}
	if (ydoc_parse(name, text, len, &y, &d))
		return 1; /* the loader stops at the same error, before any file */
	if (strcmp(ydoc_file(y), name))
		abort(); /* the index names the file it read */
	for (size_t i = 0; ok && i < ydoc_count(y); i++) {
		const struct ydoc_entry *e = ydoc_at(y, i);

		if (e->value && is_file_key(e->path))
			ok = strcmp(e->value, "*") && safe_path(e->value, base);
	}
	ydoc_free(y);
	return ok;
}

static uint64_t mul(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* Is building @t cheap enough for a fuzzing run? */
static int small_enough(const struct topo_spec *t)
{
	uint64_t hosts = 0, links = 0;
	struct stat st;

	switch (t->kind) {
	case TOPO_STAR:
		hosts = t->hosts;
		links = hosts;
		break;
	case TOPO_LEAF_SPINE:
		hosts = mul(t->leaves, t->hosts_per_leaf);
		links = hosts + mul(mul(t->leaves, t->spines), t->parallel);
		break;
	case TOPO_FAT_TREE:
		if (t->k > 16)
			return 0;
		hosts = mul(mul(t->k, t->k), t->k) / 4;
		links = 3 * hosts;
		break;
	case TOPO_RING:
		hosts = mul(t->switches, t->hosts_per_switch);
		links = hosts + t->switches;
		break;
	case TOPO_FILE:
		/* only missing or small regular files: not /dev/zero, not a FIFO */
		return t->file && safe_path(t->file, NULL) &&
		       (stat(t->file, &st) ||
			(S_ISREG(st.st_mode) && st.st_size <= FUZZ_MAX_TOPO_FILE));
	}
	return hosts <= FUZZ_MAX_HOSTS && links <= FUZZ_MAX_LINKS;
}

/* Write @len bytes of @text to the scratch file; 0 or -1. */
static int put(const char *text, size_t len)
{
	int fd = open(scratch_file, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0)
		return -1;
	while (len) {
		ssize_t n = write(fd, text, len);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		text += n;
		len -= (size_t)n;
	}
	return close(fd);
}

/*
 * Where keys of @s come from, as `check` says it (scn_origin) and as `run`
 * places the fabric's refusal of one (scn_locate): the keys a config file
 * or an overlay may give.
 */
static void locate_keys(const struct scenario *s)
{
	static const char *const keys[] = {
	    "switch.buffer.size",  "switch.buffer.headroom_pool",
	    "switch.pfc.xoff",	   "switch.ecn.kmin",
	    "switch.dscp_to_tc.3", "nic.pfc",
	    "nic.dscp2prio.26",	   "nic.dcqcn.rpg_ai_rate",
	    "topology.link.rate",  "workload.size",
	    "workload[0].size",	   "faults[0].at",
	};
	char line[1024];

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		struct diag d = {0};

		scn_origin(s, keys[i]);
		snprintf(d.path, sizeof(d.path), "%s", keys[i]);
		snprintf(d.msg, sizeof(d.msg), "refused");
		scn_locate(s, &d);
		diag_str(&d, line, sizeof(line));
	}
}

/* What `check` and `run` ask of a scenario that resolved against @t; 0 or -ENOMEM. */
static int after_resolve(const struct scenario *s, const struct topo *t)
{
	struct cbd_pair *pairs = NULL;
	size_t n = 0;
	int err;

	for (uint32_t i = 0; i < s->wl.n_flows; i++)
		if (s->wl.flows[i].src >= t->n_hosts || s->wl.flows[i].dst >= t->n_hosts)
			abort(); /* resolve must only give hosts that exist */
	for (uint32_t i = 0; i < s->n_faults; i++) {
		const char *node = scn_fault_node(s, s->fault_of[i]);

		if (s->faults[i].link >= t->n_links)
			abort();
		if (node && topo_find_node(t, node) < 0)
			abort(); /* a node_down names a node that exists */
	}
	for (uint32_t i = 0; i < s->n_colls; i++)
		for (uint32_t r = 0; r < s->colls[i].n_ranks; r++)
			if (s->colls[i].ranks[r] >= t->n_gpus)
				abort(); /* ranks are GPUs that exist */
	(void)scn_lossless(s);		 /* what the run's deadlock analysis asks */
	err = scn_pairs(s, &pairs, &n);
	for (size_t i = 0; !err && i < n; i++)
		if (pairs[i].src >= t->n_hosts || pairs[i].dst >= t->n_hosts)
			abort(); /* pairs of hosts that exist */
	free(pairs);
	return err;
}

/* How one() loads the input. */
enum how {
	TEXT,	     /* scn_load_text */
	FILE_BY_LEN, /* the scratch file: as an overlay onto base_file for a length that is
			a multiple of 3, else with scn_load for an odd length, else leniently */
	BASE,	     /* the scratch file, with base_file merged onto it as an overlay */
};

/*
 * Load @text as @how says, list its traffic's DSCPs as `check` does, then
 * build, resolve and list the pairs when the topology is small, with the
 * allocation failure @o asks for.
 */
static void one(const char *text, size_t len, const char *const *sets, size_t n_sets, enum how how,
		struct fuzz_oom *o)
{
	struct scenario *s = NULL;
	struct scn_dscp *dscps = NULL;
	struct topo *t = NULL;
	struct diag d = {0};
	char line[1024];
	size_t n_dscps = 0;
	int err, failed;

	fuzz_oom_arm(o);
	if (how == TEXT) {
		err = scn_load_text(name, text, len, sets, n_sets, &s, &d);
	} else if (how == BASE) {
		const char *const overlays[] = {base_file};
		const struct scn_load_opts lo = {overlays, 1, sets, n_sets, 0};

		err = scn_load_with(scratch_file, &lo, &s, &d);
	} else if (len % 3 == 0) {
		/* the input as an overlay (--with) onto a fixed scenario */
		const char *const overlays[] = {scratch_file};
		const struct scn_load_opts lo = {overlays, 1, sets, n_sets, 0};

		err = scn_load_with(base_file, &lo, &s, &d);
	} else if (len % 2) {
		err = scn_load(scratch_file, sets, n_sets, &s, &d);
	} else {
		err = scn_load_ex(scratch_file, sets, n_sets, SCN_LOAD_LENIENT, &s, &d);
	}
	if (err) {
		failed = fuzz_oom_disarm(o);
		fuzz_oom_check(failed, err, &d, "loading the scenario");
		if (s)
			abort(); /* a failed load hands nothing back */
		diag_str(&d, line, sizeof(line));
		return;
	}
	err = scn_data_dscps(s, &dscps, &n_dscps);
	for (size_t i = 0; !err && i < n_dscps; i++)
		if (dscps[i].dscp > 63 || !memchr(dscps[i].path, '\0', sizeof(dscps[i].path)))
			abort();
	free(dscps);
	if (!err)
		locate_keys(s);
	if (!err && small_enough(&s->topo)) {
		err = topo_build(&s->topo, &t, &d);
		if (err)
			scn_locate(s, &d);
		else
			err = scn_resolve(s, t, &d);
		if (err)
			diag_str(&d, line, sizeof(line));
		else
			err = after_resolve(s, t);
		topo_free(t);
	}
	failed = fuzz_oom_disarm(o);
	fuzz_oom_check(failed, err, &d, "building and resolving the scenario");
	scn_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const fixed[] = {
	    "topology.link.rate=40Gbps",
	    "seed=7",
	    "expect.fct_us.p99.max=100",
	};
	const char *text = (const char *)data;
	const char *mark, *sets[1];
	struct fuzz_oom o;
	char kv[256];
	int have_set = 0;

	size = fuzz_oom_strip(data, size, &o);

	for (mark = text; mark + 5 <= text + size && memcmp(mark, "#set ", 5); mark++)
		;
	if (mark + 5 <= text + size) {
		size_t n = 0;

		mark += 5;
		while (mark + n < text + size && n < sizeof(kv) - 1 && mark[n] != '\n' &&
		       mark[n] != '\0')
			n++;
		memcpy(kv, mark, n);
		kv[n] = '\0';
		sets[0] = kv;
		/* the CLI only passes KEY=VALUE on */
		have_set = strchr(kv, '=') != NULL;
	}
	if (!safe_text(text, size, have_set ? kv : NULL, configs))
		return 0;
	one(text, size, NULL, 0, TEXT, &o);
	if (safe_text(text, size, NULL, scratch) && !put(text, size)) {
		one(text, size, fixed, sizeof(fixed) / sizeof(fixed[0]), FILE_BY_LEN, &o);
		if (size % 3 == 0)
			one(text, size, NULL, 0, BASE, &o);
	}
	if (have_set)
		one(text, size, sets, 1, TEXT, &o);
	fuzz_oom_done(&o);
	return 0;
}
