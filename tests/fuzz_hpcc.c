/*
 * libFuzzer harness for the readers of HPCC's ns-3 files: the topology
 * file (sim/readers/topo_hpcc.c, simulation/mix/topology.txt of
 * alibaba-edu/High-Precision-Congestion-Control, `topology: {kind:
 * hpcc}`) and the flow file (sim/readers/hpcc_flows.c, simulation/mix/
 * flow.txt, `workload: {kind: hpcc}`). Every input is read both ways: as a
 * topology (from the text with topo_hpcc_parse for an even length, from a
 * scratch file with topo_hpcc_read for an odd one; when it parses, the
 * scratch file is also built into a topology with topo_hpcc_load, as `run`
 * does) and as a flow file (hpcc_flows_parse or hpcc_flows_read, by the
 * same rule). A success must keep the promises of topo.h and hpcc_flows.h
 * (node ids in range, the switches announced, every host one link, links
 * with a rate; the built topology with those nodes and links, hosts named
 * h<id> and switches s<id>; flows between two nodes, pg 0..7, bytes above
 * 0, starts from the earliest at 0); a refusal must carry a one-line
 * message and a line inside the text. Crashes, leaks, UB and broken
 * promises (abort) are the findings; refusals are expected.
 *
 * A comment in the input steers what the text alone cannot: "#nofile"
 * names a file that does not exist (for an odd length: the file readers),
 * "#nopath" gives topo_hpcc_load no path at all.
 *
 * A last line "#failalloc N" (or "N+") makes the N-th allocation (and
 * every later one) of each reader call fail (tests/fuzz/oom.h): it must
 * then refuse with -ENOMEM. The line is stripped before the text is read.
 *
 * Not part of the meson build (it needs clang's -fsanitize=fuzzer): `make
 * fuzz` builds it with every library source below the command line and
 * runs it on its seeds (tests/fuzz/run.sh; `tests/fuzz/run.sh hpcc` runs
 * this one alone). A crash, leak or timeout is kept in
 * build-fuzz/hpcc/findings/; replay it with `build-fuzz/hpcc/fuzz_hpcc FILE`.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FUZZ_NAME "fuzz_hpcc"

#include "sim/readers/hpcc_flows.h"
#include "tests/fuzz/harness.h"
#include "tests/fuzz/oom.h"
#include "topologies/topo.h"
#include "sim/readers/topo_read.h"

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
	fuzz_scratch(dir, sizeof(dir), "hpcc");
	snprintf(file, sizeof(file), "%s/topology.txt", dir);
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

static void check_hpcc(const struct topo_hpcc *h)
{
	uint32_t switches = 0, *links;

	fuzz_check(h->n_nodes >= 1 && h->n_switches < h->n_nodes, "a host");
	fuzz_check(h->is_switch && h->links, "the arrays are there");
	links = calloc(h->n_nodes, sizeof(*links));
	fuzz_check(links != NULL, "memory for the check");
	for (uint32_t i = 0; i < h->n_nodes; i++)
		switches += h->is_switch[i] != 0;
	fuzz_check(switches == h->n_switches, "the switches announced");
	for (uint32_t i = 0; i < h->n_links; i++) {
		const struct topo_hpcc_link *l = &h->links[i];

		fuzz_check(l->a < h->n_nodes && l->b < h->n_nodes && l->a != l->b,
			   "links between two nodes");
		fuzz_check(l->rate_bps > 0, "links have a rate");
		fuzz_check(l->line > 1 && (!i || l->line > h->links[i - 1].line),
			   "links in line order");
		links[l->a]++;
		links[l->b]++;
	}
	for (uint32_t i = 0; i < h->n_nodes; i++)
		fuzz_check(h->is_switch[i] || links[i] == 1, "every host has one link");
	free(links);
}

/* The topology @t built from @h. */
static void check_built(const struct topo_hpcc *h, const struct topo *t)
{
	char name[TOPO_NAME_MAX];

	fuzz_check(t->n_nodes == h->n_nodes && t->n_links == h->n_links &&
		       t->n_switches == h->n_switches && t->n_hosts == h->n_nodes - h->n_switches,
		   "the nodes and links of the file");
	for (uint32_t i = 0; i < t->n_nodes; i++) {
		topo_hpcc_name(h, i, name);
		fuzz_check(!strcmp(t->nodes[i].name, name),
			   "nodes named h<id> and s<id>, in id order");
		fuzz_check((t->nodes[i].kind == TOPO_SWITCH) == (h->is_switch[i] != 0),
			   "switches where the file says");
	}
	for (uint32_t i = 0; i < t->n_links; i++)
		fuzz_check(t->links[i].a == h->links[i].a && t->links[i].b == h->links[i].b &&
			       t->links[i].rate_bps == h->links[i].rate_bps,
			   "the links of the file, in its order");
}

