/*
 * tune problem: the command line's ranges (--vary KEY=LO..HI), objectives
 * (--minimize, --maximize: a summary metric or a varied key) and
 * constraints (--subject-to 'METRIC OP VALUE') turned into a struct
 * tune_problem, each refused with one line naming the option and the key:
 * an unknown metric, a range that is not one or is empty, ends of two
 * kinds, a constraint that can never hold.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/study/tune_impl.h"
#include "sim/config/scenario.h"

const char *const tune_fluid_metrics[] = {
    "fluid.queue_bytes",
    "fluid.queue_max_bytes",
    "fluid.fixed_point_queue_bytes",
    "fluid.marking_probability",
    "fluid.rate_bps",
    "fluid.oscillates",
    "fluid.amplitude_bytes",
    "fluid.period_us",
    "fluid.converges",
    "fluid.unsure",
    NULL,
};

/* A training job's figures (summary.training), beside the gates' metrics. */
const char *const tune_training_metrics[] = {
    "training.iteration_time_us",  "training.tokens_per_s",
    "training.samples_per_s",	   "training.exposed_comm_us.tp",
    "training.exposed_comm_us.pp", "training.exposed_comm_us.dp",
    "training.exposed_comm_us.ep", NULL,
};

/* The metrics a tune of @pb may name. */
static const char *const *metrics_of(const struct tune_problem *pb)
{
	return pb->fluid ? tune_fluid_metrics : scn_expect_metrics;
}

/* Is @name a metric of @pb's runs? */
static int known_metric(const struct tune_problem *pb, const char *name)
{
	for (const char *const *m = metrics_of(pb); *m; m++)
		if (!strcmp(*m, name))
			return 1;
	for (const char *const *m = tune_training_metrics; !pb->fluid && *m; m++)
		if (!strcmp(*m, name))
			return 1;
	return 0;
}

/* @name as a metric of @pb into @m: a summary metric or a varied key. */
static int parse_metric(const struct tune_problem *pb, const char *where, const char *name,
			struct tune_metric *m, struct diag *d)
{
	char list[1200];
	size_t n = 0;

	if (strlen(name) >= sizeof(m->name)) {
		diag_set(d, where, 0, "", "\"%.40s...\" is not a metric", name);
		return -EINVAL;
	}
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->param = -1;
	for (size_t i = 0; i < pb->n_params; i++)
		if (!strcmp(pb->params[i].key, name))
			m->param = (int)i;
	if (m->param >= 0 || known_metric(pb, name))
		return 0;
	for (const char *const *k = metrics_of(pb); *k && n < sizeof(list); k++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "", *k);
	for (const char *const *k = tune_training_metrics; !pb->fluid && *k && n < sizeof(list);
	     k++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, ", %s", *k);
	diag_set(d, where, 0, name, "unknown metric (expected a varied key or one of: %s)", list);
	return -EINVAL;
}

int tune_range_parse(const char *where, const char *arg, struct tune_param *p, struct diag *d)
{
	const char *eq = strchr(arg, '='), *dots;
	struct sweep_end lo, hi;
	char key[160], lo_s[64], hi_s[64];
	int err;

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(key)) {
		diag_set(d, where, 0, "", "\"%s\" is not KEY=LO..HI", arg);
		return -EINVAL;
	}
	snprintf(key, sizeof(key), "%.*s", (int)(eq - arg), arg);
	dots = strstr(eq + 1, "..");
	if (!dots || strchr(eq + 1, ',') || strchr(dots, ':') || (size_t)(dots - eq - 1) >= 64 ||
	    strlen(dots + 2) >= 64) {
		diag_set(d, where, 0, key,
			 "\"%s\" is not a range LO..HI (a search: no list, no :N)", eq + 1);
		return -EINVAL;
	}
	snprintf(lo_s, sizeof(lo_s), "%.*s", (int)(dots - eq - 1), eq + 1);
	snprintf(hi_s, sizeof(hi_s), "%s", dots + 2);
	if ((err = sweep_value_parse(where, 0, key, lo_s, &lo, d)) ||
	    (err = sweep_value_parse(where, 0, key, hi_s, &hi, d)))
		return err;
	if ((lo.fam == SWEEP_FAM_INT && hi.fam == SWEEP_FAM_REAL) ||
	    (hi.fam == SWEEP_FAM_INT && lo.fam == SWEEP_FAM_REAL))
		lo.fam = hi.fam = SWEEP_FAM_REAL;
	if (lo.fam != hi.fam) {
		diag_set(d, where, 0, key,
			 "\"%s\": the two ends are not the same kind (a %s, a %s)", eq + 1,
			 sweep_family_name[lo.fam], sweep_family_name[hi.fam]);
		return -EINVAL;
	}
	if (!(lo.r < hi.r)) {
		diag_set(d, where, 0, key, "\"%s\" is an empty range (LO must be below HI)",
			 eq + 1);
		return -EINVAL;
	}
	if (!(p->key = strdup(key)))
		return -ENOMEM;
	p->fam = lo.fam;
	p->lo = lo.r;
	p->hi = hi.r;
	p->log = lo.r > 0 && hi.r > 10 * lo.r;
	p->grain = sweep_family_integral(p->fam) ? 1 : (hi.r - lo.r) / 1000;
	return 0;
}

