/*
 * Tests of the SONiC config_db.json reader (sim/readers/sonic.c): the
 * example built from SONiC's qos_config.j2 and Configuration.md
 * (tests/sonic/azure.json) and the two example configs of
 * experiments/configs to exact values; how lossless PGs and queues are
 * found through pfc_enable and the maps; and broken or hostile inputs,
 * each refused with the table|key|field path (or the JSON line) and never
 * a crash.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/sonic.h"
#include "support.h"

static void read_ok(const char *rel, struct sonic_cfg *c)
{
	struct diag d = {0};
	char buf[1024];
	int err = sonic_read(ts_src(rel), c, &d);

	cr_assert_eq(err, 0, "%s: %d %s", rel, err, diag_str(&d, buf, sizeof(buf)));
}

static void text_ok(const char *text, struct sonic_cfg *c)
{
	struct diag d = {0};
	char buf[1024];
	int err = sonic_read_text("t.json", text, strlen(text), c, &d);

	cr_assert_eq(err, 0, "%d %s\n%s", err, diag_str(&d, buf, sizeof(buf)), text);
}

/* The error of reading @d: -EINVAL, @path exactly, @msg within. */
static void check_err(int err, const struct diag *d, const char *path, const char *msg,
		      const char *what)
{
	char buf[1024];

	diag_str(d, buf, sizeof(buf));
	cr_assert_eq(err, -EINVAL, "%s: got %d, want -EINVAL (%s)", what, err, buf);
	cr_assert_str_eq(d->path, path, "%s: path \"%s\", want \"%s\" (%s)", what, d->path, path,
			 buf);
	cr_assert(strstr(d->msg, msg), "%s: message \"%s\" lacks \"%s\"", what, d->msg, msg);
	cr_assert(!strchr(buf, '\n'), "%s: not one line: %s", what, buf);
}

/* All of @rel (under the source root), NUL-terminated; *@len its size. */
static char *slurp(const char *rel, size_t *len)
{
	FILE *f = fopen(ts_src(rel), "rb");
	char *text = NULL;

	cr_assert(f, "cannot open %s", rel);
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	*len = (size_t)ftell(f);
	rewind(f);
	text = malloc(*len + 1);
	cr_assert(text);
	cr_assert_eq(fread(text, 1, *len, f), *len);
	text[*len] = '\0';
	fclose(f);
	return text;
}

/* The error of @rel read as text: @path, its @line, @msg within. */
/* A file sonic_read cannot read at all: named, with no line. */
static void read_err(const char *rel, const char *msg)
{
	struct sonic_cfg c;
	struct diag d = {0};

	cr_assert_eq(sonic_read(ts_src(rel), &c, &d), -EINVAL, "%s", rel);
	cr_assert_str_eq(d.file, ts_src(rel));
	cr_assert_eq(d.line, 0);
	cr_assert(strstr(d.msg, msg), "%s: %s", rel, d.msg);
}

static void file_err(const char *rel, int line, const char *path, const char *msg)
{
	struct sonic_cfg c;
	struct diag d = {0};
	size_t len;
	char *text = slurp(rel, &len);
	int err = sonic_read_text(ts_src(rel), text, len, &c, &d);

	check_err(err, &d, path, msg, rel);
	cr_assert_str_eq(d.file, ts_src(rel));
	cr_assert_eq(d.line, line, "%s: line %d, want %d", rel, d.line, line);
	free(text);
}

static void text_err(const char *text, const char *path, const char *msg)
{
	struct sonic_cfg c;
	struct diag d = {0};
	int err = sonic_read_text("t.json", text, strlen(text), &c, &d);

	check_err(err, &d, path, msg, text);
	cr_assert_str_eq(d.file, "t.json");
}

/* A one-port config with @extra tables after PORT ("" for none). */
static const char *with_port(const char *extra)
{
	static char buf[8192];

	snprintf(buf, sizeof(buf),
		 "{\"PORT\": {\"Ethernet0\": {\"speed\": \"100000\", \"mtu\": \"9100\"}}%s%s}",
		 extra[0] ? ", " : "", extra);
	return buf;
}

/* Pool, lossless profile, PG and pfc_enable: a base for BUFFER_* cases. */
#define POOL                                                                                       \
	"\"BUFFER_POOL\": {\"ingress_lossless_pool\": {\"mode\": \"dynamic\", \"size\": "          \
	"\"1000000\"}}"
#define PFC34 "\"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3,4\"}}"
#define PROFILE(f) "\"BUFFER_PROFILE\": {\"pg\": {\"pool\": \"ingress_lossless_pool\"" f "}}"

Test(sonic, facts_example)
{
	struct sonic_cfg c;

	read_ok("tests/sonic/azure.json", &c);
	cr_assert(strstr(c.file, "tests/sonic/azure.json"));
	cr_assert_eq(c.n_ports, 4);
	cr_assert_eq(c.port_speed_bps, 100000000000ULL);
	cr_assert_eq(c.port_mtu, 9100);
	cr_assert_eq(c.cable_mm, 300000);

	cr_assert(c.has_pool);
	cr_assert_eq(c.pool_size, 10875072);
	cr_assert_eq(c.pool_xoff, 4194112);
	cr_assert(c.pool_dynamic);

	cr_assert(c.has_profile);
	cr_assert_str_eq(c.profile, "pg_lossless_100000_300m_profile");
	cr_assert_str_eq(c.pg_where, "BUFFER_PG|Ethernet0|3-4");
	cr_assert_not(c.pg_null);
	cr_assert(c.has_xoff && c.has_xon && c.has_xon_offset);
	cr_assert_eq(c.xoff, 165888);
	cr_assert_eq(c.xon, 18432);
	cr_assert_eq(c.xon_offset, 2496);
	cr_assert_eq(c.size, 184320);
	cr_assert(c.has_dynamic_th);
	cr_assert_eq(c.dynamic_th, 1);
	cr_assert_not(c.has_static_th);

	cr_assert(c.has_pfc_enable);
	cr_assert_eq(c.pfc_enable, (1 << 3) | (1 << 4));
	cr_assert_str_eq(c.pfc_where, "PORT_QOS_MAP|Ethernet0|pfc_enable");

	cr_assert(c.has_dscp_map);
	cr_assert_str_eq(c.dscp_map, "AZURE");
	cr_assert_eq(c.dscp_given, UINT64_MAX);
	cr_assert_eq(c.dscp_to_tc[26], 1, "SONiC's default map sends DSCP 26 to lossy TC 1");
	cr_assert_eq(c.dscp_to_tc[3], 3);
	cr_assert_eq(c.dscp_to_tc[4], 4);
	cr_assert_eq(c.dscp_to_tc[5], 2);
	cr_assert_eq(c.dscp_to_tc[8], 0);
	cr_assert_eq(c.dscp_to_tc[46], 5);
	cr_assert_eq(c.dscp_to_tc[48], 6);
	cr_assert_eq(c.dscp_to_tc[0], 1);
	cr_assert_eq(c.tc_to_pg[3], 3);
	cr_assert_eq(c.tc_to_pg[4], 4);
	cr_assert_eq(c.tc_to_pg[1], 0);
	cr_assert_eq(c.tc_to_pg[7], 7);
	for (int i = 0; i < 8; i++)
		cr_assert_eq(c.tc_to_queue[i], i);

	cr_assert(c.has_wred);
	cr_assert_str_eq(c.wred, "AZURE_LOSSLESS");
	cr_assert_eq(c.kmin, 1048576);
	cr_assert_eq(c.kmax, 2097152);
	cr_assert_float_eq(c.pmax, 0.05, 1e-12);
	cr_assert(c.ecn_marking);

	cr_assert(c.has_watchdog);
	cr_assert_eq(c.wd_detection_ms, 200);
	cr_assert_eq(c.wd_restoration_ms, 200);
	cr_assert_str_eq(c.wd_action, "drop");
}

