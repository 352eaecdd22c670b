/*
 * The ConfigMaps of a Kubernetes manifest file: the documents of kind
 * ConfigMap that the scan (pod_scan.c) found before or after the workload,
 * read for what envFrom configMapRef and valueFrom configMapKeyRef take:
 * metadata.name, metadata.namespace and data, whose values are strings
 * (binaryData and the rest are ignored). Read event by event with libyaml
 * rather than with ydoc, which keeps an alias as "*": here an alias of a
 * scalar stands for that scalar's value. The scan bounded each document's
 * depth and aliases already.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "sim/config/pod_impl.h"

struct pod_cm_anchor {
	char *name;
	char *value; /* NULL: a mapping or a list */
};

struct pod_cm_walk {
	const char *file;
	yaml_parser_t parser;
	struct pod_cm *cm;
	struct pod_cm_anchor *an;
	size_t n_an;
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

static int pod_cm_event(struct pod_cm_walk *w, yaml_event_t *ev)
{
	if (yaml_parser_parse(&w->parser, ev))
		return 0;
	/* the scan read this text already: only a failed allocation gets here */
	diag_set(w->d, w->file, (int)w->parser.problem_mark.line + 1, "", "malformed YAML: %s",
		 w->parser.problem ? w->parser.problem : "syntax error");
	return w->parser.error == YAML_MEMORY_ERROR ? -ENOMEM : -EINVAL;
}

static int pod_cm_anchor(struct pod_cm_walk *w, const yaml_char_t *name, const yaml_char_t *value)
{
	struct pod_cm_anchor *v;

	if (!name)
		return 0;
	v = realloc(w->an, (w->n_an + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	w->an = v;
	v[w->n_an].name = strdup((const char *)name);
	v[w->n_an].value = value ? strdup((const char *)value) : NULL;
	if (!v[w->n_an].name || (value && !v[w->n_an].value)) {
		free(v[w->n_an].name);
		free(v[w->n_an].value);
		return -ENOMEM;
	}
	w->n_an++;
	return 0;
}

/* The value an alias stands for: a scalar's, or NULL (a collection, or no anchor) */
static const char *pod_cm_alias(const struct pod_cm_walk *w, const yaml_event_t *ev)
{
	for (size_t i = w->n_an; i-- > 0;)
		if (!strcmp(w->an[i].name, (const char *)ev->data.alias.anchor))
			return w->an[i].value;
	return NULL;
}

/* Read past the node that @ev starts (its anchors kept); @ev is deleted. */
static int pod_cm_skip(struct pod_cm_walk *w, yaml_event_t *ev)
{
	int depth = 0, err = 0;

	do {
		switch (ev->type) {
		case YAML_SCALAR_EVENT:
			err = pod_cm_anchor(w, ev->data.scalar.anchor, ev->data.scalar.value);
			break;
		case YAML_MAPPING_START_EVENT:
			err = pod_cm_anchor(w, ev->data.mapping_start.anchor, NULL);
			depth++;
			break;
		case YAML_SEQUENCE_START_EVENT:
			err = pod_cm_anchor(w, ev->data.sequence_start.anchor, NULL);
			depth++;
			break;
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			depth--;
			break;
		default:
			break;
		}
		yaml_event_delete(ev);
		if (err || depth <= 0)
			return err;
	} while (!(err = pod_cm_event(w, ev)));
	return err;
}

/* "a list", "a mapping", "an alias of a list": what a string value is not */
static const char *pod_cm_what(const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_SEQUENCE_START_EVENT:
		return "a list";
	case YAML_MAPPING_START_EVENT:
		return "a mapping";
	default:
		return "an alias of a list or mapping";
	}
}

/* A scalar @ev, or an alias of one: its value (borrowed), else NULL. */
static const char *pod_cm_scalar(const struct pod_cm_walk *w, const yaml_event_t *ev)
{
	if (ev->type == YAML_SCALAR_EVENT)
		return (const char *)ev->data.scalar.value;
	if (ev->type == YAML_ALIAS_EVENT)
		return pod_cm_alias(w, ev);
	return NULL;
}

static int pod_cm_kv_add(struct pod_cm *cm, const char *key, const char *value, int line)
{
	struct pod_cm_kv *kv = realloc(cm->kv, (cm->n + 1) * sizeof(*kv));

	if (!kv)
		return -ENOMEM;
	cm->kv = kv;
	kv += cm->n;
	kv->key = strdup(key);
	kv->value = strdup(value);
	kv->line = line;
	if (!kv->key || !kv->value) {
		free(kv->key);
		free(kv->value);
		return -ENOMEM;
	}
	cm->n++;
	return 0;
}

/* data: one string per key, at the key's line. */
static int pod_cm_data(struct pod_cm_walk *w)
{
	struct pod_cm *cm = w->cm;
	yaml_event_t k, v;
	char path[160];
	int err;

	for (;;) {
		const char *val;
		int line;

		if ((err = pod_cm_event(w, &k)))
			return err;
		if (k.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&k);
			return 0;
		}
		line = (int)k.start_mark.line + 1;
		if (k.type != YAML_SCALAR_EVENT) {
			diag_set(w->d, w->file, line, "data", "a key must be a plain word, not %s",
				 k.type == YAML_ALIAS_EVENT ? "an alias" : pod_cm_what(&k));
			yaml_event_delete(&k);
			return -EINVAL;
		}
		snprintf(path, sizeof(path), "data.%.120s", (const char *)k.data.scalar.value);
		if ((err = pod_cm_anchor(w, k.data.scalar.anchor, k.data.scalar.value)) ||
		    (err = pod_cm_event(w, &v))) {
			yaml_event_delete(&k);
			return err;
		}
		val = pod_cm_scalar(w, &v);
		if (!val) {
			diag_set(w->d, w->file, line, path,
				 "expected a string, not %s: a ConfigMap's data values are strings",
				 pod_cm_what(&v));
			err = -EINVAL;
		} else if (pod_cm_get(cm, (const char *)k.data.scalar.value)) {
			diag_set(w->d, w->file, line, path, "duplicate key");
			err = -EINVAL;
		} else {
			err = pod_cm_kv_add(cm, (const char *)k.data.scalar.value, val, line);
			if (!err && v.type == YAML_SCALAR_EVENT)
				err = pod_cm_anchor(w, v.data.scalar.anchor, v.data.scalar.value);
		}
		yaml_event_delete(&k);
		yaml_event_delete(&v);
		if (err)
			return err;
	}
}

/* metadata: its name and namespace; the rest skipped. */
static int pod_cm_metadata(struct pod_cm_walk *w)
{
	yaml_event_t k, v;
	int err;

	for (;;) {
		char **to = NULL;
		const char *val;

		if ((err = pod_cm_event(w, &k)))
			return err;
		if (k.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&k);
			return 0;
		}
		if (k.type == YAML_SCALAR_EVENT) {
			if (!strcmp((const char *)k.data.scalar.value, "name"))
				to = &w->cm->name;
			else if (!strcmp((const char *)k.data.scalar.value, "namespace"))
				to = &w->cm->ns;
			if (to == &w->cm->name)
				w->cm->line = (int)k.start_mark.line + 1;
		}
		if ((err = pod_cm_skip(w, &k)) || (err = pod_cm_event(w, &v)))
			return err;
		val = pod_cm_scalar(w, &v);
		if (to && val) {
			free(*to);
			if (!(*to = strdup(val))) {
				yaml_event_delete(&v);
				return -ENOMEM;
			}
		}
		if ((err = pod_cm_skip(w, &v)))
			return err;
	}
}

