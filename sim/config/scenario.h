/*
 * Scenario: the user's YAML file (plus --set overrides) loaded with
 * libcyaml, checked, and resolved into plain data with every unit turned
 * into an integer (bytes, bit/s, picoseconds). Data flows one way from here:
 * the run never looks at YAML again.
 *
 * Loading is two steps: scn_load reads and checks what the file alone can
 * tell (syntax, keys, units, ranges); scn_resolve then checks what needs the
 * topology (host and link names) and expands the workload into flows.
 * Errors fill a struct diag naming the file, the line and the key path.
 */
#ifndef ROCESIM_SCENARIO_H
#define ROCESIM_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include "models/dcqcn.h"
#include "topologies/topo.h"
#include "sim/engine/diag.h"
#include "sim/engine/simtime.h"

enum scn_workload_kind { SCN_WL_FLOWS, SCN_WL_INCAST, SCN_WL_PERMUTATION };
enum scn_fault_kind { SCN_FAULT_LINK_DOWN, SCN_FAULT_PFC_STORM };
enum scn_sched { SCN_SCHED_STRICT, SCN_SCHED_DWRR };
enum scn_wd_action { SCN_WD_DROP, SCN_WD_FORWARD, SCN_WD_ALERT };
enum scn_cc { SCN_CC_NONE, SCN_CC_DCQCN };

/* One flow, as the workload expands it: src and dst are host indices. */
struct scn_flow {
	uint32_t src, dst;
	uint64_t bytes;
	simtime_t start;
	uint8_t dscp, priority; /* nic.dscp / nic.priority unless the flow says */
};

enum scn_coll_op { SCN_ALLREDUCE, SCN_ALLGATHER, SCN_REDUCESCATTER, SCN_ALLTOALL };

/* A collective of the workload, as nccl-tests runs it. */
struct scn_coll {
	enum scn_coll_op op;
	uint64_t bytes;       /* per rank, as nccl-tests counts "size" */
	uint32_t *ranks;      /* host index of each rank, in ring order */
	uint32_t n_ranks;
	uint32_t channels;    /* rings in parallel, each on its own QPs */
	uint64_t chunk;       /* largest message a ring step sends at once */
	uint32_t iterations;  /* back to back */
	simtime_t start;
	uint32_t late_rank;   /* rank whose first sends start late, or UINT32_MAX */
	simtime_t late_by;
	uint8_t dscp, priority;
};

struct scn_fault {
	enum scn_fault_kind kind;
	uint32_t link;     /* link_down: index in topo.links */
	uint32_t port;     /* pfc_storm: index in topo.ports of the sender */
	uint8_t priorities; /* pfc_storm: bit mask of the paused priorities */
	simtime_t at;
	simtime_t duration; /* pfc_storm: 0 = without end */
};

/* PFC on the lossless priority groups of every switch. */
struct scn_pfc {
	int enabled;
	int dynamic;          /* limit = 2^dynamic_th x free shared buffer */
	int dynamic_th;
	uint64_t xoff;        /* static: shared bytes a PG may hold before XOFF */
	uint64_t xon;         /* absolute XON threshold, if has_xon */
	int has_xon;
	uint64_t xon_offset;  /* else XON at the XOFF limit minus this */
	uint64_t headroom;    /* per lossless PG */
	uint32_t quanta;      /* in each PAUSE frame */
	simtime_t refresh;    /* re-send PAUSE this often while XOFF (0: half the quanta) */
	simtime_t response;   /* reaction to a received PAUSE (0: by link speed) */
};

struct scn_ecn {
	int enabled;
	uint64_t kmin, kmax;
	double pmax;
	int at_enqueue;
};

struct scn_watchdog {
	int enabled;
	simtime_t detection, restoration;
	enum scn_wd_action action;
};

enum scn_expect_op { SCN_EXPECT_EQ, SCN_EXPECT_MIN, SCN_EXPECT_MAX };

/* One `expect:` gate on a summary metric of results.json. */
struct scn_expect {
	char metric[64]; /* path under "summary", e.g. "fct_us.p99" */
	enum scn_expect_op op;
	double value;
	char where[300]; /* "file:line" for messages */
};

/* A workload's Kubernetes manifest (workload.pod). */
struct scn_pod {
	char *file;	   /* resolved path */
	char workload[32]; /* "workload" or "workload[i]" */
	int dscp;	   /* NCCL_IB_TC >> 2 when it gives the workload's DSCP, else -1 */
};

/*
 * Where a value came from when a real config gave it rather than the
 * scenario: the config named by scenario key @via gave key @path, at
 * @file:@line, where the file calls it @key (and writes it @value, when
 * kept). Values the scenario or --set gives, and defaults, have none.
 */
struct scn_origin {
	char path[96]; /* "switch.ecn.kmax", "switch.dscp_to_tc.26", "workload[1].dscp" */
	char via[64];  /* "switch.sonic", "nic.mlnx_qos", "nic.cc_params", "workload[1].pod" */
	char file[256];
	int line;	 /* 1-based; 0 when not known */
	char key[192];	 /* "WRED_PROFILE|AZURE_LOSSLESS|green_max_threshold", "NCCL_IB_TC" */
	char value[256]; /* "104"; "" when not kept */
};

struct scenario {
	char *name;
	char *file;
	uint64_t seed;
	simtime_t stop;      /* bound on simulated time */
	uint64_t max_events; /* 0 = no cap */

