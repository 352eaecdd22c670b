/*
 * NCCL's environment variables (nccl_env.h). The list is the union of the
 * variables NCCL's "Environment Variables" page documents
 * (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html, its
 * source docs/userguide/source/env.rst in github.com/NVIDIA/nccl, with the
 * names of removed ones it still lists, such as NCCL_IB_CUDA_SUPPORT) and
 * of the parameters NCCL's source reads without documenting them
 * (NCCL_PARAM and ncclGetEnv in src/, e.g. NCCL_IB_USE_INLINE), as of NCCL
 * 2.30. Sorted, for bsearch.
 */
#include "sim/readers/nccl_env.h"

#include <stdlib.h>
#include <string.h>

static const char *const nccl_env_names[] = {
    "NCCL_ALGO",
    "NCCL_ALLGATHERV_ENABLE",
    "NCCL_ALLOC_P2P_NET_LL_BUFFERS",
    "NCCL_BUFFSIZE",
    "NCCL_CGA_CLUSTER_SIZE",
    "NCCL_CHECKS_DISABLE",
    "NCCL_CHECK_MODE",
    "NCCL_CHECK_POINTERS",
    "NCCL_CHUNK_SIZE",
    "NCCL_COLLNET_ENABLE",
    "NCCL_COLLNET_NODE_THRESHOLD",
    "NCCL_COMM_BLOCKING",
    "NCCL_COMM_ID",
    "NCCL_COMM_SHRINK_SHARE_RESOURCES",
    "NCCL_COMM_SPLIT_SHARE_RESOURCES",
    "NCCL_CONF_FILE",
    "NCCL_CONNECT_ROUND_MAX_PEERS",
    "NCCL_CROSS_NIC",
    "NCCL_CTA_POLICY",
    "NCCL_CUMEM_ENABLE",
    "NCCL_CUMEM_HOST_ENABLE",
    "NCCL_DEBUG",
    "NCCL_DEBUG_FILE",
    "NCCL_DEBUG_SUBSYS",
    "NCCL_DEBUG_TIMESTAMP_FORMAT",
    "NCCL_DEBUG_TIMESTAMP_LEVELS",
    "NCCL_DEV_API_JIT",
    "NCCL_DISABLE_MEM_MANAGER",
    "NCCL_DMABUF_ENABLE",
    "NCCL_ELASTIC_BUFFER_REGISTER",
    "NCCL_ENABLE_VERSION_CHECK",
    "NCCL_ENV_PLUGIN",
    "NCCL_GDAKI_USE_RELIABLE_DB",
    "NCCL_GDRCOPY_ENABLE",
    "NCCL_GDRCOPY_FIFO_ENABLE",
    "NCCL_GDRCOPY_FLUSH_ENABLE",
    "NCCL_GDRCOPY_SYNC_ENABLE",
    "NCCL_GDR_FLUSH_DISABLE",
    "NCCL_GIN_CONNECTION_RAIL",
    "NCCL_GIN_ENABLE",
    "NCCL_GIN_ERROR_QUERY_SEC",
    "NCCL_GIN_GDAKI_MAX_DEST_RD_ATOMIC",
    "NCCL_GIN_GDAKI_MAX_QP_RD_ATOMIC",
    "NCCL_GIN_GDAKI_NIC_HANDLER",
    "NCCL_GIN_GDAKI_QP_DEPTH",
    "NCCL_GIN_IB_TC",
    "NCCL_GIN_NCONNECTIONS",
    "NCCL_GIN_PLUGIN",
    "NCCL_GIN_PLUGIN_REF_COUNT",
    "NCCL_GIN_PROXY_QUEUE_SIZE",
    "NCCL_GIN_TYPE",
    "NCCL_GRAPH_DUMP_FILE",
    "NCCL_GRAPH_DUMP_FILE_RANK",
    "NCCL_GRAPH_FILE",
    "NCCL_GRAPH_HELPER_DISABLE",
    "NCCL_GRAPH_MIXING_SUPPORT",
    "NCCL_GRAPH_REGISTER",
    "NCCL_GRAPH_STREAM_ORDERING",
    "NCCL_GROUP_CUDA_STREAM",
    "NCCL_HOSTID",
    "NCCL_IBVERBS_LIB",
    "NCCL_IB_ADAPTIVE_ROUTING",
    "NCCL_IB_ADDR_FAMILY",
    "NCCL_IB_ADDR_RANGE",
    "NCCL_IB_AR_THRESHOLD",
    "NCCL_IB_CUDA_SUPPORT",
    "NCCL_IB_DATA_DIRECT",
    "NCCL_IB_DEVICE_PCI_ORDER",
    "NCCL_IB_DISABLE",
    "NCCL_IB_ECE_ENABLE",
    "NCCL_IB_FIFO_TC",
    "NCCL_IB_GDR_LEVEL",
    "NCCL_IB_GID_INDEX",
    "NCCL_IB_HCA",
    "NCCL_IB_MERGE_NICS",
    "NCCL_IB_MERGE_VFS",
    "NCCL_IB_MQP_RETRY_ALL",
    "NCCL_IB_MQP_RETRY_CNT",
    "NCCL_IB_MQP_RETRY_SLEEP_MSEC",
    "NCCL_IB_OOO_RQ",
    "NCCL_IB_PCI_RELAXED_ORDERING",
    "NCCL_IB_PKEY",
    "NCCL_IB_PREPOST_RECEIVE_WORK_REQUESTS",
    "NCCL_IB_QPS_PER_CONNECTION",
    "NCCL_IB_QUERY_PORT_SPEED",
    "NCCL_IB_RECEIVER_SIDE_MATCHING_SCHEME",
    "NCCL_IB_RESILIENCY_PORT_FAILOVER",
    "NCCL_IB_RESILIENCY_PORT_FAILOVER_MAX_ATTEMPTS",
    "NCCL_IB_RESILIENCY_PORT_FAILOVER_PROBE_DELAY",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY_ACK_TIMEOUT",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_BATCH_INTERVAL",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_BATCH_SIZE",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_SEQUENCE_SIZE",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_TIMEOUT",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY_ATTEMPTS_MAX",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY_START_DELAY",
    "NCCL_IB_RETRY_CNT",
    "NCCL_IB_RETURN_ASYNC_EVENTS",
    "NCCL_IB_ROCE_VERSION_NUM",
    "NCCL_IB_ROUTABLE_FLID_GID_INDEX",
    "NCCL_IB_SL",
    "NCCL_IB_SPLIT_DATA_ON_QPS",
    "NCCL_IB_SUBNET_AWARE_ROUTING",
    "NCCL_IB_SUBNET_PREFIX_LEN",
    "NCCL_IB_TC",
    "NCCL_IB_TIMEOUT",
    "NCCL_IB_USE_INLINE",
    "NCCL_IB_WARN_RAIL_LOCAL",
    "NCCL_IGNORE_COLLNET_MISMATCH",
    "NCCL_IGNORE_CPU_AFFINITY",
    "NCCL_IGNORE_DISABLED_P2P",
    "NCCL_IGNORE_NET_MISMATCH",
    "NCCL_IPC_USE_ABSTRACT_SOCKET",
    "NCCL_L1_SHARED_MEMORY_CARVEOUT",
    "NCCL_LAUNCH_MODE",
    "NCCL_LAUNCH_ORDER_IMPLICIT",
    "NCCL_LAUNCH_RACE_FATAL",
    "NCCL_LEGACY_CUDA_REGISTER",
    "NCCL_LL128_BUFFSIZE",
    "NCCL_LL128_C2C",
    "NCCL_LL128_NTHREADS",
    "NCCL_LL_BUFFSIZE",
    "NCCL_LL_THRESHOLD",
    "NCCL_LOCAL_REGISTER",
    "NCCL_LSA_TEAM_SIZE",
    "NCCL_MAX_CTAS",
    "NCCL_MAX_NCHANNELS",
    "NCCL_MAX_NRINGS",
    "NCCL_MAX_P2P_NCHANNELS",
    "NCCL_MEM_SYNC_DOMAIN",
    "NCCL_MIN_CTAS",
    "NCCL_MIN_NCHANNELS",
    "NCCL_MIN_NRINGS",
    "NCCL_MIN_P2P_NCHANNELS",
    "NCCL_MLOPART_RDMA_ENABLE",
    "NCCL_MNNVL_CLIQUE_ID",
    "NCCL_MNNVL_CROSS_CLIQUE",
    "NCCL_MNNVL_ENABLE",
    "NCCL_MNNVL_RAIL_PER_HOST",
    "NCCL_MNNVL_SCATTER_NETS_ENABLE",
    "NCCL_MNNVL_UUID",
    "NCCL_MULTI_RANK_GPU_ENABLE",
    "NCCL_MULTI_SEGMENT_REGISTER",
    "NCCL_NCHANNELS_PER_NET_PEER",
    "NCCL_NET",
    "NCCL_NETDEVS_POLICY",
    "NCCL_NET_DISABLE_INTRA",
    "NCCL_NET_FORCE_FLUSH",
    "NCCL_NET_FORCE_MERGE",
    "NCCL_NET_GDR_C2C",
    "NCCL_NET_GDR_LEVEL",
    "NCCL_NET_GDR_MLOPART",
    "NCCL_NET_GDR_READ",
    "NCCL_NET_MERGE_LEVEL",
    "NCCL_NET_MERGE_POLICY",
    "NCCL_NET_OPTIONAL_RECV_COMPLETION",
    "NCCL_NET_OVERHEAD",
    "NCCL_NET_PLUGIN",
    "NCCL_NET_PLUGIN_REF_COUNT",
    "NCCL_NET_SHARED_BUFFERS",
    "NCCL_NET_SHARED_COMMS",
    "NCCL_NO_CACHE",
    "NCCL_NSOCKS_PERTHREAD",
    "NCCL_NTHREADS",
    "NCCL_NUM_RMA_CTX",
    "NCCL_NVB_DISABLE",
    "NCCL_NVB_PRECONNECT",
    "NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE",
    "NCCL_NVLSTREE_MAX_CHUNKSIZE",
    "NCCL_NVLS_CHUNKSIZE",
    "NCCL_NVLS_ENABLE",
    "NCCL_NVLS_NCHANNELS",
    "NCCL_NVTX_DISABLE",
    "NCCL_OOB_NET_ENABLE",
    "NCCL_OOB_NET_IFNAME",
    "NCCL_P2P_DIRECT_DISABLE",
    "NCCL_P2P_DISABLE",
    "NCCL_P2P_EPOCH_ENABLE",
    "NCCL_P2P_LEVEL",
    "NCCL_P2P_LL_THRESHOLD",
    "NCCL_P2P_MAX_PEERS",
    "NCCL_P2P_NET_CHUNKSIZE",
    "NCCL_P2P_NVL_CHUNKSIZE",
    "NCCL_P2P_PCI_CHUNKSIZE",
    "NCCL_P2P_PER_CHANNEL_NET_BW",
    "NCCL_P2P_PXN_LEVEL",
    "NCCL_P2P_READ_ENABLE",
    "NCCL_P2P_SCHEDULE_GROUP_SIZE",
    "NCCL_P2P_USE_CUDA_MEMCPY",
    "NCCL_PARAM_DUMP_ALL",
    "NCCL_PAT_ENABLE",
    "NCCL_PROFILER_PLUGIN",
    "NCCL_PROGRESS_APPENDOP_FREQ",
    "NCCL_PROTO",
    "NCCL_PROXY_APPEND_BATCH_SIZE",
    "NCCL_PROXY_CPUSET",
    "NCCL_PROXY_DUMP_SIGNAL",
    "NCCL_PXN_C2C",
    "NCCL_PXN_DISABLE",
    "NCCL_RAS_ADDR",
    "NCCL_RAS_ENABLE",
    "NCCL_RAS_TIMEOUT_FACTOR",
    "NCCL_REPORT_CONNECT_PROGRESS",
    "NCCL_RMA_DISABLE",
    "NCCL_RMA_PLUGIN",
    "NCCL_RMA_PLUGIN_REF_COUNT",
    "NCCL_RMA_PROXY_DUMP_SIGNAL",
    "NCCL_RMA_PROXY_QUEUE_SIZE",
    "NCCL_RUNTIME_CONNECT",
    "NCCL_SET_CPU_STACK_SIZE",
    "NCCL_SET_STACK_SIZE",
    "NCCL_SET_THREAD_NAME",
    "NCCL_SHADOW_MEMPOOL_MAX_SIZE",
    "NCCL_SHM_DISABLE",
    "NCCL_SHM_LOCALITY",
    "NCCL_SINGLE_PROC_MEM_REG_ENABLE",
    "NCCL_SINGLE_RING_THRESHOLD",
    "NCCL_SOCKET_FAMILY",
    "NCCL_SOCKET_IFNAME",
    "NCCL_SOCKET_INLINE",
    "NCCL_SOCKET_MAGIC",
    "NCCL_SOCKET_MIN_TASKSIZE",
    "NCCL_SOCKET_NTHREADS",
    "NCCL_SOCKET_POLL_TIMEOUT_MSEC",
    "NCCL_SOCKET_RCVBUF",
    "NCCL_SOCKET_RETRY_CNT",
    "NCCL_SOCKET_RETRY_SLEEP_MSEC",
    "NCCL_SOCKET_SNDBUF",
    "NCCL_SYM_CE_THRESHOLD",
    "NCCL_SYM_CTAS",
    "NCCL_SYM_GIN_KERNELS_ENABLE",
    "NCCL_SYM_KERNEL",
    "NCCL_SYM_NOWIN_ENABLE",
    "NCCL_SYM_REUSE_SYSMEM_HANDLES",
    "NCCL_SYM_RS_GIN_CHUNK_SIZE",
    "NCCL_SYM_TMA_ENABLE",
    "NCCL_THREAD_THRESHOLDS",
    "NCCL_TOPO_DUMP_FILE",
    "NCCL_TOPO_DUMP_FILE_RANK",
    "NCCL_TOPO_FILE",
    "NCCL_TOPO_SPLIT_MLOPART",
    "NCCL_TREE_THRESHOLD",
    "NCCL_TUNER_PLUGIN",
    "NCCL_UID_STAGGER_RATE",
    "NCCL_UID_STAGGER_THRESHOLD",
    "NCCL_UNPACK_DOUBLE_NCHANNELS",
    "NCCL_WIN_ENABLE",
    "NCCL_WIN_STRIDE",
    "NCCL_WORK_ARGS_BYTES",
    "NCCL_WORK_FIFO_BYTES",
};

