/*
 * Scenario loading: the libcyaml schema of the scenario file, libcyaml's log
 * turned into our one-line errors, --set overrides applied by walking that
 * same schema, and the entry points (scn_load*, scn_free, scn_locate).
 * Unit-bearing values are loaded as strings so that every refusal can name
 * its unit; ydoc gives each key its line.
 *
 * A load reads the file, applies --set, merges the values of the real node
 * configs it names into struct scenario, typed and with their origins
 * (scenario_configs.c), and checks every section into the integers of
 * struct scenario, a config's value standing in for the default
 * (scenario_check.c); scn_resolve (scenario_resolve.c) later checks the
 * names against the topology. scenario_impl.h holds what these files share.
 */
#include "sim/config/scenario.h"

#include <cyaml/cyaml.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/mlnx.h"
#include "sim/config/scenario_impl.h"
#include "sim/engine/textfile.h"
#include "sim/readers/ydoc.h"

/* ---- the schema -------------------------------------------------------------- */

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

static const cyaml_strval_t series_modes[] = {
    {"changes", 1 + SCN_SERIES_CHANGES},
    {"samples", 1 + SCN_SERIES_SAMPLES},
};

static const cyaml_schema_field_t output_fields[] = {
    STR("sample", struct raw_output, sample),
    ENUM("timeseries", struct raw_output, timeseries, series_modes),
    STR("pfc_events", struct raw_output, pfc_events),
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

/* ---- errors and key paths ------------------------------------------------- */

int scn__set_by_user(const struct scn_raw *raw, const char *path)
{
	for (size_t i = 0; i < raw->n_set; i++)
		if (!strcmp(raw->set_paths[i], path))
			return 1;
	return 0;
}

/*
 * Line of @path, or of the nearest enclosing key the file holds: a key that
 * is missing ("topology.hosts") is named at the line of its section.
 */
int scn__line_of(const struct ydoc *doc, const char *path)
{
	return ydoc_line_near(doc, path);
}

const char *scn__key_file(const struct loader *l, const char *path)
{
	const struct ydoc_entry *e = ydoc_find(l->raw->doc, path);

	return e ? e->file : l->file;
}

const struct scn_origin *scn__origin_of(const struct scn_raw *raw, const char *path)
{
	char buf[160];

	snprintf(buf, sizeof(buf), "%s", path);
	for (;;) {
		char *cut = buf + strlen(buf);

		for (size_t i = 0; i < raw->n_origins; i++)
			if (!strcmp(raw->origins[i].path, buf))
				return &raw->origins[i];
		while (cut > buf && *cut != '.' && *cut != '[')
			cut--;
		if (cut == buf)
			return NULL;
		*cut = '\0';
	}
}

int scn__from_config(const struct scn_raw *raw, const char *path)
{
	for (size_t i = 0; i < raw->n_origins; i++)
		if (!strcmp(raw->origins[i].path, path))
			return 1;
	return 0;
}

int scn__origin_add(struct scn_raw *raw, const struct scn_origin *o)
{
	struct scn_origin *all;

	for (size_t i = 0; i < raw->n_origins; i++)
		if (!strcmp(raw->origins[i].path, o->path)) {
			raw->origins[i] = *o;
			return 0;
		}
	all = realloc(raw->origins, (raw->n_origins + 1) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	raw->origins = all;
	raw->origins[raw->n_origins++] = *o;
	return 0;
}

/*
 * Where a value of @path the scenario does not give came from (a real
 * config), else NULL: what the user wrote or set is named there first.
 */
static const struct scn_origin *config_origin(const struct scn_raw *raw, const char *path)
{
	if (scn__set_by_user(raw, path) || ydoc_find(raw->doc, path))
		return NULL;
	return scn__origin_of(raw, path);
}

int scn__fail(const struct loader *l, const char *path, const char *fmt, ...)
{
	const struct scn_origin *o = config_origin(l->raw, path);
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (scn__set_by_user(l->raw, path))
		diag_set(l->d, "--set", 0, path, "%s", msg);
	else if (o)
		diag_set(l->d, o->file, o->line, o->key, "%s (%s, from %s)", msg, path, o->via);
	else
		diag_set(l->d, ydoc_file_near(l->raw->doc, path), scn__line_of(l->raw->doc, path),
			 path, "%s", msg);
	return -EINVAL;
}

/* "workload" or "workload[i]", then ".key" */
const char *scn__wpath(char *buf, size_t size, const char *prefix, const char *key)
{
	snprintf(buf, size, "%s.%s", prefix, key);
	return buf;
}

/* The keys a mapping schema accepts, for "unknown key" messages. */
static void list_keys(const cyaml_schema_field_t *f, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (; f && f->key && n < size; f++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", f->key);
}

static void list_enum(const cyaml_schema_value_t *v, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < v->enumeration.count && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "",
				      v->enumeration.strings[i].str);
}

/* ---- walking the schema (unknown keys, --set) ------------------------------ */

static const cyaml_schema_field_t *find_field(const cyaml_schema_field_t *f, const char *key,
					      size_t len)
{
	for (; f && f->key; f++)
		if (strlen(f->key) == len && !strncmp(f->key, key, len))
			return f;
	return NULL;
}

/* Why walk() found no field. */
enum walk_miss { WALK_UNKNOWN, WALK_BAD_INDEX, WALK_NOMEM };

/*
 * Follow @path through the schema. Returns the field of the last component,
 * or NULL and *@miss says why; *@parent gets the field list that was
 * searched last. With @data (the loaded struct), also follows the data,
 * allocating absent mappings, and leaves the address of the last field's
 * storage in *@slot.
 */
static const cyaml_schema_field_t *walk(const cyaml_schema_value_t *top, const char *path,
					const cyaml_schema_field_t **parent, void *data,
					void **slot, enum walk_miss *miss)
{
	const cyaml_schema_field_t *fields = top->mapping.fields, *f = NULL;
	const char *p = path;

	*miss = WALK_UNKNOWN;
	for (;;) {
		size_t len = strcspn(p, ".[");
		uint8_t *base = data;

		*parent = fields;
		f = find_field(fields, p, len);
		if (!f)
			return NULL;
		p += len;
		if (data)
			*slot = base + f->data_offset;
		if (*p == '\0')
			return f;
		if (f->value.type == CYAML_SEQUENCE && *p == '[') {
			char *end;
			unsigned long idx = strtoul(p + 1, &end, 10);
			unsigned count;

			if (*end != ']' || !data) {
				*miss = WALK_BAD_INDEX;
				return NULL;
			}
			memcpy(&count, base + f->count_offset, sizeof(count));
			if (idx >= count) {
				*miss = WALK_BAD_INDEX;
				return NULL;
			}
			data = *(uint8_t **)(base + f->data_offset) +
			       idx * f->value.sequence.entry->data_size;
			fields = f->value.sequence.entry->mapping.fields;
			p = end + 1;
			if (*p == '\0')
				return NULL;
			if (*p != '.')
				return NULL;
			p++;
			continue;
		}
		if (f->value.type != CYAML_MAPPING || *p != '.')
			return NULL;
		if (data) {
			void **ptr = (void **)(base + f->data_offset);

			if (!*ptr && !(*ptr = calloc(1, f->value.data_size))) {
				*miss = WALK_NOMEM;
				return NULL;
			}
			data = *ptr;
		}
		fields = f->value.mapping.fields;
		p++;
	}
}

/* Apply one --set "key.path=value" to the loaded struct. */
static int apply_set(struct loader *l, struct raw_top *top, const char *kv)
{
	const cyaml_schema_field_t *parent, *f;
	const char *eq = strchr(kv, '=');
	char path[160], keys[512];
	void *slot = NULL;
	enum walk_miss miss;

	if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof(path)) {
		diag_set(l->d, "--set", 0, "", "\"%s\" is not KEY=VALUE", kv);
		return -EINVAL;
	}
	memcpy(path, kv, (size_t)(eq - kv));
	path[eq - kv] = '\0';
	f = walk(l->raw->schema, path, &parent, top, &slot, &miss);
	if (!f) {
		if (miss == WALK_NOMEM)
			return -ENOMEM;
		if (miss == WALK_BAD_INDEX) {
			diag_set(l->d, "--set", 0, path, "no such list item in %s", l->file);
		} else {
			list_keys(parent, keys, sizeof(keys));
			diag_set(l->d, "--set", 0, path, "unknown key (expected one of: %s)", keys);
		}
		return -EINVAL;
	}
	if (f->value.type == CYAML_STRING) {
		char **s = slot, *v = strdup(eq + 1);

		if (!v)
			return -ENOMEM;
		free(*s);
		*s = v;
		return 0;
	}
	if (f->value.type == CYAML_ENUM) {
		const cyaml_schema_value_t *v = &f->value;

		for (uint32_t i = 0; i < v->enumeration.count; i++) {
			if (!strcmp(v->enumeration.strings[i].str, eq + 1)) {
				int val = (int)v->enumeration.strings[i].val;

				memcpy(slot, &val, sizeof(val));
				return 0;
			}
		}
		list_enum(v, keys, sizeof(keys));
		diag_set(l->d, "--set", 0, path, "\"%s\" is not one of: %s", eq + 1, keys);
		return -EINVAL;
	}
	diag_set(l->d, "--set", 0, path, "is a section, not a single value");
	return -EINVAL;
}

/* ---- entry points -------------------------------------------------------------- */

static const cyaml_config_t base_config = {
    .log_level = CYAML_LOG_ERROR,
    .mem_fn = cyaml_mem,
    .flags = CYAML_CFG_DEFAULT,
};

static void raw_free(struct scn_raw *raw)
{
	cyaml_config_t cfg = base_config;

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

void scn_free(struct scenario *s)
{
	if (!s)
		return;
	raw_free(s->raw);
	free(s->name);
	free(s->file);
	free(s->topo_file);
	free(s->cfg.sonic);
	free(s->sw_ports);
	free(s->speeds);
	scn__free_links(s);
	free(s->sonic_sw);
	free(s->sonic_desc_ports);
	for (uint32_t i = 0; i < s->n_switches; i++) {
		free(s->switches[i].name);
		free(s->switches[i].file);
		free(s->switches[i].key);
		free(s->switches[i].ports);
		if (s->switches[i].owns)
			scn_free(s->switches[i].cfg);
	}
	free(s->switches);
	free(s->sw_node);
	free(s->cfg.mlnx_qos);
	free(s->cfg.cc_params);
	free(s->cfg.cc_device);
	for (uint32_t i = 0; i < s->cfg.n_pods; i++)
		free(s->cfg.pods[i].file);
	free(s->cfg.pods);
	for (uint32_t i = 0; i < s->n_traffic; i++) {
		free(s->traffic[i].file);
		wl_cdf_free(&s->traffic[i].cdf);
	}
	free(s->traffic);
	for (uint32_t i = 0; i < s->n_hpcc; i++) {
		free(s->hpcc[i].file);
		hpcc_flows_free(&s->hpcc[i].flows);
	}
	free(s->hpcc);
	free(s->wl.flows);
	for (uint32_t i = 0; i < s->n_colls; i++)
		free(s->colls[i].ranks);
	free(s->colls);
	free(s->faults);
	free(s->fault_of);
	free(s->expects);
	free(s);
}

static int load_text(const char *name, const char *text, size_t len, const char *const *overlays,
		     size_t n_overlays, const char *const *sets, size_t n_sets, int flags,
		     const char *const *force, struct scenario **out, struct diag *d)
{
	struct loader l = {.file = name,
			   .d = d,
			   .text = text,
			   .len = len,
			   .overlays = overlays,
			   .n_overlays = n_overlays,
			   .sets = sets,
			   .n_sets = n_sets,
			   .flags = flags,
			   .force_key = force ? force[0] : NULL,
			   .force_file = force ? force[1] : NULL};
	char *merged = NULL;
	cyaml_config_t cfg = base_config;
	struct ydoc_cylog log = {0};
	struct scenario *s;
	cyaml_err_t cerr;
	int err;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s || !(s->raw = calloc(1, sizeof(*s->raw))) || !(s->file = strdup(name))) {
		scn_free(s);
		return -ENOMEM;
	}
	l.raw = s->raw;
	err = ydoc_parse(name, text, len, &s->raw->doc, d);
	if (err)
		goto fail;
	if (!ydoc_count(s->raw->doc)) {
		diag_set(d, name, 1, "",
			 "empty scenario: expected a mapping of keys (topology, workload, ...)");
		err = -EINVAL;
		goto fail;
	}
	if (n_overlays) {
		ydoc_free(s->raw->doc);
		s->raw->doc = NULL;
		err = scn__overlay(name, text, len, overlays, n_overlays, &s->raw->doc, &merged,
				   &len, d);
		if (err)
			goto fail;
		text = merged;
	}
	cfg.log_fn = ydoc_cyaml_log;
	cfg.log_ctx = &log;
	/* `workload` as a list takes the other schema */
	s->raw->schema = ydoc_find(s->raw->doc, "workload[0]") ? &top_value_list : &top_value;
	cerr = cyaml_load_data((const uint8_t *)text, len, &cfg, s->raw->schema,
			       (cyaml_data_t **)&s->raw->top, NULL);
	free(merged);
	merged = NULL;
	if (cerr != CYAML_OK) {
		s->raw->top = NULL;
		err = ydoc_cyaml_diag(s->raw->doc, s->raw->schema, &log, cerr, YDOC_CY_KEYS, d);
		goto fail;
	}
	s->raw->set_paths = calloc(n_sets ? n_sets : 1, sizeof(char *));
	if (!s->raw->set_paths) {
		err = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < n_sets; i++) {
		if (!strncmp(sets[i], "expect.", 7))
			continue;
		/* a DSCP map entry, and switch.sonic, are no schema keys: they are read apart */
		err = strncmp(sets[i], "switch.dscp_to_tc.", 18) && !scn__sonic_set(sets[i]) &&
			      !scn__cc_set(sets[i]) && !scn__set_is_by_speed(sets[i]) &&
			      !scn__set_is_links(sets[i]) && !scn__set_is_nic_tc(sets[i])
			  ? apply_set(&l, s->raw->top, sets[i])
			  : 0;
		if (err)
			goto fail;
		s->raw->set_paths[s->raw->n_set] = strndup(sets[i], strcspn(sets[i], "="));
		if (!s->raw->set_paths[s->raw->n_set++]) {
			err = -ENOMEM;
			goto fail;
		}
	}
	s->raw->cfg.flags = flags;
	err = scn__merge_configs(&l, s);
	if (err)
		goto fail;
	err = scn__check_all(&l, s, sets, n_sets);
	if (err)
		goto fail;
	*out = s;
	return 0;
fail:
	free(merged);
	scn_free(s);
	return err;
}

int scn_load_text(const char *name, const char *text, size_t len, const char *const *sets,
		  size_t n_sets, struct scenario **out, struct diag *d)
{
	return load_text(name, text, len, NULL, 0, sets, n_sets, 0, NULL, out, d);
}

int scn__load_switch(const struct loader *l, const char *key, const char *file,
		     struct scenario **out)
{
	const char *force[2] = {key, file};

	return load_text(l->file, l->text, l->len, l->overlays, l->n_overlays, l->sets, l->n_sets,
			 l->flags, force, out, l->d);
}

int scn_load(const char *file, const char *const *sets, size_t n_sets, struct scenario **out,
	     struct diag *d)
{
	return scn_load_ex(file, sets, n_sets, 0, out, d);
}

int scn_load_ex(const char *file, const char *const *sets, size_t n_sets, int flags,
		struct scenario **out, struct diag *d)
{
	struct scn_load_opts o = {.sets = sets, .n_sets = n_sets, .flags = flags};

	return scn_load_with(file, &o, out, d);
}

int scn_load_with(const char *file, const struct scn_load_opts *o, struct scenario **out,
		  struct diag *d)
{
	char *text;
	size_t len;
	int err;

	*out = NULL;
	err = textfile_load(file, 0, &text, &len, d);
	if (err)
		return err == -ENOMEM ? err : -EINVAL;
	err = load_text(file, text, len, o->overlays, o->n_overlays, o->sets, o->n_sets, o->flags,
			NULL, out, d);
	free(text);
	return err;
}

const char *scn_fault_node(const struct scenario *s, uint32_t entry)
{
	const struct raw_top *r = s->raw ? s->raw->top : NULL;

	if (!r || entry >= r->faults_count ||
	    (r->faults[entry].kind - 1 != SCN_FAULT_NODE_DOWN &&
	     r->faults[entry].kind - 1 != SCN_FAULT_NODE_UP))
		return NULL;
	return r->faults[entry].node;
}

const struct scn_origin *scn_origin(const struct scenario *s, const char *path)
{
	return s->raw ? config_origin(s->raw, path) : NULL;
}

void scn_locate(const struct scenario *s, struct diag *d)
{
	const struct scn_origin *o;
	const struct ydoc_entry *e;
	char msg[sizeof(d->msg)], path[sizeof(d->path)];

	if (d->file[0])
		return;
	if (d->path[0] && (o = scn_origin(s, d->path))) {
		snprintf(msg, sizeof(msg), "%s", d->msg);
		snprintf(path, sizeof(path), "%s", d->path);
		diag_set(d, o->file, o->line, o->key, "%s (%s, from %s)", msg, path, o->via);
		return;
	}
	e = d->path[0] ? ydoc_find(s->raw->doc, d->path) : NULL;
	snprintf(d->file, sizeof(d->file), "%s", e ? e->file : s->file);
	if (d->path[0])
		d->line = scn__set_by_user(s->raw, d->path) ? 0 : ydoc_line(s->raw->doc, d->path);
	if (d->path[0] && scn__set_by_user(s->raw, d->path))
		snprintf(d->file, sizeof(d->file), "--set");
}
