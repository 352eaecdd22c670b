/*
 * The scenario file's libcyaml schema: which key loads into which field of
 * the raw_* structs (scenario_impl.h), the names each enum key takes, and
 * how what was loaded is freed. Every scalar is loaded as a string, so
 * that the checks (scenario_check.c) can name a value's unit when they
 * refuse it.
 */
#include <cyaml/cyaml.h>
#include <stdlib.h>

#include "sim/config/scenario.h"
#include "sim/config/scenario_impl.h"
#include "sim/readers/mlnx.h"
#include "sim/readers/ydoc.h"

/* Enum values start at 1: 0 means the key was not given. */
const cyaml_strval_t scn__topo_kinds[] = {
    {"star", 1 + TOPO_STAR},	     {"leaf_spine", 1 + TOPO_LEAF_SPINE},
    {"fat_tree", 1 + TOPO_FAT_TREE}, {"ring", 1 + TOPO_RING},
    {"file", 1 + TOPO_FILE},	     {"sonic", 1 + TOPO_SONIC},
    {"hpcc", 1 + TOPO_HPCC},	     {"rail", 1 + TOPO_RAIL},
};
static const cyaml_strval_t cc_kinds[] = {
    {"none", 1 + NIC_CC_NONE},
    {"dcqcn", 1 + NIC_CC_DCQCN},
};
/* Workload kinds: flow patterns, then the collectives (1 + SCN_WL_COLL + op). */
const cyaml_strval_t scn__wl_kinds[] = {
    {"flows", 1 + SCN_WL_FLOWS},
    {"incast", 1 + SCN_WL_INCAST},
    {"permutation", 1 + SCN_WL_PERMUTATION},
    {"poisson", 1 + SCN_WL_POISSON},
    {"hpcc", 1 + SCN_WL_HPCC},
    {"allreduce", 1 + SCN_WL_COLL + COLL_ALLREDUCE},
    {"allgather", 1 + SCN_WL_COLL + COLL_ALLGATHER},
    {"reducescatter", 1 + SCN_WL_COLL + COLL_REDUCESCATTER},
    {"alltoall", 1 + SCN_WL_COLL + COLL_ALLTOALL},
    {"training", 1 + SCN_WL_TRAINING},
    {"simai", 1 + SCN_WL_SIMAI},
    {"nccl_tests", 1 + SCN_WL_NCCL_TESTS},
    {"chakra", 1 + SCN_WL_CHAKRA},
};
static const cyaml_strval_t fault_kinds[] = {
    {"link_down", 1 + NET_FAULT_LINK_DOWN}, {"pfc_storm", 1 + NET_FAULT_PFC_STORM},
    {"node_down", 1 + SCN_FAULT_NODE_DOWN}, {"link_up", 1 + NET_FAULT_LINK_UP},
    {"node_up", 1 + SCN_FAULT_NODE_UP},	    {"link_flap", 1 + SCN_FAULT_LINK_FLAP},
    {"link_rate", 1 + NET_FAULT_LINK_RATE},
};
static const cyaml_strval_t sched_kinds[] = {
    {"strict", 1 + SW_SCHED_STRICT},
    {"dwrr", 1 + SW_SCHED_DWRR},
};
static const cyaml_strval_t wd_actions[] = {
    {"drop", 1 + SW_WD_DROP},
    {"forward", 1 + SW_WD_FORWARD},
    {"alert", 1 + SW_WD_ALERT},
};
static const cyaml_strval_t ecn_marks[] = {
    {"dequeue", 1},
    {"enqueue", 2},
};

#define OPT (CYAML_FLAG_OPTIONAL)
#define OPT_PTR (CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL)
#define STR(key, type, field) CYAML_FIELD_STRING_PTR(key, OPT_PTR, type, field, 0, CYAML_UNLIMITED)
#define ENUM(key, type, field, table)                                                              \
	CYAML_FIELD_ENUM(key, OPT | CYAML_FLAG_STRICT, type, field, table, CYAML_ARRAY_LEN(table))

