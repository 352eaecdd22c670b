/*
 * sweep inputs: what a run of a sweep reads, and whether a finished run
 * read the same. A run is `rocesim run SCENARIO --with OVERLAY... --set
 * KEY=VALUE... --seed S`: the sweep's overlays (--with) and its variant's,
 * the sweep's overrides (--set) and its point's, in that order. Its
 * inputs are what results.json's "provenance" lists (res_provenance): the
 * program's version, the scenario file's SHA-256, each overlay, the
 * topology file, the real configs (SONiC config_db.json, mlnx_qos,
 * cc_params, a file or each file of a folder, Pod manifests), CDFs and
 * HPCC flow files, each with its SHA-256, the overrides and the seed.
 *
 * The sweep builds the same provenance before it starts a run and keeps
 * it in the run's point.json; a later sweep reuses the run only when the
 * provenance built then is the same, so that an edited cc_params.txt, an
 * edited overlay or another version of rocesim runs it again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/study/sweep_impl.h"
#include "sim/config/scenario.h"
#include "sim/run/results.h"
#include "topologies/topo.h"
#include "sim/readers/topo_read.h"

int sweep_point_args(const struct sweep_spec *sp, size_t p, size_t v, struct sweep_point_args *pa)
{
	const char *variant = sp->n_variants ? sp->variants[v].path : NULL;

	memset(pa, 0, sizeof(*pa));
	pa->overlays = calloc(sp->n_withs + 1, sizeof(*pa->overlays));
	pa->sets = calloc(sp->n_sets + sp->n_axes + 1, sizeof(*pa->sets));
	pa->axis_sets = calloc(sp->n_axes + 1, sizeof(*pa->axis_sets));
	if (!pa->overlays || !pa->sets || !pa->axis_sets || sweep_spec_sets(sp, p, pa->axis_sets)) {
		free(pa->overlays);
		free(pa->sets);
		free(pa->axis_sets);
		memset(pa, 0, sizeof(*pa));
		return -ENOMEM;
	}
	for (size_t i = 0; i < sp->n_withs; i++)
		pa->overlays[pa->n_overlays++] = sp->withs[i].path;
	if (variant)
		pa->overlays[pa->n_overlays++] = variant;
	for (size_t i = 0; i < sp->n_sets; i++)
		pa->sets[pa->n_sets++] = sp->sets[i];
	for (size_t a = 0; a < sp->n_axes; a++)
		pa->sets[pa->n_sets++] = pa->axis_sets[a];
	pa->n_axis_sets = sp->n_axes;
	return 0;
}

void sweep_point_args_free(struct sweep_point_args *pa)
{
	if (pa->axis_sets)
		sweep_sets_free(pa->axis_sets, pa->n_axis_sets);
	free(pa->axis_sets);
	free(pa->overlays);
	free(pa->sets);
	memset(pa, 0, sizeof(*pa));
}

int sweep_load_point_with(const char *file, const char *const *overlays, size_t n_overlays,
			  const char *const *sets, size_t n, struct scenario **keep, struct diag *d)
{
	struct scenario *s = NULL;
	struct topo *t = NULL;
	int err;

	err = scn_load_with(
	    file,
	    &(struct scn_load_opts){
		.overlays = overlays, .n_overlays = n_overlays, .sets = sets, .n_sets = n},
	    &s, d);
	if (!err && (err = topo_build(&s->topo, &t, d)))
		scn_locate(s, d);
	else if (!err)
		err = scn_resolve(s, t, d);
	topo_free(t);
	if (!err && keep)
		*keep = s;
	else
		scn_free(s);
	return err;
}

int sweep_load_point(const char *file, const char *overlay, char *const *sets, size_t n,
		     struct scenario **keep, struct diag *d)
{
	return sweep_load_point_with(file, &overlay, overlay ? 1 : 0, (const char *const *)sets, n,
				     keep, d);
}

json_t *sweep_inputs(const struct sweep_spec *sp, size_t p, size_t v, uint64_t seed)
{
	struct sweep_point_args pa;
	struct scenario *s = NULL;
	struct diag d = {0};
	json_t *prov = NULL;
	char seed_set[32];

	if (sweep_point_args(sp, p, v, &pa))
		return NULL;
	/* as the run is given it: --seed S is its last override, seed=S */
	snprintf(seed_set, sizeof(seed_set), "seed=%llu", (unsigned long long)seed);
	pa.sets[pa.n_sets++] = seed_set;
	/* the scenario as loaded, not built: res_provenance reads the
	 * names of the files, which loading alone resolves */
	if (!scn_load_with(sp->scenario,
			   &(struct scn_load_opts){.overlays = pa.overlays,
						   .n_overlays = pa.n_overlays,
						   .sets = pa.sets,
						   .n_sets = pa.n_sets},
			   &s, &d))
		prov = res_provenance(s, &(struct res_prov_in){.overlays = pa.overlays,
							       .n_overlays = pa.n_overlays,
							       .sets = pa.sets,
							       .n_sets = pa.n_sets});
	scn_free(s);
	sweep_point_args_free(&pa);
	return prov;
}

/* The path of input @in, shortened from the left to fit @size. */
static const char *input_name(const json_t *in)
{
	const char *path = json_string_value(json_object_get(in, "path"));

	return path ? path : "?";
}

void sweep_inputs_why(const json_t *old, const json_t *now, char *buf, size_t size)
{
	const json_t *oi = json_object_get(old, "inputs"), *ni = json_object_get(now, "inputs");
	const char *ov = json_string_value(json_object_get(old, "version"));
	const char *nv = json_string_value(json_object_get(now, "version"));
	size_t i;
	json_t *in;

	if (!json_is_object(old)) {
		snprintf(buf, size, "no input digests recorded (an older rocesim ran it)");
		return;
	}
	if (!now) {
		snprintf(buf, size, "its inputs cannot be read now");
		return;
	}
	if (!ov || !nv || strcmp(ov, nv)) {
		snprintf(buf, size, "rocesim's version changed (%s -> %s)", ov ? ov : "?",
			 nv ? nv : "?");
		return;
	}
	if (!json_equal(json_object_get(old, "scenario"), json_object_get(now, "scenario"))) {
		snprintf(
		    buf, size, "%s changed",
		    json_string_value(json_object_get(json_object_get(now, "scenario"), "path")));
		return;
	}
	/* an input now that the run did not read as it is now */
	json_array_foreach(ni, i, in) {
		const char *path = input_name(in),
			   *via = json_string_value(json_object_get(in, "via"));
		json_t *was = NULL, *o;
		size_t k;

		json_array_foreach(oi, k, o) {
			if (!strcmp(input_name(o), path)) {
				was = o;
				break;
			}
		}
		if (!was) {
			snprintf(buf, size, "%s %s is a new input", via ? via : "", path);
			return;
		}
		if (!json_equal(json_object_get(was, "sha256"), json_object_get(in, "sha256"))) {
			snprintf(buf, size, "%s %s changed", via ? via : "", path);
			return;
		}
	}
	if (json_array_size(oi) != json_array_size(ni)) {
		snprintf(buf, size, "an input it read is no longer read");
		return;
	}
	snprintf(buf, size, "other overlays, overrides or seed");
}