/* Can a value of @p's range never meet @op @v? */
static int impossible(const struct tune_problem *pb, const struct tune_constraint *c)
{
	double v = c->value;

	if (c->m.param >= 0) {
		const struct tune_param *p = &pb->params[c->m.param];

		switch (c->op) {
		case TUNE_EQ:
			return v < p->lo || v > p->hi;
		case TUNE_LE:
			return v < p->lo;
		case TUNE_LT:
			return v <= p->lo;
		case TUNE_GE:
			return v > p->hi;
		case TUNE_GT:
			return v >= p->hi;
		}
	}
	/* every summary metric is a count, a time, a rate or a flag: never negative */
	if ((c->op == TUNE_LT && v <= 0) || ((c->op == TUNE_LE || c->op == TUNE_EQ) && v < 0))
		return 1;
	if (!strcmp(c->m.name, "deadlock"))
		return (c->op == TUNE_EQ && v != 0 && v != 1) || (c->op == TUNE_GT && v >= 1) ||
		       (c->op == TUNE_GE && v > 1);
	return 0;
}

/* 'METRIC OP VALUE' into @c. */
static int parse_constraint(const struct tune_problem *pb, const char *arg,
			    struct tune_constraint *c, struct diag *d)
{
	static const struct {
		const char *s;
		enum tune_op op;
	} ops[] = {
	    {"==", TUNE_EQ}, {"<=", TUNE_LE}, {">=", TUNE_GE}, {"<", TUNE_LT}, {">", TUNE_GT}};
	char metric[TUNE_METRIC + 8], value[64];
	const char *at = NULL, *v;
	size_t len, oplen = 0;
	int err;

	snprintf(c->text, sizeof(c->text), "%s", arg);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]) && !at; i++) {
		if ((at = strstr(arg, ops[i].s))) {
			c->op = ops[i].op;
			oplen = strlen(ops[i].s);
		}
	}
	if (!at) {
		diag_set(d, "--subject-to", 0, "",
			 "\"%s\" is not 'METRIC OP VALUE' (OP: ==, <=, >=, <, >)", arg);
		return -EINVAL;
	}
	for (len = (size_t)(at - arg); len && arg[len - 1] == ' '; len--)
		;
	while (len && *arg == ' ')
		arg++, len--;
	for (v = at + oplen; *v == ' '; v++)
		;
	if (!len || len >= sizeof(metric) || !*v || strlen(v) >= sizeof(value)) {
		diag_set(d, "--subject-to", 0, "", "\"%s\" is not 'METRIC OP VALUE'", c->text);
		return -EINVAL;
	}
	snprintf(metric, sizeof(metric), "%.*s", (int)len, arg);
	snprintf(value, sizeof(value), "%s", v);
	value[strcspn(value, " ")] = '\0';
	if ((err = parse_metric(pb, "--subject-to", metric, &c->m, d)))
		return err;
	if (c->m.param >= 0) {
		const struct tune_param *p = &pb->params[c->m.param];
		struct sweep_end e;

		if ((err = sweep_value_parse("--subject-to", 0, metric, value, &e, d)))
			return err;
		if (e.fam != p->fam && !(e.fam == SWEEP_FAM_INT && p->fam == SWEEP_FAM_REAL)) {
			diag_set(d, "--subject-to", 0, metric,
				 "\"%s\" is a %s, the key's range a %s", value,
				 sweep_family_name[e.fam], sweep_family_name[p->fam]);
			return -EINVAL;
		}
		c->value = e.r;
	} else {
		char *end;

		errno = 0;
		c->value = !strcmp(value, "true")    ? 1
			   : !strcmp(value, "false") ? 0
						     : strtod(value, &end);
		if (strcmp(value, "true") && strcmp(value, "false") &&
		    (end == value || *end || errno || !isfinite(c->value))) {
			diag_set(d, "--subject-to", 0, metric, "\"%s\" is not a number", value);
			return -EINVAL;
		}
	}
	if (impossible(pb, c)) {
		diag_set(d, "--subject-to", 0, metric, "\"%s\" can never hold%s", c->text,
			 c->m.param >= 0 ? " in the key's range"
					 : ": the metric is never negative");
		return -EINVAL;
	}
	return 0;
}

