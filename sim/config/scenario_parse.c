/*
 * A load's first stage, parse: the scenario's text indexed by key path
 * with each key's line (ydoc), the overlays (--with) merged onto it,
 * loaded by libcyaml into the raw_* structs (scenario_schema.c), and each
 * --set applied by walking that same schema. Unknown keys and enum names
 * are refused here, with the keys the schema accepts.
 */
#include <cyaml/cyaml.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/scenario.h"
#include "sim/config/scenario_impl.h"
#include "sim/readers/ydoc.h"

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

int scn__cc_set(const char *kv)
{
	size_t n = strlen(CC_KEY);

	return !strncmp(kv, CC_KEY, n) && (kv[n] == '=' || kv[n] == '.');
}

int scn__set_is_links(const char *kv)
{
	return !strncmp(kv, LINKS_PFX ".", strlen(LINKS_PFX) + 1);
}

int scn__set_is_nic_tc(const char *kv)
{
	return !strncmp(kv, TC_PFX ".", strlen(TC_PFX) + 1);
}

int scn__set_is_by_speed(const char *kv)
{
	return !strncmp(kv, ECN_PFX ".", strlen(ECN_PFX) + 1) ||
	       !strncmp(kv, PFC_PFX ".", strlen(PFC_PFX) + 1);
}

int scn__sonic_set(const char *kv)
{
	size_t n = strlen(SONIC_KEY);

	return !strncmp(kv, SONIC_KEY, n) && (kv[n] == '=' || kv[n] == '.');
}

/* Each --set applied, and its key recorded (errors then name --set). */
static int apply_sets(struct loader *l, struct scn_raw *raw)
{
	const char *const *sets = l->sets;
	int err;

	raw->set_paths = calloc(l->n_sets ? l->n_sets : 1, sizeof(char *));
	if (!raw->set_paths)
		return -ENOMEM;
	for (size_t i = 0; i < l->n_sets; i++) {
		if (!strncmp(sets[i], "expect.", 7))
			continue;
		/* a DSCP map entry, and switch.sonic, are no schema keys: they are read apart */
		err = strncmp(sets[i], "switch.dscp_to_tc.", 18) && !scn__sonic_set(sets[i]) &&
			      !scn__cc_set(sets[i]) && !scn__set_is_by_speed(sets[i]) &&
			      !scn__set_is_links(sets[i]) && !scn__set_is_nic_tc(sets[i])
			  ? apply_set(l, raw->top, sets[i])
			  : 0;
		if (err)
			return err;
		raw->set_paths[raw->n_set] = strndup(sets[i], strcspn(sets[i], "="));
		if (!raw->set_paths[raw->n_set++])
			return -ENOMEM;
	}
	return 0;
}

int scn__parse(struct loader *l)
{
	struct scn_raw *raw = l->raw;
	const char *text = l->text;
	size_t len = l->len;
	char *merged = NULL;
	cyaml_config_t cfg = scn__cyaml_base;
	struct ydoc_cylog log = {0};
	cyaml_err_t cerr;
	int err;

	err = ydoc_parse(l->file, text, len, &raw->doc, l->d);
	if (err)
		return err;
	if (!ydoc_count(raw->doc)) {
		diag_set(l->d, l->file, 1, "",
			 "empty scenario: expected a mapping of keys (topology, workload, ...)");
		return -EINVAL;
	}
	if (l->n_overlays) {
		ydoc_free(raw->doc);
		raw->doc = NULL;
		err = scn__overlay(l->file, text, len, l->overlays, l->n_overlays, &raw->doc,
				   &merged, &len, l->d);
		if (err) {
			free(merged);
			return err;
		}
		text = merged;
	}
	cfg.log_fn = ydoc_cyaml_log;
	cfg.log_ctx = &log;
	/* `workload` as a list takes the other schema */
	raw->schema = scn__schema(ydoc_find(raw->doc, "workload[0]") != NULL);
	cerr = cyaml_load_data((const uint8_t *)text, len, &cfg, raw->schema,
			       (cyaml_data_t **)&raw->top, NULL);
	free(merged);
	if (cerr != CYAML_OK) {
		raw->top = NULL;
		return ydoc_cyaml_diag(raw->doc, raw->schema, &log, cerr, YDOC_CY_KEYS, l->d);
	}
	err = apply_sets(l, raw);
	raw->cfg.flags = l->flags;
	return err;
}
