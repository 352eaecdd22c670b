/*
 * textsafe: text from outside made safe for JSON, the terminal, XML and
 * URIs (textsafe.h says what each form keeps and escapes). One scan
 * decodes UTF-8 as RFC 3629 defines it, the checks jansson makes on a
 * string, and each output decides per character.
 */
#include "sim/engine/textsafe.h"

#include <stdlib.h>
#include <string.h>

enum txt_form { TXT_JSON, TXT_TERM, TXT_XML };

/*
 * Length of the valid UTF-8 sequence at @p (1 to 4), its code point in
 * *@cp; 0 when the byte at @p starts none (a stray continuation byte, an
 * overlong form, a surrogate, past U+10FFFF, or cut short). The string is
 * NUL-terminated: a NUL is no continuation byte, so no read goes past it.
 */
static size_t utf8_seq(const unsigned char *p, unsigned long *cp)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
		*cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		*cp = p[0] & 0x0f;
		if (p[0] == 0xe0)
			lo = 0xa0; /* overlong */
		else if (p[0] == 0xed)
			hi = 0x9f; /* surrogates */
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		*cp = p[0] & 0x07;
		if (p[0] == 0xf0)
			lo = 0x90; /* overlong */
		else if (p[0] == 0xf4)
			hi = 0x8f; /* past U+10FFFF */
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if (p[i] < lo || p[i] > hi)
			return 0;
		*cp = (*cp << 6) | (p[i] & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	return n;
}

/* Where a form is written: a FILE, or a buffer that takes whole pieces
 * only (a piece that does not fit ends the writing). */
struct sink {
	FILE *f;
	char *buf;
	size_t size, n;
	int full;
};

static void put(struct sink *k, const char *s, size_t len)
{
	if (k->f) {
		fwrite(s, 1, len, k->f);
		return;
	}
	if (k->full || k->n + len >= k->size) {
		k->full = 1;
		return;
	}
	memcpy(k->buf + k->n, s, len);
	k->n += len;
	k->buf[k->n] = '\0';
}

/* Bytes @p[0..@n) as \xNN each, as one piece. */
static void put_hex(struct sink *k, const unsigned char *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char e[16];

	for (size_t i = 0; i < n; i++) {
		e[4 * i] = '\\';
		e[4 * i + 1] = 'x';
		e[4 * i + 2] = hex[p[i] >> 4];
		e[4 * i + 3] = hex[p[i] & 15];
	}
	put(k, e, 4 * n);
}

/* Whether the character @cp is shown as its bytes in \xNN form. */
static int hidden(enum txt_form form, unsigned long cp)
{
	switch (form) {
	case TXT_TERM:
		return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
	case TXT_XML:
		return (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0xfffe ||
		       cp == 0xffff;
	default:
		return 0;
	}
}

static const char *xml_entity(unsigned long cp)
{
	switch (cp) {
	case '&':
		return "&amp;";
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '"':
		return "&quot;";
	case '\'':
		return "&apos;";
	default:
		return NULL;
	}
}

static void write_form(struct sink *k, enum txt_form form, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p && !k->full) {
		unsigned long cp;
		size_t n = utf8_seq(p, &cp);
		const char *ent;

		if (!n)
			put_hex(k, p, n = 1);
		else if (hidden(form, cp))
			put_hex(k, p, n);
		else if (form == TXT_XML && (ent = xml_entity(cp)))
			put(k, ent, strlen(ent));
		else
			put(k, (const char *)p, n);
		p += n;
	}
}

int txt_utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned long cp;
	size_t n;

	for (; *p; p += n)
		if (!(n = utf8_seq(p, &cp)))
			return 0;
	return 1;
}

char *txt_utf8(const char *s)
{
	size_t size = 4 * strlen(s) + 1;
	struct sink k = {.buf = malloc(size), .size = size};

	if (!k.buf)
		return NULL;
	k.buf[0] = '\0';
	write_form(&k, TXT_JSON, s);
	return k.buf;
}

json_t *txt_json(const char *s)
{
	char *u;
	json_t *j;

	if (!s)
		return json_null();
	if (txt_utf8_valid(s))
		return json_string(s);
	if (!(u = txt_utf8(s)))
		return NULL;
	j = json_string(u);
	free(u);
	return j;
}

int txt_json_is(const json_t *j, const char *s)
{
	const char *v = json_string_value(j);
	char *u;
	int same;

	if (!v)
		return 0;
	if (txt_utf8_valid(s))
		return !strcmp(v, s);
	if (!(u = txt_utf8(s)))
		return 0;
	same = !strcmp(v, u);
	free(u);
	return same;
}

int txt_json_set_new(json_t *obj, const char *key, json_t *value)
{
	char *u;
	int err;

	if (txt_utf8_valid(key))
		return json_object_set_new(obj, key, value);
	if (!(u = txt_utf8(key))) {
		json_decref(value);
		return -1;
	}
	err = json_object_set_new(obj, u, value);
	free(u);
	return err;
}

const char *txt_term(char *buf, size_t size, const char *s)
{
	struct sink k = {.buf = buf, .size = size};

	if (!size)
		return buf;
	buf[0] = '\0';
	write_form(&k, TXT_TERM, s ? s : "");
	return buf;
}

void txt_fputs_term(const char *s, FILE *f)
{
	struct sink k = {.f = f};

	write_form(&k, TXT_TERM, s ? s : "");
}

void txt_fputs_xml(const char *s, FILE *f)
{
	struct sink k = {.f = f};

	write_form(&k, TXT_XML, s ? s : "");
}

char *txt_uri(const char *path)
{
	static const char ok[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/";
	char *u = malloc(strlen(path) * 3 + 8), *o;

	if (!u)
		return NULL;
	o = u;
	if (path[0] == '/')
		o += sprintf(o, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (strchr(ok, *p))
			*o++ = (char)*p;
		else
			o += sprintf(o, "%%%02X", *p);
	*o = '\0';
	return u;
}
