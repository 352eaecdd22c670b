/*
 * Every key path the scenario loader accepts (scn_keys), from its schema:
 * what the scenario reference is held to (tests/test_scenario_keys.c).
 */
#include <stdio.h>
#include <string.h>

#include "sim/config/scenario.h"
#include "sim/config/scenario_impl.h"

/* The keys of @f under @prefix, depth first. */
static void keys_of(const cyaml_schema_field_t *f, const char *prefix,
		    void (*fn)(const char *path, void *arg), void *arg)
{
	char path[256];

	for (; f && f->key; f++) {
		snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", f->key);
		if (f->value.type == CYAML_MAPPING) {
			keys_of(f->value.mapping.fields, path, fn, arg);
		} else if (f->value.type == CYAML_SEQUENCE &&
			   f->value.sequence.entry->type == CYAML_MAPPING) {
			snprintf(path + strlen(path), sizeof(path) - strlen(path), "[]");
			keys_of(f->value.sequence.entry->mapping.fields, path, fn, arg);
		} else {
			fn(path, arg);
		}
	}
}

void scn_keys(void (*fn)(const char *path, void *arg), void *arg)
{
	keys_of(scn__top_fields(), "", fn, arg);
}
