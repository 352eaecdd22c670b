/*
 * check: what the jobs' NCCL environment says about the fabric beyond the
 * lossless path (check_config.c) and the manifest's own notes: an
 * NCCL_IB_HCA that names HCAs the servers do not have (NCCL silently uses
 * only those that exist, so a typo such as mlx5_8 on servers of eight
 * NICs, mlx5_0..mlx5_7, drops a rail without a word), or that chooses
 * among the NICs of hosts modelled with one; QPs per connection a job
 * sets where they change nothing.
 */
#include <stdio.h>
#include <string.h>

#include "sim/lint/findings.h"
#include "sim/lint/rules.h"
#include "sim/readers/nccl_hca.h"
#include "topologies/topo.h"

/* NCCL_IB_QPS_PER_CONNECTION and NCCL_IB_SPLIT_DATA_ON_QPS where they change nothing. */
static void chk_qps(struct chk *c, const struct scenario *s, const struct scn_pod *p)
{
	int several = 0;

	for (uint32_t k = 0; k < s->n_colls; k++)
		several |= s->colls[k].qps > 1;
	if (!p->coll && (p->qps_line || p->split_line)) {
		int line = p->qps_line ? p->qps_line : p->split_line;
		const char *name =
		    p->qps_line ? "NCCL_IB_QPS_PER_CONNECTION" : "NCCL_IB_SPLIT_DATA_ON_QPS";

		chk_add(c, CHK_INFO, "NCCL_QPS_NOT_USED", chk_str("%s:%d %s", p->file, line, name),
			"%s is no collective: its flows are one QP each, and %s is not used",
			p->workload, name);
		chk_loc(c, p->file, line, name);
	} else if (p->split_line && !p->qps_line && !several) {
		chk_add(c, CHK_INFO, "NCCL_QPS_NOT_USED",
			chk_str("%s:%d NCCL_IB_SPLIT_DATA_ON_QPS", p->file, p->split_line),
			"one QP per connection (neither NCCL_IB_QPS_PER_CONNECTION nor "
			"%s.qps_per_connection gives more): how messages use several QPs "
			"changes nothing",
			p->workload);
		chk_loc(c, p->file, p->split_line, "NCCL_IB_SPLIT_DATA_ON_QPS");
	}
}

void chk_nccl(struct chk *c, const struct scenario *s, const struct topo *t)
{
	uint32_t most = 1;

	for (uint32_t i = 0; i < t->n_servers; i++)
		if (t->servers[i].n_nics > most)
			most = t->servers[i].n_nics;
	for (uint32_t i = 0; i < s->cfg.n_pods; i++) {
		const struct scn_pod *p = &s->cfg.pods[i];
		char bad[256];
		unsigned n;

		chk_qps(c, s, p);
		if (!p->hca[0])
			continue;
		if (most == 1) {
			chk_add(c, CHK_INFO, "NCCL_HCA_NOT_MODELLED",
				chk_str("%s:%d NCCL_IB_HCA=%s", p->file, p->hca_line, p->hca),
				"the hosts are modelled with one NIC each: which HCAs NCCL may use "
				"is not modelled (topology.nics_per_host gives servers several)");
			chk_loc(c, p->file, p->hca_line, "NCCL_IB_HCA");
			continue;
		}
		if (!(n = nccl_hca_unmatched(p->hca, most, bad, sizeof(bad))))
			continue;
		chk_add(c, CHK_WARNING, "NCCL_HCA_UNKNOWN",
			chk_str("%s:%d NCCL_IB_HCA=%s", p->file, p->hca_line, p->hca),
			"%s %s none of the servers' NICs (at most %u a server, mlx5_0..mlx5_%u, "
			"port 1): NCCL skips %s without a word, and %s uses only the HCAs the "
			"list matches",
			bad, n > 1 ? "match" : "matches", most, most - 1, n > 1 ? "them" : "it",
			p->workload);
		chk_loc(c, p->file, p->hca_line, "NCCL_IB_HCA");
	}
}
