/*
 * The time-series sampler. Sampling runs every 10 us by default, so its
 * rows are written without printf: integers two digits at a time, the time
 * formatted once per sample, rows gathered in a buffer and handed to stdio
 * a block at a time. The bytes are those printf would write: where a value
 * could round differently (a time or rate exactly halfway between two
 * printed digits), printf writes it.
 */
#include "sim/run/series.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/ff.h"
#include "models/switch.h"
#include "sim/run/sim.h"

/* Rows wait here; a row is at most a time, a name and four integers. */
struct rowbuf {
	FILE *f;
	size_t len;
	int tagged; /* each row after its port's or flow's index (series.h) */
	char buf[1 << 15];
};

/* A split run's row starts with what orders it among the parts' rows. */
#define TAG_LEN 11

static char *put_tag(const struct rowbuf *b, char *p, uint32_t id)
{
	if (b->tagged) {
		for (int i = 9; i >= 0; i--, id /= 10)
			p[i] = (char)('0' + id % 10);
		p[10] = '\t';
		p += TAG_LEN;
	}
	return p;
}

static void rb_flush(struct rowbuf *b)
{
	if (b->len)
		fwrite(b->buf, 1, b->len, b->f);
	b->len = 0;
}

/* Room for @n more bytes, or 0 when a row that long never fits. */
static int rb_room(struct rowbuf *b, size_t n)
{
	if (b->len + n > sizeof(b->buf))
		rb_flush(b);
	return n <= sizeof(b->buf);
}

static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324"
				  "25262728293031323334353637383940414243444546474849"
				  "50515253545556575859606162636465666768697071727374"
				  "75767778798081828384858687888990919293949596979899";

/* The decimal digits of @v at @p; the end. */
static inline char *put_u64(char *p, uint64_t v)
{
	char *end;
	unsigned n = 1;

	for (uint64_t x = v; x >= 10; x /= 10)
		n++;
	end = p + n;
	p = end;
	while (v >= 100) {
		p -= 2;
		p[0] = digit_pairs[2 * (v % 100)];
		p[1] = digit_pairs[2 * (v % 100) + 1];
		v /= 100;
	}
	if (v >= 10) {
		p[-2] = digit_pairs[2 * v];
		p[-1] = digit_pairs[2 * v + 1];
	} else {
		p[-1] = (char)('0' + v);
	}
	return end;
}

/* The string @s at @p; the end. */
static inline char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

/* @v / 10^(3 + @decimals) with @decimals digits ("%.*f" of the same
 * division in double) at @p; the end, or NULL where printf must decide. */
static char *put_scaled(char *p, uint64_t v, int decimals)
{
	uint64_t pow = 1, q, r;
	char frac[8];

	for (int i = 0; i < decimals; i++)
		pow *= 10;
	/* halfway; or so large (2^43 ps is 8.8 s, 2^43 b/s 8.8 Tb/s) that the
	 * double printf is given may be nearer another rounding */
	if (v % 1000 == 500 || v >= (1ULL << 43))
		return NULL;
	q = v / 1000 + (v % 1000 > 500);
	p = put_u64(p, q / pow);
	*p++ = '.';
	r = q % pow;
	for (int i = decimals - 1; i >= 0; i--) {
		frac[i] = (char)('0' + r % 10);
		r /= 10;
	}
	for (int i = 0; i < decimals; i++)
		*p++ = frac[i];
	return p;
}

/* "%.3f" of @t in microseconds, a string; its length. */
static size_t put_time_us(char *out, size_t cap, simtime_t t)
{
	char *end = put_scaled(out, t, 3);

	if (!end)
		return (size_t)snprintf(out, cap, "%.3f", simtime_to_us(t));
	*end = '\0';
	return (size_t)(end - out);
}

/*
 * One timeseries.csv row, "time_us,port,priority,queue_bytes,pg_bytes,
 * headroom_bytes".
 */
