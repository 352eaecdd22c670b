/*
 * SONiC config_db.json reader (sonic.h; SONiC's Configuration.md and
 * qos_config.j2). The file is one JSON object of tables; a table maps a key
 * ("Ethernet0", "Ethernet0|3-4", "AZURE") to an object of fields whose
 * values are strings. We read the lossless tables, check that every name one
 * table gives another exists, and keep what describes the lossless class,
 * port by port (SONiC configures each port on its own): each port's speed,
 * MTU, cable, pfc_enable, DSCP and TC maps, the profile bound to its lossless
 * PGs and its queues' schedulers; and for the switch, the values most ports
 * have, the pool of its lossless profile, the WRED profile of a lossless
 * queue, the PFC watchdog and DEVICE_METADATA. Tables we do not know are
 * ignored, as are fields we do not read.
 *
 * Which PGs and queues are lossless is derived, not guessed from names:
 * those that a port's pfc_enable priorities reach through its
 * TC_TO_PRIORITY_GROUP_MAP and TC_TO_QUEUE_MAP (priority = TC, as SONiC's
 * default maps have it). Without pfc_enable, a PG whose profile has an xoff
 * (or is "NULL") and any queue with a WRED profile stand in. Where ports
 * disagree, the switch takes the value most ports have, ties going to the
 * port first by the number in its name (the order of sonic_cfg.ports).
 *
 * Everything in the file is untrusted: each value's JSON type is checked
 * before use, numbers are plain decimal digits checked for range, and the
 * names quoted in messages are cut short and stripped of control bytes.
 *
 * This file reads the tables in turn; sonic_fields.c reads and checks one
 * value, sonic_lines.c finds its line in the text, and sonic_ports.c,
 * sonic_buffers.c and sonic_queues.c read the tables of their name into
 * the plain data of sonic_cfg.h.
 */
#include "sim/readers/sonic.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>

#include "sim/readers/sonic_ctx.h"
#include "sim/engine/textfile.h"

/* Read the tables of @root (@text, NULL if not at hand) into @out (all zero
 * but the identity maps). */
static int sonic_parse(const char *name, const char *text, size_t len, json_t *root,
		       struct sonic_cfg *out, struct diag *d)
{
	struct sonic_ctx c = {
	    .file = name, .text = text, .len = len, .d = d, .root = root, .cfg = out};
	int err;

	if (!json_is_object(root))
		return sonic__fail(&c, NULL, NULL, NULL,
				   "the top level is %s, expected an object of tables",
				   sonic__type_name(root));
	err = sonic__read_ports(&c);
	if (!err)
		err = sonic__read_metadata(&c);
	if (!err)
		err = sonic__read_neighbors(&c);
	if (!err)
		err = sonic__read_cables(&c);
	if (!err)
		err = sonic__read_qos(&c);
	if (!err)
		err = sonic__check_buffers(&c);
	if (!err)
		err = sonic__read_pgs(&c);
	/* no lossless profile: the ingress lossless pool, if there is one */
	if (!err && !out->has_profile) {
		json_t *p = json_object_get(c.pools, "ingress_lossless_pool");

		if (p)
			err = sonic__read_pool(&c, "ingress_lossless_pool", p, out);
	}
	if (!err)
		err = sonic__read_wreds(&c);
	if (!err)
		err = sonic__read_schedulers(&c);
	if (!err)
		err = sonic__read_watchdog(&c);
	return err;
}

/* Parse @root (may be NULL after a load error @je), read from @src (NULL if
 * not at hand), into @out. */
static int sonic_finish(const char *name, const char *src, size_t len, json_t *root,
			const json_error_t *je, struct sonic_cfg *out, struct diag *d)
{
	struct sonic_cfg *cfg;
	char text[JSON_ERROR_TEXT_LENGTH];
	int err;

	if (!root) {
		/* jansson quotes the input near the error: it may hold a newline */
		snprintf(text, sizeof(text), "%.*s", JSON_ERROR_TEXT_LENGTH - 1, je->text);
		for (char *p = text; *p; p++) {
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
		}
		/* jansson 2.14 gives up with no message at all when it cannot
		 * allocate: every syntax error has one */
		if (json_error_code(je) == json_error_out_of_memory || !text[0]) {
			diag_set(d, name, 0, "", "out of memory");
			return -ENOMEM;
		}
		diag_set(d, name, je->line > 0 ? je->line : 0, "", "malformed JSON: %s", text);
		return -EINVAL;
	}
	cfg = calloc(1, sizeof(*cfg));
	if (!cfg) {
		json_decref(root);
		diag_set(d, name, 0, "", "out of memory");
		return -ENOMEM;
	}
	snprintf(cfg->file, sizeof(cfg->file), "%s", name);
	for (int i = 0; i < 8; i++) {
		cfg->tc_to_pg[i] = (uint8_t)i;
		cfg->tc_to_queue[i] = (uint8_t)i;
	}
	err = sonic_parse(name, src, len, root, cfg, d);
	if (!err)
		*out = *cfg;
	free(cfg);
	json_decref(root);
	return err;
}

int sonic_read(const char *file, struct sonic_cfg *out, struct diag *d)
{
	char *text;
	size_t len;
	int err;

	/* NUL bytes are kept: jansson names their line and column */
	if ((err = textfile_load(file, 1, &text, &len, d)))
		return err == -ENOMEM ? err : -EINVAL;
	err = sonic_read_text(file, text, len, out, d);
	free(text);
	return err;
}

int sonic_read_text(const char *name, const char *text, size_t len, struct sonic_cfg *out,
		    struct diag *d)
{
	json_error_t je;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);

	return sonic_finish(name, text, len, root, &je, out, d);
}
