/*
 * textsafe: hand-written byte strings (invalid UTF-8 of every kind RFC 3629
 * rules out, terminal escape codes, XML's special and forbidden characters)
 * through each output form.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/textsafe.h"

/* @s through @put into a memory stream: what it wrote. */
static char *written(void (*put)(const char *, FILE *), const char *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert(f);
	put(s, f);
	cr_assert_eq(fclose(f), 0);
	return text;
}

Test(textsafe, utf8_validity_as_rfc3629)
{
	cr_assert(txt_utf8_valid(""));
	cr_assert(txt_utf8_valid("plain ascii/path.yaml"));
	cr_assert(txt_utf8_valid("caf\xc3\xa9"));			     /* é */
	cr_assert(txt_utf8_valid("\xe6\x97\xa5\xe6\x9c\xac"));		     /* 日本 */
	cr_assert(txt_utf8_valid("\xf0\x9f\x98\x80"));			     /* U+1F600 */
	cr_assert(txt_utf8_valid("\xf4\x8f\xbf\xbf"));			     /* U+10FFFF */
	cr_assert(txt_utf8_valid("\x1b[31m"));				     /* controls are UTF-8 */
	cr_assert_not(txt_utf8_valid("d\xff"));				     /* never in UTF-8 */
	cr_assert_not(txt_utf8_valid("\x80"));				     /* stray continuation */
	cr_assert_not(txt_utf8_valid("\xc0\xaf"));			     /* overlong '/' */
	cr_assert_not(txt_utf8_valid("\xe0\x80\xaf"));			     /* overlong, 3 bytes */
	cr_assert_not(txt_utf8_valid("\xed\xa0\x80"));			     /* surrogate D800 */
	cr_assert_not(txt_utf8_valid("\xf4\x90\x80\x80"));		     /* past U+10FFFF */
	cr_assert_not(txt_utf8_valid("\xc3"));				     /* cut at the end */
	cr_assert_not(txt_utf8_valid("\xe6\x97" "a"));			     /* cut in the middle */
}

Test(textsafe, json_copy_escapes_invalid_bytes_only)
{
	char *u = txt_utf8("d\xff/s.yaml");

	cr_assert_str_eq(u, "d\\xff/s.yaml");
	free(u);
	/* a cut sequence: each of its bytes, then what follows as it is */
	u = txt_utf8("\xe6\x97" "a\xc3\xa9");
	cr_assert_str_eq(u, "\\xe6\\x97a\xc3\xa9");
	free(u);
	u = txt_utf8("\xed\xa0\x80");
	cr_assert_str_eq(u, "\\xed\\xa0\\x80");
	free(u);
	/* valid text, controls included, is left alone */
	u = txt_utf8("caf\xc3\xa9 \x1b[31m\n");
	cr_assert_str_eq(u, "caf\xc3\xa9 \x1b[31m\n");
	free(u);
}

Test(textsafe, json_strings_that_jansson_takes)
{
	json_t *j = txt_json("run/d\xff\xfe/\xe6\x97\xa5.yaml"), *back;
	char *text;

	cr_assert(j);
	cr_assert_str_eq(json_string_value(j), "run/d\\xff\\xfe/\xe6\x97\xa5.yaml");
	text = json_dumps(j, JSON_ENCODE_ANY);
	cr_assert(text);
	cr_assert_str_eq(text, "\"run/d\\\\xff\\\\xfe/\xe6\x97\xa5.yaml\"");
	back = json_loads(text, JSON_DECODE_ANY, NULL);
	cr_assert(json_equal(back, j));
	free(text);
	json_decref(back);
	json_decref(j);

	/* an escape code goes in exactly: JSON holds it as \u001B */
	j = txt_json("pg\x1b[31m");
	cr_assert_str_eq(json_string_value(j), "pg\x1b[31m");
	text = json_dumps(j, JSON_ENCODE_ANY);
	cr_assert_str_eq(text, "\"pg\\u001B[31m\"");
	free(text);
	json_decref(j);

	j = txt_json(NULL);
	cr_assert(json_is_null(j));
}