Test(sonic, example_leaf)
{
	struct sonic_cfg c;

	read_ok("experiments/configs/config_db.json", &c);
	cr_assert_eq(c.n_ports, 8);
	cr_assert_eq(c.port_speed_bps, 100000000000ULL);
	cr_assert_eq(c.port_mtu, 9100);
	cr_assert_eq(c.cable_mm, 5000);
	cr_assert_eq(c.pfc_enable, 0x18);
	cr_assert_eq(c.dscp_to_tc[26], 1);
	cr_assert_eq(c.dscp_to_tc[3], 3);
	cr_assert(c.has_profile);
	cr_assert(c.has_xoff && c.xoff > 0);
	cr_assert(c.has_dynamic_th);
	cr_assert_eq(c.dynamic_th, 0);
	cr_assert(c.has_pool && c.pool_dynamic);
	cr_assert_eq(c.pool_xoff, 0);
	cr_assert_eq(c.kmin, 150000);
	cr_assert_eq(c.kmax, 1500000);
	cr_assert(c.ecn_marking);
	cr_assert(c.has_watchdog);
}

Test(sonic, example_seed)
{
	struct sonic_cfg c;

	read_ok("experiments/configs/config_db-seed.json", &c);
	cr_assert_eq(c.n_ports, 12);
	cr_assert_eq(c.port_speed_bps, 200000000000ULL, "8 ports at 200G outvote 4 at 400G");
	cr_assert_eq(c.cable_mm, 30000, "the longest cable is an uplink's");
	cr_assert_eq(c.pfc_enable, 1 << 3);
	cr_assert_eq(c.dscp_to_tc[26], 3);
	cr_assert(c.has_profile);
	cr_assert_eq(c.xoff, 1600000);
	cr_assert_eq(c.xon_offset, 100000);
	cr_assert_not(c.has_xon);
	cr_assert(c.has_static_th);
	cr_assert_eq(c.static_th, 2400000);
	cr_assert_not(c.has_dynamic_th);
	cr_assert_eq(c.pool_size, 48000000);
	cr_assert_not(c.pool_dynamic);
	cr_assert_eq(c.kmin, 150000);
	cr_assert_eq(c.kmax, 1200000);
	cr_assert_float_eq(c.pmax, 0.2, 1e-12);
	cr_assert_eq(c.wd_detection_ms, 200);
	cr_assert_eq(c.wd_restoration_ms, 400);
	cr_assert_str_eq(c.wd_action, "drop");
}

/* Every value the scenario takes keeps its table|key|field and its line. */
Test(sonic, values_keep_where_they_were_read)
{
	struct sonic_cfg c;
	struct diag d = {0};
	size_t len;
	char *text = slurp("tests/sonic/azure.json", &len);
	static const char esc[] = "{\"PORT\": {\"Ethernet0\": {}},\n"
				  "\"DSCP_TO_TC_MAP\": {\n\"\\u0041ZURE\": {\"26\": \"3\"}}}";

	cr_assert_eq(sonic_read_text("azure.json", text, len, &c, &d), 0, "%s", d.msg);
	cr_assert_str_eq(c.kmin_at.where, "WRED_PROFILE|AZURE_LOSSLESS|green_min_threshold");
	cr_assert_eq(c.kmin_at.line, 431);
	cr_assert_str_eq(c.kmax_at.where, "WRED_PROFILE|AZURE_LOSSLESS|green_max_threshold");
	cr_assert_eq(c.kmax_at.line, 430);
	cr_assert_eq(c.pmax_at.line, 429);
	cr_assert_eq(c.ecn_at.line, 428);
	cr_assert_str_eq(c.pool_size_at.where, "BUFFER_POOL|ingress_lossless_pool|size");
	cr_assert_eq(c.pool_size_at.line, 41);
	cr_assert_eq(c.pool_xoff_at.line, 43);
	cr_assert_str_eq(c.xoff_at.where, "BUFFER_PROFILE|pg_lossless_100000_300m_profile|xoff");
	cr_assert_eq(c.xoff_at.line, 66);
	cr_assert_eq(c.pfc_line, 267);
	cr_assert_str_eq(c.dscp_map_at.where, "DSCP_TO_TC_MAP|AZURE");
	cr_assert_eq(c.dscp_map_at.line, 126);
	cr_assert_eq(c.dscp_line[26], 146);
	cr_assert_str_eq(c.wd_detection_at.where, "PFC_WD|Ethernet0|detection_time");
	cr_assert_eq(c.wd_detection_at.line, 208);
	free(text);

	/* read from a file, the names and the lines are the same */
	read_ok("tests/sonic/azure.json", &c);
	cr_assert_str_eq(c.kmax_at.where, "WRED_PROFILE|AZURE_LOSSLESS|green_max_threshold");
	cr_assert_eq(c.kmax_at.line, 430);

	/* a key spelt with escapes ("\u0041ZURE" is AZURE): found all the same */
	text_ok(esc, &c);
	cr_assert_str_eq(c.dscp_map_at.where, "DSCP_TO_TC_MAP|AZURE");
	cr_assert_eq(c.dscp_map_at.line, 3);
	cr_assert_eq(c.dscp_line[26], 3);
	/* a surrogate pair (U+1F600) and an escaped quote, decoded as jansson does */
	text_ok("{\"PORT\": {\"Ethernet0\": {}},\n\"DSCP_TO_TC_MAP\": {\n\n"
		"\"\\ud83d\\ude00\\\"q\": {\"26\": \"3\"}}}",
		&c);
	cr_assert_str_eq(c.dscp_map_at.where, "DSCP_TO_TC_MAP|\xf0\x9f\x98\x80\"q");
	cr_assert_eq(c.dscp_map_at.line, 4);
	cr_assert_eq(c.dscp_line[26], 4);
}