/* The root mapping of a ConfigMap document. */
static int pod_cm_root(struct pod_cm_walk *w)
{
	int seen_data = 0, seen_meta = 0, err;
	yaml_event_t k, v;

	for (;;) {
		const char *key = NULL;
		int line;

		if ((err = pod_cm_event(w, &k)))
			return err;
		if (k.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&k);
			return 0;
		}
		line = (int)k.start_mark.line + 1;
		if (k.type == YAML_SCALAR_EVENT &&
		    !strcmp((const char *)k.data.scalar.value, "data"))
			key = seen_data++ ? "" : "data";
		else if (k.type == YAML_SCALAR_EVENT &&
			 !strcmp((const char *)k.data.scalar.value, "metadata"))
			key = seen_meta++ ? "" : "metadata";
		if (key && !key[0]) {
			diag_set(w->d, w->file, line, (const char *)k.data.scalar.value,
				 "duplicate key");
			yaml_event_delete(&k);
			return -EINVAL;
		}
		if ((err = pod_cm_skip(w, &k)) || (err = pod_cm_event(w, &v)))
			return err;
		if (key && v.type == YAML_MAPPING_START_EVENT) {
			err = pod_cm_anchor(w, v.data.mapping_start.anchor, NULL);
			yaml_event_delete(&v);
			if (!err)
				err = key[0] == 'd' ? pod_cm_data(w) : pod_cm_metadata(w);
		} else if (key && key[0] == 'd' && v.type == YAML_SCALAR_EVENT &&
			   v.data.scalar.plain_implicit &&
			   (!v.data.scalar.value[0] ||
			    !strcmp((const char *)v.data.scalar.value, "~") ||
			    !strcmp((const char *)v.data.scalar.value, "null"))) {
			yaml_event_delete(&v); /* data: (null): no keys */
		} else if (key && key[0] == 'd') {
			diag_set(w->d, w->file, line, "data", "expected a mapping of keys, not %s",
				 v.type == YAML_SCALAR_EVENT  ? "a single value"
				 : v.type == YAML_ALIAS_EVENT ? "an alias (write the keys out)"
							      : pod_cm_what(&v));
			yaml_event_delete(&v);
			err = -EINVAL;
		} else {
			err = pod_cm_skip(w, &v);
		}
		if (err)
			return err;
	}
}