Test(textsafe, terminal_shows_controls_and_bad_bytes)
{
	char buf[128];

	cr_assert_str_eq(txt_term(buf, sizeof(buf), "pg\x1b[31mlossless\x1b[0m"),
			 "pg\\x1b[31mlossless\\x1b[0m");
	cr_assert_str_eq(txt_term(buf, sizeof(buf), "a\nb\tc\rd\x7f"), "a\\x0ab\\x09c\\x0dd\\x7f");
	/* C1 controls (CSI U+009B) as both of their bytes; é and CJK as they are */
	cr_assert_str_eq(txt_term(buf, sizeof(buf), "\xc2\x9b" "2J caf\xc3\xa9 \xe6\x97\xa5"),
			 "\\xc2\\x9b2J caf\xc3\xa9 \xe6\x97\xa5");
	cr_assert_str_eq(txt_term(buf, sizeof(buf), "d\xff/s.yaml"), "d\\xff/s.yaml");
	cr_assert_str_eq(txt_term(buf, sizeof(buf), NULL), "");
}

Test(textsafe, terminal_cut_short_on_a_boundary)
{
	char buf[8];

	/* "ab" fits, the escape of ESC (4 bytes) and its NUL need 7: left out whole */
	cr_assert_str_eq(txt_term(buf, 6, "ab\x1b" "cd"), "ab");
	cr_assert_str_eq(txt_term(buf, 7, "ab\x1b" "cd"), "ab\\x1b");
	/* an é is two bytes: not split */
	cr_assert_str_eq(txt_term(buf, 4, "ab\xc3\xa9"), "ab");
	cr_assert_str_eq(txt_term(buf, 5, "ab\xc3\xa9"), "ab\xc3\xa9");
	cr_assert_str_eq(txt_term(buf, 1, "abc"), "");
}

Test(textsafe, terminal_to_a_stream)
{
	char *t = written(txt_fputs_term, "check \x1b]0;title\x07 d\xff");

	cr_assert_str_eq(t, "check \\x1b]0;title\\x07 d\\xff");
	free(t);
}

/* Only tab, newline, CR and printable characters; every '&' starts an entity. */
static void assert_xml_text(const char *t)
{
	for (const unsigned char *p = (const unsigned char *)t; *p; p++) {
		cr_assert(*p >= 0x20 || *p == '\t' || *p == '\n' || *p == '\r', "byte 0x%02x", *p);
		cr_assert(*p != '<' && *p != '>' && *p != '"' && *p != '\'');
		if (*p == '&')
			cr_assert(!strncmp((const char *)p, "&amp;", 5) ||
				  !strncmp((const char *)p, "&lt;", 4) ||
				  !strncmp((const char *)p, "&gt;", 4) ||
				  !strncmp((const char *)p, "&quot;", 6) ||
				  !strncmp((const char *)p, "&apos;", 6));
	}
	cr_assert(txt_utf8_valid(t));
}

Test(textsafe, xml_entities_and_forbidden_characters)
{
	char *t = written(txt_fputs_xml, "a<b>&\"c\" 'd'");

	cr_assert_str_eq(t, "a&lt;b&gt;&amp;&quot;c&quot; &apos;d&apos;");
	free(t);
	/* XML 1.0 cannot hold ESC, even as &#27;; tab, newline, CR stay */
	t = written(txt_fputs_xml, "pg\x1b[31m\t1\n2\r\x01");
	cr_assert_str_eq(t, "pg\\x1b[31m\t1\n2\r\\x01");
	assert_xml_text(t);
	free(t);
	/* invalid UTF-8, U+FFFE and U+FFFF (not XML characters), é kept */
	t = written(txt_fputs_xml, "d\xff/\xef\xbf\xbe\xef\xbf\xbf/caf\xc3\xa9&");
	cr_assert_str_eq(t, "d\\xff/\\xef\\xbf\\xbe\\xef\\xbf\\xbf/caf\xc3\xa9&amp;");
	assert_xml_text(t);
	free(t);
}

Test(textsafe, uri_percent_encoded)
{
	char *u = txt_uri("configs/d\xff/a b#c%.json");

	/* RFC 3986: unreserved and '/' as they are, every other byte %XX */
	cr_assert_str_eq(u, "configs/d%FF/a%20b%23c%25.json");
	free(u);
	u = txt_uri("/abs/caf\xc3\xa9:1.json");
	cr_assert_str_eq(u, "file:///abs/caf%C3%A9%3A1.json");
	free(u);
	u = txt_uri("x\x1b[31m.json");
	cr_assert_str_eq(u, "x%1B%5B31m.json");
	free(u);
}
