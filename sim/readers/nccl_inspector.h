/*
 * NCCL Inspector's JSON output (NVIDIA/nccl ext-profiler/inspector, a
 * profiler plugin of NCCL 2.27 and later: NCCL_PROFILER_PLUGIN=
 * libnccl-profiler-inspector.so, NCCL_INSPECTOR_ENABLE=1): a file a
 * process, one JSON object per collective and communicator, written one
 * after the other (a line each; its README shows them indented, which is
 * read too):
 *
 *   {"header": {"id": "0x7f8c496ae9f661", "rank": 2, "n_ranks": 8, "nnodes": 1},
 *    "metadata": {"inspector_output_format_version": "v4.0", "git_rev": "",
 *                 "rec_mechanism": "profiler_plugin", "dump_timestamp_us": ...,
 *                 "hostname": "...", "pid": ...},
 *    "coll_perf": {"coll": "AllReduce", "coll_sn": 1407,
 *                  "coll_msg_size_bytes": 17179869184, "coll_exec_time_us": 61974,
 *                  "coll_timing_source": "kernel_gpu",
 *                  "coll_algobw_gbs": 277.210914, "coll_busbw_gbs": 485.119099}}
 *
 * (ext-profiler/inspector/README.md; the exporter of exporter/example reads
 * the files the same way, a JSON object a line). The verbose output's
 * event_trace_sn and event_trace_ts, and the Prometheus output
 * (NCCL_INSPECTOR_PROM_DUMP=1), are not read. Records of point-to-point
 * operations (p2p_perf instead of coll_perf) and a dump's own statistics
 * (dump_stats), which later format versions add, are counted in .skipped
 * and not read.
 */
#ifndef ROCESIM_NCCL_INSPECTOR_H
#define ROCESIM_NCCL_INSPECTOR_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine/diag.h"

struct ni_record {
	char comm_id[40]; /* header.id */
	int rank, n_ranks, nnodes;
	char version[16];  /* metadata.inspector_output_format_version, "" if none */
	char hostname[64]; /* metadata.hostname, "" if none */
	char coll[32];	   /* coll_perf.coll: AllReduce, AllGather, ... */
	uint64_t coll_sn;
	uint64_t msg_bytes; /* coll_msg_size_bytes */
	double exec_time_us;
	char timing_source[32]; /* coll_timing_source, "" if none */
	double algbw, busbw;	/* GB/s: coll_algobw_gbs, coll_busbw_gbs */
	int line;		/* where the record starts */
};

struct nccl_inspector {
	char file[256];
	struct ni_record *v;
	size_t n;
	size_t skipped; /* p2p_perf and dump_stats records */
};

/*
 * Read @path into @out (nccl_inspector_free it, also after an error): 0,
 * -EINVAL with @d naming the file, the line and the key (JSON that does
 * not parse: a file cut short; a record without header, metadata or
 * coll_perf; a key of the wrong type), -ENOMEM, or the errno of a file
 * that cannot be read.
 */
int nccl_inspector_read(const char *path, struct nccl_inspector *out, struct diag *d);
int nccl_inspector_parse(const char *text, size_t len, const char *file, struct nccl_inspector *out,
			 struct diag *d);
void nccl_inspector_free(struct nccl_inspector *ni);

#endif
