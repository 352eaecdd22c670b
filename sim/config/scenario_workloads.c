/*
 * Scenario checks of the workload (a mapping) or workloads (a list):
 * (scenario_check.c takes the sections in turn): the keys each kind uses,
 * and the collectives.
 */
#include "sim/config/scenario.h"

#include "sim/config/scenario_impl.h"

/* ---- workloads --------------------------------------------------------------- */

/* Keys of a collective that a flow pattern does not take, and back. */
static int check_unused_keys(const struct loader *l, const struct raw_workload *r,
			     const char *prefix, int coll, const char *kind)
{
	const struct {
		const char *key;
		const void *v;
		int coll; /* 1: collective only, 0: patterns only */
	} keys[] = {
		{"channels", r->channels, 1}, {"chunk", r->chunk, 1},
		{"iterations", r->iterations, 1}, {"late", r->late, 1},    {"senders", r->senders, 0},
		{"receiver", r->receiver, 0},  {"flows", r->flows, 0},
	};
	char p[200];

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].v && keys[i].coll != coll)
			return scn__fail(l, scn__wpath(p, sizeof(p), prefix, keys[i].key),
					 "does not apply to %s", kind);
	return 0;
}

static int check_coll(const struct loader *l, const struct raw_workload *r, const char *prefix)
{
	char p[200];
	uint64_t v;
	simtime_t t;
	int err;

	if (!r->size)
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "size"),
				 "missing: bytes per rank, as nccl-tests counts them (e.g. 256MB)");
	if ((err = scn__get_size(l, scn__wpath(p, sizeof(p), prefix, "size"), r->size, 0, 1, &v)) ||
	    (err = scn__get_uint(l, scn__wpath(p, sizeof(p), prefix, "channels"), r->channels, 4, 1,
				 64, &v)) ||
	    (err =
		 scn__get_size(l, scn__wpath(p, sizeof(p), prefix, "chunk"), r->chunk, 0, 1, &v)) ||
	    (err = scn__get_uint(l, scn__wpath(p, sizeof(p), prefix, "iterations"), r->iterations,
				 1, 1, 100000, &v)))
		return err;
	if (r->late) {
		snprintf(p, sizeof(p), "%s.late", prefix);
		if (!r->late->host || !r->late->by)
			return scn__fail(l, p, "needs host and by (e.g. {host: h3, by: 20us})");
		snprintf(p, sizeof(p), "%s.late.by", prefix);
		if ((err = scn__get_time(l, p, r->late->by, 0, 0, &t)))
			return err;
	}
	return 0;
}

static int check_workload(const struct loader *l, const struct raw_workload *r,
			  const char *prefix)
{
	char p[200];
	uint64_t v;
	simtime_t t;
	int err = 0, kind;

	if (!r->kind)
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "kind"),
				 "missing (flows, incast, permutation, allreduce, allgather, "
				 "reducescatter or alltoall)");
	kind = r->kind - 1;
	if ((err =
		 scn__get_time(l, scn__wpath(p, sizeof(p), prefix, "start"), r->start, 0, 0, &t)) ||
	    (err = scn__get_uint(l, scn__wpath(p, sizeof(p), prefix, "dscp"), r->dscp, 0, 0, 63,
				 &v)) ||
	    (err = check_unused_keys(l, r, prefix, kind >= SCN_WL_COLL, scn__wl_kinds[kind].str)))
		return err;
	if (kind >= SCN_WL_COLL)
		return check_coll(l, r, prefix);
	switch (kind) {
	case SCN_WL_FLOWS:
		if (!r->flows_count)
			return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "flows"),
					 "missing: a list of {src, dst, size, start}");
		for (unsigned i = 0; i < r->flows_count && !err; i++) {
			const struct raw_flow *f = &r->flows[i];

			snprintf(p, sizeof(p), "%s.flows[%u]", prefix, i);
			if (!f->src || !f->dst || !f->size)
				return scn__fail(l, p, "a flow needs src, dst and size");
			snprintf(p, sizeof(p), "%s.flows[%u].size", prefix, i);
			err = scn__get_size(l, p, f->size, 0, 1, &v);
			snprintf(p, sizeof(p), "%s.flows[%u].start", prefix, i);
			err = err ? err : scn__get_time(l, p, f->start, 0, 0, &t);
			snprintf(p, sizeof(p), "%s.flows[%u].dscp", prefix, i);
			err = err ? err : scn__get_uint(l, p, f->dscp, 0, 0, 63, &v);
		}
		if (!err && r->size)
			err = scn__fail(l, scn__wpath(p, sizeof(p), prefix, "size"),
					"does not apply to flows (give it per flow)");
		return err;
	case SCN_WL_INCAST:
		err = scn__get_uint(l, scn__wpath(p, sizeof(p), prefix, "senders"), r->senders, 0,
				    1, 65535, &v);
		if (!err && !r->senders)
			err = scn__fail(l, scn__wpath(p, sizeof(p), prefix, "senders"),
					"missing for an incast");
		break;
	case SCN_WL_PERMUTATION:
		if ((err = scn__unused(l, scn__wpath(p, sizeof(p), prefix, "senders"), r->senders,
				       "a permutation")) ||
		    (err = scn__unused(l, scn__wpath(p, sizeof(p), prefix, "receiver"), r->receiver,
				       "a permutation")))
			return err;
		break;
	}
	if (err)
		return err;
	if (!r->size)
		return scn__fail(l, scn__wpath(p, sizeof(p), prefix, "size"),
				 "missing: bytes per flow (e.g. 8MB)");
	return scn__get_size(l, scn__wpath(p, sizeof(p), prefix, "size"), r->size, 0, 1, &v);
}

/* The workload, one mapping or a list of them. */
int scn__check_workloads(const struct loader *l, const struct raw_top *r)
{
	char prefix[32];
	int err;

	if (r->workload)
		return check_workload(l, r->workload, "workload");
	if (!r->workloads_count)
		return scn__fail(l, "workload",
				 "missing (e.g. workload: {kind: allreduce, size: 256MB})");
	for (unsigned i = 0; i < r->workloads_count; i++) {
		snprintf(prefix, sizeof(prefix), "workload[%u]", i);
		if ((err = check_workload(l, &r->workloads[i], prefix)))
			return err;
	}
	return 0;
}
