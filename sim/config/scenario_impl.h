/*
 * Scenario internals, shared by sim/config/scenario*.c and included by nothing
 * else: what libcyaml loads (the raw_* structs), the loader state, and the
 * helpers one file calls in another (scn__ names). A load is a pipeline
 * of four stages, each a file with one entry point (scenario_load.c runs
 * them). The files, bottom up: each uses only files listed before it.
 *
 *   scenario.c            errors, key paths and origins, shared by every stage
 *   scenario_schema.c     the libcyaml schema; what a load kept, freed
 *   scenario_values.c     checks of one value: number, size, time, link
 *   scenario_overlay.c    overlays (--with) merged onto the scenario's YAML
 *   scenario_parse.c      stage 1, parse: text, overlays, --set -> raw structs
 *   scenario_cc.c         nic.cc_params       \
 *   scenario_links.c      topology.links       |  sections read beside
 *   scenario_nictc.c      nic.tc               |  the schema, by the
 *   scenario_speed.c      *.by_speed           |  merge or the checks
 *   scenario_sonic.c      switch.sonic's ports /
 *   scenario_configs.c    what each real config gives, with its origin
 *   scenario_switches.c   switch.sonic: one file, or one per switch
 *   scenario_merge.c      stage 2, merge: the real configs into struct scenario
 *   scenario_devices.c    checks of the switch: and nic: sections
 *   scenario_workloads.c  checks of the workloads
 *   scenario_check.c      stage 3, check: every section into struct scenario
 *   scenario_colls.c      names on the topology: hosts, a collective's ranks
 *   scenario_chakra.c     a training job's plan from Chakra traces
 *   scenario_training.c   a training job: its layers (or SimAI file), layout, plan
 *   scenario_faults.c     the faults on the topology
 *   scenario_resolve.c    stage 4, resolve: names resolved, workloads expanded
 *   scenario_load.c       the entry points (scn_load*, scn_free)
 *
 * scenario_keys.c (the schema's key paths) and scenario_pairs.c (what a
 * checked scenario sends on) are views for other layers.
 */
#ifndef ROCESIM_SCENARIO_IMPL_H
#define ROCESIM_SCENARIO_IMPL_H

#include <cyaml/cyaml.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/readers/mlnx.h"
#include "sim/config/scenario.h"

struct sonic_cfg;
struct ydoc;

/* ---- what libcyaml loads ------------------------------------------------ */

/*
 * Every scalar is a string, checked in scenario_check.c. An enum field holds
 * 1 + the value (the tables in scenario_schema.c): 0 means the key was not given.
 */
struct raw_link {
	char *rate, *cable, *delay;
};

struct raw_topology {
	int kind;
	char *hosts, *leaves, *spines, *hosts_per_leaf, *parallel, *k, *switches, *hosts_per_switch,
	    *file, *dir, *convergence;
	char *nics_per_host, *gpus_per_host, *servers, *servers_per_leaf, *nvlink, *nvlink_latency;
	struct raw_link *link, *uplink;
};

struct raw_buffer {
	char *size, *per_port, *pg_min, *headroom_pool;
};

struct raw_pfc {
	char *enabled, *xoff, *dynamic_th, *xon, *xon_offset, *headroom, *quanta, *refresh,
	    *response;
};

struct raw_ecn {
	char *enabled, *kmin, *kmax, *pmax;
	int mark;
};

struct raw_watchdog {
	char *detection, *restoration;
	int action;
};

struct raw_switch {
	struct raw_buffer *buffer;
	char **lossless;
	unsigned lossless_count;
	char *cnp_priority;
	struct raw_pfc *pfc;
	struct raw_ecn *ecn;
	int scheduler;
	char **weights;
	unsigned weights_count;
	struct raw_watchdog *watchdog;
};

/*
 * nic.dcqcn takes the mlx5 cc_params names (Linux mlx5 cong.c): one list gives
 * the raw struct, the schema and the checks. X(name, min, max).
 */
