/*
 * `rocesim check --json`: the findings (each with its where, and its file,
 * line and key apart), the effective parameters of the switches, NICs and
 * ports (sim/run/effective.c, as results.json has them), and the deadlock
 * analysis, as one JSON object.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>

#include "sim/cli/check_out.h"
#include "sim/config/scenario.h"
#include "sim/engine/textsafe.h"
#include "sim/run/results.h"
#include "topologies/cbd.h"

static json_t *chk_json_deadlock(const struct chk *c, const struct scenario *s,
				 const struct topo *t, const struct chk_args *a)
{
	json_t *failed = json_array(), *cycles = json_array();

	for (uint32_t i = 0; failed && i < c->n_failed; i++)
		if (json_array_append_new(failed, txt_json(t->links[c->failed[i]].name))) {
			json_decref(failed);
			failed = NULL;
		}
	for (uint32_t i = 0; cycles && i < c->cbd.n_cycles; i++) {
		const struct cbd_cycle *cy = &c->cbd.cycles[i];
		json_t *ports = json_array();

		for (uint32_t k = 0; ports && k < cy->n; k++)
			if (json_array_append_new(ports, txt_json(t->ports[cy->ports[k]].name))) {
				json_decref(ports);
				ports = NULL;
			}
		if (json_array_append_new(
			cycles, json_pack("{s:i,s:o}", "priority", cy->prio, "ports", ports))) {
			json_decref(cycles);
			cycles = NULL;
		}
	}
	return json_pack(
	    "{s:I,s:s,s:o,s:o,s:I,s:I,s:I,s:b,s:o}", "static_cycles", (json_int_t)c->cbd.n_cycles,
	    "mode", a->all_pairs ? "all_pairs" : "workload", "failed_links", failed, "lossless",
	    res_prio_array(scn_lossless(s)), "buffers", (json_int_t)c->cbd.n_nodes, "dependencies",
	    (json_int_t)c->cbd.n_edges, "cyclic_components", (json_int_t)c->cbd.n_sccs, "truncated",
	    c->cbd.truncated, "cycles", cycles);
}

int chk_print_json(const struct chk *c, const struct scenario *s, const struct topo *t,
		   const struct chk_args *a)
{
	json_t *root, *findings = json_array();
	int err;

	for (size_t i = 0; findings && i < c->n; i++) {
		const struct chk_finding *f = &c->f[i];

		if (json_array_append_new(
			findings,
			json_pack("{s:s,s:s,s:o,s:o,s:o,s:o,s:o}", "severity",
				  chk_severity_name[f->severity], "code", f->code, "where",
				  txt_json(f->where), "file", txt_json(f->file), "line",
				  f->line ? json_integer(f->line) : json_null(), "key",
				  txt_json(f->key), "message", txt_json(f->message)))) {
			json_decref(findings);
			findings = NULL;
		}
	}
	root = json_pack("{s:o,s:o,s:o}", "findings", findings, "effective", res_effective(s, t),
			 "deadlock", chk_json_deadlock(c, s, t, a));
	if (!root)
		return -ENOMEM;
	err = json_dumpf(root, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(12));
	json_decref(root);
	if (err || fputc('\n', stdout) == EOF)
		return -EIO;
	return 0;
}