Test(sonic, broken_files)
{
	file_err("tests/sonic/truncated.json", 41, "", "malformed JSON: ");
	file_err("tests/sonic/empty.json", 1, "", "malformed JSON: ");
	file_err("tests/sonic/top-level-array.json", 0, "",
		 "top level is an array, expected an object");
	/* a refused value is named with its line */
	file_err("tests/sonic/missing-pool.json", 64,
		 "BUFFER_PROFILE|pg_lossless_100000_300m_profile|pool",
		 "no BUFFER_POOL named \"ingress_lossles_pool\"");
	file_err("tests/sonic/missing-profile.json", 19, "BUFFER_PG|Ethernet4|3-4|profile",
		 "no BUFFER_PROFILE named \"pg_lossless_100000_5m_profile\"");
	file_err("tests/sonic/threshold-not-number.json", 431,
		 "WRED_PROFILE|AZURE_LOSSLESS|green_min_threshold", "\"1MB\" is not a number");
	file_err("tests/sonic/dscp-out-of-range.json", 191, "DSCP_TO_TC_MAP|AZURE|64",
		 "key \"64\" is not a number 0..63");
	file_err("tests/sonic/number-for-string.json", 41, "BUFFER_POOL|ingress_lossless_pool|size",
		 "is a number, expected a string");
	read_err("tests/sonic/no-such-file.json", "cannot read: No such file or directory");
	read_err("tests/sonic", "cannot read: not a regular file");
	/* found by fuzzing: jansson quotes the raw newline after a backslash */
	file_err("tests/sonic/escape-newline.json", 7, "",
		 "malformed JSON: invalid escape near '\"3995680\\?'");
}

Test(sonic, no_port_table)
{
	text_err("{}", "", "no PORT table: not a SONiC config_db.json?");
	text_err("{\"DEVICE_METADATA\": {}}", "", "no PORT table");
	text_err("{\"PORT\": {}}", "PORT", "has no ports");
	text_err("{\"PORT\": []}", "PORT", "is an array, expected an object");
	text_err("{\"PORT\": null}", "PORT", "is null");
}

Test(sonic, malformed_json)
{
	struct sonic_cfg c;
	struct diag d = {0};
	const char *dup = "{\"PORT\": {\n\"Ethernet0\": {},\n\"Ethernet0\": {}}}";
	char *deep = malloc(100001);
	int err;

	err = sonic_read_text("t.json", dup, strlen(dup), &c, &d);
	check_err(err, &d, "", "malformed JSON: duplicate object key", "duplicate");
	cr_assert_eq(d.line, 3);
	text_err("", "", "malformed JSON");
	text_err("[", "", "malformed JSON");
	text_err("\"PORT\"", "", "malformed JSON");
	text_err("{\"PORT\": {\"Ethernet0\": {\"speed\": \"1\\u0000\"}}}", "", "malformed JSON");
	text_err("{\"PORT\": {\"Ethernet0\": {\"speed\": \"\xff\"}}}", "", "malformed JSON");
	memset(deep, '[', 100000);
	deep[100000] = '\0';
	text_err(deep, "", "malformed JSON");
	free(deep);
}

/* A value of the wrong JSON type anywhere is an error, never a crash. */
Test(sonic, wrong_types)
{
	static const struct {
		const char *extra, *path, *msg;
	} cases[] = {
	    {"\"CABLE_LENGTH\": []", "CABLE_LENGTH", "is an array"},
	    {"\"CABLE_LENGTH\": {\"AZURE\": \"5m\"}", "CABLE_LENGTH|AZURE", "is a string"},
	    {"\"CABLE_LENGTH\": {\"AZURE\": {\"Ethernet0\": 5}}", "CABLE_LENGTH|AZURE|Ethernet0",
	     "is a number, expected a string"},
	    {"\"DSCP_TO_TC_MAP\": {\"AZURE\": {\"26\": 1}}", "DSCP_TO_TC_MAP|AZURE|26",
	     "is a number"},
	    {"\"DSCP_TO_TC_MAP\": {\"AZURE\": {\"26\": null}}", "DSCP_TO_TC_MAP|AZURE|26",
	     "is null"},
	    {"\"DSCP_TO_TC_MAP\": {\"AZURE\": []}", "DSCP_TO_TC_MAP|AZURE", "is an array"},
	    {"\"TC_TO_QUEUE_MAP\": true", "TC_TO_QUEUE_MAP", "is true"},
	    {"\"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": [3, 4]}}",
	     "PORT_QOS_MAP|Ethernet0|pfc_enable", "is an array"},
	    {"\"PORT_QOS_MAP\": {\"Ethernet0\": {\"dscp_to_tc_map\": {}}}",
	     "PORT_QOS_MAP|Ethernet0|dscp_to_tc_map", "is an object"},
	    {"\"PORT_QOS_MAP\": {\"Ethernet0\": false}", "PORT_QOS_MAP|Ethernet0", "is false"},
	    {"\"BUFFER_POOL\": {\"p\": {\"mode\": 1}}", "BUFFER_POOL|p|mode", "is a number"},
	    {"\"BUFFER_POOL\": {\"p\": {\"size\": 1.5}}", "BUFFER_POOL|p|size", "is a number"},
	    {"\"BUFFER_POOL\": {\"p\": \"\"}", "BUFFER_POOL|p", "is a string"},
	    {POOL ", " PROFILE(", \"xoff\": 165888"), "BUFFER_PROFILE|pg|xoff",
	     "is a number, expected a string"},
	    {POOL ", \"BUFFER_PROFILE\": {\"pg\": {\"pool\": [\"ingress_lossless_pool\"]}}",
	     "BUFFER_PROFILE|pg|pool", "is an array"},
	    {POOL ", " PROFILE("") ", \"BUFFER_PG\": {\"Ethernet0|3\": {\"profile\": 0}}",
	     "BUFFER_PG|Ethernet0|3|profile", "is a number"},
	    {POOL ", " PROFILE("") ", \"BUFFER_PG\": {\"Ethernet0|3\": [\"pg\"]}",
	     "BUFFER_PG|Ethernet0|3", "is an array"},
	    {POOL ", " PROFILE("") ", \"BUFFER_QUEUE\": {\"Ethernet0|3\": {\"profile\": null}}",
	     "BUFFER_QUEUE|Ethernet0|3|profile", "is null"},
	    {"\"WRED_PROFILE\": {\"W\": {\"ecn\": true}}", "WRED_PROFILE|W|ecn", "is true"},
	    {"\"QUEUE\": {\"Ethernet0|3\": {\"wred_profile\": 7}}",
	     "QUEUE|Ethernet0|3|wred_profile", "is a number"},
	    {"\"QUEUE\": {\"Ethernet0|3\": 7}", "QUEUE|Ethernet0|3", "is a number"},
	    {"\"PFC_WD\": {\"Ethernet0\": {\"detection_time\": 200}}",
	     "PFC_WD|Ethernet0|detection_time", "is a number"},
	    {"\"PFC_WD\": {\"Ethernet0\": []}", "PFC_WD|Ethernet0", "is an array"},
	    {"\"PFC_WD\": 200", "PFC_WD", "is a number"},
	};

	text_err("{\"PORT\": {\"Ethernet0\": \"up\"}}", "PORT|Ethernet0", "is a string");
	text_err("{\"PORT\": {\"Ethernet0\": {\"speed\": 100000}}}", "PORT|Ethernet0|speed",
		 "is a number, expected a string");
	text_err("{\"PORT\": {\"Ethernet0\": {\"mtu\": null}}}", "PORT|Ethernet0|mtu", "is null");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		text_err(with_port(cases[i].extra), cases[i].path, cases[i].msg);
}