#define DCQCN_KEYS(X)                                                                              \
	X(rp_time_reset, 1, 10000000)                                                              \
	X(rp_byte_reset, 1, 1000000000)                                                            \
	X(rp_threshold, 1, 31)                                                                     \
	X(rp_ai_rate, 0, 1000000)                                                                  \
	X(rp_hai_rate, 0, 1000000)                                                                 \
	X(rp_max_rate, 0, 1000000)                                                                 \
	X(rp_min_rate, 0, 1000000)                                                                 \
	X(rp_min_dec_fac, 1, 100)                                                                  \
	X(rp_rate_to_set_on_first_cnp, 0, 1000000)                                                 \
	X(rp_dce_tcp_g, 0, 1023)                                                                   \
	X(rp_dce_tcp_rtt, 1, 10000000)                                                             \
	X(rp_rate_reduce_monitor_period, 1, 10000000)                                              \
	X(rp_initial_alpha_value, 0, 1023)                                                         \
	X(rp_gd, 0, 15)                                                                            \
	X(rp_clamp_tgt_rate, 0, 1)                                                                 \
	X(rp_clamp_tgt_rate_ati, 0, 1)                                                             \
	X(np_min_time_between_cnps, 0, 10000000)                                                   \
	X(np_cnp_dscp, 0, 63)                                                                      \
	X(np_cnp_prio, 0, 7)                                                                       \
	X(np_cnp_prio_mode, 0, 1)                                                                  \
	X(rtt_resp_dscp_valid, 0, 1)                                                               \
	X(rtt_resp_dscp, 0, 63)

#define DCQCN_RAW_FIELD(name, min, max) char *name;
struct raw_dcqcn {
	int variant;
	int np_cnp_mode;     /* 0 unset, 1 gap, 2 window */
	int byte_reset_unit; /* 0 unset, 1 "1B", 2 "64B" */
	int cnp_scope;	     /* 0 unset, 1 qp, 2 port */
	DCQCN_KEYS(DCQCN_RAW_FIELD)
};

struct raw_transport {
	char *timeout, *ack_every, *retry_cnt, *adaptive_retrans, *adaptive_first;
};

struct raw_nic {
	char *mtu, *priority, *dscp, *ecn, *rx_buffer, *rx_rate, *mlnx_qos;
	char **pfc;
	unsigned pfc_count;
	int cc;
	struct raw_transport *transport;
	struct raw_dcqcn *dcqcn;
};

struct raw_flow {
	char *src, *dst, *size, *start, *dscp;
};

struct raw_late {
	char *host, *by;
};

/* A training job's layout, a layer's collective, a layer (kind training). */
struct raw_layout {
	char *tp, *pp, *dp, *ep, *vpp, *ga;
};

struct raw_tcoll {
	char *op, *group, *size;
};

struct raw_layer {
	char *repeat, *forward, *input_grad, *weight_grad, *update;
	struct raw_tcoll *forward_coll, *input_grad_coll, *weight_grad_coll;
};

/* A training job's model and GPU, for compute times derived from them. */
struct raw_model {
	char *layers, *hidden, *ffn;
};

struct raw_gpu {
	char *flops, *efficiency;
};

struct raw_workload {
	int kind;
	char *size, *senders, *receiver, *start, *channels, *chunk, *iterations, *dscp, *pod;
	char *steps, *hca, *algorithm, *step_latency;
	char *qps_per_connection, *split_data_on_qps;
	char *cdf, *load, *duration, *generator; /* poisson */
	char *file;				 /* hpcc */
	struct raw_flow *flows;
	unsigned flows_count;
	struct raw_late *late;
	/* training, simai */
	struct raw_layout *layout;
	char *pp_size, *micro_batch, *seq_len;
	char *command; /* nccl_tests */
	char *dir;     /* chakra */
	struct raw_model *model;
	struct raw_gpu *gpu;
	struct raw_layer *layers;
	unsigned layers_count;
};

struct raw_fault {
	int kind;
	char *link, *at, *host, *port, *duration, *node, *rate, *period, *count;
	char **priorities;
	unsigned priorities_count;
};