static void check_flows(const struct hpcc_flows *f)
{
	simtime_t first = 0;

	fuzz_check(f->n >= 1 && f->flows, "a flow");
	for (uint32_t i = 0; i < f->n; i++) {
		const struct hpcc_flow *w = &f->flows[i];

		fuzz_check(w->src != w->dst, "flows between two nodes");
		fuzz_check(w->pg <= 7, "a priority group 0..7");
		fuzz_check(w->bytes > 0, "bytes above 0");
		fuzz_check(w->line > 1 && (!i || w->line > f->flows[i - 1].line),
			   "flows in line order");
		if (!i || w->start < first)
			first = w->start;
	}
	fuzz_check(first == 0, "starts from the earliest flow's");
}

/* The input as a topology file; @by_file: read from the scratch file. */
static void topology(const uint8_t *data, size_t size, int by_file, const char *path, int lines,
		     struct fuzz_oom *o)
{
	struct topo_spec spec = {.kind = TOPO_HPCC, .file = path};
	struct topo_hpcc h;
	struct topo *t = NULL;
	struct diag d = {0};
	int err, failed;

	fuzz_oom_arm(o);
	err = by_file ? topo_hpcc_read(path, &h, &d)
		      : topo_hpcc_parse(path, (const char *)data, size, &h, &d);
	failed = fuzz_oom_disarm(o);
	fuzz_oom_check(failed, err, &d, by_file ? "topo_hpcc_read" : "topo_hpcc_parse");
	if (err) {
		check_refusal(err, &d, path, lines);
		fuzz_check(!h.is_switch && !h.links && !h.n_links,
			   "a refusal leaves nothing to free");
		return;
	}
	check_hpcc(&h);
	if (fuzz_has(data, size, "#nopath"))
		spec.file = "";
	memset(&d, 0, sizeof(d));
	fuzz_oom_arm(o);
	err = topo_hpcc_load(&spec, &t, &d);
	failed = fuzz_oom_disarm(o);
	fuzz_oom_check(failed, err, &d, "topo_hpcc_load");
	if (err) {
		/* a file read twice the same: only the build may refuse it (ports) */
		fuzz_check(!t, "a refusal hands nothing back");
		check_refusal(err, &d, spec.file, lines);
	} else {
		check_built(&h, t);
	}
	topo_free(t);
	topo_hpcc_free(&h);
}

/* The input as a flow file; @by_file: read from the scratch file. */
static void flows(const uint8_t *data, size_t size, int by_file, const char *path, int lines,
		  struct fuzz_oom *o)
{
	struct hpcc_flows f;
	struct diag d = {0};
	int err, failed;

	fuzz_oom_arm(o);
	err = by_file ? hpcc_flows_read(path, "workload.file", &f, &d)
		      : hpcc_flows_parse(path, (const char *)data, size, "workload.file", &f, &d);
	failed = fuzz_oom_disarm(o);
	fuzz_oom_check(failed, err, &d, by_file ? "hpcc_flows_read" : "hpcc_flows_parse");
	if (err) {
		check_refusal(err, &d, path, lines);
		fuzz_check(!f.flows && !f.n, "a refusal leaves nothing to free");
		return;
	}
	check_flows(&f);
	hpcc_flows_free(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_oom o;
	const char *path = file;
	int by_file, lines = 1;

	size = fuzz_oom_strip(data, size, &o);
	/* the readers end a line at a NUL byte too */
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n' || data[i] == '\0';
	/* the file topo_hpcc_load builds, however the text was read */
	fuzz_put(file, data, size);
	by_file = size % 2;
	if (by_file && fuzz_has(data, size, "#nofile"))
		path = missing;
	topology(data, size, by_file, path, lines, &o);
	flows(data, size, by_file, path, lines, &o);
	fuzz_oom_done(&o);
	return 0;
}