/* Strings that are not what the field holds. */
Test(sonic, bad_values)
{
	static const struct {
		const char *extra, *path, *msg;
	} cases[] = {
	    {"\"CABLE_LENGTH\": {\"AZURE\": {\"Ethernet0\": \"far\"}}",
	     "CABLE_LENGTH|AZURE|Ethernet0", "\"far\" is not a length"},
	    {"\"CABLE_LENGTH\": {\"AZURE\": {\"Ethernet0\": \"5\"}}",
	     "CABLE_LENGTH|AZURE|Ethernet0", "needs a unit"},
	    {"\"DSCP_TO_TC_MAP\": {\"AZURE\": {\"26\": \"8\"}}", "DSCP_TO_TC_MAP|AZURE|26",
	     "\"8\" is not a number 0..7"},
	    {"\"DSCP_TO_TC_MAP\": {\"AZURE\": {\"af41\": \"3\"}}", "DSCP_TO_TC_MAP|AZURE|af41",
	     "key \"af41\" is not a number 0..63"},
	    {"\"DSCP_TO_TC_MAP\": {\"AZURE\": {\"-1\": \"3\"}}", "DSCP_TO_TC_MAP|AZURE|-1",
	     "0..63"},
	    {"\"TC_TO_PRIORITY_GROUP_MAP\": {\"AZURE\": {\"8\": \"0\"}}",
	     "TC_TO_PRIORITY_GROUP_MAP|AZURE|8", "0..7"},
	    {"\"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3,8\"}}",
	     "PORT_QOS_MAP|Ethernet0|pfc_enable", "\"8\" is not a list of priorities 0..7"},
	    {"\"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3;4\"}}",
	     "PORT_QOS_MAP|Ethernet0|pfc_enable", "not a list"},
	    {"\"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3,,4\"}}",
	     "PORT_QOS_MAP|Ethernet0|pfc_enable", "not a list"},
	    {"\"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3,\"}}",
	     "PORT_QOS_MAP|Ethernet0|pfc_enable", "not a list"},
	    {"\"PORT_QOS_MAP\": {\"Ethernet0\": {\"dscp_to_tc_map\": \"AZURE\"}}",
	     "PORT_QOS_MAP|Ethernet0|dscp_to_tc_map", "no DSCP_TO_TC_MAP named \"AZURE\""},
	    {"\"TC_TO_QUEUE_MAP\": {\"A\": {}}, "
	     "\"PORT_QOS_MAP\": {\"Ethernet0\": {\"tc_to_queue_map\": \"[TC_TO_QUEUE_MAP|B]\"}}",
	     "PORT_QOS_MAP|Ethernet0|tc_to_queue_map", "no TC_TO_QUEUE_MAP named \"B\""},
	    {"\"DSCP_TO_TC_MAP\": {\"A\": {}}, "
	     "\"PORT_QOS_MAP\": {\"Ethernet0\": {\"dscp_to_tc_map\": \"[TC_TO_QUEUE_MAP|A]\"}}",
	     "PORT_QOS_MAP|Ethernet0|dscp_to_tc_map", "is not a name nor [DSCP_TO_TC_MAP|name]"},
	    {"\"DSCP_TO_TC_MAP\": {\"A\": {}}, "
	     "\"PORT_QOS_MAP\": {\"Ethernet0\": {\"dscp_to_tc_map\": \"[DSCP_TO_TC_MAP|]\"}}",
	     "PORT_QOS_MAP|Ethernet0|dscp_to_tc_map", "is empty"},
	    {"\"DSCP_TO_TC_MAP\": {\"A\": {}}, "
	     "\"PORT_QOS_MAP\": {\"Ethernet0\": {\"dscp_to_tc_map\": \"[DSCP_TO_TC_MAP|A\"}}",
	     "PORT_QOS_MAP|Ethernet0|dscp_to_tc_map", "is not a name"},
	    {"\"BUFFER_POOL\": {\"p\": {\"mode\": \"fast\"}}", "BUFFER_POOL|p|mode",
	     "\"fast\" is not dynamic or static"},
	    {"\"BUFFER_POOL\": {\"p\": {\"size\": \"10MB\"}}", "BUFFER_POOL|p|size",
	     "\"10MB\" is not a number"},
	    {"\"BUFFER_POOL\": {\"p\": {\"size\": \"-5\"}}", "BUFFER_POOL|p|size",
	     "is not a number"},
	    {"\"BUFFER_POOL\": {\"p\": {\"size\": \" 5\"}}", "BUFFER_POOL|p|size",
	     "is not a number"},
	    {"\"BUFFER_POOL\": {\"p\": {\"size\": \"18446744073709551616\"}}", "BUFFER_POOL|p|size",
	     "is out of range"},
	    {"\"BUFFER_PROFILE\": {\"pg\": {\"size\": \"0\"}}", "BUFFER_PROFILE|pg|pool",
	     "missing"},
	    {"\"BUFFER_PROFILE\": {\"pg\": {\"pool\": \"ingress_lossless_pool\"}}",
	     "BUFFER_PROFILE|pg|pool", "no BUFFER_POOL named \"ingress_lossless_pool\""},
	    {POOL ", " PROFILE(", \"dynamic_th\": \"200\""), "BUFFER_PROFILE|pg|dynamic_th",
	     "200 is out of range (-128..127)"},
	    {POOL ", " PROFILE(", \"dynamic_th\": \"-\""), "BUFFER_PROFILE|pg|dynamic_th",
	     "is not a number"},
	    {POOL ", " PROFILE(", \"dynamic_th\": \"1\", \"static_th\": \"1\""),
	     "BUFFER_PROFILE|pg", "has both dynamic_th and static_th"},
	    {POOL ", " PROFILE(", \"static_th\": \"2.4MB\""), "BUFFER_PROFILE|pg|static_th",
	     "\"2.4MB\" is not a number"},
	    {POOL ", " PROFILE("") ", \"BUFFER_PG\": {\"Ethernet0\": {\"profile\": \"pg\"}}",
	     "BUFFER_PG|Ethernet0", "key is not PORT|INDEX"},
	    {POOL ", " PROFILE("") ", \"BUFFER_PG\": {\"|3\": {\"profile\": \"pg\"}}",
	     "BUFFER_PG||3", "key is not PORT|INDEX"},
	    {POOL ", " PROFILE("") ", \"BUFFER_PG\": {\"Ethernet0|8\": {\"profile\": \"pg\"}}",
	     "BUFFER_PG|Ethernet0|8", "index is not a number 0..7"},
	    {POOL ", " PROFILE("") ", \"BUFFER_PG\": {\"Ethernet0|4-3\": {\"profile\": \"pg\"}}",
	     "BUFFER_PG|Ethernet0|4-3", "index range"},
	    {POOL ", " PROFILE("") ", \"BUFFER_PG\": {\"Ethernet0|3-\": {\"profile\": \"pg\"}}",
	     "BUFFER_PG|Ethernet0|3-", "index range"},
	    {POOL ", " PROFILE("") ", \"BUFFER_PG\": {\"Ethernet0|3\": {}}",
	     "BUFFER_PG|Ethernet0|3|profile", "missing"},
	    {POOL ", " PROFILE("") ", \"BUFFER_PG\": {\"Ethernet0|3\": {\"profile\": \"\"}}",
	     "BUFFER_PG|Ethernet0|3|profile", "is empty"},
	    {POOL ", " PROFILE("") ", \"BUFFER_QUEUE\": {\"Ethernet0|3\": {\"profile\": \"NULL\"}}",
	     "BUFFER_QUEUE|Ethernet0|3|profile", "no BUFFER_PROFILE named \"NULL\""},
	    {POOL ", " PROFILE("") ", \"BUFFER_QUEUE\": {\"Ethernet0|64\": {\"profile\": \"pg\"}}",
	     "BUFFER_QUEUE|Ethernet0|64", "0..63"},
	    {"\"WRED_PROFILE\": {\"W\": {\"ecn\": \"ecn_blue\"}}", "WRED_PROFILE|W|ecn",
	     "\"ecn_blue\" is not an ECN mode"},
	    {"\"WRED_PROFILE\": {\"W\": {\"green_drop_probability\": \"101\"}}",
	     "WRED_PROFILE|W|green_drop_probability", "out of range (0..100)"},
	    {"\"WRED_PROFILE\": {\"W\": {\"green_drop_probability\": \"5%\"}}",
	     "WRED_PROFILE|W|green_drop_probability", "is not a number"},
	    {"\"QUEUE\": {\"Ethernet0|3\": {\"wred_profile\": \"AZURE_LOSSLESS\"}}",
	     "QUEUE|Ethernet0|3|wred_profile", "no WRED_PROFILE named \"AZURE_LOSSLESS\""},
	    {"\"QUEUE\": {\"Ethernet0\": {}}", "QUEUE|Ethernet0", "key is not PORT|INDEX"},
	    {"\"PFC_WD\": {\"Ethernet0\": {\"detection_time\": \"200ms\"}}",
	     "PFC_WD|Ethernet0|detection_time", "\"200ms\" is not a number"},
	    {"\"PFC_WD\": {\"Ethernet0\": {\"detection_time\": \"4294967296\"}}",
	     "PFC_WD|Ethernet0|detection_time", "out of range"},
	    /* above the longest time a scenario takes (10^6 s): refused here, at
	     * the SONiC key, not at switch.watchdog.detection */
	    {"\"PFC_WD\": {\"Ethernet0\": {\"detection_time\": \"1000000001\"}}",
	     "PFC_WD|Ethernet0|detection_time", "1000000001 is out of range (0..1000000000)"},
	    {"\"PFC_WD\": {\"Ethernet0\": {\"detection_time\": \"1\", \"restoration_time\": "
	     "\"4000000000\"}}",
	     "PFC_WD|Ethernet0|restoration_time", "out of range (0..1000000000)"},
	    {"\"PFC_WD\": {\"Ethernet0\": {\"restoration_time\": \"200\"}}",
	     "PFC_WD|Ethernet0|detection_time", "missing"},
	    {"\"PFC_WD\": {\"Ethernet0\": {\"detection_time\": \"200\", \"action\": \"reboot\"}}",
	     "PFC_WD|Ethernet0|action", "\"reboot\" is not drop, forward or alert"},
	};

	text_err("{\"PORT\": {\"Ethernet0\": {\"speed\": \"100G\"}}}", "PORT|Ethernet0|speed",
		 "\"100G\" is not a number");
	text_err("{\"PORT\": {\"Ethernet0\": {\"speed\": \"18446744073710\"}}}",
		 "PORT|Ethernet0|speed", "is out of range");
	text_err("{\"PORT\": {\"Ethernet0\": {\"mtu\": \"4294967296\"}}}", "PORT|Ethernet0|mtu",
		 "is out of range");
	text_err("{\"PORT\": {\"Ethernet0\": {\"mtu\": \"\"}}}", "PORT|Ethernet0|mtu",
		 "\"\" is not a number");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		text_err(with_port(cases[i].extra), cases[i].path, cases[i].msg);
}

