/*
 * Flow files of HPCC's ns-3 simulation (simulation/mix/flow.txt, read by
 * scratch/third.cc; SimAI's ns-3 reads the same): a line with the flow
 * count, then "src dst pg dport size start_time" a flow, e.g.
 * "2 1 3 100 200000000 2": node ids, the priority group, the destination
 * port (not used here), bytes and the start in seconds. Starts are taken
 * exactly (decimal seconds to picoseconds) and made relative to the
 * earliest flow's. Blank lines are skipped.
 */
#ifndef ROCESIM_HPCC_FLOWS_H
#define ROCESIM_HPCC_FLOWS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine/diag.h"
#include "sim/engine/simtime.h"

struct hpcc_flow {
	uint32_t src, dst; /* node ids */
	uint8_t pg;	   /* priority group, 0..7 */
	uint64_t bytes;
	simtime_t start; /* after the earliest flow's start */
	int line;	 /* in the file, for messages */
};

struct hpcc_flows {
	struct hpcc_flow *flows;
	uint32_t n;
};

/*
 * Parse @text of @len bytes, named @path in errors, into @f (free it with
 * hpcc_flows_free): 0, -EINVAL with @d naming the file, the line and @key
 * (the scenario key naming the file, or ""), or -ENOMEM.
 */
int hpcc_flows_parse(const char *path, const char *text, size_t len, const char *key,
		     struct hpcc_flows *f, struct diag *d);
/* Read @path (sim/engine/textfile.h) and parse it. */
int hpcc_flows_read(const char *path, const char *key, struct hpcc_flows *f, struct diag *d);
void hpcc_flows_free(struct hpcc_flows *f);

#endif