static void put_row(struct rowbuf *b, const char *now, size_t now_len, uint32_t id,
		    const char *port, uint8_t prio, uint64_t q, uint64_t pg, uint64_t headroom)
{
	size_t len = strlen(port);
	char *p;

	if (!rb_room(b, TAG_LEN + now_len + len + 3 * 21 + 8)) {
		if (b->tagged)
			fprintf(b->f, "%010u\t", id);
		fprintf(b->f, "%s,%s,%u,%llu,%llu,%llu\n", now, port, prio, (unsigned long long)q,
			(unsigned long long)pg, (unsigned long long)headroom);
		return;
	}
	p = put_tag(b, b->buf + b->len, id);
	p = put_str(p, now);
	*p++ = ',';
	p = put_str(p, port);
	*p++ = ',';
	p = put_u64(p, prio);
	*p++ = ',';
	p = put_u64(p, q);
	*p++ = ',';
	p = put_u64(p, pg);
	*p++ = ',';
	p = put_u64(p, headroom);
	*p++ = '\n';
	b->len = (size_t)(p - b->buf);
}

/*
 * Add the non-empty queues as they stand to the sums @kp keeps of the
 * fast-forward's sequence (a sample taken while it watches; a new
 * sequence, begun at @t0, starts them anew): a span shows their means,
 * the queues held at the steady state's. With @grp (not UINT32_MAX), the
 * ports of that group of the fast-forward alone. 0 or -ENOMEM.
 */
static int keep_queues(struct sim *sim, struct series_keep *kp, simtime_t t0, uint32_t grp)
{
	struct series *se = &sim->sampling;
	const struct topo *t = sim->topo;
	struct net *n = sim->net;
	size_t old = 0, k = 0, need;

	if (kp->t0 != t0 || !kp->n) {
		kp->n_held = 0;
		kp->n = 0;
		kp->t0 = t0;
	}
	need = kp->n_held + (size_t)se->n_nonzero * PKT_PRIORITIES;
	if (need > kp->cap_held) {
		size_t cap = kp->cap_held ? kp->cap_held : 64;
		struct series_held *h, *sp;

		while (cap < need)
			cap *= 2;
		h = realloc(kp->held, cap * sizeof(*h));
		if (!h)
			return -ENOMEM;
		kp->held = h;
		sp = realloc(kp->spare, cap * sizeof(*sp));
		if (!sp)
			return -ENOMEM;
		kp->spare = sp;
		kp->cap_held = cap;
	}
	for (uint32_t j = 0; j < se->n_ports && (se->n_nonzero || old < kp->n_held); j++) {
		uint32_t i = se->ports[j];
		const struct topo_port *tp = &t->ports[i];
		const struct sw *s = n->switches[tp->node];
		uint32_t lp = i - t->nodes[tp->node].first_port;
		unsigned now = se->nonzero[i];

		if (grp != UINT32_MAX && ff_port_group(sim->ff, i) != grp)
			continue;
		for (uint8_t prio = 0; prio < PKT_PRIORITIES; prio++) {
			int was = old < kp->n_held && kp->held[old].port == i &&
				  kp->held[old].prio == prio;
			struct series_held h = {i, prio, 0, 0, 0};

			if (was)
				h = kp->held[old++];
			if (now & (1u << prio)) {
				struct sw_pg_stats pg = sw_pg(s, lp, prio);

				h.queue += n->ports[i].queue[prio].bytes;
				h.pg += pg.bytes;
				h.headroom += pg.headroom;
			} else if (!was) {
				continue;
			}
			kp->spare[k++] = h;
		}
	}
	{
		struct series_held *x = kp->held;

		kp->held = kp->spare;
		kp->spare = x;
	}
	kp->n_held = k;
	kp->n++;
	return 0;
}

/* The mean of @sum over @n samples, to the nearest byte. */
static uint64_t held_mean(uint64_t sum, uint32_t n)
{
	return n ? (sum + n / 2) / n : sum;
}

/*
 * A sample in a fast-forward's span, where the network (or the span's
 * group) is empty: the queues @kp kept at their means over the samples of
 * the sequence before it (the steady state the span extends), marked
 * non-empty so that the first sample after it writes their zero rows, or
 * their new values.
 */