struct raw_output {
	char *sample, *pfc_events, *timeline;
	int timeseries; /* 0 unset, 1 + enum scn_series */
	char **fct_buckets;
	unsigned fct_buckets_count;
};

struct raw_deadlock {
	char *window, *stop_on_detect, *enabled;
};

struct raw_fast_forward {
	char *enabled, *tolerance, *window, *windows, *groups;
};

struct raw_engine {
	struct raw_fast_forward *fast_forward;
};

struct raw_top {
	char *name, *seed, *stop, *max_events;
	struct raw_topology *topology;
	struct raw_switch *sw;
	struct raw_nic *nic;
	struct raw_workload *workload;	/* workload: a mapping */
	struct raw_workload *workloads; /* workload: a list */
	unsigned workloads_count;
	struct raw_fault *faults;
	unsigned faults_count;
	struct raw_output *output;
	struct raw_deadlock *deadlock;
	struct raw_engine *engine;
};

/* What the checks need of the real configs beyond their values and origins. */
struct raw_configs {
	int dscp_map;		 /* switch.dscp_to_tc holds a SONiC map that names a DSCP */
	struct sonic_cfg *sonic; /* switch.sonic as read, for its ports (scn__sonic_ports) */
	struct cc_params cc;	 /* nic.cc_params entries, applied by the checks */
	int flags;		 /* SCN_LOAD_* */
};

/* Everything kept from loading until scn_resolve has used it. */
struct scn_raw {
	const struct cyaml_schema_value *schema; /* top_value or top_value_list */
	struct raw_configs cfg;
	struct scn_origin *origins; /* of the values real configs gave */
	size_t n_origins;
	struct raw_top *top;
	struct ydoc *doc;
	char **set_paths;
	size_t n_set;
};

/*
 * faults: kinds beyond the fabric's (net.h), resolved into them: node_down
 * (node_up) into a link_down (link_up) per link of the node, link_flap into
 * count pairs of link_down and link_up.
 */
#define SCN_FAULT_NODE_DOWN (NET_FAULT_LINK_RATE + 1)
#define SCN_FAULT_NODE_UP (NET_FAULT_LINK_RATE + 2)
#define SCN_FAULT_LINK_FLAP (NET_FAULT_LINK_RATE + 3)

/* Workload kinds: flow patterns, then the collectives (1 + SCN_WL_COLL + op). */
#define SCN_WL_COLL 5
/* Training jobs, after the collectives. */
#define SCN_WL_TRAINING (SCN_WL_COLL + 4)
#define SCN_WL_SIMAI (SCN_WL_COLL + 5)
#define SCN_WL_NCCL_TESTS (SCN_WL_COLL + 6)
#define SCN_WL_CHAKRA (SCN_WL_COLL + 7)
/* Is workload kind @k (raw kind - 1) one collective? */
#define SCN_WL_IS_COLL(k) ((k) >= SCN_WL_COLL && (k) < SCN_WL_TRAINING)
/* A training job (training, simai)? */
#define SCN_WL_IS_TRAIN(k) ((k) == SCN_WL_TRAINING || (k) == SCN_WL_SIMAI || (k) == SCN_WL_CHAKRA)
/* Run by a training job's engine (a training job, or nccl-tests' sweep)? */
#define SCN_WL_IS_JOB(k) (SCN_WL_IS_TRAIN(k) || (k) == SCN_WL_NCCL_TESTS)

/* The enum tables of the schema, indexed by value: the name of a kind. */
extern const cyaml_strval_t scn__topo_kinds[];
extern const cyaml_strval_t scn__wl_kinds[];
/* The top level's fields (workload as a mapping), for scn_keys. */
const cyaml_schema_field_t *scn__top_fields(void);
/* The whole scenario's schema: with `workload` a list (@list) or a mapping. */
const cyaml_schema_value_t *scn__schema(int list);
/* libcyaml's settings for a scenario (its log set by each load). */
extern const cyaml_config_t scn__cyaml_base;
/* What a load kept (scn_raw) freed; NULL is nothing. */
void scn__raw_free(struct scn_raw *raw);

/* ---- loading ----------------------------------------------------------------- */