/* Names and values far longer than any field: cut short in the message. */
/*
 * The ingress lossless pool's size plus its shared headroom (xoff) is the
 * switch's buffer: a sum beyond 2^64 - 1 B is refused at the pool, not
 * wrapped (size 2^64 - 1 and xoff 1000 used to give a 999 B buffer).
 */
Test(sonic, pool_size_and_xoff_must_fit)
{
	struct sonic_cfg c;

	text_err(with_port("\"BUFFER_POOL\": {\"ingress_lossless_pool\": {\"mode\": \"dynamic\", "
			   "\"size\": \"18446744073709551615\", \"xoff\": \"1000\"}}"),
		 "BUFFER_POOL|ingress_lossless_pool|xoff",
		 "size 18446744073709551615 B + xoff 1000 B does not fit in 64 bits");
	text_err(with_port("\"BUFFER_POOL\": {\"ingress_lossless_pool\": {\"mode\": \"dynamic\", "
			   "\"size\": \"18446744073709551000\", \"xoff\": \"616\"}}"),
		 "BUFFER_POOL|ingress_lossless_pool|xoff", "does not fit in 64 bits");
	/* the largest sum that fits */
	text_ok(with_port("\"BUFFER_POOL\": {\"ingress_lossless_pool\": {\"mode\": \"dynamic\", "
			  "\"size\": \"18446744073709551000\", \"xoff\": \"615\"}}"),
		&c);
	cr_assert_eq(c.buffer_size, UINT64_MAX);
	text_ok(with_port(POOL), &c);
	cr_assert_eq(c.buffer_size, 1000000);
	read_ok("tests/sonic/azure.json", &c);
	cr_assert_eq(c.buffer_size, 10875072 + 4194112);
}