static void held_queues(struct sim *sim, const struct series_keep *kp, struct rowbuf *b,
			const char *now, size_t now_len)
{
	struct series *se = &sim->sampling;
	const struct topo *t = sim->topo;

	for (size_t k = 0; k < kp->n_held; k++) {
		const struct series_held *s = &kp->held[k];
		struct series_held m = {s->port, s->prio, held_mean(s->queue, kp->n),
					held_mean(s->pg, kp->n), held_mean(s->headroom, kp->n)};
		const struct series_held *h = &m;

		if (!se->nonzero[h->port])
			se->n_nonzero++;
		se->nonzero[h->port] |= (uint8_t)(1u << h->prio);
		if (se->version) { /* the next sample looks at the port again */
			const struct topo_port *tp = &t->ports[h->port];

			se->version[h->port] =
			    sw_port_version(sim->net->switches[tp->node],
					    h->port - t->nodes[tp->node].first_port) -
			    1;
		}
		if (se->last) {
			struct series_last *last =
			    &se->last[(size_t)h->port * PKT_PRIORITIES + h->prio];

			if (last->queue == h->queue && last->pg == h->pg &&
			    last->headroom == h->headroom)
				continue;
			*last = (struct series_last){h->queue, h->pg, h->headroom};
		}
		put_row(b, now, now_len, h->port, t->ports[h->port].name, h->prio, h->queue, h->pg,
			h->headroom);
	}
}

/* Switch queues and PGs: a row for each non-empty one, and one zero row
 * when it empties; with output.timeseries: changes, only those whose
 * values differ from their last row. An idle port that was idle at the
 * last sample is skipped without reading its PGs. */
static void sample_queues(struct sim *sim, struct rowbuf *b, const char *now, size_t now_len,
			  int groups)
{
	struct series *se = &sim->sampling;
	struct net *n = sim->net;
	const struct topo *t = sim->topo;

	/* no packet anywhere and none at the last sample: every port would be
	 * passed over (an idle fabric, a compute phase, a fast-forward) */
	if (!se->n_nonzero && !n->ctx.pool.live)
		return;
	for (uint32_t k = 0; k < se->n_ports; k++) {
		uint32_t i = se->ports[k];
		const struct port *p = &n->ports[i];
		const struct topo_port *tp = &t->ports[i];
		const struct sw *s = n->switches[tp->node];
		uint32_t lp = i - t->nodes[tp->node].first_port;
		uint64_t in = sw_ingress_bytes(s, lp);
		uint8_t busy, rows;

		if (!p->queued_bytes && !se->nonzero[i] && !in)
			continue;
		/* a group in a span: its held rows are written (series_write) */
		if (groups && ff_port_phase(sim->ff, i) == FF_PHASE_SPAN)
			continue;
		if (se->version) {
			/* changes only: a port nothing happened at has none */
			uint32_t v = sw_port_version(s, lp);

			if (v == se->version[i])
				continue;
			se->version[i] = v;
		}
		busy = p->nonempty | (in ? sw_pg_busy(s, lp) : 0);
		rows = busy | se->nonzero[i];
		se->n_nonzero += (busy != 0) - (se->nonzero[i] != 0);
		se->nonzero[i] = busy;
		for (unsigned m = rows; m; m &= m - 1) {
			uint8_t prio = (uint8_t)__builtin_ctz(m);
			struct sw_pg_stats pg = sw_pg(s, lp, prio);
			uint64_t q = p->queue[prio].bytes;

			if (se->last) {
				struct series_last *last =
				    &se->last[(size_t)i * PKT_PRIORITIES + prio];

				if (last->queue == q && last->pg == pg.bytes &&
				    last->headroom == pg.headroom)
					continue;
				*last = (struct series_last){q, pg.bytes, pg.headroom};
			}
			put_row(b, now, now_len, i, tp->name, prio, q, pg.bytes, pg.headroom);
		}
	}
}

/* "%.6f" of @bps in Gb/s at @p; the end. */
static char *put_gbps(char *p, uint64_t bps)
{
	char *end = put_scaled(p, bps, 6);

	return end ? end : p + sprintf(p, "%.6f", (double)bps / 1e9);
}

/*
 * "%.6f" of alpha @q20 / 2^20 at @p; the end, or NULL on a tie, where
 * printf must decide. Exact: 10^6 / 2^20 is 15625 / 16384, so the value in
 * millionths is q20 x 15625 / 16384, rounded to nearest as printf rounds
 * the exact double it is given.
 */