/* One load (or scn_resolve): the file, what was loaded, where errors go. */
struct loader {
	const char *file;
	struct scn_raw *raw;
	struct diag *d;
	/* what the load was given, for the loads of one switch's config (load_switch) */
	const char *text;
	size_t len;
	const char *const *overlays, *const *sets;
	size_t n_overlays, n_sets;
	int flags;
	/* such a load: switch.sonic is @force_file alone, named by key @force_key */
	const char *force_key, *force_file;
	/*
	 * Load the scenario again as @l was loaded, with switch.sonic the one
	 * file @file (resolved), named by key @key ("switch.sonic.leaf0"): the
	 * settings of the switches that file configures. 0, -EINVAL (@l->d
	 * says why) or -ENOMEM. Set by the entry points (scenario_load.c).
	 */
	int (*load_switch)(const struct loader *l, const char *key, const char *file,
			   struct scenario **out);
};

/* scenario.c */

/* Whether --set gave @path (then errors name --set, not a line). */
int scn__set_by_user(const struct scn_raw *raw, const char *path);
/* Line of @path, or of the nearest enclosing key the file holds. */
int scn__line_of(const struct ydoc *doc, const char *path);
/* The file that gives key @path: the scenario, or the overlay that wrote it. */
const char *scn__key_file(const struct loader *l, const char *path);
/* The origin of @path, or of the nearest enclosing key that has one; NULL if none. */
const struct scn_origin *scn__origin_of(const struct scn_raw *raw, const char *path);
/* Record @o as the origin of its path (replacing an earlier one). 0 or -ENOMEM. */
int scn__origin_add(struct scn_raw *raw, const struct scn_origin *o);
/*
 * Whether a real config gave @path itself (not the scenario): its value is
 * in struct scenario already, and the checks take it instead of a default.
 */
int scn__from_config(const struct scn_raw *raw, const char *path);
/*
 * Report @path as refused; always returns -EINVAL. A value a real config
 * gave is reported at that file's line and key, naming @path.
 */
