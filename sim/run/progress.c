/*
 * --progress: how far the workload is, in what it has to deliver (the
 * payload of its flows and of every iteration of its collectives) rather
 * than in simulated time, which says little when the run ends as soon as
 * the workload is done; and when it will be done, extrapolated from the
 * wall time so far. A workload with nothing to deliver (faults alone) is
 * shown against `stop`.
 */
#include "sim/run/sim.h"

#include <stdio.h>

#include "models/collective.h"
#include "sim/engine/textsafe.h"

void sim_progress(const struct sim *sim, struct sim_progress *p)
{
	const struct net *n = sim->net;

	*p = (struct sim_progress){0};
	if (!n)
		return;
	p->flows = n->n_wl_flows;
	for (uint32_t i = 0; i < n->n_wl_flows; i++) {
		const struct flow *f = &n->flows[i];

		p->bytes_total += f->bytes;
		p->bytes_done += f->received < f->bytes ? f->received : f->bytes;
		p->flows_done += f->finish != 0;
	}
	p->colls = n->n_colls;
	for (uint32_t i = 0; i < n->n_colls; i++) {
		struct coll_stats st;
		uint64_t done, total;

		coll_progress(n->colls[i], &done, &total);
		p->bytes_total += total;
		p->bytes_done += done < total ? done : total;
		coll_stats(n->colls[i], &st);
		p->colls_done += st.done == st.iterations;
		if (st.done < st.iterations && !p->coll_iters) {
			p->coll_iter = st.done + 1;
			p->coll_iters = st.iterations;
		}
	}
}

/* @b bytes as "32.0 MB" (SI). */
static const char *size_text(uint64_t b, char *buf, size_t size)
{
	if (b >= 1000000000)
		snprintf(buf, size, "%.2f GB", (double)b / 1e9);
	else if (b >= 1000000)
		snprintf(buf, size, "%.1f MB", (double)b / 1e6);
	else
		snprintf(buf, size, "%.1f KB", (double)b / 1e3);
	return buf;
}

/* @s seconds as "42 s", "3m07s", "2h05m". */
static const char *time_text(double s, char *buf, size_t size)
{
	if (s < 60)
		snprintf(buf, size, "%.0f s", s);
	else if (s < 3600)
		snprintf(buf, size, "%dm%02ds", (int)(s / 60), (int)s % 60);
	else
		snprintf(buf, size, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
	return buf;
}

void sim_show_progress(const struct sim *sim, double elapsed, uint64_t events, int final, FILE *f)
{
	struct sim_progress p;

	sim_progress(sim, &p);
	sim_print_progress(sim, &p, final ? sim->end_time : evq_now(sim->q), elapsed, events, final,
			   f);
}

void sim_print_progress(const struct sim *sim, const struct sim_progress *pp, simtime_t now,
			double elapsed, uint64_t events, int final, FILE *f)
{
	struct sim_progress p = *pp;
	double frac, rate = elapsed > 0 ? (double)events / elapsed : 0;
	char size[32], eta[32], what[160] = "", name[256];
	int k = 0;

	if (p.flows)
		k += snprintf(what + k, sizeof(what) - (size_t)k, "%u/%u flows done", p.flows_done,
			      p.flows);
	if (p.colls && k < (int)sizeof(what))
		k += snprintf(what + k, sizeof(what) - (size_t)k, "%s%u/%u collectives done",
			      k ? ", " : "", p.colls_done, p.colls);
	if (p.coll_iters && k < (int)sizeof(what))
		snprintf(what + k, sizeof(what) - (size_t)k, ", iteration %u/%u", p.coll_iter,
			 p.coll_iters);
	fprintf(f, "rocesim: %s %st=%.1fus: ", txt_term(name, sizeof(name), sim->scn->name),
		final ? (sim->end == SIM_END_DONE ? "done at " : "stopped at ") : "",
		simtime_to_us(now));
	if (p.bytes_total) {
		frac = (double)p.bytes_done / (double)p.bytes_total;
		fprintf(f, "%.1f%% of %s delivered (%s), ", 100.0 * frac,
			size_text(p.bytes_total, size, sizeof(size)), what);
	} else {
		frac = (double)now / (double)sim->scn->stop;
		fprintf(f, "%.0f%% of stop (nothing to deliver), ", 100.0 * frac);
	}
	fprintf(f, "%.2fM events/s, ", rate / 1e6);
	if (final && elapsed < 60)
		fprintf(f, "%.3f s wall\n", elapsed);
	else if (final)
		fprintf(f, "%s wall\n", time_text(elapsed, eta, sizeof(eta)));
	else if (frac > 0)
		fprintf(f, "ETA %s\n", time_text(elapsed * (1 - frac) / frac, eta, sizeof(eta)));
	else
		fprintf(f, "ETA unknown\n");
}
