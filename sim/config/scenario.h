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

#include "models/collective.h"
#include "models/deadlock.h"
#include "models/ff.h"
#include "models/net.h"
#include "models/nic.h"
#include "models/switch.h"
#include "models/traffic.h"
#include "models/workload.h"
#include "models/train_plan.h"
#include "sim/readers/nccl_tests.h"
#include "topologies/topo.h"
#include "sim/readers/hpcc_flows.h"
#include "sim/engine/diag.h"
#include "sim/engine/simtime.h"

enum scn_workload_kind {
	SCN_WL_FLOWS,
	SCN_WL_INCAST,
	SCN_WL_PERMUTATION,
	SCN_WL_POISSON,
	SCN_WL_HPCC
};

/*
 * output.timeseries: a sample writes a (port, priority) row when its values
 * changed since its last row (a value holds until the next row), or, as
 * samples, one row per sample for every non-empty one.
 */
enum scn_series { SCN_SERIES_CHANGES, SCN_SERIES_SAMPLES };

/* The most bounds output.fct_buckets takes. */
#define SCN_FCT_BUCKETS_MAX 16

enum scn_expect_op { SCN_EXPECT_EQ, SCN_EXPECT_MIN, SCN_EXPECT_MAX };

/* One `expect:` gate on a summary metric of results.json. */
struct scn_expect {
	char metric[64]; /* path under "summary", e.g. "fct_us.p99" */
	enum scn_expect_op op;
	double value;
	char where[300]; /* "file:line" for messages */
};

/* A Poisson workload's flow-size CDF (workload.cdf), read when loaded. */
struct scn_traffic {
	char workload[32]; /* "workload" or "workload[i]" */
	char *file;	   /* resolved path */
	struct wl_cdf cdf;
	double load; /* share of each host's link */
	simtime_t duration;
	int drop_last; /* generator traffic_gen: see wl_poisson_spec */
};

/* A training job (workload kind training or simai): its plan, and what
 * results say of it. */
struct scn_job {
	char workload[32];    /* "workload" or "workload[i]" */
	struct train_job job; /* layout, layers, placement (gpus) */
	struct train_layer *layers;
	uint32_t *gpus;
	char *file;	    /* simai: the file read (resolved path); else NULL */
	const char *source; /* where the compute times come from: layers, simai, model, chakra */
	uint8_t chakra;	    /* its plan's communicators own their ranks (scn__chakra_plan) */
	uint32_t micro_batch, seq_len;
	char notes[512]; /* what was read and not used, "" if nothing */
	/* nccl_tests: the command line, and its sizes (rows; times filled by the run) */
	char *command;
	struct nccl_tests_row *rows;
	size_t n_rows;
	uint32_t warmup, iters;
};

/* An hpcc workload's flow file (workload.file), read when loaded. */
struct scn_hpcc {
	char workload[32]; /* "workload" or "workload[i]" */
	char *file;	   /* resolved path */
	struct hpcc_flows flows;
};

/* A workload's Kubernetes manifest (workload.pod). */
struct scn_pod {
	char *file;	   /* resolved path */
	char workload[32]; /* "workload" or "workload[i]" */
	int dscp;	   /* NCCL_IB_TC >> 2 when it gives the workload's DSCP, else -1 */
	char hca[256];	   /* NCCL_IB_HCA when the file gives it, else "" */
	int hca_line;
	uint32_t qps; /* NCCL_IB_QPS_PER_CONNECTION when it gives the workload's, else 0 */
	int split;    /* NCCL_IB_SPLIT_DATA_ON_QPS 1 when it gives the workload's; -1: not */
	int coll;     /* the workload is a collective (what uses the two above) */
	int qps_line, split_line; /* where the file gives them, used or not; 0: it does not */
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

/* A switch with a config_db.json of its own (switch.sonic a folder or a mapping). */
struct scn_switch {
	char *name; /* the switch: a node of the topology */
	char *file; /* its config_db.json, resolved */
	char *key; /* the scenario key naming it: "switch.sonic.leaf0", or "switch.sonic" (a folder)
		    */
	int line;  /* of its hostname in @file (a folder), else 0 */
	struct scenario *cfg; /* the scenario as that file configures it */
	int owns;	      /* frees @cfg (switches with the same file share it) */
	/* after scn_resolve: cfg->sw with its ports in topology order (kind sonic) */
	struct sw_params sw;
	struct sw_port_params *ports;
};

struct scenario {
	char *name;
	char *file;
	uint64_t seed;
	simtime_t stop;	     /* bound on simulated time */
	uint64_t max_events; /* 0 = no cap */

	struct topo_spec topo;
	char *topo_file;       /* topology.file, resolved against the scenario's folder */
	simtime_t convergence; /* routes follow a link failure after this */