#define NCCL_ENV_N (sizeof(nccl_env_names) / sizeof(nccl_env_names[0]))

static int nccl_env_cmp(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

int nccl_env_known(const char *name)
{
	if (!strncmp(name, "NCCL_TESTS_", 11))
		return 1;
	return bsearch(name, nccl_env_names, NCCL_ENV_N, sizeof(nccl_env_names[0]), nccl_env_cmp) !=
	       NULL;
}

/* Edits (insert, delete, replace, swap two neighbours) from @a to @b, at most 64 long. */
static size_t nccl_env_edits(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[65][65];

	if (la > 64 || lb > 64)
		return la > lb ? la : lb;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

/*
 * NCCL_IB_QPS is NCCL_IB_QPS_PER_CONNECTION cut short, not NCCL_IB_SL two
 * edits away: a name one begins with the other (at a '_') comes first.
 */
const char *nccl_env_nearest(const char *name)
{
	size_t best = (size_t)-1, len = strlen(name);
	const char *pick = nccl_env_names[0];

	for (size_t i = 0; i < NCCL_ENV_N; i++) {
		const char *k = nccl_env_names[i];
		size_t lk = strlen(k);

		if ((lk > len && !strncmp(k, name, len) && k[len] == '_') ||
		    (len > lk && !strncmp(name, k, lk) && name[lk] == '_'))
			return k;
	}
	for (size_t i = 0; i < NCCL_ENV_N; i++) {
		size_t e = nccl_env_edits(name, nccl_env_names[i]);

		if (e < best) {
			best = e;
			pick = nccl_env_names[i];
		}
	}
	return pick;
}