static char *put_alpha(char *p, uint32_t q20)
{
	uint64_t x = (uint64_t)q20 * 15625, q = x / 16384, r = x % 16384;
	char frac[6];

	if (2 * r == 16384)
		return NULL;
	q += 2 * r > 16384;
	p = put_u64(p, q / 1000000);
	*p++ = '.';
	for (int i = 5; i >= 0; i--, q /= 10)
		frac[i] = (char)('0' + q % 10);
	memcpy(p, frac, sizeof(frac));
	return p + sizeof(frac);
}

/*
 * The QPs whose DCQCN is active, looked for again only when a CNP was
 * handled since: a training iteration's sampler otherwise looked at every
 * QP at every sample, to find none (GPT-13B: a fifth of its wall time).
 */
static int rate_flows(struct sim *sim)
{
	struct series *se = &sim->sampling;
	const struct net *n = sim->net;

	if (se->rates_cnp == n->ctx.tot.cnp_handled + 1)
		return 0;
	se->n_rate_flows = 0;
	for (uint32_t i = 0; i < n->n_flows; i++) {
		if (!n->flows[i].rp.active)
			continue;
		if (se->n_rate_flows == se->cap_rate_flows) {
			uint32_t cap = se->cap_rate_flows ? 2 * se->cap_rate_flows : 64;
			uint32_t *a = realloc(se->rate_flows, (size_t)cap * sizeof(*a));

			if (!a)
				return -ENOMEM;
			se->rate_flows = a;
			se->cap_rate_flows = cap;
		}
		se->rate_flows[se->n_rate_flows++] = i;
	}
	se->rates_cnp = n->ctx.tot.cnp_handled + 1;
	return 0;
}

/* Every active QP's DCQCN state: "time_us,qp,src,dst,rc_gbps,rt_gbps,alpha". */
static void sample_rates(struct sim *sim, struct rowbuf *b, const char *now, size_t now_len,
			 simtime_t when)
{
	struct net *n = sim->net;
	const struct topo *t = sim->topo;

	if (rate_flows(sim)) {
		mctx_fail(&n->ctx, -ENOMEM);
		return;
	}
	for (uint32_t k = 0; k < sim->sampling.n_rate_flows; k++) {
		uint32_t i = sim->sampling.rate_flows[k];
		struct flow *f = &n->flows[i];
		const char *src, *dst;
		size_t ls, ld;
		uint32_t alpha;
		char *p, *end;

		if (f->acked || !f->n_psn || f->snd_una >= f->n_psn ||
		    f->side == NIC_SIDE_RESPONDER || f->side == NIC_SIDE_NONE)
			continue;
		src = t->nodes[t->hosts[f->src]].name;
		dst = t->nodes[t->hosts[f->dst]].name;
		ls = strlen(src);
		ld = strlen(dst);
		if (!rb_room(b, TAG_LEN + now_len + ls + ld + 4 * 32)) {
			if (b->tagged)
				fprintf(b->f, "%010u\t", i);
			fprintf(b->f, "%s,%u,%s,%s,%.6f,%.6f,%.6f\n", now, i, src, dst,
				(double)f->rp.rc / 1e9, (double)f->rp.rt / 1e9,
				dcqcn_rp_alpha_frac(&f->rp, when));
			continue;
		}
		p = put_tag(b, b->buf + b->len, i);
		p = put_str(p, now);
		*p++ = ',';
		p = put_u64(p, i);
		*p++ = ',';
		p = put_str(p, src);
		*p++ = ',';
		p = put_str(p, dst);
		*p++ = ',';
		p = put_gbps(p, f->rp.rc);
		*p++ = ',';
		p = put_gbps(p, f->rp.rt);
		*p++ = ',';
		alpha = dcqcn_rp_alpha(&f->rp, when);
		end = put_alpha(p, alpha);
		p = end ? end : p + sprintf(p, "%.6f", (double)alpha / (1U << 20));
		*p++ = '\n';
		b->len = (size_t)(p - b->buf);
	}
}

int series_init(struct sim *sim)
{
	struct series *se = &sim->sampling;
	const struct topo *t = sim->topo;

	se->ports = malloc((t->n_ports ? t->n_ports : 1) * sizeof(*se->ports));
	se->nonzero = calloc(t->n_ports ? t->n_ports : 1, 1);
	if (sim->scn->out.series == SCN_SERIES_CHANGES) {
		se->last = calloc((size_t)(t->n_ports ? t->n_ports : 1) * PKT_PRIORITIES,
				  sizeof(*se->last));
		se->version = calloc(t->n_ports ? t->n_ports : 1, sizeof(*se->version));
		if (!se->last || !se->version)
			return -ENOMEM;
	}
	if (!se->ports || !se->nonzero)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->n_ports; i++)
		if (sim->net->switches[t->ports[i].node])
			se->ports[se->n_ports++] = i;
	return 0;
}