static const cyaml_schema_field_t link_fields[] = {
    STR("rate", struct raw_link, rate),
    STR("cable", struct raw_link, cable),
    STR("delay", struct raw_link, delay),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t topology_fields[] = {
    ENUM("kind", struct raw_topology, kind, scn__topo_kinds),
    STR("hosts", struct raw_topology, hosts),
    STR("leaves", struct raw_topology, leaves),
    STR("spines", struct raw_topology, spines),
    STR("hosts_per_leaf", struct raw_topology, hosts_per_leaf),
    STR("parallel", struct raw_topology, parallel),
    STR("k", struct raw_topology, k),
    STR("switches", struct raw_topology, switches),
    STR("hosts_per_switch", struct raw_topology, hosts_per_switch),
    STR("file", struct raw_topology, file),
    STR("dir", struct raw_topology, dir),
    STR("convergence", struct raw_topology, convergence),
    STR("nics_per_host", struct raw_topology, nics_per_host),
    STR("gpus_per_host", struct raw_topology, gpus_per_host),
    STR("servers", struct raw_topology, servers),
    STR("servers_per_leaf", struct raw_topology, servers_per_leaf),
    STR("nvlink", struct raw_topology, nvlink),
    STR("nvlink_latency", struct raw_topology, nvlink_latency),
    CYAML_FIELD_MAPPING_PTR("link", OPT_PTR, struct raw_topology, link, link_fields),
    CYAML_FIELD_MAPPING_PTR("uplink", OPT_PTR, struct raw_topology, uplink, link_fields),
    CYAML_FIELD_IGNORE("links", OPT), /* free-form keys (link names): read through ydoc */
    CYAML_FIELD_END,
};

/* A list of scalars, each loaded as a string. */
static const cyaml_schema_value_t string_entry = {
    CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 0, CYAML_UNLIMITED),
};
#define STR_LIST(key, type, field)                                                                 \
	CYAML_FIELD_SEQUENCE(key, OPT_PTR, type, field, &string_entry, 0, CYAML_UNLIMITED)

