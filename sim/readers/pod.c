/*
 * Kubernetes manifests: the NCCL_* environment of a workload's containers
 * (see pod.h). Three passes over the text:
 *
 *  1. a libyaml scan picks the document to read (the first whose kind is a
 *     workload), notes where the ConfigMaps are, and bounds what YAML
 *     aliases expand to: libcyaml replays an alias event by event, so ten
 *     nested aliases of ten make 10^10 events;
 *  2. ydoc indexes that document for lines and the missing-key checks;
 *  3. libcyaml loads it with its kind's schema, unknown keys ignored (a
 *     manifest has hundreds).
 *
 * A later document is handed to ydoc and libcyaml, which read one document,
 * as a copy preceded by as many newlines as lines before it in the file, so
 * that every line they report is the file's.
 *
 * Pass 1 is pod_scan.c's; this file makes passes 2 and 3; pod_kinds.c
 * knows the layouts, pod_env.c collects the variables (pod_cm.c reads the
 * ConfigMaps they refer to); pod_cfg.c holds the look-ups on what is read.
 */
#include "sim/readers/pod.h"

#include <cyaml/cyaml.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "sim/readers/pod_impl.h"
#include "sim/engine/textfile.h"
#include "sim/readers/ydoc.h"

/* The kind of the document ydoc indexed: 0 or -EINVAL with @d. */
static int pod_check_kind(const char *name, const struct ydoc *y, const struct pod_scan *s,
			  struct diag *d)
{
	const struct ydoc_entry *k = ydoc_find(y, "kind");
	int first = ydoc_at(y, 0)->line;

	if (!k) {
		diag_set(d, name, first, "",
			 "no kind: expected a Kubernetes manifest of a " POD_KINDS);
		return -EINVAL;
	}
	if (!k->value) {
		diag_set(d, name, k->line, "kind", "expected a single value, not %s",
			 ydoc_find(y, "kind[0]") ? "a list" : "a mapping");
		return -EINVAL;
	}
	if (pod_kind(k->value) >= 0)
		return 0;
	if (s->ndocs > 1)
		diag_set(d, name, k->line, "kind",
			 "none of the %d documents is a workload (" POD_KINDS
			 "); the first is a %.64s",
			 s->ndocs, k->value);
	else
		diag_set(d, name, k->line, "kind", "%.64s is not a workload: expected a " POD_KINDS,
			 k->value);
	return -EINVAL;
}

/*
 * Load the workload document @text (ydoc @y indexed it) into @out; @ctx
 * holds the whole file, for its ConfigMaps.
 */
static int pod_load(struct pod_ctx *ctx, const char *text, size_t len, struct pod_cfg *out,
		    struct diag *d)
{
	const struct ydoc_entry *ns = ydoc_find(ctx->y, "metadata.namespace");
	const struct ydoc_entry *k = ydoc_find(ctx->y, "kind");
	const cyaml_schema_value_t *schema =
	    pod_kind_schema(k && k->value ? pod_kind(k->value) : -1);
	const char *name = ctx->file;
	struct ydoc_cylog log = {0};
	cyaml_config_t cfg = {
	    .log_level = CYAML_LOG_ERROR,
	    .log_fn = ydoc_cyaml_log,
	    .log_ctx = &log,
	    .mem_fn = cyaml_mem,
	    .flags = CYAML_CFG_IGNORE_UNKNOWN_KEYS,
	};
	struct pod_group *groups = NULL;
	struct pod_y_doc *doc = NULL;
	size_t n_groups = 0;
	cyaml_err_t cerr;
	int err;

	cerr =
	    cyaml_load_data((const uint8_t *)text, len, &cfg, schema, (cyaml_data_t **)&doc, NULL);
	if (cerr != CYAML_OK)
		return ydoc_cyaml_diag(ctx->y, schema, &log, cerr, 0, d);
	if (pod_kind(doc->kind) < 0 || pod_kind_schema(pod_kind(doc->kind)) != schema) {
		/* ydoc checked the same scalar: this guards what follows */
		diag_set(d, name, ydoc_line(ctx->y, "kind"), "kind",
			 "%.64s is not a workload: expected a " POD_KINDS, doc->kind);
		err = -EINVAL;
		goto out_free_doc;
	}
	snprintf(out->kind, sizeof(out->kind), "%s", doc->kind);
	ctx->ns = ns && ns->value ? ns->value : "";
	err = pod_kind_groups(name, ctx->y, pod_kind(doc->kind), doc, &groups, &n_groups, d);
	for (size_t i = 0; !err && i < n_groups; i++)
		err = pod_collect(ctx, &groups[i], d);
	if (!err)
		err = pod_finish(ctx, out);
	free(groups);
out_free_doc:
	cyaml_free(&cfg, schema, doc, 0);
	return err;
}

/* ---- entry points ------------------------------------------------------------------ */

int pod_read_text(const char *name, const char *text, size_t len, struct pod_cfg *out,
		  struct diag *d)
{
	struct pod_ctx ctx = {0};
	struct pod_scan *s;
	struct ydoc *y = NULL;
	const char *doc_text;
	size_t doc_len;
	char *buf = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	snprintf(out->file, sizeof(out->file), "%s", name);
	if (len >= 2 && ((text[0] == '\xfe' && text[1] == '\xff') ||
			 (text[0] == '\xff' && text[1] == '\xfe'))) {
		diag_set(d, name, 0, "", "UTF-16 text: save the manifest as UTF-8");
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	err = pod_scan(s, text, len);
	if (err)
		goto out_free_scan;
	err = pod_slice(text, len, &s->pick, &doc_text, &doc_len, &buf);
	if (err)
		goto out_free_scan;
	err = ydoc_parse(name, doc_text, doc_len, &y, d);
	if (err) {
		if (err != -ENOMEM)
			err = -EINVAL; /* a duplicate key is -EEXIST there */
		goto out_free_buf;
	}
	if (s->yaml_err) {
		/* libyaml refused the text the scan read; ydoc should have too */
		diag_set(d, name, s->yaml_line, "", "malformed YAML: %s", s->yaml_msg);
		err = -EINVAL;
		goto out_free_ydoc;
	}
	if (!ydoc_count(y)) {
		diag_set(d, name, 1, "", "empty: expected a Kubernetes manifest of a " POD_KINDS);
		err = -EINVAL;
		goto out_free_ydoc;
	}
	err = pod_check_kind(name, y, s, d);
	if (err)
		goto out_free_ydoc;
	if (s->pick.bad_msg[0]) {
		diag_set(d, name, s->pick.bad_line, "", "%s", s->pick.bad_msg);
		err = -EINVAL;
		goto out_free_ydoc;
	}
	out->doc = s->pick.index ? s->pick.index : 1;
	ctx.file = name;
	ctx.text = text;
	ctx.len = len;
	ctx.scan = s;
	ctx.y = y;
	err = pod_load(&ctx, doc_text, doc_len, out, d);
	pod_ctx_free(&ctx);
out_free_ydoc:
	ydoc_free(y);
out_free_buf:
	free(buf);
out_free_scan:
	pod_scan_free(s);
	if (err)
		pod_free(out);
	return err;
}

int pod_read(const char *file, struct pod_cfg *out, struct diag *d)
{
	char *text;
	size_t len;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = textfile_load(file, 0, &text, &len, d)))
		return err;
	err = pod_read_text(file, text, len, out, d);
	free(text);
	return err;
}