	/* the models' own parameters (models/switch.h, nic.h, workload.h) */
	struct sw_params sw;		 /* switch.* */
	struct sw_port_params *sw_ports; /* owns sw.port_params (switch.sonic's ports) */
	struct sw_speed *speeds;	 /* owns sw.by_speed (switch.ecn/pfc.by_speed) */
	struct topo_link_set *link_sets; /* owns topo.link_sets (topology.links), names too */
	uint32_t sonic_ports;		 /* how many ports switch.sonic (one file) describes */
	/* topology kind sonic: what the switches' files say is cabled where (topo.sonic) */
	struct topo_sonic sonic_desc;
	struct topo_sonic_switch *sonic_sw;
	struct topo_sonic_port *sonic_desc_ports;
	struct scn_switch *switches; /* with a config of their own; the others take sw */
	uint32_t n_switches;
	/* after scn_resolve: per topology node, its settings (NULL: sw); n_nodes of them */
	const struct sw_params **sw_node;
	int sw_main_used;      /* after scn_resolve: some switch takes sw */
	struct nic_params nic; /* nic.* */
	struct wl_params wl;   /* every flow of every flow workload */

	struct coll_spec *colls;
	uint32_t n_colls;
	/* training jobs: their plans (one array, as the fabric takes them) and details */
	struct train_plan *plans;
	struct scn_job *jobs;
	uint32_t n_jobs;
	uint32_t solo; /* run job solo - 1 alone (sim_alone), nothing else; 0: all */

	struct scn_traffic *traffic; /* one per poisson workload */
	uint32_t n_traffic;
	struct scn_hpcc *hpcc; /* one per hpcc workload */
	uint32_t n_hpcc;

	struct net_fault *faults;
	uint32_t n_faults;
	uint32_t *fault_of; /* per fault, its faults: entry (a node_down gives one per link) */
	struct scn_expect *expects;
	uint32_t n_expects;

	struct deadlock_params deadlock;
	struct ff_params fast_forward; /* engine.fast_forward */
	uint8_t fast_forward_given;    /* its enabled was written, not the default */

	struct {
		simtime_t sample;	/* time-series period, 0 = off */
		enum scn_series series; /* which timeseries.csv rows a sample writes */
		int pfc_events;		/* write pfc_events.csv */
		int timeline;		/* write timeline.csv (training jobs) */
		/* summary.fct_slowdown: the bounds between size buckets, increasing */
		uint64_t fct_buckets[SCN_FCT_BUCKETS_MAX];
		uint32_t n_fct_buckets;
	} out;

	/* real configs named by the scenario (resolved paths, or NULL) */
	struct {
		char *sonic, *mlnx_qos, *cc_params;
		char *cc_device;      /* nic.cc_params.device: the dump's device taken, or NULL */
		struct scn_pod *pods; /* one per workload that names a pod */
		uint32_t n_pods;
	} cfg;

	struct scn_raw *raw; /* what libcyaml loaded, until resolved */
};

/* scn_load_ex flags */
#define SCN_LOAD_LENIENT 1 /* bad cc_params entries are skipped, not fatal (check reports them) */

/* The metrics `expect:` may name (summary paths). NULL-terminated. */
extern const char *const scn_expect_metrics[];

/* What a load takes besides the scenario file (scn_load_with). */
struct scn_load_opts {
	const char *const *overlays; /* partial scenarios merged onto it, in order (--with) */
	size_t n_overlays;
	const char *const *sets; /* "key.path=value" overrides, applied after (--set) */
	size_t n_sets;
	int flags; /* SCN_LOAD_* */
};

/*
 * Load @file, merge the overlays of @o onto it (mappings key by key, lists
 * replaced, KEY+ appends to list KEY; config paths an overlay names are
 * relative to its folder) and apply the overrides. Returns 0, or -EINVAL
 * (bad input, @d says where: the overlay's file and line for what it gave)
 * or -ENOMEM.
 */
int scn_load_with(const char *file, const struct scn_load_opts *o, struct scenario **out,
		  struct diag *d);
/*
 * Load @file and apply @n_sets overrides "key.path=value". Returns 0, or
 * -EINVAL (bad input, @d says where) or -ENOMEM.
 */
int scn_load(const char *file, const char *const *sets, size_t n_sets, struct scenario **out,
	     struct diag *d);
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
int scn_load_text(const char *name, const char *text, size_t len, const char *const *sets,
		  size_t n_sets, struct scenario **out, struct diag *d);
/*
 * The lossless classes (with PFC on) of the switch settings in use: the
 * scenario's, each switch's own (switch.sonic per switch, after
 * scn_resolve) and each port's (switch.sonic's ports).
 */
uint8_t scn_lossless(const struct scenario *s);
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
/* The node of faults: entry @entry when it is a node_down or node_up, else NULL. */
const char *scn_fault_node(const struct scenario *s, uint32_t entry);
/* Give a diag from topo_build (key path, no file) the scenario's file and line. */
void scn_locate(const struct scenario *s, struct diag *d);
/*
 * Every key path the scenario loader accepts, to @fn: "topology.link.rate",
 * "workload.flows[].src" (a list's entries), and a key whose content is
 * free-form or read apart ("topology.links", "nic.tc", "expect") as itself;
 * both forms of `workload` (a mapping or a list) give the same paths.
 */
void scn_keys(void (*fn)(const char *path, void *arg), void *arg);
/*
 * Where the value of key @path came from, when a real config gave it or
 * gave the whole it is part of ("switch.dscp_to_tc.46" is found under
 * "switch.dscp_to_tc" when a SONiC map does not name DSCP 46); NULL when
 * the scenario, --set or a default gave it.
 */
const struct scn_origin *scn_origin(const struct scenario *s, const char *path);

#endif