int tune_problem_build(struct tune_ctx *c, const struct tune_args *a, int ranks, struct diag *d)
{
	struct tune_problem *pb = &c->pb;
	int err;

	pb->fluid = a->runs.fluid;
	for (size_t i = 0; i < a->n_vary; i++) {
		if ((err = tune_range_parse("--vary", a->vary[i], &pb->params[i], d)))
			return err;
		pb->n_params++;
		for (size_t j = 0; j < i; j++) {
			if (!strcmp(pb->params[j].key, pb->params[i].key)) {
				diag_set(d, "--vary", 0, pb->params[i].key, "varied twice");
				return -EINVAL;
			}
		}
	}
	for (size_t k = 0; k < a->n_obj; k++) {
		if ((err = parse_metric(pb, a->maximize[k] ? "--maximize" : "--minimize", a->obj[k],
					&pb->obj[k].m, d)))
			return err;
		pb->obj[k].maximize = a->maximize[k];
		pb->n_obj++;
	}
	if (pb->n_obj == 2 && !strcmp(pb->obj[0].m.name, pb->obj[1].m.name)) {
		diag_set(d, "--minimize", 0, pb->obj[1].m.name, "is the objective twice");
		return -EINVAL;
	}
	for (size_t i = 0; i < a->n_subject_to; i++) {
		if ((err = parse_constraint(pb, a->subject_to[i], &pb->cons[i], d)))
			return err;
		pb->n_cons++;
	}
	for (size_t f = 0; f < a->runs.n_sets; f++) {
		size_t len = (size_t)(strchr(a->runs.sets[f], '=') - a->runs.sets[f]);

		for (size_t i = 0; i < pb->n_params; i++) {
			if (strlen(pb->params[i].key) == len &&
			    !strncmp(pb->params[i].key, a->runs.sets[f], len)) {
				diag_set(d, "--set", 0, pb->params[i].key,
					 "is varied: it cannot be set too");
				return -EINVAL;
			}
		}
	}
	c->fixed = a->runs.sets;
	c->n_fixed = a->runs.n_sets;
	pb->n_seeds = (size_t)a->seeds;
	pb->budget = (size_t)a->budget;
	/* without --seeds: the first point on 3 seeds tells whether the
	 * results depend on the seed (the fluid model has none) */
	c->probe = !a->seeds_given && !a->runs.fluid;
	if (c->probe)
		pb->n_seeds = pb->budget < 3 ? pb->budget : 3;
	if (pb->budget < pb->n_seeds) {
		diag_set(d, "--budget", 0, "", "%zu runs cannot run one point with %zu seeds",
			 pb->budget, pb->n_seeds);
		return -EINVAL;
	}
	/* the batch: points whose seeds fill the -j slots */
	c->slots = (size_t)a->runs.jobs * (size_t)ranks;
	pb->batch = c->slots / pb->n_seeds;
	pb->batch = pb->batch ? pb->batch : 1;
	return 0;
}