int scn__fail(const struct loader *l, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* @prefix ("workload" or "workload[i]") "." @key, in @buf; returns @buf. */
const char *scn__wpath(char *buf, size_t size, const char *prefix, const char *key);
/* Whether the scenario itself (file or --set) gives @path: then it wins over a config. */
int scn__explicit(const struct loader *l, const char *path);
/* A config file named by @key, relative to the folder of the scenario (or overlay) naming it. */
char *scn__config_path(const struct loader *l, const char *key, const char *value);
/* A reader's error @d, said from the scenario key @key that named the file; -EINVAL. */
int scn__config_fail(const struct loader *l, const char *key, struct diag *d);

/* scenario_parse.c */

/*
 * Stage 1: @l's text, its overlays merged, loaded into @l->raw (top,
 * schema, doc), each of @l's --set applied. 0, -EINVAL (@l->d says where)
 * or -ENOMEM.
 */
int scn__parse(struct loader *l);

/*
 * The sections read beside the schema (their own files check them): a
 * --set of theirs is not applied to the raw structs but passed on.
 */
#define SONIC_KEY "switch.sonic"
#define CC_KEY "nic.cc_params"
#define ECN_PFX "switch.ecn.by_speed"
#define PFC_PFX "switch.pfc.by_speed"
#define LINKS_PFX "topology.links"
#define TC_PFX "nic.tc"
/* Whether --set @kv ("key=value") names switch.sonic or a key under it. */
int scn__sonic_set(const char *kv);
/* Whether --set @kv ("key=value") names nic.cc_params or a key under it. */
int scn__cc_set(const char *kv);
/* Whether --set @kv names a key under switch.ecn.by_speed or switch.pfc.by_speed. */
int scn__set_is_by_speed(const char *kv);
/* Whether --set @kv names a key under topology.links. */
int scn__set_is_links(const char *kv);
/* Whether --set @kv names a key under nic.tc. */
int scn__set_is_nic_tc(const char *kv);

/* scenario_overlay.c */

/*
 * Merge the overlay files @overlays, in order, onto scenario @text (read
 * from @file): *@merged is the merged YAML (free it), *@doc its index with
 * each entry at the file and line that wrote it. 0, or -EINVAL (@d says
 * where) or -ENOMEM.
 */
int scn__overlay(const char *file, const char *text, size_t len, const char *const *overlays,
		 size_t n_overlays, struct ydoc **doc, char **merged, size_t *merged_len,
		 struct diag *d);

/* scenario_merge.c */

/*
 * Stage 2: merge the real configs the scenario names into @s, typed, each
 * value with its origin, unless the scenario gives its key; before
 * scn__check_all.
 */
int scn__merge_configs(struct loader *l, struct scenario *s);

/* scenario_configs.c: what each config gives (0, -EINVAL or -ENOMEM) */

/* nic.mlnx_qos, file @value: the NIC's trust, PFC, classes and buffers. */
int scn__merge_mlnx_qos(struct loader *l, struct scenario *s, const char *value);
/* nic.cc_params: each entry the origin of its nic.dcqcn key. */
int scn__merge_cc_params(struct loader *l, struct scenario *s);
/* The pod (Kubernetes manifest @value) of workload @prefix, of kind @kind. */
int scn__merge_pod(struct loader *l, struct scenario *s, const char *prefix, const char *value,
		   int kind);
/* Read config_db.json @path (resolved), named by @key, into @s: its switch settings. */
int scn__merge_sonic_file(struct loader *l, struct scenario *s, const char *key, const char *path);

/* scenario_cc.c */

/*
 * nic.cc_params (a file or {file, device}) read into raw->cfg.cc, keeping
 * one device's entries; s->cfg.cc_params and cc_device set. 0 when none is
 * given; -EINVAL (a device of the dump that differs, refused unless
 * lenient) or -ENOMEM.
 */
int scn__cc_params_read(struct loader *l, struct scenario *s);

/* scenario_sonic.c */

/*
 * The ports of switch.sonic that differ from the switch's settings (after
 * scn__check_switch) -> s->sw.port_params, port i of each switch taking
 * the config's i-th port by number; none when every port is alike. Keys
 * the scenario gives win on every port. 0, -EINVAL (a port's value out of
 * range, named at the config's line) or -ENOMEM.
 */
int scn__sonic_ports(const struct loader *l, struct scenario *s);
/*
 * switch.sonic: one file for every switch (scn__merge_sonic_file), or one
 * per switch, a folder's or a mapping's (s->switches, each loaded with
 * the loader's load_switch). 0, -EINVAL or -ENOMEM.
 */
int scn__merge_sonic(struct loader *l, struct scenario *s);
/* The switches of s->switches on topology @t: s->sw_node. 0, -EINVAL or -ENOMEM. */
int scn__resolve_switches(struct scenario *s, const struct topo *t, struct diag *d);

/* scenario_speed.c */

/*
 * switch.ecn.by_speed and switch.pfc.by_speed (the file's, then @sets'),
 * after the switch's own ecn and pfc: s->sw.by_speed. 0, -EINVAL or -ENOMEM.
 */
int scn__check_by_speed(const struct loader *l, struct scenario *s, const char *const *sets,
			size_t n_sets);

/* scenario_links.c */

/* topology.links (the file's, then @sets'): s->link_sets, s->topo.link_sets. 0, -EINVAL or
 * -ENOMEM. */
int scn__check_links(const struct loader *l, struct scenario *s, const char *const *sets,
		     size_t n_sets);
void scn__free_links(struct scenario *s);

/* scenario_check.c */

/* Stage 3: check every section into @s; @sets gives expect.* and switch.dscp_to_tc.* keys. */
int scn__check_all(struct loader *l, struct scenario *s, const char *const *sets, size_t n_sets);

/* scenario_values.c */

/* Whole number @s (@def if NULL) in @min..@max into *@out, or scn__fail. */
int scn__get_uint(const struct loader *l, const char *path, const char *s, uint64_t def,
		  uint64_t min, uint64_t max, uint64_t *out);
int scn__get_u32(const struct loader *l, const char *path, const char *s, uint32_t def,
		 uint32_t min, uint32_t max, uint32_t *out);
int scn__get_size(const struct loader *l, const char *path, const char *s, uint64_t def,
		  int positive, uint64_t *out);
int scn__get_time(const struct loader *l, const char *path, const char *s, simtime_t def,
		  int positive, simtime_t *out);
int scn__get_link(const struct loader *l, const char *path, const struct raw_link *r,
		  const struct topo_linkspec *def, struct topo_linkspec *out);
int scn__get_bool(const struct loader *l, const char *path, const char *s, int def, int *out);
int scn__get_int(const struct loader *l, const char *path, const char *s, int def, int min, int max,
		 int *out);
/* A list of priorities ("[3, 4]") as a bit mask. */
int scn__get_prio_list(const struct loader *l, const char *path, char **v, unsigned n,
		       uint8_t *mask);
/* A key that the chosen kind does not use is a mistake worth naming. */
int scn__unused(const struct loader *l, const char *path, const char *v, const char *kind);

/* scenario_faults.c: the faults: entries on topology @t, into s->faults and
 * s->fault_of (checked by scn__check_all already). 0, -EINVAL or -ENOMEM. */
int scn__resolve_faults(const struct loader *l, const struct topo *t, const struct raw_top *r,
			struct scenario *s);

/* scenario_devices.c */

int scn__check_nic(const struct loader *l, const struct raw_nic *r, struct scenario *s);
int scn__check_switch(const struct loader *l, const struct raw_switch *r, struct scenario *s,
		      const char *const *sets, size_t n_sets);

/* scenario_nictc.c */

/* nic.tc (the file's, then @sets'), over what nic.mlnx_qos gave. 0 or -EINVAL. */
int scn__check_nic_tc(const struct loader *l, struct scenario *s, const char *const *sets,
		      size_t n_sets);

/* scenario_workloads.c */

/* The workload, one mapping or a list of them; a poisson workload's CDF is read into @s. */
int scn__check_workloads(const struct loader *l, const struct raw_top *r, struct scenario *s);
/* A training job's keys (kinds training and simai). */
int scn__check_training(const struct loader *l, const struct raw_workload *r, const char *prefix);
/* gpu.flops: "989TFLOPS", "989T", "9.89e14" into *@out; 0 or -EINVAL. */
int scn__flops(const char *s, double *out);

/* scenario_colls.c: host @name (at key @path) of @t, by its index in *@out; */
int scn__host_of(const struct loader *l, const struct topo *t, const char *path, const char *name,
		 uint32_t *out);
/* the GPUs a rank name means (first, count), the NICs a
 * collective may use (c->nics), and algorithm: auto's choice (c->algo; 0 or
 * -ENOMEM). */
int scn__gpus_of(const struct loader *l, const struct topo *t, const char *path, const char *name,
		 uint32_t *first, uint32_t *count);
int scn__coll_nics(const struct loader *l, const struct topo *t, const struct raw_workload *w,
		   const char *prefix, const struct scenario *s, struct coll_spec *c);
int scn__auto_algo(const struct scenario *s, const struct topo *t, struct coll_spec *c);

/* scenario_chakra.c: the plan of Chakra traces @tr (ranks on @gpus, knobs
 * of every collective from @knobs) into @p; traces that cannot run are said
 * in @why (-EINVAL); sends and receives without a peer counted in
 * *@no_peer. Free with scn__chakra_plan_free, then train_plan_free. */
struct chakra_ranks;
int scn__chakra_plan(const struct chakra_ranks *tr, const struct coll_spec *knobs,
		     const uint32_t *gpus, struct train_plan *p, uint32_t *no_peer, char *why,
		     size_t wsize);
void scn__chakra_plan_free(struct train_plan *p);

/* scenario_training.c: a training job (kinds training and simai) on @t, its
 * collectives' knobs from @knobs, into s->jobs and s->plans. */
int scn__resolve_training(const struct loader *l, const struct topo *t,
			  const struct raw_workload *w, const char *prefix,
			  const struct coll_spec *knobs, struct scenario *s);

#endif