	struct topo_spec topo;
	char *topo_file; /* topology.file, resolved against the scenario's folder */
	simtime_t convergence; /* routes follow a link failure after this */

	struct {
		uint64_t buffer;        /* total packet buffer, bytes */
		uint64_t per_port;      /* static cap per ingress port, 0 = none */
		uint64_t pg_min;        /* reserved minimum per lossless PG */
		uint64_t headroom_pool; /* shared headroom pool, 0 = headroom reserved per PG */
		uint8_t lossless;       /* bit mask of lossless priorities */
		uint8_t cnp_priority;
		uint8_t dscp_to_tc[64];
		struct scn_pfc pfc;
		struct scn_ecn ecn;
		enum scn_sched sched;
		uint32_t weights[8];    /* dwrr */
		struct scn_watchdog wd;
	} sw;

	struct {
		uint32_t mtu;      /* payload bytes per packet */
		uint8_t priority;  /* 802.1p priority of RDMA data */
		uint8_t dscp;      /* DSCP of RDMA data */
		uint8_t pfc;       /* priorities whose PAUSE the NIC obeys */
		uint8_t dscp2prio[64]; /* the NIC's map (mlx5 default: DSCP >> 3) */
		int ecn;           /* data packets are ECN-capable (ECT) */
		enum scn_cc cc;
		uint64_t rx_buffer;   /* receive buffer of a slow host, 0 = none */
		uint64_t rx_rate;     /* ... and the rate the host empties it */
		uint32_t ack_every;   /* ACK every this many packets (and the last) */
		uint32_t timeout_exp; /* retransmission timeout 4.096 us x 2^this */
		simtime_t timeout;
		struct dcqcn_params dcqcn;
	} nic;

	struct {
		struct scn_flow *flows; /* every flow of every flow workload */
		uint32_t n_flows;
	} wl;

	struct scn_coll *colls;
	uint32_t n_colls;

	struct scn_fault *faults;
	uint32_t n_faults;
	struct scn_expect *expects;
	uint32_t n_expects;

	struct {
		int enabled;        /* watch for deadlocks during the run */
		simtime_t window;   /* paused with no dequeue this long: stuck */
		int stop_on_detect;
	} deadlock;

	struct {
		simtime_t sample; /* time-series period, 0 = off */
		int pfc_events;   /* write pfc_events.csv */
	} out;

	/* real configs named by the scenario (resolved paths, or NULL) */
	struct {
		char *sonic, *mlnx_qos, *cc_params;
		struct scn_pod *pods; /* one per workload that names a pod */
		uint32_t n_pods;
	} cfg;

	struct scn_raw *raw; /* what libcyaml loaded, until resolved */
};

/* scn_load_ex flags */
#define SCN_LOAD_LENIENT 1 /* bad cc_params entries are skipped, not fatal (check reports them) */

/* The metrics `expect:` may name (summary paths). NULL-terminated. */
extern const char *const scn_expect_metrics[];

/*
 * Load @file and apply @n_sets overrides "key.path=value". Returns 0, or
 * -EINVAL (bad input, @d says where) or -ENOMEM.
 */
int scn_load(const char *file, const char *const *sets, size_t n_sets,
	     struct scenario **out, struct diag *d);
/* scn_load with SCN_LOAD_* @flags. */
int scn_load_ex(const char *file, const char *const *sets, size_t n_sets, int flags,
		struct scenario **out, struct diag *d);
/*
 * Set the mlx5 cc_params field @name of @p from @value, as nic.cc_params
 * and nic.dcqcn take it. 0, or -ENOENT (no such cc_params name) or -EINVAL
 * (not a whole number, or out of the field's range) with @msg saying why.
 */
int scn_dcqcn_param(const char *name, const char *value, struct dcqcn_params *p, char *msg,
		    size_t size);
/* Same, from text in memory (@name is used as the file name in errors). */
int scn_load_text(const char *name, const char *text, size_t len,
		  const char *const *sets, size_t n_sets, struct scenario **out,
		  struct diag *d);
/* Resolve names against @t and expand the workload into flows. */
int scn_resolve(struct scenario *s, const struct topo *t, struct diag *d);
void scn_free(struct scenario *s);
struct cbd_pair;
/*
 * Every (source, destination, traffic class) the resolved workload sends
 * on: its flows, each ring's neighbours, every pair of an All-to-All's
 * ranks. *@out is a new array (free it). 0 or -ENOMEM.
 */
int scn_pairs(const struct scenario *s, struct cbd_pair **out, size_t *n);
/* A DSCP the workload's RDMA data uses, and the key that gives it. */
struct scn_dscp {
	uint8_t dscp;
	char path[96]; /* "nic.dscp", "workload[1].dscp", "workload.flows[2].dscp" */
};
/*
 * Every DSCP the workloads send data on, once each, with the first key
 * (in workload order) that gives it. *@out is a new array (free it). 0 or
 * -ENOMEM.
 */
int scn_data_dscps(const struct scenario *s, struct scn_dscp **out, size_t *n);
/* Give a diag from topo_build (key path, no file) the scenario's file and line. */
void scn_locate(const struct scenario *s, struct diag *d);
/*
 * Where the value of key @path came from, when a real config gave it or
 * gave the whole it is part of ("switch.dscp_to_tc.46" is found under
 * "switch.dscp_to_tc" when a SONiC map does not name DSCP 46); NULL when
 * the scenario, --set or a default gave it.
 */
const struct scn_origin *scn_origin(const struct scenario *s, const char *path);

#endif