Test(sonic, long_strings)
{
	size_t n = 200000, len;
	char *text = malloc(n + 200), *name = malloc(n + 1);
	struct sonic_cfg c;
	struct diag d = {0};
	char buf[1024];
	int err;

	memset(name, '9', n);
	name[n] = '\0';
	snprintf(text, n + 200, "{\"PORT\": {\"Ethernet0\": {\"speed\": \"%s\"}}}", name);
	err = sonic_read_text("t.json", text, strlen(text), &c, &d);
	cr_assert_eq(err, -EINVAL);
	cr_assert(strstr(d.msg, "...\" is out of range") || strstr(d.msg, "... is out of range"),
		  "%s", d.msg);

	memset(name, 'E', n);
	name[5] = '\n';
	snprintf(text, n + 200, "{\"PORT\": {\"%.*s\": {\"speed\": \"x\"}}}", (int)n, name);
	/* the raw newline is not valid JSON: escape it */
	len = strlen(text);
	cr_assert(len > n);
	text_err(text, "", "malformed JSON");
	snprintf(text, n + 200, "{\"PORT\": {\"Ether\\n%s\": {\"speed\": \"x\"}}}", name + 6);
	err = sonic_read_text("t.json", text, strlen(text), &c, &d);
	cr_assert_eq(err, -EINVAL);
	diag_str(&d, buf, sizeof(buf));
	cr_assert(!strchr(buf, '\n'), "%s", buf);
	cr_assert(!strncmp(d.path, "PORT|Ether?EEE", 14), "%s", d.path);
	cr_assert(strstr(d.path, "...|speed"), "%s", d.path);

	/* a profile name longer than the field is refused, not cut */
	memset(name, 'p', 300);
	name[300] = '\0';
	snprintf(text, n + 200,
		 "{\"PORT\": {\"Ethernet0\": {}}, " POOL ", \"BUFFER_PROFILE\": {\"%s\": "
		 "{\"pool\": \"ingress_lossless_pool\", \"xoff\": \"1\"}}, "
		 "\"BUFFER_PG\": {\"Ethernet0|3\": {\"profile\": \"%s\"}}}",
		 name, name);
	err = sonic_read_text("t.json", text, strlen(text), &c, &d);
	cr_assert_eq(err, -EINVAL);
	cr_assert(strstr(d.msg, "name longer than"), "%s", d.msg);
	free(name);
	free(text);
}

/* Absent tables: flags stay 0, the TC maps are the identity. */
Test(sonic, only_ports)
{
	struct sonic_cfg c;

	memset(&c, 0xa5, sizeof(c));
	text_ok("{\"PORT\": {\"Ethernet0\": {}}, \"CABLE_LENGTH\": {}, \"BUFFER_PG\": {}, "
		"\"DSCP_TO_TC_MAP\": {}, \"QUEUE\": {}, \"PFC_WD\": {\"GLOBAL\": 5}}",
		&c);
	cr_assert_eq(c.n_ports, 1);
	cr_assert_eq(c.port_speed_bps, 0);
	cr_assert_eq(c.port_mtu, 0);
	cr_assert_eq(c.cable_mm, 0);
	cr_assert_not(c.has_pool);
	cr_assert_not(c.has_profile);
	cr_assert_not(c.pg_null);
	cr_assert_str_eq(c.pg_where, "");
	cr_assert_not(c.has_pfc_enable);
	cr_assert_not(c.has_dscp_map);
	cr_assert_eq(c.dscp_given, 0);
	cr_assert_not(c.has_wred);
	cr_assert_not(c.has_watchdog);
	for (int i = 0; i < 8; i++) {
		cr_assert_eq(c.tc_to_pg[i], i);
		cr_assert_eq(c.tc_to_queue[i], i);
	}
}

/* An error leaves the caller's struct alone. */
Test(sonic, error_keeps_out)
{
	struct sonic_cfg c;
	struct diag d = {0};
	const char *t = "{\"PORT\": {\"Ethernet0\": {\"speed\": \"x\"}}}";

	memset(&c, 0x5a, sizeof(c));
	cr_assert_eq(sonic_read_text("t.json", t, strlen(t), &c, &d), -EINVAL);
	cr_assert_eq(c.n_ports, 0x5a5a5a5a);
}

Test(sonic, most_common_port)
{
	struct sonic_cfg c;

	text_ok("{\"PORT\": {\"Ethernet0\": {\"speed\": \"400000\", \"mtu\": \"1500\"}, "
		"\"Ethernet8\": {\"speed\": \"100000\", \"mtu\": \"9100\"}, "
		"\"Ethernet16\": {\"speed\": \"100000\", \"mtu\": \"9100\"}, "
		"\"Ethernet24\": {\"speed\": \"400000\", \"mtu\": \"9216\"}, "
		"\"Ethernet32\": {\"speed\": \"100000\"}}}",
		&c);
	cr_assert_eq(c.n_ports, 5);
	cr_assert_eq(c.port_speed_bps, 100000000000ULL);
	cr_assert_eq(c.port_mtu, 9100);
	/* a tie goes to the one met first */
	text_ok("{\"PORT\": {\"Ethernet0\": {\"speed\": \"25000\", \"mtu\": \"1500\"}, "
		"\"Ethernet1\": {\"speed\": \"400000\", \"mtu\": \"9100\"}}}",
		&c);
	cr_assert_eq(c.port_speed_bps, 25000000000ULL);
	cr_assert_eq(c.port_mtu, 1500);
}

