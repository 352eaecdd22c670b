/*
 * Loading a scenario: the entry points (scn_load*, scn_free) of a pipeline
 * whose stages run one after the other, each in its file:
 *
 *   parse    scenario_parse.c    text, overlays and --set -> the raw_* structs
 *   merge    scenario_merge.c    the real configs named -> struct scenario,
 *                                each value with its origin
 *   check    scenario_check.c    every section -> the integers of struct scenario,
 *                                a config's value standing in for the default
 *   resolve  scenario_resolve.c  names against the built topology (scn_resolve,
 *                                called by the run once the topology exists)
 *
 * A switch.sonic given per switch loads the scenario again for each
 * switch's file (the loader's load_switch): every check and default then
 * applies to that switch's settings as to the whole fabric's.
 */
#include "sim/config/scenario.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/scenario_impl.h"
#include "sim/engine/textfile.h"
#include "sim/readers/cdf.h"
#include "sim/readers/hpcc_flows.h"

void scn_free(struct scenario *s)
{
	if (!s)
		return;
	scn__raw_free(s->raw);
	free(s->name);
	free(s->file);
	free(s->topo_file);
	free(s->cfg.sonic);
	free(s->sw_ports);
	free(s->speeds);
	scn__free_links(s);
	free(s->sonic_sw);
	free(s->sonic_desc_ports);
	for (uint32_t i = 0; i < s->n_switches; i++) {
		free(s->switches[i].name);
		free(s->switches[i].file);
		free(s->switches[i].key);
		free(s->switches[i].ports);
		if (s->switches[i].owns)
			scn_free(s->switches[i].cfg);
	}
	free(s->switches);
	free(s->sw_node);
	free(s->cfg.mlnx_qos);
	free(s->cfg.cc_params);
	free(s->cfg.cc_device);
	for (uint32_t i = 0; i < s->cfg.n_pods; i++)
		free(s->cfg.pods[i].file);
	free(s->cfg.pods);
	for (uint32_t i = 0; i < s->n_traffic; i++) {
		free(s->traffic[i].file);
		wl_cdf_free(&s->traffic[i].cdf);
	}
	free(s->traffic);
	for (uint32_t i = 0; i < s->n_hpcc; i++) {
		free(s->hpcc[i].file);
		hpcc_flows_free(&s->hpcc[i].flows);
	}
	free(s->hpcc);
	free(s->wl.flows);
	for (uint32_t i = 0; i < s->n_colls; i++)
		free(s->colls[i].ranks);
	free(s->colls);
	for (uint32_t i = 0; i < s->n_jobs; i++) {
		if (s->jobs[i].chakra)
			scn__chakra_plan_free(&s->plans[i]);
		train_plan_free(&s->plans[i]);
		free(s->jobs[i].layers);
		free(s->jobs[i].gpus);
		free(s->jobs[i].file);
		free(s->jobs[i].command);
		free(s->jobs[i].rows);
	}
	free(s->plans);
	free(s->jobs);
	free(s->faults);
	free(s->fault_of);
	free(s->expects);
	free(s);
}

static int load_switch(const struct loader *l, const char *key, const char *file,
		       struct scenario **out);

static int load_text(const char *name, const char *text, size_t len, const char *const *overlays,
		     size_t n_overlays, const char *const *sets, size_t n_sets, int flags,
		     const char *const *force, struct scenario **out, struct diag *d)
{
	struct loader l = {.file = name,
			   .d = d,
			   .text = text,
			   .len = len,
			   .overlays = overlays,
			   .n_overlays = n_overlays,
			   .sets = sets,
			   .n_sets = n_sets,
			   .flags = flags,
			   .force_key = force ? force[0] : NULL,
			   .force_file = force ? force[1] : NULL,
			   .load_switch = load_switch};
	struct scenario *s;
	int err;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s || !(s->raw = calloc(1, sizeof(*s->raw))) || !(s->file = strdup(name))) {
		scn_free(s);
		return -ENOMEM;
	}
	l.raw = s->raw;
	err = scn__parse(&l);
	if (!err)
		err = scn__merge_configs(&l, s);
	if (!err)
		err = scn__check_all(&l, s, sets, n_sets);
	if (err) {
		scn_free(s);
		return err;
	}
	*out = s;
	return 0;
}

int scn_load_text(const char *name, const char *text, size_t len, const char *const *sets,
		  size_t n_sets, struct scenario **out, struct diag *d)
{
	return load_text(name, text, len, NULL, 0, sets, n_sets, 0, NULL, out, d);
}

/* The scenario loaded again as @l was, with switch.sonic the one file @file named by @key. */
static int load_switch(const struct loader *l, const char *key, const char *file,
		       struct scenario **out)
{
	const char *force[2] = {key, file};

	return load_text(l->file, l->text, l->len, l->overlays, l->n_overlays, l->sets, l->n_sets,
			 l->flags, force, out, l->d);
}

int scn_load(const char *file, const char *const *sets, size_t n_sets, struct scenario **out,
	     struct diag *d)
{
	return scn_load_ex(file, sets, n_sets, 0, out, d);
}

int scn_load_ex(const char *file, const char *const *sets, size_t n_sets, int flags,
		struct scenario **out, struct diag *d)
{
	struct scn_load_opts o = {.sets = sets, .n_sets = n_sets, .flags = flags};

	return scn_load_with(file, &o, out, d);
}

int scn_load_with(const char *file, const struct scn_load_opts *o, struct scenario **out,
		  struct diag *d)
{
	char *text;
	size_t len;
	int err;

	*out = NULL;
	err = textfile_load(file, 0, &text, &len, d);
	if (err)
		return err == -ENOMEM ? err : -EINVAL;
	err = load_text(file, text, len, o->overlays, o->n_overlays, o->sets, o->n_sets, o->flags,
			NULL, out, d);
	free(text);
	return err;
}
