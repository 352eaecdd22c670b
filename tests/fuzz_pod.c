/*
 * libFuzzer harness for the Kubernetes manifest reader: the input is a
 * manifest text, read with pod_read_text from an exact-size copy (no NUL
 * after it, so ASan sees any read past the end). A success must satisfy
 * what pod.h promises: NCCL_* names only, NUL-terminated fields, lines in
 * file order and inside the text, a value set at run time given as "" (or
 * as mpirun -x's unexpanded text), pod_get returning the last mpirun -x
 * export, else the last definition. A refusal must carry a message.
 * Crashes, leaks, UB and broken promises (abort) are the findings;
 * refusals are expected.
 *
 * A last line "#failalloc N" (or "N+") makes the reader's N-th allocation
 * (and every later one) fail (tests/fuzz/oom.h): it must then refuse with
 * -ENOMEM. The line is stripped before reading.
 *
 * Not part of the meson build (it needs clang's -fsanitize=fuzzer): `make
 * fuzz` builds it with every library source below the command line and
 * runs it on its seeds (tests/fuzz/run.sh; `tests/fuzz/run.sh pod` runs
 * this one alone). A crash, leak or timeout is kept in
 * build-fuzz/pod/findings/; replay it with `build-fuzz/pod/fuzz_pod FILE`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_NAME "fuzz_pod"

#include "sim/readers/pod.h"
#include "tests/fuzz/harness.h"
#include "tests/fuzz/oom.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pod_cfg p;
	struct diag d = {0};
	const struct pod_env *ib;
	struct fuzz_oom o;
	char *text, line[1024];
	int err, failed, lines = 1;

	size = fuzz_oom_strip(data, size, &o);
	text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	/* an upper bound of libyaml's count: \r, \n, NEL, LS and PS each break a line */
	for (size_t i = 0; i < size; i++)
		lines += text[i] == '\n' || text[i] == '\r' ||
			 (i + 1 < size && !memcmp(text + i, "\xc2\x85", 2)) ||
			 (i + 2 < size && (!memcmp(text + i, "\xe2\x80\xa8", 3) ||
					   !memcmp(text + i, "\xe2\x80\xa9", 3)));
	fuzz_oom_arm(&o);
	err = pod_read_text("fuzz.yaml", text, size, &p, &d);
	failed = fuzz_oom_disarm(&o);
	fuzz_oom_check(failed, err, &d, "pod_read_text");
	fuzz_oom_done(&o);
	if (err) {
		fuzz_check(err < 0, "negative error");
		fuzz_check(d.msg[0] || err == -ENOMEM,
			   "a refusal carries a message (-ENOMEM need not)");
		fuzz_check(!p.env && !p.n, "a refusal leaves nothing to free");
		fuzz_check(d.line >= 0 && d.line <= lines + 1, "the error line is in the text");
		diag_str(&d, line, sizeof(line));
	} else {
		fuzz_check(p.env != NULL, "a success has an env array");
		fuzz_check(terminated(p.kind, sizeof(p.kind)) && p.kind[0], "kind");
		fuzz_check(p.doc >= 1, "document index");
		for (size_t i = 0; i < p.n; i++) {
			const struct pod_env *e = &p.env[i], *g;

			fuzz_check(terminated(e->name, sizeof(e->name)) &&
				       terminated(e->value, sizeof(e->value)) &&
				       terminated(e->container, sizeof(e->container)),
				   "fields are NUL-terminated");
			fuzz_check(!strncmp(e->name, "NCCL_", 5), "NCCL_* only");
			fuzz_check(e->line >= 1 && e->line <= lines, "line inside the text");
			fuzz_check(!i || p.env[i - 1].line <= e->line, "file order");
			fuzz_check(!e->value_from || !e->value[0] || e->src == POD_SRC_MPIRUN,
				   "valueFrom has value \"\" (mpirun -x: the unexpanded text)");
			g = pod_get(&p, e->name);
			fuzz_check(g >= e || (g->src == POD_SRC_MPIRUN && e->src != POD_SRC_MPIRUN),
				   "pod_get returns the last mpirun -x, else the last definition");
		}
		fuzz_check(!pod_get(&p, "NOT_NCCL"), "pod_get of an absent name");
		ib = pod_ib_disabled(&p);
		fuzz_check(!ib || (!strcmp(ib->name, "NCCL_IB_DISABLE") &&
				   ib == pod_get(&p, ib->name) && !ib->value_from &&
				   strcmp(ib->value, "0")),
			   "pod_ib_disabled: the last NCCL_IB_DISABLE, not 0");
	}
	pod_free(&p);
	free(text);
	return 0;
}