Test(sonic, cable_lengths)
{
	struct sonic_cfg c;

	text_ok(
	    with_port("\"CABLE_LENGTH\": {\"AZURE\": {\"Ethernet0\": \"5m\", \"Ethernet4\": "
		      "\"40m\"}, \"OTHER\": {\"Ethernet8\": \"300m\", \"Ethernet12\": \"0m\"}}"),
	    &c);
	cr_assert_eq(c.cable_mm, 300000);
	text_ok(with_port("\"CABLE_LENGTH\": {\"AZURE\": {\"Ethernet0\": \"2.5m\"}}"), &c);
	cr_assert_eq(c.cable_mm, 2500);
}

/* Older configs write references as "[TABLE|name]". */
Test(sonic, bracketed_names)
{
	struct sonic_cfg c;

	text_ok(
	    with_port(POOL
		      ", " PFC34 ", \"BUFFER_PROFILE\": {\"pg\": {\"pool\": "
		      "\"[BUFFER_POOL|ingress_lossless_pool]\", \"xoff\": \"1000\", "
		      "\"dynamic_th\": \"-2\"}}, "
		      "\"BUFFER_PG\": {\"Ethernet0|3-4\": {\"profile\": \"[BUFFER_PROFILE|pg]\"}}, "
		      "\"WRED_PROFILE\": {\"W\": {\"green_min_threshold\": \"1\", \"ecn\": "
		      "\"ecn_none\"}}, "
		      "\"QUEUE\": {\"Ethernet0|3\": {\"wred_profile\": \"[WRED_PROFILE|W]\"}}"),
	    &c);
	cr_assert(c.has_profile);
	cr_assert_str_eq(c.profile, "pg");
	cr_assert_eq(c.xoff, 1000);
	cr_assert_eq(c.dynamic_th, -2);
	cr_assert(c.has_pool);
	cr_assert_eq(c.pool_size, 1000000);
	cr_assert(c.has_wred);
	cr_assert_str_eq(c.wred, "W");
	cr_assert_eq(c.kmin, 1);
	cr_assert_not(c.ecn_marking, "ecn_none does not mark");
}

/* "NULL": the dynamic buffer model computes the headroom; the pool stays. */
Test(sonic, null_profile)
{
	struct sonic_cfg c;

	text_ok(with_port(POOL ", " PFC34 ", \"BUFFER_PG\": {\"Ethernet0|3-4\": {\"profile\": "
			       "\"NULL\"}}"),
		&c);
	cr_assert_not(c.has_profile);
	cr_assert(c.pg_null);
	cr_assert_str_eq(c.pg_where, "BUFFER_PG|Ethernet0|3-4");
	cr_assert(c.has_pool, "the ingress lossless pool is read without a profile");
	cr_assert_eq(c.pool_size, 1000000);
	cr_assert(c.pool_dynamic);
}

/*
 * The lossless PG is where pfc_enable's priority goes through
 * TC_TO_PRIORITY_GROUP_MAP, not "3-4" by habit: here TC 3 -> PG 6.
 */
Test(sonic, lossless_pg_through_map)
{
	struct sonic_cfg c;

	text_ok(
	    with_port(POOL
		      ", "
		      "\"TC_TO_PRIORITY_GROUP_MAP\": {\"M\": {\"3\": \"6\"}}, "
		      "\"TC_TO_QUEUE_MAP\": {\"Q\": {\"3\": \"5\"}}, "
		      "\"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3\", \"tc_to_pg_map\": "
		      "\"M\", \"tc_to_queue_map\": \"Q\"}}, "
		      "\"BUFFER_PROFILE\": {\"lossy\": {\"pool\": \"ingress_lossless_pool\", "
		      "\"xoff\": \"1\"}, \"lossless\": {\"pool\": \"ingress_lossless_pool\", "
		      "\"xoff\": \"2\"}}, "
		      "\"BUFFER_PG\": {\"Ethernet0|3\": {\"profile\": \"lossy\"}, "
		      "\"Ethernet0|6\": {\"profile\": \"lossless\"}}, "
		      "\"WRED_PROFILE\": {\"A\": {}, \"B\": {\"ecn\": \"ecn_green\"}}, "
		      "\"QUEUE\": {\"Ethernet0|3\": {\"wred_profile\": \"A\"}, "
		      "\"Ethernet0|4-5\": {\"wred_profile\": \"B\"}}"),
	    &c);
	cr_assert_eq(c.tc_to_pg[3], 6);
	cr_assert_eq(c.tc_to_pg[2], 0, "a map that omits a TC sends it to 0");
	cr_assert_eq(c.tc_to_queue[3], 5);
	cr_assert_str_eq(c.profile, "lossless");
	cr_assert_eq(c.xoff, 2);
	cr_assert_str_eq(c.pg_where, "BUFFER_PG|Ethernet0|6");
	cr_assert_str_eq(c.wred, "B");
	cr_assert(c.ecn_marking);
}

/* Without pfc_enable, a PG whose profile has an xoff is the lossless one. */
Test(sonic, lossless_pg_without_pfc_enable)
{
	struct sonic_cfg c;

	text_ok(with_port(POOL
			  ", \"BUFFER_PROFILE\": {\"lossy\": {\"pool\": "
			  "\"ingress_lossless_pool\", \"size\": \"0\"}, \"lossless\": {\"pool\": "
			  "\"ingress_lossless_pool\", \"xoff\": \"2\"}}, "
			  "\"BUFFER_PG\": {\"Ethernet0|0\": {\"profile\": \"lossy\"}, "
			  "\"Ethernet0|3-4\": {\"profile\": \"lossless\"}}"),
		&c);
	cr_assert_not(c.has_pfc_enable);
	cr_assert_str_eq(c.profile, "lossless");
}

/*
 * Ports that disagree: the switch's pfc_enable and profile are those of
 * most ports (a tie goes to the port first in number), each port keeps
 * its own; a port without PFC has no lossless PG and votes for no profile.
 */