/* Read ConfigMap document @doc of @text into @cm. */
static int pod_cm_read(const char *file, const char *text, size_t len, const struct pod_doc *doc,
		       struct pod_cm *cm, struct diag *d)
{
	struct pod_cm_walk w = {.file = file, .cm = cm, .d = d};
	const char *dtext;
	size_t dlen;
	char *buf;
	yaml_event_type_t type = YAML_NO_EVENT;
	yaml_event_t ev;
	int err;

	if (doc->bad_msg[0]) {
		diag_set(d, file, doc->bad_line, "", "%s", doc->bad_msg);
		return -EINVAL;
	}
	if ((err = pod_slice(text, len, doc, &dtext, &dlen, &buf)))
		return err;
	if (!yaml_parser_initialize(&w.parser)) {
		free(buf);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&w.parser, (const unsigned char *)dtext, dlen);
	/* stream start, document start, then the root mapping (the scan saw its kind) */
	while (!(err = pod_cm_event(&w, &ev))) {
		type = ev.type;
		if (type == YAML_MAPPING_START_EVENT)
			err = pod_cm_anchor(&w, ev.data.mapping_start.anchor, NULL);
		yaml_event_delete(&ev);
		if (err || type == YAML_MAPPING_START_EVENT || type == YAML_STREAM_END_EVENT)
			break;
	}
	if (!err && type == YAML_MAPPING_START_EVENT)
		err = pod_cm_root(&w);
	yaml_parser_delete(&w.parser);
	for (size_t i = 0; i < w.n_an; i++) {
		free(w.an[i].name);
		free(w.an[i].value);
	}
	free(w.an);
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

const struct pod_cm *pod_cms_find(const struct pod_cms *c, const char *name, const char *ns,
				  const struct pod_cm **elsewhere)
{
	*elsewhere = NULL;
	for (size_t i = c->n; i-- > 0;) {
		if (strcmp(c->v[i].name, name))
			continue;
		if (!strcmp(c->v[i].ns, ns))
			return &c->v[i];
		if (!*elsewhere)
			*elsewhere = &c->v[i];
	}
	return NULL;
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
