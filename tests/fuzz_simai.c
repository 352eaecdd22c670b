/*
 * libFuzzer harness for the reader of SimAI workload files
 * (sim/readers/simai.c; the files AICB writes for aliyun/SimAI). Every
 * input is read from the text with simai_parse for an even length, from a
 * scratch file with simai_read for an odd one. A success must keep the
 * promises of simai.h (a kind; a layer at least, in line order, named, each
 * collective with the group its kind and phase allow, times that convert to
 * picoseconds without overflow, HYBRID_CUSTOMIZED's kind on its layers
 * only; the header's values above 0 and dividing as they must, the
 * checkpoints naming layers, the ignored words within their buffer); a
 * refusal must carry a one-line message and a line inside the text, and
 * leave nothing to free. Crashes, leaks, UB and broken promises (abort) are
 * the findings; refusals are expected.
 *
 * A comment in the input steers what the text alone cannot: "#nofile"
 * names a file that does not exist (for an odd length).
 *
 * A last line "#failalloc N" (or "N+") makes the N-th allocation (and
 * every later one) of the reader call fail (tests/fuzz/oom.h): it must then
 * refuse with -ENOMEM. The line is stripped before the text is read.
 *
 * Not part of the meson build (it needs clang's -fsanitize=fuzzer): `make
 * fuzz` builds it with every library source below the command line and
 * runs it on its seeds (tests/fuzz/run.sh; `tests/fuzz/run.sh simai` runs
 * this one alone). A crash, leak or timeout is kept in
 * build-fuzz/simai/findings/; replay it with `build-fuzz/simai/fuzz_simai
 * FILE`.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FUZZ_NAME "fuzz_simai"

#include "sim/readers/simai.h"
#include "tests/fuzz/harness.h"
#include "tests/fuzz/oom.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[4096], file[4200], missing[4200];

static void cleanup(void)
{
	unlink(file);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_scratch(dir, sizeof(dir), "simai");
	snprintf(file, sizeof(file), "%s/workload.txt", dir);
	snprintf(missing, sizeof(missing), "%s/missing.txt", dir);
	atexit(cleanup);
	return 0;
}

/* A refusal @err with @d, of a text of @lines lines read from @path. */
static void check_refusal(int err, const struct diag *d, const char *path, int lines)
{
	char line[1024];

	fuzz_check(err < 0, "a negative error");
	fuzz_check(d->msg[0] || err == -ENOMEM, "a refusal carries a message (-ENOMEM need not)");
	fuzz_check(!d->file[0] || !strcmp(d->file, path), "the error names the file or none");
	fuzz_check(d->line >= 0 && d->line <= lines + 1, "the error line is in the text");
	diag_str(d, line, sizeof(line));
	fuzz_check(!strchr(line, '\n'), "the error is one line");
}

/* Phase @p (0 fwd, 1 ig, 2 wg) keeps the promises of simai.h. */
static void check_phase(const struct simai_phase *p, int ph)
{
	fuzz_check(p->compute <= UINT64_MAX / SIMTIME_NS, "a compute time in picoseconds fits");
	if (p->coll == SIMAI_COLL_NONE || p->coll == SIMAI_BROADCAST) {
		fuzz_check(p->group == SIMAI_GROUP_NONE, "no group where no collective runs");
		return;
	}
	fuzz_check(p->coll >= SIMAI_ALLREDUCE && p->coll <= SIMAI_ALLTOALL, "a known collective");
	fuzz_check(p->group == SIMAI_GROUP_EP || p->group == SIMAI_GROUP_DP_EP ||
		       p->group == (ph == 2 ? SIMAI_GROUP_DP : SIMAI_GROUP_TP),
		   "bare: TP forward and input gradient, DP weight gradient");
}