static const cyaml_schema_field_t buffer_fields[] = {
    STR("size", struct raw_buffer, size),
    STR("per_port", struct raw_buffer, per_port),
    STR("pg_min", struct raw_buffer, pg_min),
    STR("headroom_pool", struct raw_buffer, headroom_pool),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t pfc_fields[] = {
    STR("enabled", struct raw_pfc, enabled),
    STR("xoff", struct raw_pfc, xoff),
    STR("dynamic_th", struct raw_pfc, dynamic_th),
    STR("xon", struct raw_pfc, xon),
    STR("xon_offset", struct raw_pfc, xon_offset),
    STR("headroom", struct raw_pfc, headroom),
    STR("quanta", struct raw_pfc, quanta),
    STR("refresh", struct raw_pfc, refresh),
    STR("response", struct raw_pfc, response),
    CYAML_FIELD_IGNORE("by_speed", OPT), /* free-form keys: read through ydoc */
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t ecn_fields[] = {
    STR("enabled", struct raw_ecn, enabled),
    STR("kmin", struct raw_ecn, kmin),
    STR("kmax", struct raw_ecn, kmax),
    STR("pmax", struct raw_ecn, pmax),
    ENUM("mark", struct raw_ecn, mark, ecn_marks),
    CYAML_FIELD_IGNORE("by_speed", OPT), /* free-form keys: read through ydoc */
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t watchdog_fields[] = {
    STR("detection", struct raw_watchdog, detection),
    STR("restoration", struct raw_watchdog, restoration),
    ENUM("action", struct raw_watchdog, action, wd_actions),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t switch_fields[] = {
    CYAML_FIELD_IGNORE("sonic", OPT), /* a file, a folder or a mapping: read through ydoc */
    CYAML_FIELD_MAPPING_PTR("buffer", OPT_PTR, struct raw_switch, buffer, buffer_fields),
    STR_LIST("lossless", struct raw_switch, lossless),
    STR("cnp_priority", struct raw_switch, cnp_priority),
    CYAML_FIELD_IGNORE("dscp_to_tc", OPT), /* free-form keys: read through ydoc */
    CYAML_FIELD_MAPPING_PTR("pfc", OPT_PTR, struct raw_switch, pfc, pfc_fields),
    CYAML_FIELD_MAPPING_PTR("ecn", OPT_PTR, struct raw_switch, ecn, ecn_fields),
    ENUM("scheduler", struct raw_switch, scheduler, sched_kinds),
    STR_LIST("weights", struct raw_switch, weights),
    CYAML_FIELD_MAPPING_PTR("watchdog", OPT_PTR, struct raw_switch, watchdog, watchdog_fields),
    CYAML_FIELD_END,
};

static const cyaml_strval_t dcqcn_variants[] = {
    {"mlx5", 1 + DCQCN_MLX5},
    {"paper", 1 + DCQCN_PAPER},
};

static const cyaml_strval_t np_cnp_modes[] = {
    {"gap", 1},
    {"window", 2},
};

static const cyaml_strval_t byte_reset_units[] = {
    {"1B", 1},
    {"64B", 2},
};

static const cyaml_strval_t cnp_scopes[] = {
    {"qp", 1},
    {"port", 2},
};

#define DCQCN_SCHEMA_FIELD(name, min, max) STR(#name, struct raw_dcqcn, name),
static const cyaml_schema_field_t dcqcn_fields[] = {
    ENUM("variant", struct raw_dcqcn, variant, dcqcn_variants),
    DCQCN_KEYS(DCQCN_SCHEMA_FIELD) ENUM("np_cnp_mode", struct raw_dcqcn, np_cnp_mode, np_cnp_modes),
    ENUM("byte_reset_unit", struct raw_dcqcn, byte_reset_unit, byte_reset_units),
    ENUM("cnp_scope", struct raw_dcqcn, cnp_scope, cnp_scopes),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t transport_fields[] = {
    STR("timeout", struct raw_transport, timeout),
    STR("ack_every", struct raw_transport, ack_every),
    STR("retry_cnt", struct raw_transport, retry_cnt),
    STR("adaptive_retrans", struct raw_transport, adaptive_retrans),
    STR("adaptive_first", struct raw_transport, adaptive_first),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t nic_fields[] = {
    STR("mtu", struct raw_nic, mtu),
    STR("priority", struct raw_nic, priority),
    STR("dscp", struct raw_nic, dscp),
    STR_LIST("pfc", struct raw_nic, pfc),
    STR("ecn", struct raw_nic, ecn),
    STR("rx_buffer", struct raw_nic, rx_buffer),
    STR("rx_rate", struct raw_nic, rx_rate),
    STR("mlnx_qos", struct raw_nic, mlnx_qos),
    CYAML_FIELD_IGNORE("cc_params", OPT), /* a file or {file, device}: read through ydoc */
    ENUM("cc", struct raw_nic, cc, cc_kinds),
    CYAML_FIELD_IGNORE("tc", OPT), /* free-form keys (class numbers): read through ydoc */
    CYAML_FIELD_MAPPING_PTR("transport", OPT_PTR, struct raw_nic, transport, transport_fields),
    CYAML_FIELD_MAPPING_PTR("dcqcn", OPT_PTR, struct raw_nic, dcqcn, dcqcn_fields),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t flow_fields[] = {
    STR("src", struct raw_flow, src),	STR("dst", struct raw_flow, dst),
    STR("size", struct raw_flow, size), STR("start", struct raw_flow, start),
    STR("dscp", struct raw_flow, dscp), CYAML_FIELD_END,
};

static const cyaml_schema_value_t flow_value = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct raw_flow, flow_fields),
};

static const cyaml_schema_field_t late_fields[] = {
    STR("host", struct raw_late, host),
    STR("by", struct raw_late, by),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t layout_fields[] = {
    STR("tp", struct raw_layout, tp),
    STR("pp", struct raw_layout, pp),
    STR("dp", struct raw_layout, dp),
    STR("ep", struct raw_layout, ep),
    STR("vpp", struct raw_layout, vpp),
    STR("ga", struct raw_layout, ga),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t tcoll_fields[] = {
    STR("op", struct raw_tcoll, op),
    STR("group", struct raw_tcoll, group),
    STR("size", struct raw_tcoll, size),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t layer_fields[] = {
    STR("repeat", struct raw_layer, repeat),
    STR("forward", struct raw_layer, forward),
    STR("input_grad", struct raw_layer, input_grad),
    STR("weight_grad", struct raw_layer, weight_grad),
    STR("update", struct raw_layer, update),
    CYAML_FIELD_MAPPING_PTR("forward_coll", OPT_PTR, struct raw_layer, forward_coll, tcoll_fields),
    CYAML_FIELD_MAPPING_PTR("input_grad_coll", OPT_PTR, struct raw_layer, input_grad_coll,
			    tcoll_fields),
    CYAML_FIELD_MAPPING_PTR("weight_grad_coll", OPT_PTR, struct raw_layer, weight_grad_coll,
			    tcoll_fields),
    CYAML_FIELD_END,
};

static const cyaml_schema_value_t layer_value = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct raw_layer, layer_fields),
};

static const cyaml_schema_field_t model_fields[] = {
    STR("layers", struct raw_model, layers),
    STR("hidden", struct raw_model, hidden),
    STR("ffn", struct raw_model, ffn),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t gpu_fields[] = {
    STR("flops", struct raw_gpu, flops),
    STR("efficiency", struct raw_gpu, efficiency),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t workload_fields[] = {
    ENUM("kind", struct raw_workload, kind, scn__wl_kinds),
    STR("size", struct raw_workload, size),
    STR("senders", struct raw_workload, senders),
    STR("receiver", struct raw_workload, receiver),
    STR("start", struct raw_workload, start),
    STR("dscp", struct raw_workload, dscp),
    STR("pod", struct raw_workload, pod),
    STR("cdf", struct raw_workload, cdf),
    STR("load", struct raw_workload, load),
    STR("duration", struct raw_workload, duration),
    STR("generator", struct raw_workload, generator),
    STR("file", struct raw_workload, file),
    /* hosts: all, or a list of hosts, as ranks */
    CYAML_FIELD_IGNORE("hosts", OPT),
    CYAML_FIELD_SEQUENCE("flows", OPT_PTR, struct raw_workload, flows, &flow_value, 0,
			 CYAML_UNLIMITED),
    /* ranks: all, or a list of hosts: either form, read through ydoc */
    CYAML_FIELD_IGNORE("ranks", OPT),
    STR("channels", struct raw_workload, channels),
    STR("chunk", struct raw_workload, chunk),
    STR("iterations", struct raw_workload, iterations),
    STR("steps", struct raw_workload, steps),
    STR("hca", struct raw_workload, hca),
    STR("algorithm", struct raw_workload, algorithm),
    STR("step_latency", struct raw_workload, step_latency),
    STR("qps_per_connection", struct raw_workload, qps_per_connection),
    STR("split_data_on_qps", struct raw_workload, split_data_on_qps),
    CYAML_FIELD_MAPPING_PTR("late", OPT_PTR, struct raw_workload, late, late_fields),
    CYAML_FIELD_MAPPING_PTR("layout", OPT_PTR, struct raw_workload, layout, layout_fields),
    /* placement: a policy, or a list of servers and GPUs: read through ydoc */
    CYAML_FIELD_IGNORE("placement", OPT),
    STR("pp_size", struct raw_workload, pp_size),
    STR("micro_batch", struct raw_workload, micro_batch),
    STR("seq_len", struct raw_workload, seq_len),
    STR("command", struct raw_workload, command),
    STR("dir", struct raw_workload, dir),
    CYAML_FIELD_MAPPING_PTR("model", OPT_PTR, struct raw_workload, model, model_fields),
    CYAML_FIELD_MAPPING_PTR("gpu", OPT_PTR, struct raw_workload, gpu, gpu_fields),
    CYAML_FIELD_SEQUENCE("layers", OPT_PTR, struct raw_workload, layers, &layer_value, 0,
			 CYAML_UNLIMITED),
    CYAML_FIELD_END,
};

static const cyaml_schema_value_t workload_value = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct raw_workload, workload_fields),
};

static const cyaml_schema_field_t fault_fields[] = {
    ENUM("kind", struct raw_fault, kind, fault_kinds),
    STR("link", struct raw_fault, link),
    STR("node", struct raw_fault, node),
    STR("host", struct raw_fault, host),
    STR("port", struct raw_fault, port),
    STR("at", struct raw_fault, at),
    STR("duration", struct raw_fault, duration),
    STR("rate", struct raw_fault, rate),
    STR("period", struct raw_fault, period),
    STR("count", struct raw_fault, count),
    STR_LIST("priorities", struct raw_fault, priorities),
    CYAML_FIELD_END,
};

static const cyaml_schema_value_t fault_value = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct raw_fault, fault_fields),
};

static const cyaml_schema_field_t deadlock_fields[] = {
    STR("enabled", struct raw_deadlock, enabled),
    STR("window", struct raw_deadlock, window),
    STR("stop_on_detect", struct raw_deadlock, stop_on_detect),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t fast_forward_fields[] = {
    STR("enabled", struct raw_fast_forward, enabled),
    STR("tolerance", struct raw_fast_forward, tolerance),
    STR("window", struct raw_fast_forward, window),
    STR("windows", struct raw_fast_forward, windows),
    STR("groups", struct raw_fast_forward, groups),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t engine_fields[] = {
    CYAML_FIELD_MAPPING_PTR("fast_forward", OPT_PTR, struct raw_engine, fast_forward,
			    fast_forward_fields),
    CYAML_FIELD_END,
};

static const cyaml_strval_t series_modes[] = {
    {"changes", 1 + SCN_SERIES_CHANGES},
    {"samples", 1 + SCN_SERIES_SAMPLES},
};

static const cyaml_schema_field_t output_fields[] = {
    STR("sample", struct raw_output, sample),
    ENUM("timeseries", struct raw_output, timeseries, series_modes),
    STR("pfc_events", struct raw_output, pfc_events),
    STR("timeline", struct raw_output, timeline),
    STR_LIST("fct_buckets", struct raw_output, fct_buckets),
    CYAML_FIELD_END,
};

/*
 * The top level, twice: `workload` is a mapping (one workload) or a list
 * (a training job beside storage traffic, say). libcyaml takes one type
 * per key, so the loader picks the schema by what the file holds.
 */
#define TOP_FIELDS(workload_field)                                                                 \
	STR("name", struct raw_top, name), STR("seed", struct raw_top, seed),                      \
	    STR("stop", struct raw_top, stop), STR("max_events", struct raw_top, max_events),      \
	    CYAML_FIELD_MAPPING_PTR("topology", OPT_PTR, struct raw_top, topology,                 \
				    topology_fields),                                              \
	    CYAML_FIELD_MAPPING_PTR("switch", OPT_PTR, struct raw_top, sw, switch_fields),         \
	    CYAML_FIELD_MAPPING_PTR("nic", OPT_PTR, struct raw_top, nic, nic_fields),              \
	    workload_field,                                                                        \
	    CYAML_FIELD_SEQUENCE("faults", OPT_PTR, struct raw_top, faults, &fault_value, 0,       \
				 CYAML_UNLIMITED),                                                 \
	    CYAML_FIELD_IGNORE("expect", OPT),                                                     \
	    CYAML_FIELD_IGNORE("sweep", OPT), /* read by rocesim sweep */                          \
	    CYAML_FIELD_MAPPING_PTR("output", OPT_PTR, struct raw_top, output, output_fields),     \
	    CYAML_FIELD_MAPPING_PTR("deadlock", OPT_PTR, struct raw_top, deadlock,                 \
				    deadlock_fields),                                              \
	    CYAML_FIELD_MAPPING_PTR("engine", OPT_PTR, struct raw_top, engine, engine_fields),     \
	    CYAML_FIELD_END

static const cyaml_schema_field_t top_fields[] = {
    TOP_FIELDS(
	CYAML_FIELD_MAPPING_PTR("workload", OPT_PTR, struct raw_top, workload, workload_fields)),
};

static const cyaml_schema_field_t top_fields_list[] = {
    TOP_FIELDS(CYAML_FIELD_SEQUENCE("workload", OPT_PTR, struct raw_top, workloads, &workload_value,
				    1, CYAML_UNLIMITED)),
};

static const cyaml_schema_value_t top_value = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct raw_top, top_fields),
};

static const cyaml_schema_value_t top_value_list = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct raw_top, top_fields_list),
};

const cyaml_schema_field_t *scn__top_fields(void)
{
	return top_fields;
}

const cyaml_schema_value_t *scn__schema(int list)
{
	return list ? &top_value_list : &top_value;
}

const cyaml_config_t scn__cyaml_base = {
    .log_level = CYAML_LOG_ERROR,
    .mem_fn = cyaml_mem,
    .flags = CYAML_CFG_DEFAULT,
};

void scn__raw_free(struct scn_raw *raw)
{
	cyaml_config_t cfg = scn__cyaml_base;

	if (!raw)
		return;
	if (raw->top)
		cyaml_free(&cfg, raw->schema, raw->top, 0);
	ydoc_free(raw->doc);
	cc_params_free(&raw->cfg.cc);
	free(raw->cfg.sonic);
	free(raw->origins);
	for (size_t i = 0; i < raw->n_set; i++)
		free(raw->set_paths[i]);
	free(raw->set_paths);
	free(raw);
}
