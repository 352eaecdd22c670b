/*
 * Scenario checks of the switch: and nic: sections (scenario_check.c takes
 * the sections in turn): PFC, ECN, buffers, scheduler and watchdog; the
 * transport and DCQCN. Also scn_dcqcn_param, the mlx5 cc_params names and
 * ranges that nic.dcqcn, nic.cc_params, `rocesim check` and `rocesim
 * import` share.
 */
#include "sim/config/scenario.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/mlnx.h"
#include "sim/config/scenario_impl.h"
#include "sim/engine/units.h"
#include "sim/readers/ydoc.h"

/* ---- nic: transport and DCQCN ------------------------------------------------ */

/* v >= min, without a comparison the compiler finds always true for 0 */
static int in_min(unsigned long long v, long long min)
{
	return min <= 0 || v >= (unsigned long long)min;
}

int scn_dcqcn_param(const char *name, const char *value, struct dcqcn_params *p, char *msg,
		    size_t size)
{
	unsigned long long v;
	char *end;

#define DCQCN_SET(field, min, max)                                                                 \
	if (!strcmp(name, #field)) {                                                               \
		errno = 0;                                                                         \
		v = strtoull(value, &end, 10);                                                     \
		if (!isdigit((unsigned char)value[0]) || *end || errno) {                          \
			snprintf(msg, size, "\"%s\" is not a whole number", value);                \
			return -EINVAL;                                                            \
		}                                                                                  \
		if (v > (max) || !in_min(v, min)) {                                                \
			snprintf(msg, size, "%llu is out of range (%d to %d)", v, min, max);       \
			return -EINVAL;                                                            \
		}                                                                                  \
		p->field = (uint32_t)v;                                                            \
		return 0;                                                                          \
	}
	DCQCN_KEYS(DCQCN_SET)
#undef DCQCN_SET
	snprintf(msg, size, "no such mlx5 cc_params name");
	return -ENOENT;
}

/*
 * The cc_params unit of nic.dcqcn key @name (Linux mlx5 cong.c, NVIDIA's
 * DCQCN parameter descriptions): microseconds for the timers, Mb/s for the
 * rates, nic.dcqcn.byte_reset_unit (bytes, or 64-byte units) for
 * rp_byte_reset, none for the rest.
 */
enum cc_unit { CC_PLAIN, CC_US, CC_MBPS, CC_BYTES };

static enum cc_unit cc_unit_of(const char *name)
{
	static const char *const us[] = {"rp_time_reset", "rp_dce_tcp_rtt",
					 "rp_rate_reduce_monitor_period",
					 "np_min_time_between_cnps"};
	static const char *const mbps[] = {"rp_ai_rate", "rp_hai_rate", "rp_max_rate",
					   "rp_min_rate", "rp_rate_to_set_on_first_cnp"};

	for (size_t i = 0; i < sizeof(us) / sizeof(us[0]); i++)
		if (!strcmp(name, us[i]))
			return CC_US;
	for (size_t i = 0; i < sizeof(mbps) / sizeof(mbps[0]); i++)
		if (!strcmp(name, mbps[i]))
			return CC_MBPS;
	return strcmp(name, "rp_byte_reset") ? CC_PLAIN : CC_BYTES;
}

/*
 * nic.dcqcn.@name's value @s as the cc_params number: a bare number as it
 * is (already in the cc_params unit), a value with a unit converted to it
 * ("4us" -> 4, "5Mbps" -> 5, "2MB" -> 2000000 bytes, or 31250 with
 * @byte_unit 64) into @buf. 0 with *@out set, or the refusal: a unit of
 * another kind, a key without a unit, a value that does not convert exactly.
 */
static int dcqcn_value(const struct loader *l, const char *path, const char *name, const char *s,
		       uint32_t byte_unit, char *buf, size_t size, const char **out)
{
	const char *p = s;
	uint64_t v;

	*out = s;
	while (p && isdigit((unsigned char)*p))
		p++;
	if (!s || !*p || p == s)
		return 0; /* absent, bare, or not a number at all: the range check says */
	switch (cc_unit_of(name)) {
	case CC_US: {
		simtime_t ps;

		if (units_time(s, &ps))
			return scn__fail(l, path,
					 "\"%s\" is not a time (e.g. 300us, or 300: "
					 "microseconds)",
					 s);
		if (ps % SIMTIME_US)
			return scn__fail(l, path,
					 "%s is not a whole number of microseconds, the "
					 "unit cc_params takes",
					 s);
		v = ps / SIMTIME_US;
		break;
	}
	case CC_MBPS:
		if (units_rate(s, &v))
			return scn__fail(l, path, "\"%s\" is not a rate (e.g. 5Mbps, or 5: Mb/s)",
					 s);
		if (v % 1000000)
			return scn__fail(l, path,
					 "%s is not a whole number of Mb/s, the unit "
					 "cc_params takes",
					 s);
		v /= 1000000;
		break;
	case CC_BYTES:
		if (units_size(s, &v))
			return scn__fail(l, path,
					 "\"%s\" is not a size (e.g. 2MB, or 32767: "
					 "units of nic.dcqcn.byte_reset_unit)",
					 s);
		if (v % byte_unit)
			return scn__fail(l, path,
					 "%s is not a whole number of %u-byte units "
					 "(nic.dcqcn.byte_reset_unit)",
					 s, byte_unit);
		v /= byte_unit;
		break;
	default:
		return scn__fail(l, path, "\"%s\" is not a whole number (%s takes no unit)", s,
				 name);
	}
	snprintf(buf, size, "%llu", (unsigned long long)v);
	*out = buf;
	return 0;
}

/* nic.cc_params over the defaults; a bad entry is fatal unless lenient. */
static int apply_cc_params(const struct loader *l, struct dcqcn_params *p)
{
	const struct cc_params *cc = &l->raw->cfg.cc;
	char msg[200];

	for (size_t i = 0; i < cc->n; i++) {
		const struct cc_entry *e = &cc->v[i];

		if (!scn_dcqcn_param(e->name, e->value, p, msg, sizeof(msg)))
			continue;
		if (l->raw->cfg.flags & SCN_LOAD_LENIENT)
			continue;
		diag_set(l->d, e->file, e->line, e->name, "%s (nic.cc_params)", msg);
		return -EINVAL;
	}
	return 0;
}

/*
 * rp_min_rate above a given rp_max_rate: no rate meets both (the model
 * would pace at the minimum, above the cap). Refused unless lenient (check
 * says it, CC_PARAM_ORDER), named where rp_min_rate is given.
 */
static int dcqcn_order(const struct loader *l, const struct scenario *s)
{
	const struct dcqcn_params *p = &s->nic.dcqcn;
	const struct scn_origin *o = scn__origin_of(l->raw, "nic.dcqcn.rp_max_rate");
	char at[300] = "";

	if (s->nic.cc != NIC_CC_DCQCN || !p->rp_max_rate || p->rp_min_rate <= p->rp_max_rate ||
	    (l->raw->cfg.flags & SCN_LOAD_LENIENT))
		return 0;
	if (o && !scn__explicit(l, "nic.dcqcn.rp_max_rate"))
		snprintf(at, sizeof(at), " (%s:%d)", o->file, o->line);
	else if (scn__explicit(l, "nic.dcqcn.rp_max_rate"))
		snprintf(at, sizeof(at), " (nic.dcqcn.rp_max_rate)");
	return scn__fail(l, "nic.dcqcn.rp_min_rate",
			 "%u Mb/s is above rp_max_rate %u Mb/s%s: the lowest rate a cut leaves "
			 "a QP must not exceed the highest it is paced at",
			 p->rp_min_rate, p->rp_max_rate, at);
}

/* nic.transport and nic.dcqcn */
static int check_transport(const struct loader *l, const struct raw_nic *r, struct scenario *s)
{
	const struct raw_transport *t = r->transport;
	const struct raw_dcqcn *dc = r->dcqcn;
	struct dcqcn_params *p = &s->nic.dcqcn;
	const char *v;
	char num[24];
	int err;

	/* NCCL_IB_TIMEOUT: 4.096 us x 2^t, NCCL's default t = 20 (4.3 s) */
	if ((err = scn__get_u32(l, "nic.transport.timeout", t ? t->timeout : NULL, 20, 0, 31,
				&s->nic.timeout_exp)) ||
	    (err = scn__get_u32(l, "nic.transport.ack_every", t ? t->ack_every : NULL, 8, 1, 65535,
				&s->nic.ack_every)) ||
	    /* NCCL_IB_RETRY_CNT: the InfiniBand 3-bit retry count, NCCL's default 7 */
	    (err = scn__get_u32(l, "nic.transport.retry_cnt", t ? t->retry_cnt : NULL, 7, 0, 7,
				&s->nic.retry_cnt)) ||
	    (err = scn__get_bool(l, "nic.transport.adaptive_retrans",
				 t ? t->adaptive_retrans : NULL, 0, &s->nic.adaptive_retrans)) ||
	    (err = scn__get_time(l, "nic.transport.adaptive_first", t ? t->adaptive_first : NULL,
				 NIC_ADAPTIVE_FIRST, 1, &s->nic.adaptive_first)))
		return err;
	s->nic.timeout = (4096 * SIMTIME_NS) << s->nic.timeout_exp;
	if (s->nic.adaptive_retrans && s->nic.adaptive_first < NIC_ADAPTIVE_MIN)
		return scn__fail(l, "nic.transport.adaptive_first",
				 "must be at least 4us (the firmware's smallest base timeout)");
	/* the first timeout after progress: the adaptive one, capped by the QP's */
	s->nic.rto_first = s->nic.adaptive_retrans && s->nic.adaptive_first < s->nic.timeout
			       ? s->nic.adaptive_first
			       : s->nic.timeout;
	dcqcn_params_default(p, dc && dc->variant ? (enum dcqcn_variant)(dc->variant - 1)
						  : DCQCN_MLX5);
	/* the two readings first: rp_byte_reset's unit decides what its values mean */
	if (dc && dc->byte_reset_unit)
		p->byte_reset_unit = dc->byte_reset_unit == 2 ? 64 : 1;
	if (dc && dc->cnp_scope)
		p->cnp_per_port = dc->cnp_scope == 2;
	if (p->variant == DCQCN_PAPER)
		p->rp_byte_reset = dcqcn_paper_byte_reset(p->byte_reset_unit);
	if ((err = apply_cc_params(l, p)))
		return err;
	if (!dc)
		return dcqcn_order(l, s);
	if (dc->np_cnp_mode)
		p->np_cnp_window = dc->np_cnp_mode == 2;
#define DCQCN_CHECK(name, min, max)                                                                \
	if ((err = dcqcn_value(l, "nic.dcqcn." #name, #name, dc->name, p->byte_reset_unit, num,    \
			       sizeof(num), &v)) ||                                                \
	    (err = scn__get_u32(l, "nic.dcqcn." #name, v, p->name, min, max, &p->name)))           \
		return err;
	DCQCN_KEYS(DCQCN_CHECK)
#undef DCQCN_CHECK
	if (s->nic.cc != NIC_CC_DCQCN)
		return scn__fail(l, "nic.dcqcn", "only applies to nic.cc: dcqcn");
	return dcqcn_order(l, s);
}

int scn__check_nic(const struct loader *l, const struct raw_nic *r, struct scenario *s)
{
	static const struct raw_nic none;
	uint32_t v;
	int err;

	if (!r)
		r = &none;
	err = scn__get_u32(l, "nic.mtu", r->mtu, 4096, 0, UINT32_MAX, &s->nic.mtu);
	if (err)
		return err;
	if (s->nic.mtu != 256 && s->nic.mtu != 512 && s->nic.mtu != 1024 && s->nic.mtu != 2048 &&
	    s->nic.mtu != 4096)
		return scn__fail(l, "nic.mtu",
				 "%u is not a RoCE path MTU (256, 512, 1024, 2048, 4096)",
				 s->nic.mtu);
	if ((err = scn__get_u32(l, "nic.dscp", r->dscp, 26, 0, 63, &v)))
		return err;
	s->nic.dscp = (uint8_t)v;
	/* the NIC's dscp2prio: mlnx_qos's when given, else mlx5's default DSCP >> 3 */
	for (int d = 0; d < 64 && !scn__from_config(l->raw, "nic.dscp2prio"); d++)
		s->nic.dscp2prio[d] = (uint8_t)(d >> 3);
	if ((err = scn__get_u32(l, "nic.priority", r->priority, s->nic.dscp2prio[s->nic.dscp], 0, 7,
				&v)))
		return err;
	s->nic.priority = (uint8_t)v;
	if (!scn__from_config(l->raw, "nic.pfc"))
		s->nic.pfc = (uint8_t)(1u << s->nic.priority);
	if (r->pfc) {
		/* as mlnx_qos prints it: eight 0/1 flags, priority 0 first */
		if (r->pfc_count != 8)
			return scn__fail(
			    l, "nic.pfc",
			    "needs 8 flags, one per priority (e.g. [0,0,0,1,0,0,0,0]), not %u",
			    r->pfc_count);
		s->nic.pfc = 0;
		for (unsigned i = 0; i < 8; i++) {
			char p[32];
			int on;

			snprintf(p, sizeof(p), "nic.pfc[%u]", i);
			if ((err = scn__get_bool(l, p, r->pfc[i], 0, &on)))
				return err;
			s->nic.pfc |= (uint8_t)(on << i);
		}
	}
	if ((err = scn__get_bool(l, "nic.ecn", r->ecn, 1, &s->nic.ecn)))
		return err;
	s->nic.cc = r->cc ? (enum nic_cc)(r->cc - 1) : NIC_CC_DCQCN;
	if ((err = scn__get_size(l, "nic.rx_buffer", r->rx_buffer, 0, 1, &s->nic.rx_buffer)))
		return err;
	if (!r->rx_buffer != !r->rx_rate)
		return scn__fail(l, r->rx_buffer ? "nic.rx_buffer" : "nic.rx_rate",
				 "a slow receiver needs both rx_buffer and rx_rate");
	if (r->rx_rate) {
		err = units_rate(r->rx_rate, &s->nic.rx_rate);
		if (err || !s->nic.rx_rate)
			return scn__fail(l, "nic.rx_rate",
					 "\"%s\" is not a rate above 0 (e.g. 50Gbps)", r->rx_rate);
		if (s->nic.rx_buffer < 2 * ((uint64_t)s->nic.mtu + 62))
			return scn__fail(l, "nic.rx_buffer",
					 "must hold at least two packets of the MTU");
	}
	return check_transport(l, r, s);
}

/* ---- switch ------------------------------------------------------------------ */

static int set_dscp_entry(const struct loader *l, struct scenario *s, const char *path,
			  const char *value)
{
	const char *key = path + strlen("switch.dscp_to_tc.");
	uint64_t dscp = 0;
	uint32_t tc;
	int err;

	err = scn__get_uint(l, path, key, 0, 0, 63, &dscp);
	if (err)
		return scn__fail(l, path, "\"%s\" is not a DSCP value (0 to 63)", key);
	if (!value)
		return scn__fail(l, path, "expected a traffic class (0 to 7)");
	err = scn__get_u32(l, path, value, 0, 0, 7, &tc);
	if (!err)
		s->sw.dscp_to_tc[dscp] = (uint8_t)tc;
	return err;
}

/* switch.dscp_to_tc: defaults, then the file's entries, then --set ones. */
static int check_dscp_map(const struct loader *l, struct scenario *s, const char *const *sets,
			  size_t n_sets)
{
	const size_t plen = strlen("switch.dscp_to_tc.");
	char path[160];
	int err;

	/* RDMA data on the first lossless class, CNPs (the DSCP the NICs give
	 * them) on the class served strictly; unless a SONiC map gave them all */
	if (!l->raw->cfg.dscp_map) {
		memset(s->sw.dscp_to_tc, 0, sizeof(s->sw.dscp_to_tc));
		if (s->sw.lossless)
			s->sw.dscp_to_tc[s->nic.dscp] = (uint8_t)__builtin_ctz(s->sw.lossless);
		s->sw.dscp_to_tc[s->nic.dcqcn.np_cnp_dscp & 63] = s->sw.cnp_priority;
	}
	for (size_t i = 0; i < ydoc_count(l->raw->doc); i++) {
		const struct ydoc_entry *e = ydoc_at(l->raw->doc, i);

		if (!strcmp(e->path, "switch.dscp_to_tc") && e->value && e->value[0])
			return scn__fail(
			    l, e->path,
			    "expected a mapping of DSCP: traffic class (e.g. {26: 3, 48: 6})");
		if (strncmp(e->path, "switch.dscp_to_tc.", plen))
			continue;
		if ((err = set_dscp_entry(l, s, e->path, e->value)))
			return err;
	}
	for (size_t i = 0; i < n_sets; i++) {
		const char *eq = strchr(sets[i], '=');

		if (strncmp(sets[i], "switch.dscp_to_tc.", plen) || !eq ||
		    (size_t)(eq - sets[i]) >= sizeof(path))
			continue;
		memcpy(path, sets[i], (size_t)(eq - sets[i]));
		path[eq - sets[i]] = '\0';
		if ((err = set_dscp_entry(l, s, path, eq + 1)))
			return err;
	}
	return 0;
}

/* Did the scenario (@raw, its text) or a real config give the key @path?
 * An error about two keys then blames the one that was given. */
static int given(const struct loader *l, const char *raw, const char *path)
{
	return raw || scn__from_config(l->raw, path);
}

static int check_pfc(const struct loader *l, const struct raw_pfc *r, struct scenario *s)
{
	static const struct raw_pfc none;
	struct sw_pfc *p = &s->sw.pfc;
	uint32_t quanta;
	int err;

	if (!r)
		r = &none;
	if ((err = scn__get_bool(l, "switch.pfc.enabled", r->enabled, 1, &p->enabled)))
		return err;
	if (r->xoff && r->dynamic_th)
		return scn__fail(l, "switch.pfc.dynamic_th",
				 "give either xoff (static) or dynamic_th, not both");
	if (r->xon && r->xon_offset)
		return scn__fail(l, "switch.pfc.xon_offset",
				 "give either xon or xon_offset, not both");
	p->dynamic = !r->xoff && !scn__from_config(l->raw, "switch.pfc.xoff");
	/* 1: SONiC's lossless PG profile */
	if ((err =
		 scn__get_int(l, "switch.pfc.dynamic_th", r->dynamic_th, 1, -7, 7, &p->dynamic_th)))
		return err;
	if ((err = scn__get_size(l, "switch.pfc.xoff", r->xoff, 0, 1, &p->xoff)) ||
	    (err = scn__get_size(l, "switch.pfc.xon", r->xon, 0, 0, &p->xon)) ||
	    (err = scn__get_size(l, "switch.pfc.xon_offset", r->xon_offset, 2496, 0,
				 &p->xon_offset)) ||
	    (err = scn__get_size(l, "switch.pfc.headroom", r->headroom, 0, 1, &p->headroom)) ||
	    (err = scn__get_u32(l, "switch.pfc.quanta", r->quanta, 65535, 1, 65535, &quanta)) ||
	    (err = scn__get_time(l, "switch.pfc.refresh", r->refresh, 0, 1, &p->refresh)) ||
	    (err = scn__get_time(l, "switch.pfc.response", r->response, 0, 1, &p->response)))
		return err;
	p->has_xon = r->xon != NULL;
	p->quanta = quanta;
	if (!p->dynamic && p->xoff > s->sw.buffer)
		return scn__fail(l, "switch.pfc.xoff", "is larger than switch.buffer.size");
	if (!p->dynamic && p->has_xon && p->xon >= p->xoff)
		return scn__fail(l, "switch.pfc.xon", "must be below xoff (%llu B), not %llu B",
				 (unsigned long long)p->xoff, (unsigned long long)p->xon);
	if (!p->dynamic && p->xon_offset >= p->xoff)
		return scn__fail(l,
				 given(l, r->xon_offset, "switch.pfc.xon_offset")
				     ? "switch.pfc.xon_offset"
				     : "switch.pfc.xoff",
				 "the XON offset (%llu B) must be smaller than xoff (%llu B)",
				 (unsigned long long)p->xon_offset, (unsigned long long)p->xoff);
	if (s->sw.per_port && p->headroom > s->sw.per_port)
		return scn__fail(l, "switch.pfc.headroom", "is larger than switch.buffer.per_port");
	return 0;
}

static int check_ecn(const struct loader *l, const struct raw_ecn *r, struct scenario *s)
{
	static const struct raw_ecn none;
	struct sw_ecn *e = &s->sw.ecn;
	int err;

	if (!r)
		r = &none;
	if ((err = scn__get_bool(l, "switch.ecn.enabled", r->enabled, 1, &e->enabled)) ||
	    (err = scn__get_size(l, "switch.ecn.kmin", r->kmin, 150000, 0, &e->kmin)) ||
	    (err = scn__get_size(l, "switch.ecn.kmax", r->kmax, 1200000, 1, &e->kmax)))
		return err;
	if (r->pmax) {
		err = units_fraction(r->pmax, &e->pmax);
		if (err || e->pmax <= 0)
			return scn__fail(l, "switch.ecn.pmax",
					 "\"%s\" is not a probability above 0 (e.g. 20%%, 0.2)",
					 r->pmax);
	} else if (!scn__from_config(l->raw, "switch.ecn.pmax")) {
		e->pmax = 0.2;
	} else if (e->pmax <= 0) { /* a real config's: SONiC gives a percentage */
		return scn__fail(l, "switch.ecn.pmax",
				 "\"%g%%\" is not a probability above 0 (e.g. 20%%, 0.2)",
				 e->pmax * 100);
	}
	/* kmin == kmax is step marking (DCTCP's K): all above K, none at or below */
	if (e->kmin > e->kmax)
		return scn__fail(
		    l, given(l, r->kmax, "switch.ecn.kmax") ? "switch.ecn.kmax" : "switch.ecn.kmin",
		    "kmin (%llu B) must not be above kmax (%llu B)", (unsigned long long)e->kmin,
		    (unsigned long long)e->kmax);
	e->at_enqueue = r->mark == 2;
	return 0;
}

int scn__check_switch(const struct loader *l, const struct raw_switch *r, struct scenario *s,
		      const char *const *sets, size_t n_sets)
{
	static const struct raw_switch none;
	const struct raw_buffer *b;
	uint32_t v;
	int err;

	if (!r)
		r = &none;
	b = r->buffer;
	if ((err = scn__get_size(l, "switch.buffer.size", b ? b->size : NULL, 32000000, 1,
				 &s->sw.buffer)) ||
	    (err = scn__get_size(l, "switch.buffer.per_port", b ? b->per_port : NULL, 0, 1,
				 &s->sw.per_port)) ||
	    (err = scn__get_size(l, "switch.buffer.pg_min", b ? b->pg_min : NULL, 0, 0,
				 &s->sw.pg_min)) ||
	    (err = scn__get_size(l, "switch.buffer.headroom_pool", b ? b->headroom_pool : NULL, 0,
				 1, &s->sw.headroom_pool)))
		return err;
	if (s->sw.per_port > s->sw.buffer)
		return scn__fail(l, "switch.buffer.per_port", "is larger than switch.buffer.size");
	if (s->sw.headroom_pool >= s->sw.buffer)
		return scn__fail(l, "switch.buffer.headroom_pool",
				 "leaves nothing of switch.buffer.size");
	if (!scn__from_config(l->raw, "switch.lossless"))
		s->sw.lossless = 1u << 3;
	if (r->lossless && (err = scn__get_prio_list(l, "switch.lossless", r->lossless,
						     r->lossless_count, &s->sw.lossless)))
		return err;
	if ((err = scn__get_u32(l, "switch.cnp_priority", r->cnp_priority, 6, 0, 7, &v)))
		return err;
	s->sw.cnp_priority = (uint8_t)v;
	if ((err = check_pfc(l, r->pfc, s)) || (err = check_ecn(l, r->ecn, s)) ||
	    (err = check_dscp_map(l, s, sets, n_sets)) ||
	    (err = scn__check_by_speed(l, s, sets, n_sets)))
		return err;
	/* a real config's (SONiC's QUEUE schedulers) stands unless the scenario gives one */
	if (r->scheduler || !scn__from_config(l->raw, "switch.scheduler")) {
		s->sw.sched = r->scheduler ? (enum sw_sched)(r->scheduler - 1) : SW_SCHED_STRICT;
		for (int q = 0; q < 8; q++)
			s->sw.weights[q] = 1;
	}
	if (r->weights) {
		if (s->sw.sched != SW_SCHED_DWRR)
			return scn__fail(l, "switch.weights", "only apply to scheduler: dwrr");
		if (r->weights_count != 8)
			return scn__fail(l, "switch.weights",
					 "needs 8 weights, one per traffic class, not %u",
					 r->weights_count);
		for (unsigned q = 0; q < 8; q++) {
			char p[32];

			snprintf(p, sizeof(p), "switch.weights[%u]", q);
			if ((err =
				 scn__get_u32(l, p, r->weights[q], 1, 1, 1000, &s->sw.weights[q])))
				return err;
		}
	}
	/* on when the scenario or a real config (SONiC's PFC_WD) gives it */
	s->sw.wd.enabled = r->watchdog || scn__from_config(l->raw, "switch.watchdog.detection");
	if (s->sw.wd.enabled) {
		static const struct raw_watchdog no_wd;
		const struct raw_watchdog *w = r->watchdog ? r->watchdog : &no_wd;

		if ((err = scn__get_time(l, "switch.watchdog.detection", w->detection,
					 200 * SIMTIME_MS, 1, &s->sw.wd.detection)) ||
		    (err = scn__get_time(l, "switch.watchdog.restoration", w->restoration,
					 200 * SIMTIME_MS, 1, &s->sw.wd.restoration)))
			return err;
		if (w->action)
			s->sw.wd.action = (enum sw_wd_action)(w->action - 1);
		else if (!scn__from_config(l->raw, "switch.watchdog.action"))
			s->sw.wd.action = SW_WD_DROP;
	}
	return scn__sonic_ports(l, s);
}
