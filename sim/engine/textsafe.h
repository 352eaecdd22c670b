/*
 * textsafe: user-supplied text (paths, file names, names read from configs,
 * values quoted in messages) made safe for each output it goes to. Any byte
 * string is accepted; nothing here fails on content, only on memory.
 *
 * One notation for what cannot be shown: a byte that is not part of valid
 * UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past
 * U+10FFFF), and wherever the output cannot hold it a control character,
 * becomes the four characters "\xNN" (lowercase hex), one per byte. A
 * path "d<0xff>/s.yaml" reads "d\xff/s.yaml" in every output, which says
 * which byte it was; a literal backslash is left as it is, so the form is
 * readable rather than strictly reversible. Valid UTF-8 ("é", CJK) passes
 * unchanged wherever the output can hold it.
 *
 *   JSON:     invalid bytes as \xNN; control characters kept (the JSON
 *             writer escapes them as \u00NN, which is exact).
 *   terminal: invalid bytes, C0 controls (newline and tab included: a
 *             message stays one line), DEL and C1 controls as \xNN, so that
 *             no escape sequence reaches the terminal raw.
 *   XML 1.0:  & < > " ' as entities; invalid bytes, C0 controls other than
 *             tab, newline and carriage return, and U+FFFE/U+FFFF (which
 *             XML 1.0 cannot hold even as references) as \xNN.
 *   URI:      RFC 3986 percent-encoding of every byte outside the
 *             unreserved set and '/'.
 */
#ifndef ROCESIM_TEXTSAFE_H
#define ROCESIM_TEXTSAFE_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* Whether @s is valid UTF-8 throughout (as jansson requires of a string). */
int txt_utf8_valid(const char *s);

/*
 * A new string (free() it): @s with every invalid UTF-8 byte as \xNN, or
 * NULL when out of memory.
 */
char *txt_utf8(const char *s);

/*
 * A new JSON string of @s as txt_utf8 makes it (a new reference); JSON null
 * when @s is NULL; NULL only when out of memory. Use it wherever text from
 * outside goes into JSON: json_string() refuses invalid UTF-8.
 */
json_t *txt_json(const char *s);

/*
 * Whether @j is the JSON string txt_json(@s) makes: a path read back from
 * a JSON file compared with the path given. 0 when @j is not a string.
 */
int txt_json_is(const json_t *j, const char *s);

/*
 * json_object_set_new() with @key as txt_utf8 makes it: 0, or -1 when out
 * of memory (@value is released then, as json_object_set_new does).
 */
int txt_json_set_new(json_t *obj, const char *key, json_t *value);

/*
 * The terminal form of @s into @buf of @size bytes (NUL-terminated, cut
 * short on a character or escape boundary when it does not fit); returns
 * @buf.
 */
const char *txt_term(char *buf, size_t size, const char *s);

/* The terminal form of @s written to @f. */
void txt_fputs_term(const char *s, FILE *f);

/* The XML form of @s written to @f (as element text or attribute value). */
void txt_fputs_xml(const char *s, FILE *f);

/*
 * @path as a URI reference: a relative path stays relative, an absolute
 * one becomes a file: URI ("file:///abs/path"). A new string (free() it),
 * or NULL when out of memory.
 */
char *txt_uri(const char *path);

#endif