static void check_workload(const struct simai_workload *w)
{
	const uint32_t sizes = SIMAI_HAS_TP | SIMAI_HAS_EP | SIMAI_HAS_PP | SIMAI_HAS_VPP |
			       SIMAI_HAS_GA | SIMAI_HAS_ALL_GPUS;
	int transformer =
	    w->kind == SIMAI_HYBRID_TRANSFORMER || w->kind == SIMAI_HYBRID_TRANSFORMER_FWD_IN_BCKWD;

	fuzz_check(w->kind > SIMAI_KIND_NONE && w->kind <= SIMAI_DISTRIBUTED_INFERENCE, "a kind");
	fuzz_check(simai_kind_name(w->kind)[0] != '?', "the kind has a name");
	fuzz_check(transformer || !(w->given & sizes), "group sizes read for transformers only");
	fuzz_check(w->kind == SIMAI_HYBRID_TRANSFORMER_FWD_IN_BCKWD ||
		       !(w->given & (SIMAI_HAS_CHECKPOINTS | SIMAI_HAS_CHECKPOINT_INITIATES)),
		   "checkpoints read for HYBRID_TRANSFORMER_FWD_IN_BCKWD only");
	fuzz_check(w->ep >= 1 && w->pp >= 1 && w->vpp >= 1 && w->ga >= 1, "sizes of at least 1");
	fuzz_check(!(w->given & SIMAI_HAS_TP) || w->tp >= 1, "a TP size given is at least 1");
	if ((w->given & SIMAI_HAS_TP) && (w->given & SIMAI_HAS_ALL_GPUS))
		fuzz_check(w->all_gpus % (w->tp * w->pp) == 0 &&
			       (w->all_gpus / (w->tp * w->pp)) % w->ep == 0,
			   "tp * pp divides all_gpus, ep the data-parallel size");
	fuzz_check(!(w->given & SIMAI_HAS_PP) || (w->pp > 1) == (w->pp_comm > 0),
		   "pp_comm with pipeline stages only");
	fuzz_check(strlen(w->ignored) < sizeof(w->ignored), "the ignored words in their buffer");
	fuzz_check(!w->n_checkpoints || w->checkpoints, "the checkpoints are there");
	for (uint32_t i = 0; i < w->n_checkpoints; i++)
		fuzz_check(w->checkpoints[i] < w->n_layers, "checkpoints name layers");
	for (uint32_t i = 0; i < w->n_checkpoint_initiates; i++)
		fuzz_check(w->checkpoint_initiates[i] < w->n_layers, "initiates name layers");
	fuzz_check(w->n_layers >= 1 && w->layers, "a layer");
	for (uint32_t i = 0; i < w->n_layers; i++) {
		const struct simai_layer *l = &w->layers[i];

		fuzz_check(l->name[0] && strlen(l->name) < sizeof(l->name), "a name in its buffer");
		fuzz_check(l->line > 2 && (!i || l->line > w->layers[i - 1].line),
			   "layers in line order, after the count");
		check_phase(&l->fwd, 0);
		check_phase(&l->ig, 1);
		check_phase(&l->wg, 2);
		fuzz_check(l->update <= UINT64_MAX / SIMTIME_NS, "an update time that fits");
		fuzz_check((l->custom != SIMAI_KIND_NONE) == (w->kind == SIMAI_HYBRID_CUSTOMIZED),
			   "a layer's own kind in HYBRID_CUSTOMIZED files only");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct simai_workload w;
	struct diag d = {0};
	struct fuzz_oom o;
	const char *path = file;
	int by_file, lines = 1, err, failed;

	size = fuzz_oom_strip(data, size, &o);
	/* the reader ends a line at a NUL byte too */
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n' || data[i] == '\0';
	by_file = size % 2;
	if (by_file) {
		fuzz_put(file, data, size);
		if (fuzz_has(data, size, "#nofile"))
			path = missing;
	}
	fuzz_oom_arm(&o);
	err = by_file ? simai_read(path, "workload.file", &w, &d)
		      : simai_parse(path, (const char *)data, size, "workload.file", &w, &d);
	failed = fuzz_oom_disarm(&o);
	fuzz_oom_check(failed, err, &d, by_file ? "simai_read" : "simai_parse");
	if (err) {
		check_refusal(err, &d, path, lines);
		fuzz_check(!w.layers && !w.n_layers && !w.checkpoints && !w.checkpoint_initiates,
			   "a refusal leaves nothing to free");
	} else {
		check_workload(&w);
		simai_free(&w);
	}
	fuzz_oom_done(&o);
	return 0;
}
