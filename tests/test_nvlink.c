/*
 * NVLink transfers against hand-computed times: one alone, two from one
 * GPU (the second behind the first at the sender), two into one GPU (the
 * second behind the first at the receiver), and a transfer posted from
 * inside a delivery (a ring's forward).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "models/nvlink.h"
#include "rig.h"

/* 450 GB/s = 3600 Gb/s: 1 MB in 2,222,222.2 ns, rounded up to the ps */
#define RATE 3600000000000ULL
#define LAT (1 * SIMTIME_US)

struct seen {
	uint32_t n;
	uint32_t dst[8];
	uint64_t cookie[8];
	simtime_t at[8];
	struct nvlink *nv; /* forward from a delivery when set */
};

static void done(void *owner, uint32_t dst, uint64_t cookie, simtime_t now)
{
	struct seen *s = owner;

	s->dst[s->n] = dst;
	s->cookie[s->n] = cookie;
	s->at[s->n++] = now;
	if (s->nv && cookie == 1)
		cr_assert_eq(nvlink_send(s->nv, dst, 2, 1000000, done, s, 2), 0);
}

static struct nvlink *setup(struct rig *r, struct seen *s)
{
	const struct nvlink_params p = {.rate_bps = RATE, .latency = LAT};
	struct nvlink *nv;

	memset(s, 0, sizeof(*s));
	rig_init(r, rig_pair(100000000000ULL, SIMTIME_US));
	cr_assert_not_null(nv = nvlink_new(&r->ctx, &p, 4));
	return nv;
}

/* 1 MB at 3600 Gb/s: 8e6 bits x 1e12 / 3.6e12 ps = 2,222,222.2 -> 2,222,223 ps */
static const simtime_t ser = 2222223;

Test(nvlink, one_transfer_takes_latency_plus_bytes_over_rate)
{
	struct nvlink_gpu_stats st;
	struct seen s;
	struct rig r;
	struct nvlink *nv = setup(&r, &s);

	cr_assert_eq(simtime_tx(1000000, RATE), ser);
	cr_assert_eq(nvlink_send(nv, 0, 1, 1000000, done, &s, 7), 0);
	cr_assert_eq(nvlink_inflight_bytes(nv), 1000000);
	rig_run(&r, SIMTIME_NEVER);
	cr_assert_eq(s.n, 1);
	cr_assert_eq(s.dst[0], 1);
	cr_assert_eq(s.cookie[0], 7);
	cr_assert_eq(s.at[0], LAT + ser);
	cr_assert_eq(nvlink_inflight_bytes(nv), 0);
	nvlink_gpu_stats(nv, 0, &st);
	cr_assert_eq(st.tx_bytes, 1000000);
	cr_assert_eq(st.rx_bytes, 0);
	nvlink_gpu_stats(nv, 1, &st);
	cr_assert_eq(st.rx_bytes, 1000000);
	cr_assert_eq(st.rx_transfers, 1);
	nvlink_free(nv);
	rig_fini(&r);
}

Test(nvlink, a_sender_serializes_its_transfers_in_order)
{
	struct seen s;
	struct rig r;
	struct nvlink *nv = setup(&r, &s);

	cr_assert_eq(nvlink_send(nv, 0, 1, 1000000, done, &s, 1), 0);
	cr_assert_eq(nvlink_send(nv, 0, 2, 1000000, done, &s, 2), 0);
	rig_run(&r, SIMTIME_NEVER);
	cr_assert_eq(s.n, 2);
	cr_assert_eq(s.at[0], LAT + ser);
	cr_assert_eq(s.dst[1], 2);
	cr_assert_eq(s.at[1], ser + LAT + ser);
	nvlink_free(nv);
	rig_fini(&r);
}

Test(nvlink, a_receiver_takes_what_comes_in_at_its_rate)
{
	struct seen s;
	struct rig r;
	struct nvlink *nv = setup(&r, &s);

	/* GPUs 0 and 2 send to 3 at once: the second lands a transfer later */
	cr_assert_eq(nvlink_send(nv, 0, 3, 1000000, done, &s, 1), 0);
	cr_assert_eq(nvlink_send(nv, 2, 3, 1000000, done, &s, 2), 0);
	rig_run(&r, SIMTIME_NEVER);
	cr_assert_eq(s.n, 2);
	cr_assert_eq(s.at[0], LAT + ser);
	cr_assert_eq(s.at[1], LAT + 2 * ser);
	nvlink_free(nv);
	rig_fini(&r);
}

Test(nvlink, a_delivery_may_post_the_next_transfer)
{
	struct seen s;
	struct rig r;
	struct nvlink *nv = setup(&r, &s);

	s.nv = nv;
	cr_assert_eq(nvlink_send(nv, 0, 1, 1000000, done, &s, 1), 0);
	rig_run(&r, SIMTIME_NEVER);
	cr_assert_eq(s.n, 2);
	cr_assert_eq(s.dst[1], 2);
	cr_assert_eq(s.at[1], 2 * (LAT + ser));
	nvlink_free(nv);
	rig_fini(&r);
}