Test(sonic, ports_disagree)
{
	struct sonic_cfg c;

	text_ok(
	    "{\"PORT\": {\"Ethernet0\": {}, \"Ethernet4\": {}, \"Ethernet8\": {}}, " POOL ", "
	    "\"BUFFER_PROFILE\": {\"a\": {\"pool\": \"ingress_lossless_pool\", \"xoff\": \"1\"}, "
	    "\"b\": {\"pool\": \"ingress_lossless_pool\", \"xoff\": \"2\"}}, "
	    "\"BUFFER_PG\": {\"Ethernet0|3\": {\"profile\": \"a\"}, \"Ethernet4|4\": {\"profile\": "
	    "\"b\"}, \"Ethernet8|4\": {\"profile\": \"b\"}}, "
	    "\"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3\"}, \"Ethernet4\": "
	    "{\"pfc_enable\": \" 4 \"}, \"Ethernet8\": {\"pfc_enable\": \"\"}}, "
	    "\"PFC_WD\": {\"Ethernet0\": {\"detection_time\": \"400\", \"action\": \"alert\"}, "
	    "\"Ethernet4\": {\"detection_time\": \"200\", \"action\": \"forward\"}, "
	    "\"Ethernet8\": {\"detection_time\": \"400\", \"action\": \"alert\"}, "
	    "\"GLOBAL\": {\"POLL_INTERVAL\": \"200\"}}}",
	    &c);
	cr_assert_eq(c.pfc_enable, 0x08);
	cr_assert_str_eq(c.pfc_where, "PORT_QOS_MAP|Ethernet0|pfc_enable");
	cr_assert_str_eq(c.profile, "a");
	cr_assert_str_eq(c.pg_where, "BUFFER_PG|Ethernet0|3");
	cr_assert_eq(c.ports[1].pfc_enable, 0x10);
	cr_assert_str_eq(c.profiles[c.ports[1].profile].name, "b");
	cr_assert_eq(c.ports[2].pfc_enable, 0);
	cr_assert_eq(c.ports[2].profile, -1);
	cr_assert_eq(c.ports[2].lossless_pgs, 0);
	cr_assert(c.has_watchdog);
	cr_assert_eq(c.wd_detection_ms, 400);
	cr_assert_eq(c.wd_restoration_ms, 400, "restoration defaults to detection");
	cr_assert_str_eq(c.wd_action, "alert");
}

/* Which DSCP map: the one PORT_QOS_MAP names, else the only one, else none. */
Test(sonic, dscp_map_choice)
{
	struct sonic_cfg c;

	text_ok(with_port("\"DSCP_TO_TC_MAP\": {\"ONLY\": {\"26\": \"3\", \"0\": \"0\"}}"), &c);
	cr_assert(c.has_dscp_map);
	cr_assert_str_eq(c.dscp_map, "ONLY");
	cr_assert_eq(c.dscp_to_tc[26], 3);
	cr_assert_eq(c.dscp_given, (1ULL << 26) | 1);

	text_ok(with_port("\"DSCP_TO_TC_MAP\": {\"A\": {\"26\": \"3\"}, \"B\": {\"26\": \"1\"}}"),
		&c);
	cr_assert_not(c.has_dscp_map);

	text_ok(with_port("\"DSCP_TO_TC_MAP\": {\"A\": {\"26\": \"3\"}, \"B\": {\"26\": \"1\"}}, "
			  "\"PORT_QOS_MAP\": {\"Ethernet0\": {\"dscp_to_tc_map\": "
			  "\"[DSCP_TO_TC_MAP|B]\"}}"),
		&c);
	cr_assert(c.has_dscp_map);
	cr_assert_str_eq(c.dscp_map, "B");
	cr_assert_eq(c.dscp_to_tc[26], 1);
}

/* Port lists in keys, as older configs write them. */
Test(sonic, port_list_keys)
{
	struct sonic_cfg c;

	text_ok(with_port(POOL ", " PFC34 ", " PROFILE(
		    ", \"xoff\": \"7\"") ", "
					 "\"BUFFER_PG\": {\"Ethernet0,Ethernet4|3-4\": "
					 "{\"profile\": \"pg\"}}"),
		&c);
	cr_assert_eq(c.xoff, 7);
	cr_assert_str_eq(c.pg_where, "BUFFER_PG|Ethernet0,Ethernet4|3-4");
}

/* An older config: "[TABLE|name]" references and port lists in keys. */
Test(sonic, old_style_file)
{
	struct sonic_cfg c;

	read_ok("tests/sonic/old-style.json", &c);
	cr_assert_eq(c.n_ports, 2);
	cr_assert_eq(c.port_speed_bps, 40000000000ULL);
	cr_assert_eq(c.cable_mm, 300000);
	cr_assert_str_eq(c.profile, "pg_lossless_40000_300m_profile");
	cr_assert_str_eq(c.pg_where, "BUFFER_PG|Ethernet0,Ethernet4|3-4");
	cr_assert_eq(c.xoff, 55120);
	cr_assert_eq(c.xon, 18432);
	cr_assert_not(c.has_xon_offset);
	cr_assert_eq(c.dynamic_th, -3);
	cr_assert_eq(c.pool_size, 12766208);
	cr_assert_str_eq(c.dscp_map, "AZURE");
	cr_assert_eq(c.dscp_to_tc[26], 3);
	cr_assert_eq(c.dscp_given, (1ULL << 0) | (1ULL << 1) | (1ULL << 3) | (1ULL << 4) |
				       (1ULL << 8) | (1ULL << 26) | (1ULL << 46) | (1ULL << 48));
	cr_assert_eq(c.tc_to_pg[0], 1);
	cr_assert_eq(c.tc_to_pg[2], 0);
	cr_assert_eq(c.tc_to_queue[6], 6, "no TC_TO_QUEUE_MAP: identity");
	cr_assert_str_eq(c.wred, "AZURE_LOSSLESS");
	cr_assert_not(c.has_watchdog);
}

/* The dynamic buffer model: BUFFER_PG "NULL", pools without a size. */
Test(sonic, dynamic_model_file)
{
	struct sonic_cfg c;

	read_ok("tests/sonic/dynamic.json", &c);
	cr_assert_eq(c.n_ports, 3);
	cr_assert_eq(c.port_speed_bps, 100000000000ULL);
	cr_assert_eq(c.cable_mm, 40000);
	cr_assert_not(c.has_profile);
	cr_assert(c.pg_null);
	cr_assert_str_eq(c.pg_where, "BUFFER_PG|Ethernet0|3-4");
	cr_assert(c.has_pool);
	cr_assert_eq(c.pool_size, 0, "a dynamic pool's size is computed by SONiC");
	cr_assert(c.pool_dynamic);
	cr_assert_eq(c.pfc_enable, 0x18);
	cr_assert_not(c.has_dscp_map);
	cr_assert_not(c.has_wred);
	cr_assert(c.has_watchdog);
	cr_assert_eq(c.wd_detection_ms, 400);
	cr_assert_eq(c.wd_restoration_ms, 2000);
	cr_assert_str_eq(c.wd_action, "forward");
}
