/*
 * libFuzzer harness for the topology-file reader (sim/readers/topofile.c):
 * the input is the text of a topology file, written to a file of its own
 * in a scratch folder (the reader takes a path) and loaded with
 * topo_file_load, as `topology: {kind: file}` does. A success must be a
 * topology topo.h promises (every host linked, ports and links that point
 * at each other, names found again by the lookups); a refusal must carry a
 * message and a line inside the text. Crashes, leaks, UB and
 * broken promises (abort) are the findings; refusals are expected.
 *
 * A comment in the input steers what the text alone cannot: "#rate0" loads
 * it with topology.link and topology.uplink at rate 0 (links without a
 * rate of their own are then refused), "#nofile" names a file that does
 * not exist, "#nopath" gives no path at all. "#ports65536" loads instead a
 * file of 65536 links between the same two nodes, more than a node may have
 * (written out: an alias may not stand for that many); it takes seconds
 * under ASan, so it works only with FUZZ_SLOW set in the environment, as
 * run.sh sets it to replay tests/fuzz/topofile/replay/ through the coverage
 * build: fuzzing never makes it.
 *
 * A last line "#failalloc N" (or "N+") makes the reader's N-th allocation
 * (and every later one) fail (tests/fuzz/oom.h): it must then refuse with
 * -ENOMEM. The line is stripped before the text is written.
 *
 * Not part of the meson build (it needs clang's -fsanitize=fuzzer): `make
 * fuzz` builds it with every library source below the command line and
 * runs it on its seeds (tests/fuzz/run.sh; `tests/fuzz/run.sh topofile` runs
 * this one alone). A crash, leak or timeout is kept in
 * build-fuzz/topofile/findings/; replay it with `build-fuzz/topofile/fuzz_topofile FILE`.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FUZZ_NAME "fuzz_topofile"

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
	fuzz_scratch(dir, sizeof(dir), "topofile");
	snprintf(file, sizeof(file), "%s/topo.yaml", dir);
	snprintf(missing, sizeof(missing), "%s/missing.yaml", dir);
	atexit(cleanup);
	return 0;
}

/* The scratch file: a host and a switch, and 65536 links between them. */
static void put_ports_65536(void)
{
	/* between two switches: a host has at most 64 NIC ports */
	static const char head[] = "nodes: [{name: h, kind: host}, {name: a, kind: switch},\n"
				   "        {name: s, kind: switch}]\n"
				   "links:\n- {a: h, b: a}\n";
	static const char link[] = "- {a: a, b: s}\n";
	const size_t n = sizeof(head) - 1 + 65536 * (sizeof(link) - 1);
	char *text = malloc(n), *p = text;

	fuzz_check(text != NULL, "memory for the file");
	memcpy(p, head, sizeof(head) - 1);
	p += sizeof(head) - 1;
	for (int i = 0; i < 65536; i++, p += sizeof(link) - 1)
		memcpy(p, link, sizeof(link) - 1);
	fuzz_put(file, text, n);
	free(text);
}

static void check_topo(const struct topo *t)
{
	uint32_t hosts = 0;

	fuzz_check(t->n_hosts >= 1, "a host");
	fuzz_check(t->n_hosts + t->n_switches == t->n_nodes, "every node a host or a switch");
	fuzz_check(t->n_ports == 2 * t->n_links, "two ports per link");
	for (uint32_t i = 0; i < t->n_nodes; i++) {
		const struct topo_node *n = &t->nodes[i];

		fuzz_check(memchr(n->name, '\0', sizeof(n->name)) && n->name[0], "node names");
		fuzz_check(topo_find_node(t, n->name) == (int32_t)i, "nodes are found by name");
		fuzz_check(n->first_port + n->n_ports <= t->n_ports, "ports in range");
		if (n->kind == TOPO_HOST) {
			fuzz_check(n->n_ports >= 1, "every host has a link");
			fuzz_check(n->host_index == hosts && t->hosts[hosts] == i,
				   "hosts in file order");
			fuzz_check(topo_find_host(t, n->name) == (int32_t)hosts,
				   "hosts found by name");
			hosts++;
		}
		for (uint32_t p = 0; p < n->n_ports; p++) {
			const struct topo_port *pt = &t->ports[n->first_port + p];

			fuzz_check(pt->node == i, "a port belongs to its node");
			fuzz_check(pt->link < t->n_links, "a port's link exists");
			fuzz_check(t->ports[pt->peer_port].peer_port == n->first_port + p,
				   "far ends point back");
			fuzz_check(t->ports[pt->peer_port].node == pt->peer,
				   "the peer owns the far end");
		}
	}
	fuzz_check(hosts == t->n_hosts, "host count");
	for (uint32_t i = 0; i < t->n_links; i++) {
		const struct topo_link *l = &t->links[i];

		fuzz_check(l->a != l->b, "no link to itself");
		fuzz_check(l->rate_bps > 0, "links have a rate");
		fuzz_check(t->ports[l->port_a].link == i && t->ports[l->port_b].link == i,
			   "a link's ports name it");
		fuzz_check(topo_find_link(t, l->name) == (int32_t)i, "links are found by name");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct topo_spec spec = {
	    .kind = TOPO_FILE,
	    .file = file,
	    .link = {100000000000ULL, 10000000},
	    .uplink = {400000000000ULL, 150000000},
	};
	struct topo *t = NULL;
	struct diag d = {0};
	struct fuzz_oom o;
	char line[1024];
	int err, failed, lines = 1;

	size = fuzz_oom_strip(data, size, &o);
	/* an upper bound of libyaml's count: \r, \n, NEL, LS and PS each break a line */
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n' || data[i] == '\r' ||
			 (i + 1 < size && !memcmp(data + i, "\xc2\x85", 2)) ||
			 (i + 2 < size && (!memcmp(data + i, "\xe2\x80\xa8", 3) ||
					   !memcmp(data + i, "\xe2\x80\xa9", 3)));
	if (getenv("FUZZ_SLOW") && fuzz_has(data, size, "#ports65536")) {
		put_ports_65536();
		lines = 65536 + 5;
	} else {
		fuzz_put(file, data, size);
	}
	if (fuzz_has(data, size, "#rate0"))
		spec.link.rate_bps = spec.uplink.rate_bps = 0;
	if (fuzz_has(data, size, "#nofile"))
		spec.file = missing;
	if (fuzz_has(data, size, "#nopath"))
		spec.file = "";
	fuzz_oom_arm(&o);
	err = topo_file_load(&spec, &t, &d);
	failed = fuzz_oom_disarm(&o);
	fuzz_oom_check(failed, err, &d, "topo_file_load");
	fuzz_oom_done(&o);
	if (err) {
		fuzz_check(err < 0, "a negative error");
		fuzz_check(t == NULL, "a refusal hands nothing back");
		fuzz_check(d.msg[0] || err == -ENOMEM,
			   "a refusal carries a message (-ENOMEM need not)");
		fuzz_check(!d.file[0] || !strcmp(d.file, spec.file),
			   "the error names the file or none");
		fuzz_check(d.line >= 0 && d.line <= lines + 1, "the error line is in the text");
		diag_str(&d, line, sizeof(line));
		fuzz_check(!strchr(line, '\n'), "the error is one line");
	} else {
		check_topo(t);
	}
	topo_free(t);
	return 0;
}
