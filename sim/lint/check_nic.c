/*
 * check: the NIC's traffic classes (nic.tc, nic.mlnx_qos's tc lines) and
 * what nic.mlnx_qos says that the model does not use. Every value a file
 * gives is either used or said here, at its file and line:
 *
 *   NIC_TC_VENDOR          a class with tsa vendor (the firmware's own
 *                          algorithm): served as the mlx5 driver groups it
 *   MLNX_QOS_NOT_MODELLED  tsa unknown, the receive buffer sizes, the
 *                          priority to buffer row, the default priority and
 *                          the cable length: read, not modelled
 *   NIC_TC_ETS_SUM         ETS shares that do not sum to 100 %
 *   NIC_TC_RATELIMIT       a rate limit at or above the line rate (no effect)
 */
#include <stdio.h>
#include <string.h>

#include "sim/lint/findings.h"
#include "sim/lint/rules.h"
#include "sim/readers/mlnx.h"

/* The classes some priority is in (the others carry nothing). */
static uint8_t used_tcs(const struct nic_params *n)
{
	uint8_t used = 0;

	for (int p = 0; p < 8; p++)
		used |= (uint8_t)(1u << (n->prio_tc[p] & 7));
	return used;
}

/* Say @what of mlnx_qos file @q, at @line (key @key): read, not modelled. */
static void not_modelled(struct chk *c, const struct mlnx_qos *q, int line, const char *key,
			 const char *value, const char *why)
{
	chk_add(c, CHK_INFO, "MLNX_QOS_NOT_MODELLED",
		chk_str("%s:%d %s %s", q->file, line, key, value), "read, not modelled: %s", why);
	chk_loc(c, q->file, line, key);
}

/* What nic.mlnx_qos gives that the model does not use. */
static void chk_mlnx_unused(struct chk *c, const struct mlnx_qos *q)
{
	char v[160];
	size_t o = 0;

	for (int tc = 0; tc < 8; tc++) {
		if (strcmp(q->tsa[tc], "unknown"))
			continue;
		snprintf(v, sizeof(v), "tc %d", tc);
		not_modelled(c, q, q->tc_line[tc], v, "tsa unknown",
			     "another transmission algorithm (the credit-based shaper), or none "
			     "printed; the class is served as strict");
	}
	if (q->rx_line) {
		for (int b = 0; b < 8 && o < sizeof(v); b++)
			o += (size_t)snprintf(v + o, sizeof(v) - o, "%s%u", b ? "," : "",
					      q->rx_buffer[b]);
		not_modelled(c, q, q->rx_line, "Receive buffer size (bytes)", v,
			     "the NIC's receive buffers per priority group; the model's NIC "
			     "takes what arrives at once unless nic.rx_buffer and nic.rx_rate "
			     "make it a slow receiver");
	}
	if (q->prio_buffer_line) {
		o = 0;
		for (int p = 0; p < 8 && o < sizeof(v); p++)
			o += (size_t)snprintf(v + o, sizeof(v) - o, "%s%u", p ? " " : "",
					      q->prio_buffer[p]);
		not_modelled(c, q, q->prio_buffer_line, "PFC configuration buffer", v,
			     "which receive buffer each priority uses (see the buffer sizes)");
	}
	if (q->has_default_prio) {
		snprintf(v, sizeof(v), "prio:%u", q->default_prio);
		not_modelled(c, q, q->default_prio_line, "default priority", v,
			     "the priority of traffic that is not IP; every packet simulated is "
			     "RoCEv2, classed by its DSCP");
	}
	if (q->has_cable) {
		snprintf(v, sizeof(v), "%d", q->cable_len);
		not_modelled(c, q, q->cable_line, "Cable len", v,
			     "the NIC sizes its receive buffers' thresholds by it; the model's "
			     "cables are the topology's");
	}
}

void chk_nic(struct chk *c, const struct scenario *s)
{
	const struct nic_params *n = &s->nic;
	struct mlnx_qos q;
	struct diag d = {0};
	uint8_t used = used_tcs(n);
	unsigned sum = 0, n_ets = 0;
	char path[32], o[600], list[200];
	size_t len = 0;

	if (s->cfg.mlnx_qos && !mlnx_qos_read(s->cfg.mlnx_qos, &q, &d))
		chk_mlnx_unused(c, &q);
	if (!n->tc_on)
		return;
	for (int tc = 0; tc < 8; tc++) {
		const struct nic_tc_params *t = &n->tc[tc];

		if (!((used >> tc) & 1))
			continue;
		if (t->tsa == NIC_TSA_VENDOR) {
			snprintf(path, sizeof(path), "nic.tc.%d.tsa", tc);
			chk_add(
			    c, CHK_INFO, "NIC_TC_VENDOR",
			    chk_str("%s vendor %s", path, chk_origin(s, path, o, sizeof(o))),
			    "tc %d's algorithm is the firmware's own, which NVIDIA does not "
			    "publish; modelled as the mlx5 driver groups it: vendor classes are "
			    "served first, sharing equally, then strict, then ETS ones",
			    tc);
			chk_loc_key(c, s, path);
		}
		if (t->ratelimit && c->line_rate_bps && t->ratelimit >= c->line_rate_bps) {
			snprintf(path, sizeof(path), "nic.tc.%d.ratelimit", tc);
			chk_add(c, CHK_INFO, "NIC_TC_RATELIMIT",
				chk_str("%s %.1f Gbps %s", path, (double)t->ratelimit / 1e9,
					chk_origin(s, path, o, sizeof(o))),
				"tc %d's rate limit is at or above the line rate (%.0f Gbps): it "
				"limits nothing",
				tc, (double)c->line_rate_bps / 1e9);
			chk_loc_key(c, s, path);
		}
		if (t->tsa == NIC_TSA_ETS) {
			sum += t->bw;
			n_ets++;
			if (len < sizeof(list))
				len += (size_t)snprintf(list + len, sizeof(list) - len,
							"%stc %d %u%%", len ? ", " : "", tc, t->bw);
		}
	}
	if (n_ets && sum != 100) {
		chk_add(c, CHK_WARNING, "NIC_TC_ETS_SUM", chk_str("nic.tc ETS shares: %s", list),
			"the ETS shares of the classes in use sum to %u%%, not 100%% (mlnx_qos "
			"--tcbw and the kernel refuse such a setting); the simulation shares by "
			"their ratio",
			sum);
		for (int tc = 0; tc < 8; tc++)
			if ((used >> tc) & 1 && n->tc[tc].tsa == NIC_TSA_ETS) {
				snprintf(path, sizeof(path), "nic.tc.%d.bw", tc);
				chk_loc_key(c, s, path);
				break;
			}
	}
}
