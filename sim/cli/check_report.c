/*
 * `rocesim check --sarif FILE` and `--junit FILE`: the findings for CI.
 *
 * SARIF 2.1.0 (OASIS; the subset code scanning services read): one run of
 * the tool "rocesim" whose driver lists a rule per finding code met (id,
 * a short description), an automationDetails id per scenario (so that the
 * files of several scenarios can be uploaded together), and one result
 * per finding: ruleId (the code),
 * ruleIndex, level (error, warning, or note for info), message.text, and,
 * when the finding has a file, a physicalLocation with the file's URI
 * (the path as rocesim read it, relative to where it runs, percent-encoded
 * as RFC 3986 and SARIF's artifactLocation.uri require) and, when it has
 * a line, region.startLine: a pull request shows it on that line.
 *
 * Text from the inputs (paths, names) goes in through textsafe.h: invalid
 * UTF-8 bytes as \xNN, so the file is always valid JSON.
 *
 * JUnit: a testcase per finding (an error is a failure), or one passing
 * testcase when there is none.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/check_out.h"
#include "sim/cli/ci_report.h"
#include "sim/engine/textsafe.h"

#define SARIF_SCHEMA                                                                               \
	"https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"                      \
	"sarif-schema-2.1.0.json"

/* What each finding code checks, for the SARIF rules. */
static const struct {
	const char *code, *text;
} rules[] = {
    {"CBD_CYCLE", "Cyclic buffer dependency on a lossless priority: a PFC deadlock can form"},
    {"CBD_TRUNCATED", "More dependency cycles exist than are listed"},
    {"CBD_GRAPH", "The deadlock analysis: buffers, dependencies and cycles"},
    {"THRESHOLD_ORDER", "PFC XOFF is reached before ECN marks: keep kmin < kmax < xoff"},
    {"CC_PARAM_UNKNOWN", "A cc_params entry that is no mlx5 cc_params name"},
    {"CC_PARAM_RANGE", "A cc_params value out of the NIC's range"},
    {"CC_PARAM_ORDER", "cc_params rp_min_rate above rp_max_rate"},
    {"CC_PARAM_DEVICES", "A cc_params dump of several devices: the same values, or which differ"},
    {"CC_PARAM_SUSPECT", "A legal DCQCN value that does not do what it looks like"},
    {"CC_PARAM_SLOW_RECOVERY", "DCQCN hyper increase too slow to win the rate back"},
    {"DCQCN_READINGS", "Which reading of disputed cc_params (CNP spacing scope, byte counter "
		       "unit) the run takes"},
    {"NCCL_TC_AT_RUN_TIME", "NCCL_IB_TC comes from a Secret or ConfigMap"},
    {"NCCL_IB_DISABLED", "NCCL does not use RDMA at all"},
    {"NCCL_GID_INDEX", "An NCCL GID index that is likely link-local or RoCE v1"},
    {"DSCP_NOT_LOSSLESS", "RDMA traffic lands on a lossy class on the switch"},
    {"PRIORITY_MISMATCH", "The NIC and the switch put RDMA traffic on different priorities"},
    {"NIC_PFC_OFF", "PFC is off on the NIC for the priority RDMA uses"},
    {"NIC_TRUST_PCP", "The NIC trusts PCP, not DSCP"},
    {"PFC_EXTRA_PRIORITY", "PFC on priorities no RDMA traffic uses"},
    {"CNP_LOSSLESS", "CNPs share a lossless, pausable class"},
    {"CNP_CLASS", "CNPs are not served ahead of the RDMA data"},
    {"CNP_PRIORITY", "The NIC sends CNPs on another priority than the switch serves strictly"},
    {"CNP_NOT_STRICT", "CNPs share an ETS class with data on the NIC"},
    {"CNP_WEIGHTED", "CNPs share a weighted (DWRR) queue with data on the switch"},
    {"HEADROOM_BUFFER", "Reserved headroom leaves no shared buffer"},
    {"HEADROOM_SHORT", "PFC headroom shorter than the longest cable needs"},
    {"BUFFER_DEFAULT", "No switch buffer size given: the default is taken"},
    {"HEADROOM_RESERVED", "Headroom the lossless groups reserve against the buffer"},
    {"HEADROOM_EXCESS", "PFC headroom beyond what the cable needs"},
    {"XOFF_ABOVE_POOL", "XOFF x lossless groups above the shared pool: PFC comes from the pool"},
    {"UNREACHABLE", "Source-destination pairs without a route"},
    {"NODE_DOWN_LATER", "A node goes down during the run"},
    {"LINK_DOWN_LATER", "A link goes down during the run"},
    {"LINK_UP_LATER", "A link down from the start comes back up during the run"},
    {"CAPACITY_LOST", "The capacity the links down take, per tier"},
};

