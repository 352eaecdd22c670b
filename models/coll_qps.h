/*
 * Several QPs per connection (NCCL_IB_QPS_PER_CONNECTION), as NCCL's IB
 * transport uses them (src/transport/net_ib/p2p.cc, ncclIbMultiSend, and
 * common.h, ncclIbCommBaseGetQpForRequest): round robin, each message goes
 * whole on the next QP of its connection; split (NCCL_IB_SPLIT_DATA_ON_QPS
 * 1), each message is cut over the QPs in chunks of ceil(size / qps)
 * rounded up to 128 bytes (IB_WRITE_CHUNK_ALIGNMENT), the last QPs taking
 * what is left (none, when the message is small). A message counts as
 * arrived once every part of it has, and the messages of a connection in
 * the order they were sent, as NCCL's receiver takes its slots in order.
 *
 * This keeps, per connection (an edge of coll_layout.h), the messages sent
 * and not yet whole; collective.c posts the parts and takes the messages.
 */
#ifndef ROCESIM_COLL_QPS_H
#define ROCESIM_COLL_QPS_H

#include <stdint.h>

#define COLL_QP_ALIGN 128

struct coll_qps;

/* For @n_edges connections of @qps QPs each (@n_qps in all); NULL: no memory. */
struct coll_qps *coll_qps_new(uint32_t n_edges, uint32_t n_qps, uint32_t qps, int split);
void coll_qps_free(struct coll_qps *m);
/*
 * A message of @bytes tagged @tag on edge @e: its parts into @len[0 ..
 * *@parts - 1] (@len has room for qps), on the edge's QPs *@first,
 * *@first + 1, ... (mod qps). 0 or -ENOMEM.
 */
int coll_qps_send(struct coll_qps *m, uint32_t e, uint64_t bytes, uint32_t tag, uint32_t *first,
		  uint64_t *len, uint32_t *parts);
/* A part arrived on QP @i of edge @e, QP @x of the collective. */
void coll_qps_part(struct coll_qps *m, uint32_t e, uint32_t i, uint32_t x);
/* The next message of edge @e that is whole, taken off: 1 and its tag, else 0. */
int coll_qps_whole(struct coll_qps *m, uint32_t e, uint32_t *tag);

#endif
