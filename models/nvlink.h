/*
 * NVLink inside a server: its GPUs joined through NVSwitch, each with a
 * send and a receive side of `rate` per direction (NVLink 4 on H100: 18
 * links of 25 GB/s, 450 GB/s each way), a transfer taking `latency` from
 * its first byte out to its first byte in. No packets and no PFC: NVLink
 * has credit-based flow control of its own and never drops, so a transfer
 * is one event, when its last byte is in.
 *
 * A transfer is serialized at its sender after what that GPU sent before
 * (in the order posted), then at its receiver after what that GPU received
 * before; it flows through (the receiver does not wait for the whole
 * transfer), so alone it takes latency + bytes / rate, and a GPU that
 * several send to at once receives at its rate, in the order the sends
 * finish being posted. GPUs are numbered as the topology numbers them
 * (server by server); transfers between servers are the network's.
 */
#ifndef ROCESIM_NVLINK_H
#define ROCESIM_NVLINK_H

#include <stdint.h>

#include "sim/engine/simtime.h"

struct mctx;
struct nvlink;

struct nvlink_params {
	uint64_t rate_bps; /* per GPU and direction */
	simtime_t latency;
};

/* Told when a transfer's last byte is in at GPU @dst. */
typedef void (*nvlink_done_fn)(void *owner, uint32_t dst, uint64_t cookie, simtime_t now);

struct nvlink_gpu_stats {
	uint64_t tx_bytes, rx_bytes; /* posted from it, delivered to it */
	uint64_t tx_transfers, rx_transfers;
};

/* @n_gpus GPUs; NULL when out of memory. */
struct nvlink *nvlink_new(struct mctx *ctx, const struct nvlink_params *p, uint32_t n_gpus);
void nvlink_free(struct nvlink *nv);
/*
 * Move @bytes (>= 1) from GPU @src to GPU @dst; @fn(@owner, dst, @cookie,
 * when) is called when the last byte is in. 0, or -ENOMEM.
 */
int nvlink_send(struct nvlink *nv, uint32_t src, uint32_t dst, uint64_t bytes, nvlink_done_fn fn,
		void *owner, uint64_t cookie);
void nvlink_gpu_stats(const struct nvlink *nv, uint32_t gpu, struct nvlink_gpu_stats *out);
/* Bytes posted and not yet delivered, over all GPUs. */
uint64_t nvlink_inflight_bytes(const struct nvlink *nv);

/*
 * What a collective replaying an operation (coll_memo.c) asks. A GPU's
 * users are the collectives that may send to or from it: each claims the
 * GPUs of its NVLink edges once, when made (nvlink_claim), and one that
 * is alone on all of its GPUs is the only one that ever moves their
 * state. nvlink_idle: whether @gpu has nothing in flight to it and both
 * its sides are free by @now. nvlink_sides: when its sides are free.
 * nvlink_replay: @gpu moved as an operation measured before moved it:
 * its counters by @add, its sides free at @tx_free and @rx_free.
 */
int nvlink_claim(struct nvlink *nv, uint32_t gpu);
uint32_t nvlink_users(const struct nvlink *nv, uint32_t gpu);
int nvlink_idle(const struct nvlink *nv, uint32_t gpu, simtime_t now);
void nvlink_sides(const struct nvlink *nv, uint32_t gpu, simtime_t *tx_free, simtime_t *rx_free);
void nvlink_replay(struct nvlink *nv, uint32_t gpu, const struct nvlink_gpu_stats *add,
		   simtime_t tx_free, simtime_t rx_free);

#endif