void series_fini(struct sim *sim)
{
	free(sim->sampling.ports);
	free(sim->sampling.nonzero);
	free(sim->sampling.last);
	free(sim->sampling.version);
	free(sim->sampling.keep.held);
	free(sim->sampling.keep.spare);
	for (uint32_t g = 0; g < sim->sampling.n_keeps; g++) {
		free(sim->sampling.keeps[g].held);
		free(sim->sampling.keeps[g].spare);
	}
	free(sim->sampling.keeps);
	free(sim->sampling.rate_flows);
}

/* The queues of a fast-forward of several groups: each group in a span
 * held at its sequence's means, the others as they stand. */
static void group_queues(struct sim *sim, struct rowbuf *b, const char *now, size_t now_len)
{
	struct series *se = &sim->sampling;
	uint32_t n = ff_groups(sim->ff);

	if (!se->keeps) {
		se->keeps = calloc(n, sizeof(*se->keeps));
		if (!se->keeps) {
			mctx_fail(&sim->net->ctx, -ENOMEM);
			return;
		}
		se->n_keeps = n;
	}
	for (uint32_t g = 0; g < n; g++)
		if (ff_group_phase(sim->ff, g) == FF_PHASE_SPAN)
			held_queues(sim, &se->keeps[g], b, now, now_len);
	sample_queues(sim, b, now, now_len, 1);
	for (uint32_t g = 0; g < n; g++)
		if (ff_group_phase(sim->ff, g) == FF_PHASE_WATCH &&
		    keep_queues(sim, &se->keeps[g], ff_group_seq_t0(sim->ff, g), g))
			mctx_fail(&sim->net->ctx, -ENOMEM);
}

void series_write(struct sim *sim, simtime_t now)
{
	struct rowbuf b;
	char now_s[48];
	size_t now_len = put_time_us(now_s, sizeof(now_s), now);

	b.f = sim->series;
	b.len = 0;
	b.tagged = sim->sampling.tagged;
	if (sim->ff && ff_groups(sim->ff) > 1) {
		group_queues(sim, &b, now_s, now_len);
	} else if (sim->ff && ff_phase(sim->ff) == FF_PHASE_SPAN) {
		held_queues(sim, &sim->sampling.keep, &b, now_s, now_len);
	} else {
		sample_queues(sim, &b, now_s, now_len, 0);
		if (sim->ff && ff_phase(sim->ff) == FF_PHASE_WATCH &&
		    keep_queues(sim, &sim->sampling.keep, ff_seq_t0(sim->ff), UINT32_MAX))
			mctx_fail(&sim->net->ctx, -ENOMEM);
	}
	if (b.tagged && rb_room(&b, 2))
		b.buf[b.len++] = '=', b.buf[b.len++] = '\n'; /* the sample ends */
	rb_flush(&b);
	if (sim->qp_rates) {
		b.f = sim->qp_rates;
		sample_rates(sim, &b, now_s, now_len, now);
		if (b.tagged && rb_room(&b, 2))
			b.buf[b.len++] = '=', b.buf[b.len++] = '\n';
		rb_flush(&b);
	}
}

void series_sample(void *obj, uint64_t arg)
{
	struct sim *sim = obj;
	simtime_t now = evq_now(sim->q);

	(void)arg;
	series_write(sim, now);
	/* keep sampling while anything else is still to happen */
	if (evq_size(sim->q) > 0 && now + sim->scn->out.sample <= sim->scn->stop)
		mctx_arm(&sim->net->ctx, &sim->sampler, now + sim->scn->out.sample);
}

void series_restrict(struct sim *sim, const uint32_t *node_part, uint32_t me)
{
	struct series *se = &sim->sampling;
	uint32_t k = 0;

	for (uint32_t j = 0; j < se->n_ports; j++)
		if (node_part[sim->topo->ports[se->ports[j]].node] == me)
			se->ports[k++] = se->ports[j];
	se->n_ports = k;
	se->tagged = 1;
}
