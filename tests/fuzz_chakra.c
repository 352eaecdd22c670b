/*
 * libFuzzer harness for the reader of Chakra execution traces
 * (sim/readers/chakra.c, chakra_dir.c: MLCommons Chakra's .et files, a
 * stream of length-delimited protobuf messages). An input of even length
 * is parsed from memory with chakra_parse; one of odd length is written as
 * rank 0 of a scratch folder ("w.0.et") and read with chakra_read_dir,
 * which reads it with chakra_read. A success must keep the promises of
 * chakra.h (a node at least, deps naming nodes of the file and no cycle
 * of data deps, collectives with a known comm_type, names one printable
 * line, the skipped counts those of the CHAKRA_OTHER nodes); a refusal
 * must carry a one-line message naming the file (or the folder) and leave
 * nothing to free. Crashes, leaks, UB and broken promises (abort) are the
 * findings; refusals are expected.
 *
 * A last line "#failalloc N" (or "N+") makes the N-th allocation (and
 * every later one) of each reader call fail (tests/fuzz/oom.h): it must
 * then refuse with -ENOMEM. The line is stripped before the input is read.
 *
 * Not part of the meson build (it needs clang's -fsanitize=fuzzer): `make
 * fuzz` builds it (tests/fuzz/run.sh, which compiles the schema with
 * protoc-c first) and runs it on its seeds: the real traces of
 * tests/chakra and tests/fuzz/chakra/seeds; `tests/fuzz/run.sh chakra`
 * runs this one alone.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FUZZ_NAME "fuzz_chakra"

#include "sim/readers/chakra.h"
#include "tests/fuzz/harness.h"
#include "tests/fuzz/oom.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[4096], file[4200];

static void cleanup(void)
{
	unlink(file);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_scratch(dir, sizeof(dir), "chakra");
	snprintf(file, sizeof(file), "%s/w.0.et", dir);
	atexit(cleanup);
	return 0;
}

static void check_text(const char *s, size_t size)
{
	fuzz_check(memchr(s, '\0', size) != NULL, "names end in a NUL");
	for (; *s; s++)
		fuzz_check((unsigned char)*s >= 0x20 && *s != 0x7f, "names are one printable line");
}

/* The promise of chakra.h that a cycle of data deps is refused. */
static void check_acyclic(const struct chakra_trace *t)
{
	uint8_t *state = calloc(t->n, 1); /* 0 new, 1 on the path, 2 done */
	uint32_t *stack = malloc(t->n * sizeof(*stack)), *next = calloc(t->n, sizeof(*next));

	fuzz_check(state && stack && next, "memory for the check");
	for (uint32_t r = 0; r < t->n; r++) {
		uint32_t top = 0;

		if (state[r])
			continue;
		stack[top++] = r;
		state[r] = 1;
		while (top) {
			uint32_t i = stack[top - 1];

			if (next[i] == t->nodes[i].n_data_deps) {
				state[i] = 2;
				top--;
				continue;
			}
			uint32_t p = t->nodes[i].data_deps[next[i]++];

			fuzz_check(state[p] != 1, "no cycle of data deps");
			if (!state[p]) {
				state[p] = 1;
				stack[top++] = p;
			}
		}
	}
	free(state);
	free(stack);
	free(next);
}

static void check_trace(const struct chakra_trace *t)
{
	uint32_t other = 0, skipped = 0;

	fuzz_check(t->n >= 1 && t->nodes, "a node");
	check_text(t->version, sizeof(t->version));
	check_text(t->schema, sizeof(t->schema));
	for (uint32_t i = 0; i < t->n; i++) {
		const struct chakra_node *n = &t->nodes[i];

		check_text(n->name, sizeof(n->name));
		check_text(n->pg_name, sizeof(n->pg_name));
		fuzz_check(n->kind <= CHAKRA_OTHER, "a kind");
		other += n->kind == CHAKRA_OTHER;
		fuzz_check(n->kind != CHAKRA_COMM_COLL || (unsigned)n->coll < CHAKRA_COLLS,
			   "collectives of a known comm_type");
		fuzz_check(n->n_dims <= 64, "at most 64 dimensions");
		fuzz_check(n->duration % SIMTIME_US == 0, "durations in whole microseconds");
		fuzz_check(n->is_cpu_op <= 1, "is_cpu_op 0 or 1");
		for (uint32_t k = 0; k < n->n_data_deps; k++)
			fuzz_check(n->data_deps[k] < t->n, "data deps name nodes of the file");
		for (uint32_t k = 0; k < n->n_ctrl_deps; k++)
			fuzz_check(n->ctrl_deps[k] < t->n, "control deps name nodes of the file");
		for (uint32_t k = 0; k < i && t->n <= 4096; k++)
			fuzz_check(t->nodes[k].id != n->id, "ids unique");
	}
	for (int k = 0; k < CHAKRA_TYPES; k++)
		skipped += t->skipped[k];
	fuzz_check(skipped == other, "the skipped counts are those of the other nodes");
	check_acyclic(t);
}

static void check_refusal(int err, const struct diag *d, const char *path)
{
	char line[1024];

	fuzz_check(err < 0, "a negative error");
	fuzz_check(d->msg[0] || err == -ENOMEM, "a refusal carries a message (-ENOMEM need not)");
	fuzz_check(!d->file[0] || !strncmp(d->file, path, strlen(path)),
		   "the error names the file, the folder or none");
	diag_str(d, line, sizeof(line));
	fuzz_check(!strchr(line, '\n'), "the error is one line");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_oom o;
	struct diag d = {0};
	int err, failed;

	size = fuzz_oom_strip(data, size, &o);
	if (size % 2) {
		struct chakra_ranks r;

		fuzz_put(file, data, size);
		fuzz_oom_arm(&o);
		err = chakra_read_dir(dir, "workload.traces", &r, &d);
		failed = fuzz_oom_disarm(&o);
		fuzz_oom_check(failed, err, &d, "chakra_read_dir");
		if (err) {
			check_refusal(err, &d, dir);
			fuzz_check(!r.ranks && !r.n, "a refusal leaves nothing to free");
		} else {
			fuzz_check(r.n == 1 && !strcmp(r.prefix, "w"), "the one rank w.0.et");
			check_trace(&r.ranks[0]);
			chakra_ranks_free(&r);
		}
	} else {
		struct chakra_trace t;

		fuzz_oom_arm(&o);
		err = chakra_parse("w.0.et", data, size, "workload.trace", &t, &d);
		failed = fuzz_oom_disarm(&o);
		fuzz_oom_check(failed, err, &d, "chakra_parse");
		if (err) {
			check_refusal(err, &d, "w.0.et");
			fuzz_check(!t.nodes && !t.n, "a refusal leaves nothing to free");
		} else {
			check_trace(&t);
			chakra_free(&t);
		}
	}
	fuzz_oom_done(&o);
	return 0;
}