static const char *rule_text(const char *code)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (!strcmp(rules[i].code, code))
			return rules[i].text;
	return code;
}

static json_t *sarif_result(const struct chk_finding *f, size_t rule)
{
	static const char *const level[] = {"error", "warning", "note"};
	json_t *r, *loc;
	char *uri;

	r = json_pack("{s:s,s:I,s:s,s:{s:o},s:{s:o,s:o}}", "ruleId", f->code, "ruleIndex",
		      (json_int_t)rule, "level", level[f->severity], "message", "text",
		      txt_json(f->message), "properties", "where", txt_json(f->where), "key",
		      txt_json(f->key));
	if (!r || !f->file)
		return r;
	if (!(uri = txt_uri(f->file))) {
		json_decref(r);
		return NULL;
	}
	loc = json_pack("{s:{s:s}}", "artifactLocation", "uri", uri);
	free(uri);
	if (loc && f->line &&
	    json_object_set_new(loc, "region", json_pack("{s:i}", "startLine", f->line))) {
		json_decref(loc);
		loc = NULL;
	}
	if (!loc ||
	    json_object_set_new(r, "locations", json_pack("[{s:o}]", "physicalLocation", loc))) {
		json_decref(r);
		return NULL;
	}
	return r;
}

int chk_write_sarif(const struct chk *c, const struct scenario *s, const char *path)
{
	json_t *rule_ids = json_array(), *results = json_array(), *root;
	char *text, category[300];
	int err = !rule_ids || !results;

	/* the category code scanning files the results under: one per scenario */
	snprintf(category, sizeof(category), "rocesim-check/%s/", s->name);

	for (size_t i = 0; !err && i < c->n; i++) {
		const struct chk_finding *f = &c->f[i];
		size_t k, n = json_array_size(rule_ids);
		json_t *id;

		json_array_foreach(rule_ids, k, id)
			if (!strcmp(json_string_value(id), f->code))
				break;
		if (k == n)
			err = json_array_append_new(rule_ids, json_string(f->code));
		err = err || json_array_append_new(results, sarif_result(f, k));
	}
	if (!err) {
		json_t *rules_j = json_array(), *id;
		size_t k;

		json_array_foreach(rule_ids, k, id) {
			const char *code = json_string_value(id);

			if (!rules_j ||
			    json_array_append_new(
				rules_j, json_pack("{s:s,s:s,s:{s:s}}", "id", code, "name", code,
						   "shortDescription", "text", rule_text(code)))) {
				json_decref(rules_j);
				rules_j = NULL;
				break;
			}
		}
		root = json_pack("{s:s,s:s,s:[{s:{s:{s:s,s:s,s:o}},s:{s:o},s:o,s:s}]}", "$schema",
				 SARIF_SCHEMA, "version", "2.1.0", "runs", "tool", "driver", "name",
				 "rocesim", "version", ROCESIM_VERSION, "rules", rules_j,
				 "automationDetails", "id", txt_json(category), "results", results,
				 "columnKind", "unicodeCodePoints");
		results = NULL;
	} else {
		root = NULL;
	}
	json_decref(rule_ids);
	json_decref(results);
	if (!root)
		return -ENOMEM;
	text = json_dumps(root, JSON_INDENT(1));
	json_decref(root);
	if (!text)
		return -ENOMEM;
	err = ci_write_file(path, text, strlen(text));
	free(text);
	return err;
}

int chk_write_junit(const struct chk *c, const struct scenario *s, const char *path, double secs)
{
	struct junit j = {0};
	char cls[300], name[700], text[4000];
	int err;

	snprintf(cls, sizeof(cls), "rocesim.check.%s", s->name);
	for (size_t i = 0; i < c->n; i++) {
		const struct chk_finding *f = &c->f[i];

		if (f->file && f->line)
			snprintf(name, sizeof(name), "%s %s:%d", f->code, f->file, f->line);
		else
			snprintf(name, sizeof(name), "%s %s", f->code, f->where);
		snprintf(text, sizeof(text), "%s %s %s: %s", chk_severity_name[f->severity],
			 f->code, f->where, f->message);
		junit_add(&j, cls, name, f->severity == CHK_ERROR ? f->message : NULL, text);
	}
	if (!c->n)
		junit_add(&j, cls, "no findings", NULL, NULL);
	snprintf(name, sizeof(name), "rocesim check %s", s->name);
	err = junit_write(&j, path, name, secs);
	junit_free(&j);
	return err;
}
