/*
 * Scenario loading: the libcyaml schema of the scenario file, --set
 * overrides applied by walking that same schema, and the checks that turn
 * the loaded strings into the integers of struct scenario. Unit-bearing
 * values are loaded as strings so that every refusal can name its unit;
 * ydoc gives each key its line.
 */
#include "scenario.h"

#include <ctype.h>
#include <cyaml/cyaml.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../models/workload.h"
#include "../topologies/cbd.h"
#include "mlnx.h"
#include "pod.h"
#include "sonic.h"
#include "textfile.h"
#include "units.h"
#include "ydoc.h"

/* ---- what libcyaml loads ------------------------------------------------ */

struct raw_link {
	char *rate, *cable, *delay;
};

struct raw_topology {
	int kind;
	char *hosts, *leaves, *spines, *hosts_per_leaf, *parallel, *k, *switches,
		*hosts_per_switch, *file, *convergence;
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
	char *sonic;
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
 * nic.dcqcn takes the mlx5 cc_params names (FACTS.md 2.2): one list gives
 * the raw struct, the schema and the checks. X(name, min, max).
 */
#define DCQCN_KEYS(X) \
	X(rp_time_reset, 1, 10000000) \
	X(rp_byte_reset, 1, 1000000000) \
	X(rp_threshold, 1, 31) \
	X(rp_ai_rate, 0, 1000000) \
	X(rp_hai_rate, 0, 1000000) \
	X(rp_max_rate, 0, 1000000) \
	X(rp_min_rate, 0, 1000000) \
	X(rp_min_dec_fac, 1, 100) \
	X(rp_rate_to_set_on_first_cnp, 0, 1000000) \
	X(rp_dce_tcp_g, 0, 1023) \
	X(rp_dce_tcp_rtt, 1, 10000000) \
	X(rp_rate_reduce_monitor_period, 1, 10000000) \
	X(rp_initial_alpha_value, 0, 1023) \
	X(rp_gd, 0, 15) \
	X(rp_clamp_tgt_rate, 0, 1) \
	X(rp_clamp_tgt_rate_ati, 0, 1) \
	X(np_min_time_between_cnps, 0, 10000000) \
	X(np_cnp_dscp, 0, 63) \
	X(np_cnp_prio, 0, 7)

#define DCQCN_RAW_FIELD(name, min, max) char *name;
struct raw_dcqcn {
	int variant;
	DCQCN_KEYS(DCQCN_RAW_FIELD)
};

struct raw_transport {
	char *timeout, *ack_every;
};

struct raw_nic {
	char *mtu, *priority, *dscp, *ecn, *rx_buffer, *rx_rate, *mlnx_qos, *cc_params;
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

struct raw_workload {
	int kind;
	char *size, *senders, *receiver, *start, *channels, *chunk, *iterations, *dscp, *pod;
	struct raw_flow *flows;
	unsigned flows_count;
	struct raw_late *late;
};

struct raw_fault {
	int kind;
	char *link, *at, *host, *port, *duration;
	char **priorities;
	unsigned priorities_count;
};

struct raw_output {
	char *sample, *pfc_events;
};

struct raw_deadlock {
	char *window, *stop_on_detect, *enabled;
};

struct raw_top {
	char *name, *seed, *stop, *max_events;
	struct raw_topology *topology;
	struct raw_switch *sw;
	struct raw_nic *nic;
	struct raw_workload *workload;    /* workload: a mapping */
	struct raw_workload *workloads;   /* workload: a list */
	unsigned workloads_count;
	struct raw_fault *faults;
	unsigned faults_count;
	struct raw_output *output;
	struct raw_deadlock *deadlock;
};

/* Everything kept from loading until scn_resolve has used it. */
/* What real configs said that no scalar scenario key carries. */
struct raw_configs {
	int has_lossless;
	uint8_t lossless;          /* SONiC pfc_enable */
	uint64_t dscp_given;       /* SONiC DSCP_TO_TC_MAP entries */
	uint8_t dscp_to_tc[64];
	int has_nic_pfc;
	uint8_t nic_pfc;           /* mlnx_qos PFC enabled */
	int has_dscp2prio;
	uint8_t dscp2prio[64];     /* mlnx_qos dscp2prio (trust dscp) */
	struct cc_params cc;       /* nic.cc_params entries */
	int flags;                 /* SCN_LOAD_* */
};

struct scn_raw {
	const struct cyaml_schema_value *schema; /* top_value or top_value_list */
	struct raw_configs cfg;
	struct raw_top *top;
	struct ydoc *doc;
	char **set_paths;
	size_t n_set;
};

/* Enum values start at 1: 0 means the key was not given. */
static const cyaml_strval_t topo_kinds[] = {
	{"star", 1 + TOPO_STAR},     {"leaf_spine", 1 + TOPO_LEAF_SPINE},
	{"fat_tree", 1 + TOPO_FAT_TREE}, {"ring", 1 + TOPO_RING},
	{"file", 1 + TOPO_FILE},
};
static const cyaml_strval_t cc_kinds[] = {
	{"none", 1 + SCN_CC_NONE},
	{"dcqcn", 1 + SCN_CC_DCQCN},
};
/* Workload kinds: flow patterns, then the collectives (1 + SCN_WL_COLL + op). */
#define SCN_WL_COLL 3
static const cyaml_strval_t wl_kinds[] = {
	{"flows", 1 + SCN_WL_FLOWS},
	{"incast", 1 + SCN_WL_INCAST},
	{"permutation", 1 + SCN_WL_PERMUTATION},
	{"allreduce", 1 + SCN_WL_COLL + SCN_ALLREDUCE},
	{"allgather", 1 + SCN_WL_COLL + SCN_ALLGATHER},
	{"reducescatter", 1 + SCN_WL_COLL + SCN_REDUCESCATTER},
	{"alltoall", 1 + SCN_WL_COLL + SCN_ALLTOALL},
};
static const cyaml_strval_t fault_kinds[] = {
	{"link_down", 1 + SCN_FAULT_LINK_DOWN},
	{"pfc_storm", 1 + SCN_FAULT_PFC_STORM},
};
static const cyaml_strval_t sched_kinds[] = {
	{"strict", 1 + SCN_SCHED_STRICT},
	{"dwrr", 1 + SCN_SCHED_DWRR},
};
static const cyaml_strval_t wd_actions[] = {
	{"drop", 1 + SCN_WD_DROP},
	{"forward", 1 + SCN_WD_FORWARD},
	{"alert", 1 + SCN_WD_ALERT},
};
static const cyaml_strval_t ecn_marks[] = {
	{"dequeue", 1},
	{"enqueue", 2},
};

#define OPT (CYAML_FLAG_OPTIONAL)
#define OPT_PTR (CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL)
#define STR(key, type, field) \
	CYAML_FIELD_STRING_PTR(key, OPT_PTR, type, field, 0, CYAML_UNLIMITED)
#define ENUM(key, type, field, table) \
	CYAML_FIELD_ENUM(key, OPT | CYAML_FLAG_STRICT, type, field, table, \
			 CYAML_ARRAY_LEN(table))

static const cyaml_schema_field_t link_fields[] = {
	STR("rate", struct raw_link, rate),
	STR("cable", struct raw_link, cable),
	STR("delay", struct raw_link, delay),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t topology_fields[] = {
	ENUM("kind", struct raw_topology, kind, topo_kinds),
	STR("hosts", struct raw_topology, hosts),
	STR("leaves", struct raw_topology, leaves),
	STR("spines", struct raw_topology, spines),
	STR("hosts_per_leaf", struct raw_topology, hosts_per_leaf),
	STR("parallel", struct raw_topology, parallel),
	STR("k", struct raw_topology, k),
	STR("switches", struct raw_topology, switches),
	STR("hosts_per_switch", struct raw_topology, hosts_per_switch),
	STR("file", struct raw_topology, file),
	STR("convergence", struct raw_topology, convergence),
	CYAML_FIELD_MAPPING_PTR("link", OPT_PTR, struct raw_topology, link, link_fields),
	CYAML_FIELD_MAPPING_PTR("uplink", OPT_PTR, struct raw_topology, uplink, link_fields),
	CYAML_FIELD_END,
};

/* A list of scalars, each loaded as a string. */
static const cyaml_schema_value_t string_entry = {
	CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 0, CYAML_UNLIMITED),
};
#define STR_LIST(key, type, field) \
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
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t ecn_fields[] = {
	STR("enabled", struct raw_ecn, enabled),
	STR("kmin", struct raw_ecn, kmin),
	STR("kmax", struct raw_ecn, kmax),
	STR("pmax", struct raw_ecn, pmax),
	ENUM("mark", struct raw_ecn, mark, ecn_marks),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t watchdog_fields[] = {
	STR("detection", struct raw_watchdog, detection),
	STR("restoration", struct raw_watchdog, restoration),
	ENUM("action", struct raw_watchdog, action, wd_actions),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t switch_fields[] = {
	STR("sonic", struct raw_switch, sonic),
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

#define DCQCN_SCHEMA_FIELD(name, min, max) STR(#name, struct raw_dcqcn, name),
static const cyaml_schema_field_t dcqcn_fields[] = {
	ENUM("variant", struct raw_dcqcn, variant, dcqcn_variants),
	DCQCN_KEYS(DCQCN_SCHEMA_FIELD)
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t transport_fields[] = {
	STR("timeout", struct raw_transport, timeout),
	STR("ack_every", struct raw_transport, ack_every),
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
	STR("cc_params", struct raw_nic, cc_params),
	ENUM("cc", struct raw_nic, cc, cc_kinds),
	CYAML_FIELD_MAPPING_PTR("transport", OPT_PTR, struct raw_nic, transport, transport_fields),
	CYAML_FIELD_MAPPING_PTR("dcqcn", OPT_PTR, struct raw_nic, dcqcn, dcqcn_fields),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t flow_fields[] = {
	STR("src", struct raw_flow, src),
	STR("dst", struct raw_flow, dst),
	STR("size", struct raw_flow, size),
	STR("start", struct raw_flow, start),
	STR("dscp", struct raw_flow, dscp),
	CYAML_FIELD_END,
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
	ENUM("kind", struct raw_workload, kind, wl_kinds),
	STR("size", struct raw_workload, size),
	STR("senders", struct raw_workload, senders),
	STR("receiver", struct raw_workload, receiver),
	STR("start", struct raw_workload, start),
	STR("dscp", struct raw_workload, dscp),
	STR("pod", struct raw_workload, pod),
	CYAML_FIELD_SEQUENCE("flows", OPT_PTR, struct raw_workload, flows, &flow_value, 0,
			     CYAML_UNLIMITED),
	/* ranks: all, or a list of hosts: either form, read through ydoc */
	CYAML_FIELD_IGNORE("ranks", OPT),
	STR("channels", struct raw_workload, channels),
	STR("chunk", struct raw_workload, chunk),
	STR("iterations", struct raw_workload, iterations),
	CYAML_FIELD_MAPPING_PTR("late", OPT_PTR, struct raw_workload, late, late_fields),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t workload_value = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct raw_workload, workload_fields),
};

static const cyaml_schema_field_t fault_fields[] = {
	ENUM("kind", struct raw_fault, kind, fault_kinds),
	STR("link", struct raw_fault, link),
	STR("host", struct raw_fault, host),
	STR("port", struct raw_fault, port),
	STR("at", struct raw_fault, at),
	STR("duration", struct raw_fault, duration),
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

static const cyaml_schema_field_t output_fields[] = {
	STR("sample", struct raw_output, sample),
	STR("pfc_events", struct raw_output, pfc_events),
	CYAML_FIELD_END,
};

/*
 * The top level, twice: `workload` is a mapping (one workload) or a list
 * (a training job beside storage traffic, say). libcyaml takes one type
 * per key, so the loader picks the schema by what the file holds.
 */
#define TOP_FIELDS(workload_field)                                                        \
	STR("name", struct raw_top, name), STR("seed", struct raw_top, seed),               \
		STR("stop", struct raw_top, stop), STR("max_events", struct raw_top, max_events), \
		CYAML_FIELD_MAPPING_PTR("topology", OPT_PTR, struct raw_top, topology,       \
					topology_fields),                                   \
		CYAML_FIELD_MAPPING_PTR("switch", OPT_PTR, struct raw_top, sw, switch_fields), \
		CYAML_FIELD_MAPPING_PTR("nic", OPT_PTR, struct raw_top, nic, nic_fields),    \
		workload_field,                                                             \
		CYAML_FIELD_SEQUENCE("faults", OPT_PTR, struct raw_top, faults, &fault_value, 0, \
				     CYAML_UNLIMITED),                                      \
		CYAML_FIELD_IGNORE("expect", OPT),                                          \
		CYAML_FIELD_MAPPING_PTR("output", OPT_PTR, struct raw_top, output, output_fields), \
		CYAML_FIELD_MAPPING_PTR("deadlock", OPT_PTR, struct raw_top, deadlock,         \
					deadlock_fields),                                   \
		CYAML_FIELD_END

static const cyaml_schema_field_t top_fields[] = {
	TOP_FIELDS(CYAML_FIELD_MAPPING_PTR("workload", OPT_PTR, struct raw_top, workload,
					   workload_fields)),
};

static const cyaml_schema_field_t top_fields_list[] = {
	TOP_FIELDS(CYAML_FIELD_SEQUENCE("workload", OPT_PTR, struct raw_top, workloads,
					&workload_value, 1, CYAML_UNLIMITED)),
};

static const cyaml_schema_value_t top_value = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct raw_top, top_fields),
};

static const cyaml_schema_value_t top_value_list = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct raw_top, top_fields_list),
};

const char *const scn_expect_metrics[] = {
	"pfc_pause_frames", "pfc_pause_rate_per_s", "pfc_paused_time_us",
	"ecn_marked_packets", "cnp_sent", "cnp_handled", "drops", "lossless_drops",
	"retransmitted_packets", "max_queue_bytes", "max_headroom_bytes", "watchdog_drops",
	"flows_done", "fct_us.p50", "fct_us.p99",
	"fct_us.max", "collective.completion_time_us", "collective.algbw_GBps",
	"collective.busbw_GBps", "paused_ports", "watchdog_triggers", "deadlock",
	"deadlock.static_cycles", NULL,
};

/* ---- errors --------------------------------------------------------------- */

struct loader {
	const char *file;
	struct scn_raw *raw;
	struct diag *d;
	/* libcyaml's log of the failed load */
	char cy_msg[256];
	char cy_path[160];
	int cy_line;
	int cy_frames;
	char cy_frame[16][256];
	int cy_frame_line;
};

static int set_by_user(const struct scn_raw *raw, const char *path)
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
static int line_of(const struct ydoc *doc, const char *path)
{
	char buf[160];
	int line;

	snprintf(buf, sizeof(buf), "%s", path);
	for (;;) {
		char *cut = buf + strlen(buf);

		if ((line = ydoc_line(doc, buf)) || !buf[0])
			return line;
		while (cut > buf && *cut != '.' && *cut != '[')
			cut--;
		*cut = '\0';
	}
}

/* Report @path as refused; always returns -EINVAL. */
static int fail(const struct loader *l, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(const struct loader *l, const char *path, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (set_by_user(l->raw, path))
		diag_set(l->d, "--set", 0, path, "%s", msg);
	else
		diag_set(l->d, l->file, line_of(l->raw->doc, path), path, "%s", msg);
	return -EINVAL;
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

static const cyaml_schema_field_t *find_field(const cyaml_schema_field_t *f,
					      const char *key, size_t len)
{
	for (; f && f->key; f++)
		if (strlen(f->key) == len && !strncmp(f->key, key, len))
			return f;
	return NULL;
}

/*
 * Follow @path through the schema. Returns the field of the last component,
 * or NULL; *@parent gets the field list that was searched last. With @data
 * (the loaded struct), also follows the data, allocating absent mappings,
 * and leaves the address of the last field's storage in *@slot.
 */
static const cyaml_schema_field_t *walk(const cyaml_schema_value_t *top, const char *path,
					const cyaml_schema_field_t **parent, void *data, void **slot,
					int *bad_index)
{
	const cyaml_schema_field_t *fields = top->mapping.fields, *f = NULL;
	const char *p = path;

	*bad_index = 0;
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
				*bad_index = 1;
				return NULL;
			}
			memcpy(&count, base + f->count_offset, sizeof(count));
			if (idx >= count) {
				*bad_index = 1;
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

			if (!*ptr && !(*ptr = calloc(1, f->value.data_size)))
				return NULL;
			data = *ptr;
		}
		fields = f->value.mapping.fields;
		p++;
	}
}

/* Apply one "key.path=value" to the loaded struct. */
static int apply_set(struct loader *l, struct raw_top *top, const char *kv)
{
	const cyaml_schema_field_t *parent, *f;
	const char *eq = strchr(kv, '=');
	char path[160], keys[512];
	void *slot = NULL;
	int bad_index;

	if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof(path)) {
		diag_set(l->d, "--set", 0, "", "\"%s\" is not KEY=VALUE", kv);
		return -EINVAL;
	}
	memcpy(path, kv, (size_t)(eq - kv));
	path[eq - kv] = '\0';
	f = walk(l->raw->schema, path, &parent, top, &slot, &bad_index);
	if (!f) {
		if (bad_index) {
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

/* ---- libcyaml's log turned into one diag ------------------------------------ */

static void cy_log(cyaml_log_t level, void *ctx, const char *fmt, va_list args)
{
	struct loader *l = ctx;
	char line[256];
	char name[64];
	int ln = 0;

	if (level < CYAML_LOG_ERROR)
		return;
	vsnprintf(line, sizeof(line), fmt, args);
	line[strcspn(line, "\n")] = '\0';
	if (!strncmp(line, "Load: ", 6) && strncmp(line, "Load: Backtrace", 15)) {
		if (!l->cy_msg[0])
			snprintf(l->cy_msg, sizeof(l->cy_msg), "%s", line + 6);
		return;
	}
	if (sscanf(line, "  in mapping field '%63[^']' (line: %d", name, &ln) == 2 ||
	    sscanf(line, "  in sequence entry '%63[^']' (line: %d", name, &ln) == 2) {
		if (strstr(line, "sequence entry"))
			snprintf(line, sizeof(line), "[%ld]", strtol(name, NULL, 10) - 1);
		else
			snprintf(line, sizeof(line), "%s", name);
		if (l->cy_frames < 16)
			snprintf(l->cy_frame[l->cy_frames++], sizeof(l->cy_frame[0]), "%s", line);
		if (!l->cy_frame_line)
			l->cy_frame_line = ln;
	} else if (sscanf(line, "  in mapping (line: %d", &ln) == 1 ||
		   sscanf(line, "  in sequence (line: %d", &ln) == 1) {
		if (!l->cy_frame_line)
			l->cy_frame_line = ln;
	}
}

/*
 * The schema value at @path ("workload.flows[1].kind"), following mapping
 * keys and sequence entries through the schema alone; NULL if none.
 */
static const cyaml_schema_value_t *schema_at(const cyaml_schema_value_t *top, const char *path)
{
	const cyaml_schema_value_t *v = top;
	const char *p = path;

	while (*p && v) {
		if (*p == '[') {
			if (v->type != CYAML_SEQUENCE)
				return NULL;
			v = v->sequence.entry;
			p += strcspn(p, "]");
			p += *p == ']';
		} else {
			size_t len = strcspn(p, ".[");
			const cyaml_schema_field_t *f;

			if (v->type != CYAML_MAPPING)
				return NULL;
			f = find_field(v->mapping.fields, p, len);
			v = f ? &f->value : NULL;
			p += len;
		}
		if (*p == '.')
			p++;
	}
	return v;
}

/* "Expecting MAPPING, got event: SCALAR" in words. */
static const char *cy_words(const char *ev, int expected)
{
	if (!strncmp(ev, "MAPPING", 7))
		return expected ? "a mapping of keys" : "a mapping";
	if (!strncmp(ev, "SEQUENCE", 8))
		return "a list";
	return "a single value";
}

/* Turn what libcyaml logged into a diag with our wording. */
static int cy_fail(struct loader *l, cyaml_err_t err)
{
	char path[160] = "", keys[512];
	const char *msg = l->cy_msg;
	size_t n = 0;
	int line;

	for (int i = l->cy_frames - 1; i >= 0 && n < sizeof(path); i--)
		n += (size_t)snprintf(path + n, sizeof(path) - n, "%s%s",
				      (n && l->cy_frame[i][0] != '[') ? "." : "", l->cy_frame[i]);
	if (!strncmp(msg, "Unexpected key: ", 16)) {
		const cyaml_schema_value_t *v = schema_at(l->raw->schema, path);

		snprintf(path + n, sizeof(path) - n, "%s%s", n ? "." : "", msg + 16);
		list_keys(v && v->type == CYAML_MAPPING ? v->mapping.fields : NULL, keys,
			  sizeof(keys));
		line = ydoc_line(l->raw->doc, path);
		diag_set(l->d, l->file, line ? line : l->cy_frame_line, path,
			 "unknown key (expected one of: %s)", keys);
		return -EINVAL;
	}
	line = ydoc_line(l->raw->doc, path);
	if (!line)
		line = l->cy_frame_line;
	if (!strncmp(msg, "Invalid ENUM value: ", 20)) {
		const cyaml_schema_value_t *v = schema_at(l->raw->schema, path);

		keys[0] = '\0';
		if (v && v->type == CYAML_ENUM)
			list_enum(v, keys, sizeof(keys));
		diag_set(l->d, l->file, line, path, "\"%s\" is not one of: %s", msg + 20, keys);
	} else if (!strncmp(msg, "Expecting ", 10) && strstr(msg, ", got event: ")) {
		diag_set(l->d, l->file, line, path, "expected %s, not %s", cy_words(msg + 10, 1),
			 cy_words(strstr(msg, ", got event: ") + 13, 0));
	} else if (msg[0]) {
		diag_set(l->d, l->file, line, path, "%s", msg);
	} else {
		diag_set(l->d, l->file, line, path, "%s", cyaml_strerror(err));
	}
	return err == CYAML_ERR_OOM ? -ENOMEM : -EINVAL;
}

/* ---- value checks ------------------------------------------------------------ */

static int get_uint(const struct loader *l, const char *path, const char *s, uint64_t def,
		    uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s) {
		*out = def;
		return 0;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (!isdigit((unsigned char)s[0]) || *end || errno)
		return fail(l, path, "\"%s\" is not a whole number", s);
	if (v < min || v > max)
		return fail(l, path, "%llu is out of range (%llu to %llu)", v,
			    (unsigned long long)min, (unsigned long long)max);
	*out = v;
	return 0;
}

static int get_u32(const struct loader *l, const char *path, const char *s, uint32_t def,
		   uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v = def;
	int err = get_uint(l, path, s, def, min, max, &v);

	if (!err)
		*out = (uint32_t)v;
	return err;
}

static int get_size(const struct loader *l, const char *path, const char *s, uint64_t def,
		    int positive, uint64_t *out)
{
	int err;

	if (!s) {
		*out = def;
		return 0;
	}
	err = units_size(s, out);
	if (err == UNITS_EFRACTION)
		return fail(l, path, "\"%s\" is not a whole number of bytes", s);
	if (err)
		return fail(l, path, "\"%s\" is not a size (e.g. 1.2MB, 150KiB, 65536)", s);
	if (positive && !*out)
		return fail(l, path, "must be more than 0");
	return 0;
}

static int get_time(const struct loader *l, const char *path, const char *s, simtime_t def,
		    int positive, simtime_t *out)
{
	int err;

	if (!s) {
		*out = def;
		return 0;
	}
	err = units_time(s, out);
	if (err == UNITS_EFRACTION)
		return fail(l, path, "\"%s\" is finer than a picosecond", s);
	if (err)
		return fail(l, path, "\"%s\" is not a time (e.g. 1us, 2.5ms, 100ns)", s);
	if (positive && !*out)
		return fail(l, path, "must be more than 0");
	return 0;
}

static int get_link(const struct loader *l, const char *path, const struct raw_link *r,
		    const struct topo_linkspec *def, struct topo_linkspec *out)
{
	char p[160];
	uint64_t mm;
	int err;

	*out = *def;
	if (!r)
		return 0;
	if (r->rate) {
		snprintf(p, sizeof(p), "%s.rate", path);
		err = units_rate(r->rate, &out->rate_bps);
		if (err)
			return fail(l, p, "\"%s\" is not a rate (e.g. 100Gbps, 400Gb/s)", r->rate);
		if (!out->rate_bps)
			return fail(l, p, "must be more than 0");
	}
	if (r->cable && r->delay) {
		snprintf(p, sizeof(p), "%s.delay", path);
		return fail(l, p, "give either cable or delay, not both");
	}
	if (r->cable) {
		snprintf(p, sizeof(p), "%s.cable", path);
		err = units_length(r->cable, &mm);
		if (err || mm > 1000000000)
			return fail(l, p, "\"%s\" is not a cable length (e.g. 2m, 300m, 2km)",
				    r->cable);
		out->delay = mm * SIMTIME_PS_PER_MM;
	}
	if (r->delay) {
		snprintf(p, sizeof(p), "%s.delay", path);
		return get_time(l, p, r->delay, 0, 0, &out->delay);
	}
	return 0;
}

/* A key that the chosen kind does not use is a mistake worth naming. */
static int unused(const struct loader *l, const char *path, const char *v, const char *kind)
{
	if (v)
		return fail(l, path, "does not apply to %s", kind);
	return 0;
}

static int check_topology(const struct loader *l, const struct raw_topology *r,
			  struct scenario *s)
{
	static const struct topo_linkspec def_link = {100000000000ULL, 2000 * SIMTIME_PS_PER_MM};
	struct topo_spec *t = &s->topo;
	const char *kind;
	int err = 0;

	if (!r)
		return fail(l, "topology", "missing (e.g. topology: {kind: star, hosts: 9})");
	if (!r->kind)
		return fail(l, "topology.kind", "missing (star, leaf_spine, fat_tree, ring or file)");
	t->kind = (enum topo_kind)(r->kind - 1);
	kind = topo_kinds[t->kind].str;
	switch (t->kind) {
	case TOPO_STAR:
		err = get_u32(l, "topology.hosts", r->hosts, 0, 1, 65535, &t->hosts);
		if (!err && !r->hosts)
			err = fail(l, "topology.hosts", "missing for a star");
		break;
	case TOPO_LEAF_SPINE:
		err = get_u32(l, "topology.leaves", r->leaves, 0, 1, 4096, &t->leaves);
		err = err ? err : get_u32(l, "topology.spines", r->spines, 0, 1, 4096, &t->spines);
		err = err ? err : get_u32(l, "topology.hosts_per_leaf", r->hosts_per_leaf, 0, 1,
					  4096, &t->hosts_per_leaf);
		err = err ? err : get_u32(l, "topology.parallel", r->parallel, 1, 1, 64, &t->parallel);
		if (!err && (!r->leaves || !r->spines || !r->hosts_per_leaf))
			err = fail(l, !r->leaves ? "topology.leaves" : !r->spines ? "topology.spines" :
				   "topology.hosts_per_leaf",
				   "missing for a leaf_spine (it needs leaves, spines and hosts_per_leaf)");
		break;
	case TOPO_FAT_TREE:
		err = get_u32(l, "topology.k", r->k, 0, 2, 64, &t->k);
		if (!err && !r->k)
			err = fail(l, "topology.k", "missing for a fat_tree");
		if (!err && t->k % 2)
			err = fail(l, "topology.k", "must be even (k-ary fat-tree), not %u", t->k);
		break;
	case TOPO_RING:
		err = get_u32(l, "topology.switches", r->switches, 0, 2, 4096, &t->switches);
		err = err ? err : get_u32(l, "topology.hosts_per_switch", r->hosts_per_switch, 1, 1,
					  4096, &t->hosts_per_switch);
		if (!err && !r->switches)
			err = fail(l, "topology.switches", "missing for a ring");
		break;
	case TOPO_FILE:
		if (!r->file) {
			err = fail(l, "topology.file", "missing for kind file");
			break;
		}
		/* relative to the scenario's folder, as users write it; from --set,
		 * relative to where the command runs */
		if (r->file[0] != '/' && strrchr(l->file, '/') && !set_by_user(l->raw, "topology.file")) {
			int dir = (int)(strrchr(l->file, '/') - l->file);
			size_t len = (size_t)dir + strlen(r->file) + 2;

			s->topo_file = malloc(len);
			if (!s->topo_file)
				return -ENOMEM;
			snprintf(s->topo_file, len, "%.*s/%s", dir, l->file, r->file);
		} else if (!(s->topo_file = strdup(r->file))) {
			return -ENOMEM;
		}
		t->file = s->topo_file;
		break;
	}
	if (err)
		return err;
	if (t->kind != TOPO_STAR && (err = unused(l, "topology.hosts", r->hosts, kind)))
		return err;
	if (t->kind != TOPO_LEAF_SPINE &&
	    ((err = unused(l, "topology.leaves", r->leaves, kind)) ||
	     (err = unused(l, "topology.spines", r->spines, kind)) ||
	     (err = unused(l, "topology.hosts_per_leaf", r->hosts_per_leaf, kind)) ||
	     (err = unused(l, "topology.parallel", r->parallel, kind))))
		return err;
	if (t->kind != TOPO_FAT_TREE && (err = unused(l, "topology.k", r->k, kind)))
		return err;
	if (t->kind != TOPO_RING && ((err = unused(l, "topology.switches", r->switches, kind)) ||
				     (err = unused(l, "topology.hosts_per_switch",
						   r->hosts_per_switch, kind))))
		return err;
	if (t->kind != TOPO_FILE && (err = unused(l, "topology.file", r->file, kind)))
		return err;
	if ((err = get_link(l, "topology.link", r->link, &def_link, &t->link)) ||
	    (err = get_link(l, "topology.uplink", r->uplink, &t->link, &t->uplink)))
		return err;
	return get_time(l, "topology.convergence", r->convergence, SIMTIME_MS, 0, &s->convergence);
}

static int get_bool(const struct loader *l, const char *path, const char *s, int def, int *out)
{
	static const char *const yes[] = {"true", "yes", "on", "1", NULL};
	static const char *const no[] = {"false", "no", "off", "0", NULL};

	*out = def;
	if (!s)
		return 0;
	for (int i = 0; yes[i]; i++) {
		if (!strcmp(s, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcmp(s, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return fail(l, path, "\"%s\" is not true or false", s);
}

static int get_int(const struct loader *l, const char *path, const char *s, int min, int max,
		   int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno)
		return fail(l, path, "\"%s\" is not a whole number", s);
	if (v < min || v > max)
		return fail(l, path, "%ld is out of range (%d to %d)", v, min, max);
	*out = (int)v;
	return 0;
}

/* A list of priorities ("[3, 4]") as a bit mask. */
static int get_prio_list(const struct loader *l, const char *path, char **v, unsigned n,
			 uint8_t *mask)
{
	char p[200];

	*mask = 0;
	for (unsigned i = 0; i < n; i++) {
		uint32_t prio;
		int err;

		snprintf(p, sizeof(p), "%s[%u]", path, i);
		err = get_u32(l, p, v[i], 0, 0, 7, &prio);
		if (err)
			return err;
		*mask |= (uint8_t)(1u << prio);
	}
	return 0;
}

/* v >= min, without a comparison the compiler finds always true for 0 */
static int in_min(unsigned long long v, long long min)
{
	return min <= 0 || v >= (unsigned long long)min;
}

int scn_dcqcn_param(const char *name, const char *value, struct dcqcn_params *p, char *msg,
		    size_t size)
{
	unsigned long long v;
	char *end;

#define DCQCN_SET(field, min, max)                                                         \
	if (!strcmp(name, #field)) {                                                       \
		errno = 0;                                                                 \
		v = strtoull(value, &end, 10);                                             \
		if (!isdigit((unsigned char)value[0]) || *end || errno) {                  \
			snprintf(msg, size, "\"%s\" is not a whole number", value);        \
			return -EINVAL;                                                    \
		}                                                                          \
		if (v > (max) || !in_min(v, min)) {                                       \
			snprintf(msg, size, "%llu is out of range (%d to %d)", v, min, max); \
			return -EINVAL;                                                    \
		}                                                                          \
		p->field = (uint32_t)v;                                                    \
		return 0;                                                                  \
	}
	DCQCN_KEYS(DCQCN_SET)
#undef DCQCN_SET
	snprintf(msg, size, "no such mlx5 cc_params name");
	return -ENOENT;
}

/* nic.cc_params over the defaults; a bad entry is fatal unless lenient. */
static int apply_cc_params(const struct loader *l, struct dcqcn_params *p)
{
	const struct cc_params *cc = &l->raw->cfg.cc;
	char msg[200];

	for (size_t i = 0; i < cc->n; i++) {
		const struct cc_entry *e = &cc->v[i];

		if (!scn_dcqcn_param(e->name, e->value, p, msg, sizeof(msg)))
			continue;
		if (l->raw->cfg.flags & SCN_LOAD_LENIENT)
			continue;
		diag_set(l->d, e->file, e->line, e->name, "%s (nic.cc_params)", msg);
		return -EINVAL;
	}
	return 0;
}

/* nic.transport and nic.dcqcn */
static int check_transport(const struct loader *l, const struct raw_nic *r, struct scenario *s)
{
	const struct raw_transport *t = r->transport;
	const struct raw_dcqcn *dc = r->dcqcn;
	struct dcqcn_params *p = &s->nic.dcqcn;
	int err;

	/* NCCL_IB_TIMEOUT: 4.096 us x 2^t, NCCL's default t = 20 (4.3 s) */
	if ((err = get_u32(l, "nic.transport.timeout", t ? t->timeout : NULL, 20, 0, 31,
			   &s->nic.timeout_exp)) ||
	    (err = get_u32(l, "nic.transport.ack_every", t ? t->ack_every : NULL, 8, 1, 65535,
			   &s->nic.ack_every)))
		return err;
	s->nic.timeout = (4096 * SIMTIME_NS) << s->nic.timeout_exp;
	dcqcn_params_default(p, dc && dc->variant ? (enum dcqcn_variant)(dc->variant - 1)
						  : DCQCN_MLX5);
	if ((err = apply_cc_params(l, p)))
		return err;
	if (!dc)
		return 0;
#define DCQCN_CHECK(name, min, max)                                                       \
	if ((err = get_u32(l, "nic.dcqcn." #name, dc->name, p->name, min, max, &p->name))) \
		return err;
	DCQCN_KEYS(DCQCN_CHECK)
#undef DCQCN_CHECK
	if (s->nic.cc != SCN_CC_DCQCN)
		return fail(l, "nic.dcqcn", "only applies to nic.cc: dcqcn");
	return 0;
}

static int check_nic(const struct loader *l, const struct raw_nic *r, struct scenario *s)
{
	static const struct raw_nic none;
	uint32_t v;
	int err;

	if (!r)
		r = &none;
	err = get_u32(l, "nic.mtu", r->mtu, 4096, 0, UINT32_MAX, &s->nic.mtu);
	if (err)
		return err;
	if (s->nic.mtu != 256 && s->nic.mtu != 512 && s->nic.mtu != 1024 &&
	    s->nic.mtu != 2048 && s->nic.mtu != 4096)
		return fail(l, "nic.mtu", "%u is not a RoCE path MTU (256, 512, 1024, 2048, 4096)",
			    s->nic.mtu);
	if ((err = get_u32(l, "nic.dscp", r->dscp, 26, 0, 63, &v)))
		return err;
	s->nic.dscp = (uint8_t)v;
	/* the NIC's dscp2prio: mlnx_qos's when given, else mlx5's default DSCP >> 3 */
	for (int d = 0; d < 64; d++)
		s->nic.dscp2prio[d] = l->raw->cfg.has_dscp2prio ? l->raw->cfg.dscp2prio[d]
								: (uint8_t)(d >> 3);
	if ((err = get_u32(l, "nic.priority", r->priority, s->nic.dscp2prio[s->nic.dscp], 0, 7,
			   &v)))
		return err;
	s->nic.priority = (uint8_t)v;
	s->nic.pfc = l->raw->cfg.has_nic_pfc ? l->raw->cfg.nic_pfc : (uint8_t)(1u << s->nic.priority);
	if (r->pfc) {
		/* as mlnx_qos prints it: eight 0/1 flags, priority 0 first */
		if (r->pfc_count != 8)
			return fail(l, "nic.pfc", "needs 8 flags, one per priority (e.g. [0,0,0,1,0,0,0,0]), not %u",
				    r->pfc_count);
		s->nic.pfc = 0;
		for (unsigned i = 0; i < 8; i++) {
			char p[32];
			int on;

			snprintf(p, sizeof(p), "nic.pfc[%u]", i);
			if ((err = get_bool(l, p, r->pfc[i], 0, &on)))
				return err;
			s->nic.pfc |= (uint8_t)(on << i);
		}
	}
	if ((err = get_bool(l, "nic.ecn", r->ecn, 1, &s->nic.ecn)))
		return err;
	s->nic.cc = r->cc ? (enum scn_cc)(r->cc - 1) : SCN_CC_DCQCN;
	if ((err = get_size(l, "nic.rx_buffer", r->rx_buffer, 0, 1, &s->nic.rx_buffer)))
		return err;
	if (!r->rx_buffer != !r->rx_rate)
		return fail(l, r->rx_buffer ? "nic.rx_buffer" : "nic.rx_rate",
			    "a slow receiver needs both rx_buffer and rx_rate");
	if (r->rx_rate) {
		err = units_rate(r->rx_rate, &s->nic.rx_rate);
		if (err || !s->nic.rx_rate)
			return fail(l, "nic.rx_rate", "\"%s\" is not a rate above 0 (e.g. 50Gbps)",
				    r->rx_rate);
		if (s->nic.rx_buffer < 2 * ((uint64_t)s->nic.mtu + 62))
			return fail(l, "nic.rx_buffer", "must hold at least two packets of the MTU");
	}
	return check_transport(l, r, s);
}

static int set_dscp_entry(const struct loader *l, struct scenario *s, const char *path,
			  const char *value)
{
	const char *key = path + strlen("switch.dscp_to_tc.");
	uint64_t dscp = 0;
	uint32_t tc;
	int err;

	err = get_uint(l, path, key, 0, 0, 63, &dscp);
	if (err)
		return fail(l, path, "\"%s\" is not a DSCP value (0 to 63)", key);
	if (!value)
		return fail(l, path, "expected a traffic class (0 to 7)");
	err = get_u32(l, path, value, 0, 0, 7, &tc);
	if (!err)
		s->sw.dscp_to_tc[dscp] = (uint8_t)tc;
	return err;
}

/* switch.dscp_to_tc: defaults, then the file's entries, then --set ones. */
static int check_dscp_map(const struct loader *l, struct scenario *s, const char *const *sets,
			  size_t n_sets)
{
	const size_t plen = strlen("switch.dscp_to_tc.");
	char path[160];
	int err;

	memset(s->sw.dscp_to_tc, 0, sizeof(s->sw.dscp_to_tc));
	if (s->sw.lossless)
		s->sw.dscp_to_tc[s->nic.dscp] = (uint8_t)__builtin_ctz(s->sw.lossless);
	s->sw.dscp_to_tc[48] = s->sw.cnp_priority;
	if (l->raw->cfg.dscp_given) {
		/* a SONiC map is the whole map: DSCPs it does not name go to TC 0 */
		for (int d = 0; d < 64; d++)
			s->sw.dscp_to_tc[d] = (l->raw->cfg.dscp_given >> d) & 1 ? l->raw->cfg.dscp_to_tc[d]
										: 0;
	}
	for (size_t i = 0; i < ydoc_count(l->raw->doc); i++) {
		const struct ydoc_entry *e = ydoc_at(l->raw->doc, i);

		if (!strcmp(e->path, "switch.dscp_to_tc") && e->value && e->value[0])
			return fail(l, e->path, "expected a mapping of DSCP: traffic class (e.g. {26: 3, 48: 6})");
		if (strncmp(e->path, "switch.dscp_to_tc.", plen))
			continue;
		if ((err = set_dscp_entry(l, s, e->path, e->value)))
			return err;
	}
	for (size_t i = 0; i < n_sets; i++) {
		const char *eq = strchr(sets[i], '=');

		if (strncmp(sets[i], "switch.dscp_to_tc.", plen) || !eq ||
		    (size_t)(eq - sets[i]) >= sizeof(path))
			continue;
		memcpy(path, sets[i], (size_t)(eq - sets[i]));
		path[eq - sets[i]] = '\0';
		if ((err = set_dscp_entry(l, s, path, eq + 1)))
			return err;
	}
	return 0;
}

static int check_pfc(const struct loader *l, const struct raw_pfc *r, struct scenario *s)
{
	static const struct raw_pfc none;
	struct scn_pfc *p = &s->sw.pfc;
	uint32_t quanta;
	int err;

	if (!r)
		r = &none;
	if ((err = get_bool(l, "switch.pfc.enabled", r->enabled, 1, &p->enabled)))
		return err;
	if (r->xoff && r->dynamic_th)
		return fail(l, "switch.pfc.dynamic_th", "give either xoff (static) or dynamic_th, not both");
	if (r->xon && r->xon_offset)
		return fail(l, "switch.pfc.xon_offset", "give either xon or xon_offset, not both");
	p->dynamic = !r->xoff;
	p->dynamic_th = 1; /* SONiC's lossless PG profile */
	if (r->dynamic_th &&
	    (err = get_int(l, "switch.pfc.dynamic_th", r->dynamic_th, -7, 7, &p->dynamic_th)))
		return err;
	if ((err = get_size(l, "switch.pfc.xoff", r->xoff, 0, 1, &p->xoff)) ||
	    (err = get_size(l, "switch.pfc.xon", r->xon, 0, 0, &p->xon)) ||
	    (err = get_size(l, "switch.pfc.xon_offset", r->xon_offset, 2496, 0, &p->xon_offset)) ||
	    (err = get_size(l, "switch.pfc.headroom", r->headroom, 0, 1, &p->headroom)) ||
	    (err = get_u32(l, "switch.pfc.quanta", r->quanta, 65535, 1, 65535, &quanta)) ||
	    (err = get_time(l, "switch.pfc.refresh", r->refresh, 0, 1, &p->refresh)) ||
	    (err = get_time(l, "switch.pfc.response", r->response, 0, 1, &p->response)))
		return err;
	p->has_xon = r->xon != NULL;
	p->quanta = quanta;
	if (!p->dynamic && p->xoff > s->sw.buffer)
		return fail(l, "switch.pfc.xoff", "is larger than switch.buffer.size");
	if (!p->dynamic && p->has_xon && p->xon >= p->xoff)
		return fail(l, "switch.pfc.xon", "must be below xoff (%llu B), not %llu B",
			    (unsigned long long)p->xoff, (unsigned long long)p->xon);
	if (!p->dynamic && p->xon_offset >= p->xoff)
		return fail(l, r->xon_offset ? "switch.pfc.xon_offset" : "switch.pfc.xoff",
			    "the XON offset (%llu B) must be smaller than xoff (%llu B)",
			    (unsigned long long)p->xon_offset, (unsigned long long)p->xoff);
	if (s->sw.per_port && p->headroom > s->sw.per_port)
		return fail(l, "switch.pfc.headroom", "is larger than switch.buffer.per_port");
	return 0;
}

static int check_ecn(const struct loader *l, const struct raw_ecn *r, struct scenario *s)
{
	static const struct raw_ecn none;
	struct scn_ecn *e = &s->sw.ecn;
	int err;

	if (!r)
		r = &none;
	if ((err = get_bool(l, "switch.ecn.enabled", r->enabled, 1, &e->enabled)) ||
	    (err = get_size(l, "switch.ecn.kmin", r->kmin, 150000, 0, &e->kmin)) ||
	    (err = get_size(l, "switch.ecn.kmax", r->kmax, 1200000, 1, &e->kmax)))
		return err;
	e->pmax = 0.2;
	if (r->pmax) {
		err = units_fraction(r->pmax, &e->pmax);
		if (err || e->pmax <= 0)
			return fail(l, "switch.ecn.pmax", "\"%s\" is not a probability above 0 (e.g. 20%%, 0.2)",
				    r->pmax);
	}
	if (e->kmin >= e->kmax)
		return fail(l, r->kmax ? "switch.ecn.kmax" : "switch.ecn.kmin",
			    "kmin (%llu B) must be below kmax (%llu B)", (unsigned long long)e->kmin,
			    (unsigned long long)e->kmax);
	e->at_enqueue = r->mark == 2;
	return 0;
}

static int check_switch(const struct loader *l, const struct raw_switch *r, struct scenario *s,
			const char *const *sets, size_t n_sets)
{
	static const struct raw_switch none;
	const struct raw_buffer *b;
	uint32_t v;
	int err;

	if (!r)
		r = &none;
	b = r->buffer;
	if ((err = get_size(l, "switch.buffer.size", b ? b->size : NULL, 32000000, 1, &s->sw.buffer)) ||
	    (err = get_size(l, "switch.buffer.per_port", b ? b->per_port : NULL, 0, 1,
			    &s->sw.per_port)) ||
	    (err = get_size(l, "switch.buffer.pg_min", b ? b->pg_min : NULL, 0, 0, &s->sw.pg_min)) ||
	    (err = get_size(l, "switch.buffer.headroom_pool", b ? b->headroom_pool : NULL, 0, 1,
			    &s->sw.headroom_pool)))
		return err;
	if (s->sw.per_port > s->sw.buffer)
		return fail(l, "switch.buffer.per_port", "is larger than switch.buffer.size");
	if (s->sw.headroom_pool >= s->sw.buffer)
		return fail(l, "switch.buffer.headroom_pool", "leaves nothing of switch.buffer.size");
	s->sw.lossless = l->raw->cfg.has_lossless ? l->raw->cfg.lossless : 1u << 3;
	if (r->lossless &&
	    (err = get_prio_list(l, "switch.lossless", r->lossless, r->lossless_count, &s->sw.lossless)))
		return err;
	if ((err = get_u32(l, "switch.cnp_priority", r->cnp_priority, 6, 0, 7, &v)))
		return err;
	s->sw.cnp_priority = (uint8_t)v;
	if ((err = check_pfc(l, r->pfc, s)) || (err = check_ecn(l, r->ecn, s)) ||
	    (err = check_dscp_map(l, s, sets, n_sets)))
		return err;
	s->sw.sched = r->scheduler ? (enum scn_sched)(r->scheduler - 1) : SCN_SCHED_STRICT;
	for (int q = 0; q < 8; q++)
		s->sw.weights[q] = 1;
	if (r->weights) {
		if (s->sw.sched != SCN_SCHED_DWRR)
			return fail(l, "switch.weights", "only apply to scheduler: dwrr");
		if (r->weights_count != 8)
			return fail(l, "switch.weights", "needs 8 weights, one per traffic class, not %u",
				    r->weights_count);
		for (unsigned q = 0; q < 8; q++) {
			char p[32];

			snprintf(p, sizeof(p), "switch.weights[%u]", q);
			if ((err = get_u32(l, p, r->weights[q], 1, 1, 1000, &s->sw.weights[q])))
				return err;
		}
	}
	s->sw.wd.enabled = r->watchdog != NULL;
	if (r->watchdog) {
		const struct raw_watchdog *w = r->watchdog;

		if ((err = get_time(l, "switch.watchdog.detection", w->detection, 200 * SIMTIME_MS, 1,
				    &s->sw.wd.detection)) ||
		    (err = get_time(l, "switch.watchdog.restoration", w->restoration, 200 * SIMTIME_MS,
				    1, &s->sw.wd.restoration)))
			return err;
		s->sw.wd.action = w->action ? (enum scn_wd_action)(w->action - 1) : SCN_WD_DROP;
	}
	return 0;
}

/* "workload" or "workload[i]", then ".key" */
static const char *wpath(char *buf, size_t size, const char *prefix, const char *key)
{
	snprintf(buf, size, "%s.%s", prefix, key);
	return buf;
}

/* Keys of a collective that a flow pattern does not take, and back. */
static int check_unused_keys(const struct loader *l, const struct raw_workload *r,
			     const char *prefix, int coll, const char *kind)
{
	const struct {
		const char *key;
		const void *v;
		int coll; /* 1: collective only, 0: patterns only */
	} keys[] = {
		{"channels", r->channels, 1}, {"chunk", r->chunk, 1},
		{"iterations", r->iterations, 1}, {"late", r->late, 1},    {"senders", r->senders, 0},
		{"receiver", r->receiver, 0},  {"flows", r->flows, 0},
	};
	char p[200];

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].v && keys[i].coll != coll)
			return fail(l, wpath(p, sizeof(p), prefix, keys[i].key), "does not apply to %s",
				    kind);
	return 0;
}

static int check_coll(const struct loader *l, const struct raw_workload *r, const char *prefix)
{
	char p[200];
	uint64_t v;
	simtime_t t;
	int err;

	if (!r->size)
		return fail(l, wpath(p, sizeof(p), prefix, "size"),
			    "missing: bytes per rank, as nccl-tests counts them (e.g. 256MB)");
	if ((err = get_size(l, wpath(p, sizeof(p), prefix, "size"), r->size, 0, 1, &v)) ||
	    (err = get_uint(l, wpath(p, sizeof(p), prefix, "channels"), r->channels, 4, 1, 64, &v)) ||
	    (err = get_size(l, wpath(p, sizeof(p), prefix, "chunk"), r->chunk, 0, 1, &v)) ||
	    (err = get_uint(l, wpath(p, sizeof(p), prefix, "iterations"), r->iterations, 1, 1,
			    100000, &v)))
		return err;
	if (r->late) {
		snprintf(p, sizeof(p), "%s.late", prefix);
		if (!r->late->host || !r->late->by)
			return fail(l, p, "needs host and by (e.g. {host: h3, by: 20us})");
		snprintf(p, sizeof(p), "%s.late.by", prefix);
		if ((err = get_time(l, p, r->late->by, 0, 0, &t)))
			return err;
	}
	return 0;
}

static int check_workload(const struct loader *l, const struct raw_workload *r,
			  const char *prefix)
{
	char p[200];
	uint64_t v;
	simtime_t t;
	int err = 0, kind;

	if (!r->kind)
		return fail(l, wpath(p, sizeof(p), prefix, "kind"),
			    "missing (flows, incast, permutation, allreduce, allgather, "
			    "reducescatter or alltoall)");
	kind = r->kind - 1;
	if ((err = get_time(l, wpath(p, sizeof(p), prefix, "start"), r->start, 0, 0, &t)) ||
	    (err = get_uint(l, wpath(p, sizeof(p), prefix, "dscp"), r->dscp, 0, 0, 63, &v)) ||
	    (err = check_unused_keys(l, r, prefix, kind >= SCN_WL_COLL,
				     wl_kinds[kind].str)))
		return err;
	if (kind >= SCN_WL_COLL)
		return check_coll(l, r, prefix);
	switch (kind) {
	case SCN_WL_FLOWS:
		if (!r->flows_count)
			return fail(l, wpath(p, sizeof(p), prefix, "flows"),
				    "missing: a list of {src, dst, size, start}");
		for (unsigned i = 0; i < r->flows_count && !err; i++) {
			const struct raw_flow *f = &r->flows[i];

			snprintf(p, sizeof(p), "%s.flows[%u]", prefix, i);
			if (!f->src || !f->dst || !f->size)
				return fail(l, p, "a flow needs src, dst and size");
			snprintf(p, sizeof(p), "%s.flows[%u].size", prefix, i);
			err = get_size(l, p, f->size, 0, 1, &v);
			snprintf(p, sizeof(p), "%s.flows[%u].start", prefix, i);
			err = err ? err : get_time(l, p, f->start, 0, 0, &t);
			snprintf(p, sizeof(p), "%s.flows[%u].dscp", prefix, i);
			err = err ? err : get_uint(l, p, f->dscp, 0, 0, 63, &v);
		}
		if (!err && r->size)
			err = fail(l, wpath(p, sizeof(p), prefix, "size"),
				   "does not apply to flows (give it per flow)");
		return err;
	case SCN_WL_INCAST:
		err = get_uint(l, wpath(p, sizeof(p), prefix, "senders"), r->senders, 0, 1, 65535, &v);
		if (!err && !r->senders)
			err = fail(l, wpath(p, sizeof(p), prefix, "senders"), "missing for an incast");
		break;
	case SCN_WL_PERMUTATION:
		if ((err = unused(l, wpath(p, sizeof(p), prefix, "senders"), r->senders,
				  "a permutation")) ||
		    (err = unused(l, wpath(p, sizeof(p), prefix, "receiver"), r->receiver,
				  "a permutation")))
			return err;
		break;
	}
	if (err)
		return err;
	if (!r->size)
		return fail(l, wpath(p, sizeof(p), prefix, "size"), "missing: bytes per flow (e.g. 8MB)");
	return get_size(l, wpath(p, sizeof(p), prefix, "size"), r->size, 0, 1, &v);
}

/* The workload, one mapping or a list of them. */
static int check_workloads(const struct loader *l, const struct raw_top *r)
{
	char prefix[32];
	int err;

	if (r->workload)
		return check_workload(l, r->workload, "workload");
	if (!r->workloads_count)
		return fail(l, "workload", "missing (e.g. workload: {kind: allreduce, size: 256MB})");
	for (unsigned i = 0; i < r->workloads_count; i++) {
		snprintf(prefix, sizeof(prefix), "workload[%u]", i);
		if ((err = check_workload(l, &r->workloads[i], prefix)))
			return err;
	}
	return 0;
}

/* Like fail(), for an expect: gate from the file or (@where "--set ...") the command line. */
static int expect_fail(const struct loader *l, const char *where, const char *path,
		       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int expect_fail(const struct loader *l, const char *where, const char *path,
		       const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!strncmp(where, "--set", 5))
		diag_set(l->d, "--set", 0, path, "%s", msg);
	else
		diag_set(l->d, l->file, line_of(l->raw->doc, path), path, "%s", msg);
	return -EINVAL;
}

/* Add (or replace) the gate @path = @value; @value NULL: a list or mapping was given. */
static int add_expect(struct loader *l, struct scenario *s, const char *path, const char *value,
		      const char *where)
{
	const char *rest = path + strlen("expect.");
	enum scn_expect_op op = SCN_EXPECT_EQ;
	char metric[64], *end;
	size_t len = strlen(rest);
	double v;
	int known = 0;
	struct scn_expect *e;

	if (len > 4 && (!strcmp(rest + len - 4, ".min") || !strcmp(rest + len - 4, ".max"))) {
		op = rest[len - 2] == 'i' ? SCN_EXPECT_MIN : SCN_EXPECT_MAX;
		len -= 4;
	}
	if (len >= sizeof(metric))
		len = sizeof(metric) - 1;
	memcpy(metric, rest, len);
	metric[len] = '\0';
	for (const char *const *m = scn_expect_metrics; *m; m++)
		known |= !strcmp(*m, metric);
	if (!known) {
		char keys[700];
		size_t n = 0;

		for (const char *const *m = scn_expect_metrics; *m && n < sizeof(keys); m++)
			n += (size_t)snprintf(keys + n, sizeof(keys) - n, "%s%s", n ? ", " : "", *m);
		return expect_fail(l, where, path, "unknown metric (expected one of: %s)", keys);
	}
	if (!value)
		return expect_fail(l, where, path, "expected a number%s", op == SCN_EXPECT_EQ ?
				   " or {min: N, max: N}" : "");
	if (!strcmp(value, "false") || !strcmp(value, "no")) {
		v = 0;
	} else if (!strcmp(value, "true") || !strcmp(value, "yes")) {
		v = 1;
	} else {
		v = strtod(value, &end);
		if (end == value || *end || v != v)
			return expect_fail(l, where, path, "\"%s\" is not a number", value);
	}
	for (uint32_t i = 0; i < s->n_expects; i++) {
		if (!strcmp(s->expects[i].metric, metric) && s->expects[i].op == op) {
			s->expects[i].value = v;
			snprintf(s->expects[i].where, sizeof(s->expects[i].where), "%s", where);
			return 0;
		}
	}
	e = realloc(s->expects, (s->n_expects + 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	s->expects = e;
	e = &s->expects[s->n_expects++];
	snprintf(e->metric, sizeof(e->metric), "%s", metric);
	e->op = op;
	e->value = v;
	snprintf(e->where, sizeof(e->where), "%s", where);
	return 0;
}

static int check_expects(struct loader *l, struct scenario *s, const char *const *sets,
			 size_t n_sets)
{
	char where[300], path[160];
	int err;

	for (size_t i = 0; i < ydoc_count(l->raw->doc); i++) {
		const struct ydoc_entry *e = ydoc_at(l->raw->doc, i);

		if (!strcmp(e->path, "expect") && e->value && e->value[0] && strcmp(e->value, "~") &&
		    strcmp(e->value, "null"))
			return fail(l, "expect", "expected a mapping of metrics (e.g. drops: 0), not a single value");
		if (!strncmp(e->path, "expect[", 7))
			return fail(l, "expect", "expected a mapping of metrics (e.g. drops: 0), not a list");
		if (strncmp(e->path, "expect.", 7))
			continue;
		if (strchr(e->path, '[')) {
			snprintf(path, sizeof(path), "%.*s", (int)strcspn(e->path, "["), e->path);
			return fail(l, path, "expected a number or {min: N, max: N}, not a list");
		}
		if (!e->value) {
			const char *rest = e->path + 7;
			int range = 0;

			for (const char *const *m = scn_expect_metrics; *m; m++)
				range |= !strcmp(*m, rest);
			if (range)
				continue; /* {min: .., max: ..}: its scalars follow */
		}
		snprintf(where, sizeof(where), "%s:%d", l->file, e->line);
		err = add_expect(l, s, e->path, e->value, where);
		if (err)
			return err;
	}
	for (size_t i = 0; i < n_sets; i++) {
		const char *eq = strchr(sets[i], '=');

		if (strncmp(sets[i], "expect.", 7) || !eq || (size_t)(eq - sets[i]) >= sizeof(path))
			continue;
		memcpy(path, sets[i], (size_t)(eq - sets[i]));
		path[eq - sets[i]] = '\0';
		snprintf(where, sizeof(where), "--set %s", sets[i]);
		err = add_expect(l, s, path, eq + 1, where);
		if (err)
			return err;
	}
	return 0;
}

static int check_faults(const struct loader *l, const struct raw_top *r, struct scenario *s)
{
	char p[160];

	for (unsigned i = 0; i < r->faults_count; i++) {
		const struct raw_fault *f = &r->faults[i];
		simtime_t t;
		uint8_t mask;
		int err;

		snprintf(p, sizeof(p), "faults[%u].kind", i);
		if (!f->kind)
			return fail(l, p, "missing (link_down or pfc_storm)");
		snprintf(p, sizeof(p), "faults[%u].at", i);
		if (!f->at)
			return fail(l, p, "missing: when the fault starts, e.g. 1ms");
		if ((err = get_time(l, p, f->at, 0, 0, &t)))
			return err;
		if (f->kind - 1 == SCN_FAULT_LINK_DOWN) {
			snprintf(p, sizeof(p), "faults[%u].link", i);
			if (!f->link)
				return fail(l, p, "missing: the link's name, e.g. leaf0-spine1");
			snprintf(p, sizeof(p), "faults[%u].%s", i,
				 f->host ? "host" : f->port ? "port" : f->duration ? "duration"
										: "priorities");
			if (f->host || f->port || f->duration || f->priorities)
				return fail(l, p, "does not apply to link_down");
			continue;
		}
		snprintf(p, sizeof(p), "faults[%u]", i);
		if (!f->host == !f->port)
			return fail(l, p, "a pfc_storm needs either host (its NIC storms) or port (a switch port, e.g. sw0:h3)");
		if (f->link) {
			snprintf(p, sizeof(p), "faults[%u].link", i);
			return fail(l, p, "does not apply to pfc_storm");
		}
		snprintf(p, sizeof(p), "faults[%u].duration", i);
		if ((err = get_time(l, p, f->duration, 0, 1, &t)))
			return err;
		snprintf(p, sizeof(p), "faults[%u].priorities", i);
		if ((err = get_prio_list(l, p, f->priorities, f->priorities_count, &mask)))
			return err;
	}
	s->n_faults = 0;
	return 0;
}

static int check_all(struct loader *l, struct scenario *s, const char *const *sets, size_t n_sets)
{
	const struct raw_top *r = l->raw->top;
	const char *base;
	int err;

	base = strrchr(l->file, '/');
	base = base ? base + 1 : l->file;
	s->name = strdup(r->name ? r->name : base);
	if (!s->name)
		return -ENOMEM;
	if (!r->name) {
		char *dot = strrchr(s->name, '.');

		if (dot && dot != s->name)
			*dot = '\0';
	}
	if ((err = get_uint(l, "seed", r->seed, 1, 0, UINT64_MAX, &s->seed)) ||
	    (err = get_time(l, "stop", r->stop, SIMTIME_S, 1, &s->stop)) ||
	    (err = get_uint(l, "max_events", r->max_events, 0, 0, UINT64_MAX, &s->max_events)) ||
	    (err = check_topology(l, r->topology, s)) || (err = check_nic(l, r->nic, s)) ||
	    (err = check_switch(l, r->sw, s, sets, n_sets)) ||
	    (err = check_workloads(l, r)) ||
	    (err = check_faults(l, r, s)) || (err = check_expects(l, s, sets, n_sets)))
		return err;
	if ((err = get_bool(l, "output.pfc_events", r->output ? r->output->pfc_events : NULL, 0,
			    &s->out.pfc_events)) ||
	    (err = get_bool(l, "deadlock.enabled", r->deadlock ? r->deadlock->enabled : NULL, 1,
			    &s->deadlock.enabled)) ||
	    (err = get_time(l, "deadlock.window", r->deadlock ? r->deadlock->window : NULL,
			    10 * SIMTIME_MS, 1, &s->deadlock.window)) ||
	    (err = get_bool(l, "deadlock.stop_on_detect",
			    r->deadlock ? r->deadlock->stop_on_detect : NULL, 0,
			    &s->deadlock.stop_on_detect)))
		return err;
	return get_time(l, "output.sample", r->output ? r->output->sample : NULL, 10 * SIMTIME_US,
			0, &s->out.sample);
}

/* ---- real configs: switch.sonic, nic.mlnx_qos, nic.cc_params, workload.pod ---- */

/* Whether the scenario itself (file or --set) gives @path: then it wins. */
static int explicit_key(const struct loader *l, const char *path)
{
	return ydoc_find(l->raw->doc, path) || set_by_user(l->raw, path);
}

/* Give scalar key @path the value a real config says, unless explicit. */
static int give(struct loader *l, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int give(struct loader *l, const char *path, const char *fmt, ...)
{
	char kv[400];
	size_t n;
	va_list ap;

	if (explicit_key(l, path))
		return 0;
	n = (size_t)snprintf(kv, sizeof(kv), "%s=", path);
	va_start(ap, fmt);
	vsnprintf(kv + n, sizeof(kv) - n, fmt, ap);
	va_end(ap);
	return apply_set(l, l->raw->top, kv);
}

/* A config file named by @key, relative to the scenario's folder. */
static char *config_path(const struct loader *l, const char *key, const char *value)
{
	const char *slash = strrchr(l->file, '/');
	size_t len;
	char *p;

	if (value[0] == '/' || !slash || set_by_user(l->raw, key))
		return strdup(value);
	len = (size_t)(slash - l->file) + strlen(value) + 2;
	p = malloc(len);
	if (p)
		snprintf(p, len, "%.*s/%s", (int)(slash - l->file), l->file, value);
	return p;
}

/* A reader's error, said from the scenario key that named the file. */
static int config_fail(const struct loader *l, const char *key, struct diag *d)
{
	char buf[800];

	diag_str(d, buf, sizeof(buf));
	return fail(l, key, "%s", buf);
}

static int merge_sonic(struct loader *l, struct scenario *s, const char *value)
{
	struct sonic_cfg c;
	struct diag d = {0};
	int err;

	if (!(s->cfg.sonic = config_path(l, "switch.sonic", value)))
		return -ENOMEM;
	if ((err = sonic_read(s->cfg.sonic, &c, &d)))
		return err == -ENOMEM ? err : config_fail(l, "switch.sonic", &d);
	if (c.has_pool && (err = give(l, "switch.buffer.size", "%llu",
				      (unsigned long long)(c.pool_size + c.pool_xoff))))
		return err;
	if (c.has_pool && c.pool_xoff &&
	    (err = give(l, "switch.buffer.headroom_pool", "%llu", (unsigned long long)c.pool_xoff)))
		return err;
	if (c.has_profile) {
		if (c.has_xoff &&
		    (err = give(l, "switch.pfc.headroom", "%llu", (unsigned long long)c.xoff)))
			return err;
		if (c.has_xon_offset && !explicit_key(l, "switch.pfc.xon") &&
		    (err = give(l, "switch.pfc.xon_offset", "%llu",
				(unsigned long long)c.xon_offset)))
			return err;
		if (c.has_dynamic_th && !explicit_key(l, "switch.pfc.xoff") &&
		    (err = give(l, "switch.pfc.dynamic_th", "%d", c.dynamic_th)))
			return err;
		if (c.has_static_th && !c.has_dynamic_th && !explicit_key(l, "switch.pfc.dynamic_th") &&
		    (err = give(l, "switch.pfc.xoff", "%llu", (unsigned long long)c.static_th)))
			return err;
	}
	if (c.has_wred &&
	    ((err = give(l, "switch.ecn.enabled", "%s", c.ecn_marking ? "true" : "false")) ||
	     (err = give(l, "switch.ecn.kmin", "%llu", (unsigned long long)c.kmin)) ||
	     (err = give(l, "switch.ecn.kmax", "%llu", (unsigned long long)c.kmax)) ||
	     (err = give(l, "switch.ecn.pmax", "%g%%", c.pmax * 100))))
		return err;
	if (c.has_watchdog &&
	    ((err = give(l, "switch.watchdog.detection", "%ums", c.wd_detection_ms)) ||
	     (err = give(l, "switch.watchdog.restoration", "%ums", c.wd_restoration_ms)) ||
	     (err = give(l, "switch.watchdog.action", "%s", c.wd_action))))
		return err;
	if (c.has_pfc_enable && !explicit_key(l, "switch.lossless")) {
		l->raw->cfg.has_lossless = 1;
		l->raw->cfg.lossless = c.pfc_enable;
	}
	if (c.has_dscp_map) {
		l->raw->cfg.dscp_given = c.dscp_given;
		memcpy(l->raw->cfg.dscp_to_tc, c.dscp_to_tc, sizeof(c.dscp_to_tc));
	}
	return 0;
}

static int merge_mlnx_qos(struct loader *l, struct scenario *s, const char *value)
{
	struct mlnx_qos q;
	struct diag d = {0};
	int err;

	if (!(s->cfg.mlnx_qos = config_path(l, "nic.mlnx_qos", value)))
		return -ENOMEM;
	if ((err = mlnx_qos_read(s->cfg.mlnx_qos, &q, &d)))
		return err == -ENOMEM ? err : config_fail(l, "nic.mlnx_qos", &d);
	if (q.has_pfc && !explicit_key(l, "nic.pfc")) {
		l->raw->cfg.has_nic_pfc = 1;
		l->raw->cfg.nic_pfc = q.pfc_enabled;
	}
	if (q.has_trust && q.trust_dscp) {
		l->raw->cfg.has_dscp2prio = 1;
		for (int dscp = 0; dscp < 64; dscp++)
			l->raw->cfg.dscp2prio[dscp] =
				(q.dscp_given >> dscp) & 1 ? q.dscp2prio[dscp] : (uint8_t)(dscp >> 3);
	}
	return 0;
}

static int merge_cc_params(struct loader *l, struct scenario *s, const char *value)
{
	struct diag d = {0};
	int err;

	if (!(s->cfg.cc_params = config_path(l, "nic.cc_params", value)))
		return -ENOMEM;
	if ((err = cc_params_read(s->cfg.cc_params, &l->raw->cfg.cc, &d)))
		return err == -ENOMEM ? err : config_fail(l, "nic.cc_params", &d);
	return 0;
}

/* NCCL_IB_TC is the IP traffic class: DSCP in its upper 6 bits. */
static int merge_pod(struct loader *l, struct scenario *s, const char *prefix, const char *value)
{
	char key[64], path[96];
	const struct pod_env *e;
	struct pod_cfg pc;
	struct diag d = {0};
	unsigned long v;
	char *end;
	int err = 0;

	snprintf(key, sizeof(key), "%s.pod", prefix);
	if (!s->cfg.pod && !(s->cfg.pod = config_path(l, key, value)))
		return -ENOMEM;
	if ((err = pod_read(s->cfg.pod, &pc, &d)))
		return err == -ENOMEM ? err : config_fail(l, key, &d);
	if ((e = pod_get(&pc, "NCCL_IB_TC"))) {
		v = strtoul(e->value, &end, 10);
		if (end == e->value || *end || v > 255)
			err = fail(l, key, "%s:%d: NCCL_IB_TC=%s is not a traffic class (0 to 255)",
				   pc.file, e->line, e->value);
		snprintf(path, sizeof(path), "%s.dscp", prefix);
		err = err ? err : give(l, path, "%lu", v >> 2);
	}
	if (!err && (e = pod_get(&pc, "NCCL_IB_TIMEOUT"))) {
		v = strtoul(e->value, &end, 10);
		if (end == e->value || *end || v > 31)
			err = fail(l, key, "%s:%d: NCCL_IB_TIMEOUT=%s is not 0 to 31", pc.file, e->line,
				   e->value);
		err = err ? err : give(l, "nic.transport.timeout", "%lu", v);
	}
	pod_free(&pc);
	return err;
}

static int merge_configs(struct loader *l, struct scenario *s)
{
	struct raw_top *r = l->raw->top;
	char prefix[32];
	int err;

	if (r->sw && r->sw->sonic && (err = merge_sonic(l, s, r->sw->sonic)))
		return err;
	if (r->nic && r->nic->mlnx_qos && (err = merge_mlnx_qos(l, s, r->nic->mlnx_qos)))
		return err;
	if (r->nic && r->nic->cc_params && (err = merge_cc_params(l, s, r->nic->cc_params)))
		return err;
	if (r->workload && r->workload->pod && (err = merge_pod(l, s, "workload", r->workload->pod)))
		return err;
	for (unsigned i = 0; i < r->workloads_count; i++) {
		snprintf(prefix, sizeof(prefix), "workload[%u]", i);
		if (r->workloads[i].pod && (err = merge_pod(l, s, prefix, r->workloads[i].pod)))
			return err;
	}
	return 0;
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
	free(s->cfg.mlnx_qos);
	free(s->cfg.cc_params);
	free(s->cfg.pod);
	free(s->wl.flows);
	for (uint32_t i = 0; i < s->n_colls; i++)
		free(s->colls[i].ranks);
	free(s->colls);
	free(s->faults);
	free(s->expects);
	free(s);
}

static int load_text(const char *name, const char *text, size_t len, const char *const *sets,
		     size_t n_sets, int flags, struct scenario **out, struct diag *d)
{
	struct loader l = {.file = name, .d = d};
	cyaml_config_t cfg = base_config;
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
		diag_set(d, name, 1, "", "empty scenario: expected a mapping of keys (topology, workload, ...)");
		err = -EINVAL;
		goto fail;
	}
	cfg.log_fn = cy_log;
	cfg.log_ctx = &l;
	/* `workload` as a list takes the other schema */
	s->raw->schema = ydoc_find(s->raw->doc, "workload[0]") ? &top_value_list : &top_value;
	cerr = cyaml_load_data((const uint8_t *)text, len, &cfg, s->raw->schema,
			       (cyaml_data_t **)&s->raw->top, NULL);
	if (cerr != CYAML_OK) {
		s->raw->top = NULL;
		err = cy_fail(&l, cerr);
		goto fail;
	}
	s->raw->set_paths = calloc(n_sets ? n_sets : 1, sizeof(char *));
	if (!s->raw->set_paths) {
		err = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < n_sets; i++) {
		if (!strncmp(sets[i], "expect.", 7) || !strncmp(sets[i], "switch.dscp_to_tc.", 18))
			continue;
		err = apply_set(&l, s->raw->top, sets[i]);
		if (err)
			goto fail;
		s->raw->set_paths[s->raw->n_set] = strndup(sets[i], strcspn(sets[i], "="));
		if (!s->raw->set_paths[s->raw->n_set++]) {
			err = -ENOMEM;
			goto fail;
		}
	}
	s->raw->cfg.flags = flags;
	err = merge_configs(&l, s);
	if (err)
		goto fail;
	err = check_all(&l, s, sets, n_sets);
	if (err)
		goto fail;
	*out = s;
	return 0;
fail:
	scn_free(s);
	return err;
}

int scn_load_text(const char *name, const char *text, size_t len, const char *const *sets,
		  size_t n_sets, struct scenario **out, struct diag *d)
{
	return load_text(name, text, len, sets, n_sets, 0, out, d);
}

int scn_load(const char *file, const char *const *sets, size_t n_sets, struct scenario **out,
	     struct diag *d)
{
	return scn_load_ex(file, sets, n_sets, 0, out, d);
}

int scn_load_ex(const char *file, const char *const *sets, size_t n_sets, int flags,
		struct scenario **out, struct diag *d)
{
	char *text;
	size_t len;
	int err;

	*out = NULL;
	err = textfile_read(file, &text, &len);
	if (err == -ENOMEM)
		return err;
	if (err) {
		diag_set(d, file, 0, "", "cannot read: %s", textfile_strerror(err));
		return -EINVAL;
	}
	err = load_text(file, text, len, sets, n_sets, flags, out, d);
	free(text);
	return err;
}

/* ---- resolving names against the topology ---------------------------------------- */

static int host_of(const struct loader *l, const struct topo *t, const char *path,
		   const char *name, uint32_t *out)
{
	int32_t h = topo_find_host(t, name);

	if (h < 0) {
		if (topo_find_node(t, name) >= 0)
			return fail(l, path, "\"%s\" is a switch, not a host", name);
		return fail(l, path, "no host named \"%s\" (hosts are h0..h%u)", name,
			    t->n_hosts - 1);
	}
	*out = (uint32_t)h;
	return 0;
}

/* Append @n flows to the scenario's flows; they take the workload's DSCP. */
static int add_flows(struct scenario *s, struct scn_flow *f, uint32_t n, uint8_t dscp,
		     uint8_t prio)
{
	struct scn_flow *all = realloc(s->wl.flows, (s->wl.n_flows + n) * sizeof(*all));

	if (!all) {
		free(f);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		f[i].dscp = dscp;
		f[i].priority = prio;
	}
	memcpy(all + s->wl.n_flows, f, n * sizeof(*f));
	s->wl.flows = all;
	s->wl.n_flows += n;
	free(f);
	return 0;
}

/* DSCP and priority of a workload: its own dscp, else the NIC's. */
static void wl_dscp(const struct scenario *s, const char *dscp_s, uint8_t *dscp, uint8_t *prio)
{
	*dscp = s->nic.dscp;
	*prio = s->nic.priority;
	if (dscp_s) {
		*dscp = (uint8_t)strtoul(dscp_s, NULL, 10) & 63;
		if (*dscp != s->nic.dscp)
			*prio = s->nic.dscp2prio[*dscp];
	}
}

static int resolve_coll(const struct loader *l, const struct topo *t, const struct raw_workload *w,
			const char *prefix, struct scenario *s)
{
	const struct ydoc_entry *e;
	struct scn_coll *c;
	char p[200] = "";
	uint64_t v;
	int err = 0;

	c = realloc(s->colls, (s->n_colls + 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	s->colls = c;
	c = &s->colls[s->n_colls];
	memset(c, 0, sizeof(*c));
	c->op = (enum scn_coll_op)(w->kind - 1 - SCN_WL_COLL);
	units_size(w->size, &c->bytes);
	get_uint(l, p, w->channels, 4, 1, 64, &v);
	c->channels = (uint32_t)v;
	c->chunk = 2 * 1024 * 1024; /* NCCL Simple: 4 x 512 KiB steps per channel */
	if (w->chunk)
		units_size(w->chunk, &c->chunk);
	get_uint(l, p, w->iterations, 1, 1, 100000, &v);
	c->iterations = (uint32_t)v;
	if (w->start)
		units_time(w->start, &c->start);
	wl_dscp(s, w->dscp, &c->dscp, &c->priority);
	c->late_rank = UINT32_MAX;
	snprintf(p, sizeof(p), "%s.ranks", prefix);
	e = ydoc_find(l->raw->doc, p);
	if (e && e->value && strcmp(e->value, "all"))
		return fail(l, p, "\"%s\" is not all or a list of hosts (e.g. [h0, h1, h2])", e->value);
	if (!e || e->value) {
		c->n_ranks = t->n_hosts;
		c->ranks = malloc(c->n_ranks * sizeof(*c->ranks));
		for (uint32_t i = 0; c->ranks && i < c->n_ranks; i++)
			c->ranks[i] = i;
	} else {
		while (snprintf(p, sizeof(p), "%s.ranks[%u]", prefix, c->n_ranks),
		       ydoc_find(l->raw->doc, p))
			c->n_ranks++;
		c->ranks = malloc((c->n_ranks ? c->n_ranks : 1) * sizeof(*c->ranks));
		for (uint32_t i = 0; c->ranks && i < c->n_ranks && !err; i++) {
			snprintf(p, sizeof(p), "%s.ranks[%u]", prefix, i);
			e = ydoc_find(l->raw->doc, p);
			if (!e->value) {
				err = fail(l, p, "expected a host name");
				break;
			}
			err = host_of(l, t, p, e->value, &c->ranks[i]);
			for (uint32_t k = 0; !err && k < i; k++)
				if (c->ranks[k] == c->ranks[i])
					err = fail(l, p, "%s is already rank %u", e->value, k);
		}
	}
	s->n_colls++; /* freed with the scenario from here on */
	if (!c->ranks)
		return -ENOMEM;
	if (err)
		return err;
	if (c->n_ranks < 2)
		return fail(l, wpath(p, sizeof(p), prefix, "ranks"), "a collective needs 2 ranks or more");
	if (w->late) {
		uint32_t h = 0;

		snprintf(p, sizeof(p), "%s.late.host", prefix);
		if ((err = host_of(l, t, p, w->late->host, &h)))
			return err;
		for (uint32_t i = 0; i < c->n_ranks; i++)
			if (c->ranks[i] == h)
				c->late_rank = i;
		if (c->late_rank == UINT32_MAX)
			return fail(l, p, "%s is not one of the ranks", w->late->host);
		units_time(w->late->by, &c->late_by);
	}
	return 0;
}

static int resolve_workload(const struct loader *l, const struct topo *t,
			    const struct raw_workload *w, const char *prefix, struct scenario *s)
{
	struct scn_flow *flows = NULL;
	uint32_t n = 0;
	uint8_t dscp, prio;
	uint64_t size = 0, senders = 0;
	simtime_t start = 0;
	char p[200];
	int err = 0;

	if (w->kind - 1 >= SCN_WL_COLL)
		return resolve_coll(l, t, w, prefix, s);
	wl_dscp(s, w->dscp, &dscp, &prio);
	if (w->size)
		units_size(w->size, &size);
	if (w->start)
		units_time(w->start, &start);
	switch (w->kind - 1) {
	case SCN_WL_FLOWS:
		flows = calloc(w->flows_count, sizeof(*flows));
		if (!flows)
			return -ENOMEM;
		for (unsigned i = 0; i < w->flows_count && !err; i++) {
			const struct raw_flow *rf = &w->flows[i];
			struct scn_flow *f = &flows[i];

			snprintf(p, sizeof(p), "%s.flows[%u].src", prefix, i);
			err = host_of(l, t, p, rf->src, &f->src);
			snprintf(p, sizeof(p), "%s.flows[%u].dst", prefix, i);
			err = err ? err : host_of(l, t, p, rf->dst, &f->dst);
			if (!err && f->src == f->dst)
				err = fail(l, p, "a flow from %s to itself never touches the fabric",
					   rf->src);
			units_size(rf->size, &f->bytes);
			f->start = start;
			if (rf->start)
				units_time(rf->start, &f->start);
		}
		if (err) {
			free(flows);
			return err;
		}
		err = add_flows(s, flows, w->flows_count, dscp, prio);
		/* a flow's own dscp wins over the workload's */
		for (unsigned i = 0; !err && i < w->flows_count; i++)
			if (w->flows[i].dscp)
				wl_dscp(s, w->flows[i].dscp,
					&s->wl.flows[s->wl.n_flows - w->flows_count + i].dscp,
					&s->wl.flows[s->wl.n_flows - w->flows_count + i].priority);
		return err;
	case SCN_WL_INCAST: {
		uint32_t recv = t->n_hosts - 1;

		units_size(w->senders, &senders);
		if (w->receiver)
			err = host_of(l, t, wpath(p, sizeof(p), prefix, "receiver"), w->receiver, &recv);
		if (!err && senders > t->n_hosts - 1)
			err = fail(l, wpath(p, sizeof(p), prefix, "senders"),
				   "%llu senders need %llu hosts, the topology has %u",
				   (unsigned long long)senders, (unsigned long long)senders + 1,
				   t->n_hosts);
		if (!err)
			err = wl_incast(t->n_hosts, (uint32_t)senders, recv, size, start, &flows, &n);
		break;
	}
	default:
		err = wl_permutation(t->n_hosts, size, start, s->seed, &flows, &n);
		break;
	}
	return err ? err : add_flows(s, flows, n, dscp, prio);
}

int scn_resolve(struct scenario *s, const struct topo *t, struct diag *d)
{
	struct loader l = {.file = s->file, .raw = s->raw, .d = d};
	const struct raw_top *r = s->raw->top;
	char p[160];
	int err = 0;

	free(s->wl.flows);
	s->wl.flows = NULL;
	s->wl.n_flows = 0;
	s->n_faults = 0;
	if (t->n_hosts < 2)
		return fail(&l, "topology", "has %u host: traffic needs at least 2", t->n_hosts);
	if (r->workload)
		err = resolve_workload(&l, t, r->workload, "workload", s);
	for (unsigned i = 0; !err && i < r->workloads_count; i++) {
		snprintf(p, sizeof(p), "workload[%u]", i);
		err = resolve_workload(&l, t, &r->workloads[i], p, s);
	}
	if (err)
		return err;
	s->faults = calloc(r->faults_count ? r->faults_count : 1, sizeof(*s->faults));
	if (!s->faults)
		return -ENOMEM;
	for (unsigned i = 0; i < r->faults_count; i++) {
		const struct raw_fault *rf = &r->faults[i];
		struct scn_fault *f = &s->faults[i];

		f->kind = (enum scn_fault_kind)(rf->kind - 1);
		units_time(rf->at, &f->at);
		if (f->kind == SCN_FAULT_LINK_DOWN) {
			int32_t link = topo_find_link(t, rf->link);

			snprintf(p, sizeof(p), "faults[%u].link", i);
			if (link < 0)
				return fail(&l, p, "no link named \"%s\" (links are named by their ends, e.g. %s)",
					    rf->link, t->n_links ? t->links[0].name : "a-b");
			f->link = (uint32_t)link;
		} else {
			uint8_t mask = 0;

			if (rf->host) {
				uint32_t h = 0;

				snprintf(p, sizeof(p), "faults[%u].host", i);
				if ((err = host_of(&l, t, p, rf->host, &h)))
					return err;
				f->port = t->nodes[t->hosts[h]].first_port;
			} else {
				int32_t port = -1;

				for (uint32_t k = 0; k < t->n_ports && port < 0; k++)
					if (!strcmp(t->ports[k].name, rf->port))
						port = (int32_t)k;
				snprintf(p, sizeof(p), "faults[%u].port", i);
				if (port < 0)
					return fail(&l, p, "no port named \"%s\" (a port is named node:peer, e.g. %s)",
						    rf->port, t->n_ports ? t->ports[t->n_ports - 1].name : "sw0:h0");
				if (t->nodes[t->ports[port].node].kind != TOPO_SWITCH)
					return fail(&l, p, "\"%s\" is a host's port: use host: instead", rf->port);
				f->port = (uint32_t)port;
			}
			if (rf->duration)
				units_time(rf->duration, &f->duration);
			for (unsigned k = 0; k < rf->priorities_count; k++)
				mask |= (uint8_t)(1u << strtoul(rf->priorities[k], NULL, 10));
			f->priorities = rf->priorities ? mask : s->sw.lossless;
		}
		s->n_faults++;
	}
	return 0;
}

void scn_locate(const struct scenario *s, struct diag *d)
{
	if (d->file[0])
		return;
	snprintf(d->file, sizeof(d->file), "%s", s->file);
	if (d->path[0])
		d->line = set_by_user(s->raw, d->path) ? 0 : ydoc_line(s->raw->doc, d->path);
	if (d->path[0] && set_by_user(s->raw, d->path))
		snprintf(d->file, sizeof(d->file), "--set");
}

int scn_pairs(const struct scenario *s, struct cbd_pair **out, size_t *n)
{
	size_t count = s->wl.n_flows, k = 0;
	struct cbd_pair *p;

	for (uint32_t i = 0; i < s->n_colls; i++) {
		const struct scn_coll *c = &s->colls[i];

		count += c->op == SCN_ALLTOALL ? (size_t)c->n_ranks * (c->n_ranks - 1) : c->n_ranks;
	}
	p = malloc((count ? count : 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->wl.n_flows; i++) {
		const struct scn_flow *f = &s->wl.flows[i];

		p[k++] = (struct cbd_pair){f->src, f->dst, s->sw.dscp_to_tc[f->dscp & 63]};
	}
	for (uint32_t i = 0; i < s->n_colls; i++) {
		const struct scn_coll *c = &s->colls[i];
		uint8_t tc = s->sw.dscp_to_tc[c->dscp & 63];

		for (uint32_t a = 0; a < c->n_ranks; a++) {
			if (c->op != SCN_ALLTOALL) {
				p[k++] = (struct cbd_pair){c->ranks[a], c->ranks[(a + 1) % c->n_ranks], tc};
				continue;
			}
			for (uint32_t b = 0; b < c->n_ranks; b++)
				if (a != b)
					p[k++] = (struct cbd_pair){c->ranks[a], c->ranks[b], tc};
		}
	}
	*out = p;
	*n = k;
	return 0;
}
