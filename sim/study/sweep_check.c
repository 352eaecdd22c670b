/*
 * sweep check: every point of a sweep loaded with its variant's overlay
 * and its overrides as `rocesim run` would load it, before anything runs.
 * A point that the scenario's checks refuse (kmax below kmin, a headroom
 * that does not fit) is recorded as refused with its reason and left out;
 * the sweep runs the others. The scenario alone (no axis, no variant), or
 * a sweep whose every point is refused, is bad input: nothing runs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/study/sweep_impl.h"
#include "sim/config/scenario.h"

/* (here, not in fluid.c, since sweep's and tune's tests link this file
 * without the fluid verb) */
const char *fluid_screen_refusal(const struct scenario *s)
{
	/* 30 ms of experiments/incast-8to1.yaml with long flows (docs/fluid.md, "The
	 * fluid model"): no mapping of the parameters brought the two within
	 * 15% of each other */
	if (s->nic.cc == NIC_CC_DCQCN && s->nic.dcqcn.variant == DCQCN_MLX5)
		return "the fluid model's mlx5 variant does not agree with the packet model (an "
		       "8:1 incast at 100G: a 60 KB queue against 4.4 MB with PFC pauses), so its "
		       "verdicts would mislead: run --model packet, or set nic.dcqcn.variant: "
		       "paper";
	return NULL;
}

/* At most this many refused points are named on stderr, then a count. */
#define SHOWN_REFUSED 5

/*
 * "sweep point p002 (KEY=VALUE ... variant NAME)" of point @p with variant
 * @v into @buf.
 */
static void point_name(const struct sweep_spec *sp, size_t p, size_t v, char *buf, size_t size)
{
	struct sweep_point_args pa;
	size_t len;

	len = (size_t)snprintf(buf, size, "sweep point p%0*zu (", sp->id_width, p + 1);
	if (!sweep_point_args(sp, p, v, &pa)) {
		for (size_t a = 0; a < pa.n_axis_sets && len < size; a++)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", a ? " " : "",
						pa.axis_sets[a]);
		sweep_point_args_free(&pa);
	}
	if (sp->n_variants && len < size)
		len += (size_t)snprintf(buf + len, size - len, "%svariant %s",
					sp->n_axes ? " " : "", sp->variants[v].name);
	if (len < size)
		snprintf(buf + len, size - len, ")");
}

/* Load point @p with variant @v: 0, -ENOMEM, or -EINVAL with @d set. */
static int load(const struct sweep_spec *sp, size_t p, size_t v, struct scenario **keep,
		struct diag *d)
{
	struct sweep_point_args pa;
	int err;

	if (sweep_point_args(sp, p, v, &pa))
		return -ENOMEM;
	err = sweep_load_point_with(sp->scenario, pa.overlays, pa.n_overlays, pa.sets, pa.n_sets,
				    keep, d);
	sweep_point_args_free(&pa);
	return err;
}

int sweep__check_points(struct sweep_spec *sp, struct scenario **base)
{
	size_t nv = sweep_spec_variants(sp), n = sp->n_points * nv, refused = 0;
	char first[1808] = ""; /* a point's name, ": ", its line */

	*base = NULL;
	for (size_t g = 0; g < n; g++) {
		struct diag d = {0};
		char line[1200], name[600];
		struct scenario *one = NULL;
		int err = load(sp, g / nv, g % nv, &one, &d);
		const char *why = err || !sp->fluid ? NULL : fluid_screen_refusal(one);

		if (err == -ENOMEM)
			goto out_oom;
		if (why) { /* not a point to leave out: the model cannot answer it */
			point_name(sp, g / nv, g % nv, name, sizeof(name));
			fprintf(stderr, "rocesim: %s: %s\n", name, why);
			scn_free(one);
			scn_free(*base);
			*base = NULL;
			return ROCESIM_EXIT_INPUT;
		}
		if (!err) {
			if (!*base)
				*base = one;
			else
				scn_free(one);
			continue;
		}
		if (!sp->n_axes && !sp->n_variants) { /* the scenario alone */
			fputs("rocesim: ", stderr);
			diag_print(&d, stderr);
			return ROCESIM_EXIT_INPUT;
		}
		diag_str(&d, line, sizeof(line));
		point_name(sp, g / nv, g % nv, name, sizeof(name));
		/* a value that does not read as its key's kind ("\"2m\" is not a
		 * size", a message that quotes it) is a typo in the sweep, not a
		 * point the checks refuse */
		if (!strcmp(d.file, "--set") && d.msg[0] == '"') {
			fprintf(stderr, "rocesim: %s: %s\n", name, line);
			scn_free(*base);
			*base = NULL;
			return ROCESIM_EXIT_INPUT;
		}
		if (!*first)
			snprintf(first, sizeof(first), "%s: %s", name, line);
		if (!sp->refused && !(sp->refused = calloc(n, sizeof(*sp->refused))))
			goto out_oom;
		if (!(sp->refused[g] = strdup(line)))
			goto out_oom;
		refused++;
	}
	if (!*base) {
		fprintf(stderr, "rocesim: %s%s\n", first,
			n > 1 ? " (every point is refused: nothing to run)" : "");
		return ROCESIM_EXIT_INPUT;
	}
	/* a variant refused at every point: its overlay is the trouble */
	for (size_t v = 0; refused && sp->n_variants && v < nv; v++) {
		size_t p = 0;
		char name[600];

		while (p < sp->n_points && sp->refused[p * nv + v])
			p++;
		if (p < sp->n_points)
			continue;
		point_name(sp, 0, v, name, sizeof(name));
		fprintf(stderr, "rocesim: %s: %s\n", name, sp->refused[v]);
		scn_free(*base);
		*base = NULL;
		return ROCESIM_EXIT_INPUT;
	}
	for (size_t g = 0, shown = 0; refused && g < n && shown < SHOWN_REFUSED; g++) {
		char name[600];

		if (!sp->refused[g])
			continue;
		point_name(sp, g / nv, g % nv, name, sizeof(name));
		fprintf(stderr, "rocesim: %s refused, the others run: %s\n", name, sp->refused[g]);
		shown++;
	}
	if (refused > SHOWN_REFUSED)
		fprintf(stderr, "rocesim: and %zu more points refused (sweep.csv names them)\n",
			refused - SHOWN_REFUSED);
	return 0;

out_oom:
	fputs("rocesim: out of memory\n", stderr);
	return ROCESIM_EXIT_INPUT;
}
