/*
 * The ConfigMaps of a Kubernetes manifest file: the documents of kind
 * ConfigMap that the scan (pod_scan.c) found before or after the workload,
 * read for what envFrom configMapRef and valueFrom configMapKeyRef take:
 * metadata.name, metadata.namespace and data, whose values are strings
 * (binaryData and the rest are ignored). Read from libyaml's events rather
 * than with ydoc, which keeps an alias as "*": here an alias of a scalar
 * stands for that scalar's value. The scan bounded each document's depth
 * and aliases already, and found it to be YAML.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "sim/readers/pod_impl.h"

/* One libyaml event of a ConfigMap document, kept for the walk below. */
struct pod_cm_ev {
	yaml_event_type_t type;
	char *value;  /* a scalar's value, or the anchor an alias names */
	char *anchor; /* the &anchor on a scalar, mapping or list */
	int line;
	int plain; /* a plain (unquoted) scalar */
};

struct pod_cm_walk {
	const char *file;
	struct pod_cm_ev *ev;
	size_t n;
	struct pod_cm *cm;
	struct diag *d;
};

static void pod_cm_clear(struct pod_cm *cm)
{
	for (size_t i = 0; i < cm->n; i++) {
		free(cm->kv[i].key);
		free(cm->kv[i].value);
	}
	free(cm->kv);
	free(cm->name);
	free(cm->ns);
	memset(cm, 0, sizeof(*cm));
}

static void pod_cm_events_free(struct pod_cm_walk *w)
{
	for (size_t i = 0; i < w->n; i++) {
		free(w->ev[i].value);
		free(w->ev[i].anchor);
	}
	free(w->ev);
}

