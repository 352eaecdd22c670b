/* Test support: scenario runs with the conservation check (support.h). */
#include "support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/net.h"
#include "sim/run/results.h"
#include "sim/config/scenario.h"

void ts_load(const char *yaml, const char *const *sets, size_t n_sets, struct sim *sim)
{
	struct scenario *s;
	struct diag d = {0};
	char buf[1024];

	cr_assert_eq(scn_load_text("test.yaml", yaml, strlen(yaml), sets, n_sets, &s, &d), 0, "%s",
		     diag_str(&d, buf, sizeof(buf)));
	cr_assert_eq(sim_init(sim, s, &d), 0, "%s", diag_str(&d, buf, sizeof(buf)));
}

double ts_metric(const json_t *j, const char *metric)
{
	double v = NAN;

	cr_assert_eq(res_metric(j, metric, &v), 0, "no metric %s", metric);
	return v;
}

json_t *ts_finish(struct sim *sim)
{
	const struct mctx_totals *t;
	uint64_t inflight;
	json_t *j;

	cr_assert_eq(sim_run(sim, NULL, NULL, NULL, 0), 0);
	t = &sim->net->ctx.tot;
	inflight = net_inflight_bytes(sim->net);
	cr_assert_eq(t->sent_bytes, t->received_bytes + t->dropped_bytes + inflight,
		     "sent %llu != received %llu + dropped %llu + in flight %llu",
		     (unsigned long long)t->sent_bytes, (unsigned long long)t->received_bytes,
		     (unsigned long long)t->dropped_bytes, (unsigned long long)inflight);
	j = res_build(sim);
	cr_assert_not_null(j);
	cr_assert_eq(ts_metric(j, "bytes.sent"), ts_metric(j, "bytes.received") +
						     ts_metric(j, "bytes.dropped") +
						     ts_metric(j, "bytes.in_flight"));
	return j;
}

json_t *ts_run(const char *yaml, struct sim *sim)
{
	ts_load(yaml, NULL, 0, sim);
	return ts_finish(sim);
}
