/*
 * results.json's "provenance": what produced a result. The rocesim
 * version, the scenario file and every other input the run read (overlays,
 * the topology file, the real configs: SONiC config_db.json, mlnx_qos,
 * cc_params, Kubernetes manifests; flow-size CDFs), each with the SHA-256 of its bytes as
 * sha256sum prints it, the --set overrides in the order they apply, and
 * the seed. Built before the run, right after the inputs were loaded.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/engine/sha256.h"
#include "sim/engine/textsafe.h"
#include "sim/run/results.h"

/* {"path", "sha256", "via"} of one file (sha256 null when it cannot be
 * read any more). */
static json_t *prov_file(const char *path, const char *via)
{
	char hex[SHA256_HEX];

	if (sha256_file(path, hex))
		return json_pack("{s:o,s:n,s:s}", "path", txt_json(path), "sha256", "via", via);
	return json_pack("{s:o,s:s,s:s}", "path", txt_json(path), "sha256", hex, "via", via);
}

static int prov_add(json_t *inputs, const char *path, const char *via)
{
	return json_array_append_new(inputs, prov_file(path, via)) ? -ENOMEM : 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * A cc_params folder: the files the reader takes as parameters (regular
 * files not starting with '.', in name order, as sim/readers/cc_params.c
 * reads them), each an input of its own.
 */
static int prov_add_dir(json_t *inputs, const char *dir, const char *via)
{
	char **names = NULL, path[4096];
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *dp = opendir(dir);
	int err = 0;

	if (!dp)
		return prov_add(inputs, dir, via);
	while (!err && (de = readdir(dp))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **v = realloc(names, (cap = cap ? 2 * cap : 32) * sizeof(*v));

			if (!v) {
				err = -ENOMEM;
				break;
			}
			names = v;
		}
		if (!(names[n] = strdup(de->d_name)))
			err = -ENOMEM;
		else
			n++;
	}
	closedir(dp);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; !err && i < n; i++) {
		struct stat st;

		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >= sizeof(path) ||
		    stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		err = prov_add(inputs, path, via);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return err;
}

json_t *res_provenance(const struct scenario *s, const struct res_prov_in *in)
{
	json_t *inputs = json_array(), *sets = json_array(), *overlays = json_array(), *scn;
	struct stat st;
	char via[64];
	int err = !inputs || !sets || !overlays;

	for (size_t i = 0; !err && i < in->n_overlays; i++)
		err = json_array_append_new(overlays, txt_json(in->overlays[i])) ||
		      prov_add(inputs, in->overlays[i], "--with");
	if (!err && s->topo_file)
		err = prov_add(inputs, s->topo_file, "topology.file");
	if (!err && s->cfg.sonic)
		err = prov_add(inputs, s->cfg.sonic, "switch.sonic");
	if (!err && s->cfg.mlnx_qos)
		err = prov_add(inputs, s->cfg.mlnx_qos, "nic.mlnx_qos");
	if (!err && s->cfg.cc_params)
		err = !stat(s->cfg.cc_params, &st) && S_ISDIR(st.st_mode)
			  ? prov_add_dir(inputs, s->cfg.cc_params, "nic.cc_params")
			  : prov_add(inputs, s->cfg.cc_params, "nic.cc_params");
	for (uint32_t i = 0; !err && i < s->cfg.n_pods; i++) {
		snprintf(via, sizeof(via), "%s.pod", s->cfg.pods[i].workload);
		err = prov_add(inputs, s->cfg.pods[i].file, via);
	}
	for (uint32_t i = 0; !err && i < s->n_traffic; i++) {
		snprintf(via, sizeof(via), "%s.cdf", s->traffic[i].workload);
		err = prov_add(inputs, s->traffic[i].file, via);
	}
	for (uint32_t i = 0; !err && i < s->n_hpcc; i++) {
		snprintf(via, sizeof(via), "%s.file", s->hpcc[i].workload);
		err = prov_add(inputs, s->hpcc[i].file, via);
	}
	for (size_t i = 0; !err && i < in->n_sets; i++)
		err = json_array_append_new(sets, txt_json(in->sets[i]));
	if (err) {
		json_decref(inputs);
		json_decref(sets);
		json_decref(overlays);
		return NULL;
	}
	scn = prov_file(s->file, "scenario");
	if (scn)
		json_object_del(scn, "via");
	return json_pack("{s:s,s:o,s:o,s:o,s:o,s:I}", "version", ROCESIM_VERSION, "scenario", scn,
			 "inputs", inputs, "overlays", overlays, "overrides", sets, "seed",
			 (json_int_t)s->seed);
}