/* The events of @text (one document), into w->ev. The scan read it already. */
static int pod_cm_events(struct pod_cm_walk *w, const char *text, size_t len)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	size_t cap = 0;
	int err = 0, done = 0;

	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (!err && !done) {
		const yaml_char_t *value = NULL, *anchor = NULL;
		struct pod_cm_ev *e;

		if (!yaml_parser_parse(&parser, &ev)) {
			diag_set(w->d, w->file, (int)parser.problem_mark.line + 1, "",
				 "malformed YAML: %s",
				 parser.problem ? parser.problem : "syntax error");
			err = parser.error == YAML_MEMORY_ERROR ? -ENOMEM : -EINVAL;
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		if (ev.type == YAML_SCALAR_EVENT) {
			value = ev.data.scalar.value;
			anchor = ev.data.scalar.anchor;
		} else if (ev.type == YAML_ALIAS_EVENT) {
			value = ev.data.alias.anchor;
		} else if (ev.type == YAML_MAPPING_START_EVENT) {
			anchor = ev.data.mapping_start.anchor;
		} else if (ev.type == YAML_SEQUENCE_START_EVENT) {
			anchor = ev.data.sequence_start.anchor;
		}
		if (w->n == cap) {
			cap = cap ? cap * 2 : 64;
			e = realloc(w->ev, cap * sizeof(*e));
			err = e ? 0 : -ENOMEM;
			w->ev = e ? e : w->ev;
		}
		if (!err) {
			e = &w->ev[w->n++];
			*e = (struct pod_cm_ev){.type = ev.type,
						.line = (int)ev.start_mark.line + 1};
			e->plain = ev.type == YAML_SCALAR_EVENT && ev.data.scalar.plain_implicit;
			e->value = value ? strdup((const char *)value) : NULL;
			e->anchor = anchor ? strdup((const char *)anchor) : NULL;
			if ((value && !e->value) || (anchor && !e->anchor))
				err = -ENOMEM;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return err;
}

/* The event after the node that starts at @i. */
static size_t pod_cm_after(const struct pod_cm_walk *w, size_t i)
{
	int depth = 0;

	do {
		if (w->ev[i].type == YAML_MAPPING_START_EVENT ||
		    w->ev[i].type == YAML_SEQUENCE_START_EVENT)
			depth++;
		else if (w->ev[i].type == YAML_MAPPING_END_EVENT ||
			 w->ev[i].type == YAML_SEQUENCE_END_EVENT)
			depth--;
		i++;
	} while (depth > 0 && i < w->n);
	return i;
}

/* The value of scalar @i, or of the scalar an alias @i names; NULL for a collection. */
static const char *pod_cm_scalar(const struct pod_cm_walk *w, size_t i)
{
	if (w->ev[i].type == YAML_SCALAR_EVENT)
		return w->ev[i].value;
	for (size_t k = i; w->ev[i].type == YAML_ALIAS_EVENT && k-- > 0;)
		if (w->ev[k].anchor && !strcmp(w->ev[k].anchor, w->ev[i].value))
			return w->ev[k].type == YAML_SCALAR_EVENT ? w->ev[k].value : NULL;
	return NULL; /* the scan refused an alias without anchor */
}

/* "a list", "a mapping", "an alias of a list or mapping": what a string is not */
static const char *pod_cm_what(yaml_event_type_t type)
{
	return type == YAML_SEQUENCE_START_EVENT  ? "a list"
	       : type == YAML_MAPPING_START_EVENT ? "a mapping"
						  : "an alias of a list or mapping";
}

static int pod_cm_kv_add(struct pod_cm *cm, const char *key, const char *value, int line)
{
	struct pod_cm_kv *kv = realloc(cm->kv, (cm->n + 1) * sizeof(*kv));

	if (!kv)
		return -ENOMEM;
	cm->kv = kv;
	kv += cm->n++;
	kv->line = line;
	kv->key = strdup(key);
	kv->value = strdup(value);
	return kv->key && kv->value ? 0 : -ENOMEM;
}

/* data (the mapping that starts at @i): one string per key, at the key's line. */
static int pod_cm_data(struct pod_cm_walk *w, size_t i)
{
	char path[160];
	int err = 0;

	for (i++; !err && i < w->n && w->ev[i].type != YAML_MAPPING_END_EVENT; i += 2) {
		const struct pod_cm_ev *k = &w->ev[i];
		const char *val;

		if (k->type != YAML_SCALAR_EVENT) {
			diag_set(w->d, w->file, k->line, "data",
				 "a key must be a plain word, not %s",
				 k->type == YAML_ALIAS_EVENT ? "an alias" : pod_cm_what(k->type));
			return -EINVAL;
		}
		snprintf(path, sizeof(path), "data.%.120s", k->value);
		if (!(val = pod_cm_scalar(w, i + 1))) {
			diag_set(w->d, w->file, k->line, path,
				 "expected a string, not %s: a ConfigMap's data values are strings",
				 pod_cm_what(w->ev[i + 1].type));
			return -EINVAL;
		}
		if (pod_cm_get(w->cm, k->value)) {
			diag_set(w->d, w->file, k->line, path, "duplicate key");
			return -EINVAL;
		}
		err = pod_cm_kv_add(w->cm, k->value, val, k->line);
	}
	return err;
}

/* metadata (the mapping that starts at @i): its name and namespace. */
static int pod_cm_metadata(struct pod_cm_walk *w, size_t i)
{
	for (i++; i < w->n && w->ev[i].type != YAML_MAPPING_END_EVENT;) {
		const struct pod_cm_ev *k = &w->ev[i];
		size_t v = pod_cm_after(w, i);
		const char *val = v < w->n ? pod_cm_scalar(w, v) : NULL;
		char **to = NULL;

		if (k->type == YAML_SCALAR_EVENT && !strcmp(k->value, "name")) {
			to = &w->cm->name;
			w->cm->line = k->line;
		} else if (k->type == YAML_SCALAR_EVENT && !strcmp(k->value, "namespace")) {
			to = &w->cm->ns;
		}
		if (to && val) {
			free(*to);
			if (!(*to = strdup(val)))
				return -ENOMEM;
		}
		i = pod_cm_after(w, v);
	}
	return 0;
}

/* The root mapping, at @i. */
static int pod_cm_root(struct pod_cm_walk *w, size_t i)
{
	int seen_data = 0, seen_meta = 0, err = 0;

	for (i++; !err && i < w->n && w->ev[i].type != YAML_MAPPING_END_EVENT;) {
		const struct pod_cm_ev *k = &w->ev[i], *v;
		int data = k->type == YAML_SCALAR_EVENT && !strcmp(k->value, "data");
		int meta = k->type == YAML_SCALAR_EVENT && !strcmp(k->value, "metadata");

		if ((data && seen_data++) || (meta && seen_meta++)) {
			diag_set(w->d, w->file, k->line, k->value, "duplicate key");
			return -EINVAL;
		}
		i = pod_cm_after(w, i);
		v = &w->ev[i];
		if ((data || meta) && v->type == YAML_MAPPING_START_EVENT)
			err = data ? pod_cm_data(w, i) : pod_cm_metadata(w, i);
		else if (data &&
			 !(v->type == YAML_SCALAR_EVENT && v->plain &&
			   (!v->value[0] || !strcmp(v->value, "~") || !strcmp(v->value, "null")))) {
			diag_set(w->d, w->file, k->line, "data",
				 "expected a mapping of keys, not %s",
				 v->type == YAML_SCALAR_EVENT  ? "a single value"
				 : v->type == YAML_ALIAS_EVENT ? "an alias (write the keys out)"
							       : pod_cm_what(v->type));
			return -EINVAL;
		}
		i = pod_cm_after(w, i);
	}
	return err;
}

/* Read ConfigMap document @doc of @text into @cm. */
static int pod_cm_read(const char *file, const char *text, size_t len, const struct pod_doc *doc,
		       struct pod_cm *cm, struct diag *d)
{
	struct pod_cm_walk w = {.file = file, .cm = cm, .d = d};
	const char *dtext;
	size_t dlen, root = 0;
	char *buf;
	int err;

	if (doc->bad_msg[0]) {
		diag_set(d, file, doc->bad_line, "", "%s", doc->bad_msg);
		return -EINVAL;
	}
	err = pod_slice(text, len, doc, &dtext, &dlen, &buf);
	if (!err)
		err = pod_cm_events(&w, dtext, dlen);
	/* stream start, document start, then the root mapping (the scan saw its kind) */
	while (!err && root < w.n && w.ev[root].type != YAML_MAPPING_START_EVENT)
		root++;
	if (!err && root < w.n)
		err = pod_cm_root(&w, root);
	pod_cm_events_free(&w);
	free(buf);
	if (!err && !cm->ns && !(cm->ns = strdup("")))
		err = -ENOMEM;
	return err;
}

int pod_cms_build(struct pod_cms *c, const char *file, const char *text, size_t len,
		  const struct pod_scan *s, struct diag *d)
{
	int err;

	c->built = 1;
	if (!s->n_cms)
		return 0;
	if (!(c->v = calloc(s->n_cms, sizeof(*c->v))))
		return -ENOMEM;
	for (size_t i = 0; i < s->n_cms; i++) {
		struct pod_cm *cm = &c->v[c->n];

		if ((err = pod_cm_read(file, text, len, &s->cms[i], cm, d))) {
			pod_cm_clear(cm);
			return err;
		}
		if (cm->name)
			c->n++;
		else
			pod_cm_clear(cm); /* no name: nothing can refer to it */
	}
	return 0;
}

/*
 * A namespace not given is the one `kubectl apply -n` gives both: it
 * matches any, but a ConfigMap of the same namespace comes first.
 */
const struct pod_cm *pod_cms_find(const struct pod_cms *c, const char *name, const char *ns,
				  const struct pod_cm **elsewhere)
{
	const struct pod_cm *unset = NULL;

	*elsewhere = NULL;
	for (size_t i = c->n; i-- > 0;) {
		if (strcmp(c->v[i].name, name))
			continue;
		if (!strcmp(c->v[i].ns, ns))
			return &c->v[i];
		if (!c->v[i].ns[0] || !ns[0])
			unset = unset ? unset : &c->v[i];
		else if (!*elsewhere)
			*elsewhere = &c->v[i];
	}
	return unset;
}

const struct pod_cm_kv *pod_cm_get(const struct pod_cm *cm, const char *key)
{
	for (size_t i = 0; i < cm->n; i++)
		if (!strcmp(cm->kv[i].key, key))
			return &cm->kv[i];
	return NULL;
}

void pod_cms_free(struct pod_cms *c)
{
	for (size_t i = 0; i < c->n; i++)
		pod_cm_clear(&c->v[i]);
	free(c->v);
	memset(c, 0, sizeof(*c));
}
