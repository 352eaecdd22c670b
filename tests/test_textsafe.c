/*
 * textsafe: hand-written byte strings (invalid UTF-8 of every kind RFC 3629
 * rules out, terminal escape codes, XML's special and forbidden characters)
 * through each output form.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "proc.h"
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
	cr_assert(txt_utf8_valid("caf\xc3\xa9"));	       /* é */
	cr_assert(txt_utf8_valid("\xe6\x97\xa5\xe6\x9c\xac")); /* 日本 */
	cr_assert(txt_utf8_valid("\xf0\x9f\x98\x80"));	       /* U+1F600 */
	cr_assert(txt_utf8_valid("\xf4\x8f\xbf\xbf"));	       /* U+10FFFF */
	cr_assert(txt_utf8_valid("\x1b[31m"));		       /* controls are UTF-8 */
	cr_assert_not(txt_utf8_valid("d\xff"));		       /* never in UTF-8 */
	cr_assert_not(txt_utf8_valid("\x80"));		       /* stray continuation */
	cr_assert_not(txt_utf8_valid("\xc0\xaf"));	       /* overlong '/' */
	cr_assert_not(txt_utf8_valid("\xe0\x80\xaf"));	       /* overlong, 3 bytes */
	cr_assert_not(txt_utf8_valid("\xed\xa0\x80"));	       /* surrogate D800 */
	cr_assert_not(txt_utf8_valid("\xf4\x90\x80\x80"));     /* past U+10FFFF */
	cr_assert_not(txt_utf8_valid("\xc3"));		       /* cut at the end */
	cr_assert_not(txt_utf8_valid("\xe6\227a"));	       /* cut in the middle */
}

Test(textsafe, json_copy_escapes_invalid_bytes_only)
{
	char *u = txt_utf8("d\xff/s.yaml");

	cr_assert_str_eq(u, "d\\xff/s.yaml");
	free(u);
	/* a cut sequence: each of its bytes, then what follows as it is */
	u = txt_utf8("\xe6\227a\xc3\xa9");
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

	/* a path read back from JSON is the path it was written from */
	j = txt_json("d\xff/s.yaml");
	cr_assert(txt_json_is(j, "d\xff/s.yaml"));
	cr_assert_not(txt_json_is(j, "d\xfe/s.yaml"));
	json_decref(j);
	j = json_string("caf\xc3\xa9");
	cr_assert(txt_json_is(j, "caf\xc3\xa9"));
	cr_assert_not(txt_json_is(j, "cafe"));
	cr_assert_not(txt_json_is(NULL, "cafe"));
	json_decref(j);
}

Test(textsafe, terminal_shows_controls_and_bad_bytes)
{
	char buf[128];

	cr_assert_str_eq(txt_term(buf, sizeof(buf), "pg\x1b[31mlossless\x1b[0m"),
			 "pg\\x1b[31mlossless\\x1b[0m");
	cr_assert_str_eq(txt_term(buf, sizeof(buf), "a\nb\tc\rd\x7f"), "a\\x0ab\\x09c\\x0dd\\x7f");
	/* C1 controls (CSI U+009B) as both of their bytes; é and CJK as they are */
	cr_assert_str_eq(txt_term(buf, sizeof(buf), "\xc2\2332J caf\xc3\xa9 \xe6\x97\xa5"),
			 "\\xc2\\x9b2J caf\xc3\xa9 \xe6\x97\xa5");
	cr_assert_str_eq(txt_term(buf, sizeof(buf), "d\xff/s.yaml"), "d\\xff/s.yaml");
	cr_assert_str_eq(txt_term(buf, sizeof(buf), NULL), "");
}

Test(textsafe, terminal_cut_short_on_a_boundary)
{
	char buf[8];

	/* "ab" fits, the escape of ESC (4 bytes) and its NUL need 7: left out whole */
	cr_assert_str_eq(txt_term(buf, 6, "ab\033cd"), "ab");
	cr_assert_str_eq(txt_term(buf, 7, "ab\033cd"), "ab\\x1b");
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

/* XML 1.0 characters only (valid UTF-8, no control character but tab,
 * newline and CR), and every '&' starts an entity. */
static void assert_xml_text_chars(const char *t)
{
	for (const unsigned char *p = (const unsigned char *)t; *p; p++) {
		cr_assert(*p >= 0x20 || *p == '\t' || *p == '\n' || *p == '\r', "byte 0x%02x", *p);
		if (*p == '&')
			cr_assert(!strncmp((const char *)p, "&amp;", 5) ||
				  !strncmp((const char *)p, "&lt;", 4) ||
				  !strncmp((const char *)p, "&gt;", 4) ||
				  !strncmp((const char *)p, "&quot;", 6) ||
				  !strncmp((const char *)p, "&apos;", 6));
	}
	cr_assert(txt_utf8_valid(t));
}

/* Text for an element or an attribute: also no markup character left. */
static void assert_xml_text(const char *t)
{
	assert_xml_text_chars(t);
	for (const char *p = t; *p; p++)
		cr_assert(*p != '<' && *p != '>' && *p != '"' && *p != '\'');
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

/* ---- end to end: the built rocesim on paths and names that are not text ---- */

static void setup(void)
{
	ts_proc_setup("bytes");
}

TestSuite(bytes, .init = setup, .fini = ts_proc_teardown, .timeout = 120);

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert(f, "cannot write %s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* @text with every @from replaced by @to (a new string). */
static char *replace_all(const char *text, const char *from, const char *to)
{
	size_t n = 0, lf = strlen(from), lt = strlen(to);
	char *out, *o;

	for (const char *p = text; (p = strstr(p, from)); p += lf)
		n++;
	out = o = malloc(strlen(text) + n * lt + 1);
	cr_assert(out);
	for (const char *p = text, *q; *p; p = q + lf) {
		if (!(q = strstr(p, from))) {
			strcpy(o, p);
			return out;
		}
		memcpy(o, p, (size_t)(q - p));
		o += q - p;
		memcpy(o, to, lt);
		o += lt;
		*o = '\0';
	}
	return out;
}

/* A terminal output: no control character but newline, no byte that is not UTF-8. */
static void assert_terminal_text(const char *what, const char *t)
{
	for (const unsigned char *p = (const unsigned char *)t; *p; p++)
		cr_assert(*p >= 0x20 || *p == '\n', "%s: control byte 0x%02x", what, *p);
	cr_assert(txt_utf8_valid(t), "%s: not UTF-8", what);
}

/*
 * A well-formed XML document, checked by hand: only XML 1.0 characters
 * (valid UTF-8, no control character but tab, newline and CR), every '&'
 * an entity, quotes paired inside each tag, no '<' inside a tag, and the
 * elements closed in the order they were opened.
 */
static void assert_xml_document(const char *path)
{
	char *t = ts_slurp(path), *stack[16];
	int depth = 0;

	cr_assert(t, "no %s", path);
	assert_xml_text_chars(t);
	cr_assert(!strncmp(t, "<?xml ", 6));
	for (char *p = strchr(t + 1, '<'); p; p = strchr(p + 1, '<')) {
		char *end = strchr(p, '>'), *name = p + 1;
		int quotes = 0;

		cr_assert(end, "%s: a tag that does not end", path);
		for (char *q = p + 1; q < end; q++) {
			cr_assert(*q != '<', "%s: '<' inside a tag", path);
			quotes += *q == '"';
		}
		cr_assert(quotes % 2 == 0, "%s: unpaired quote in a tag", path);
		if (*name == '/') {
			size_t len = strcspn(name + 1, " >");

			cr_assert(depth > 0, "%s: closes what is not open", path);
			depth--;
			cr_assert(
			    strlen(stack[depth]) == len && !strncmp(stack[depth], name + 1, len),
			    "%s: </%.*s> closes <%s>", path, (int)len, name + 1, stack[depth]);
			free(stack[depth]);
		} else if (end[-1] != '/') {
			cr_assert(depth < 16);
			stack[depth] = strndup(name, strcspn(name, " >"));
			depth++;
		}
		p = end;
	}
	cr_assert_eq(depth, 0, "%s: %d elements left open", path, depth);
	free(t);
}

static json_t *load_json(const char *path)
{
	json_error_t jerr;
	json_t *j = json_load_file(path, 0, &jerr);

	cr_assert(j, "%s does not parse: %s", path, jerr.text);
	return j;
}

/* Two flows into one port of a star, the switch's buffer (which check
 * quotes with its file and line) and a gate, in folder @dir. */
static const char *small_in(const char *dir)
{
	static char path[600];

	snprintf(path, sizeof(path), "%s/s.yaml", dir);
	cr_assert(mkdir(dir, 0777) == 0 || errno == EEXIST, "cannot make %s", dir);
	write_file(path, "name: bytes\n"
			 "topology: {kind: star, hosts: 3}\n"
			 "switch: {buffer: {size: 16MB}}\n"
			 "workload:\n"
			 "  kind: flows\n"
			 "  flows:\n"
			 "    - {src: h0, dst: h2, size: 200KB}\n"
			 "    - {src: h1, dst: h2, size: 200KB}\n"
			 "expect:\n"
			 "  lossless_drops: 0\n");
	return path;
}

Test(bytes, run_in_a_folder_whose_name_is_not_utf8)
{
	char dir[400], out[420], xml[420];
	const char *scn, *path;
	struct ts_proc p;
	json_t *j;

	snprintf(dir, sizeof(dir), "%s", ts_tmp("d\xff"));
	scn = small_in(dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(xml, sizeof(xml), "%s/run.xml", dir);
	ts_exec(&p, (const char *const[]){"run", scn, "-o", out, "--junit", xml, NULL});
	cr_assert_eq(p.code, 0, "exit %d: %s", p.code, p.err);
	assert_terminal_text("stdout", p.out);
	assert_terminal_text("stderr", p.err);
	cr_assert(strstr(p.out, "d\\xff/out/results.json"), "%s", p.out);
	ts_proc_free(&p);

	snprintf(out + strlen(out), sizeof(out) - strlen(out), "/results.json");
	j = load_json(out);
	path = json_string_value(
	    json_object_get(json_object_get(json_object_get(j, "provenance"), "scenario"), "path"));
	cr_assert(path && strstr(path, "d\\xff/s.yaml"), "%s", path ? path : "(none)");
	/* the gate's where names the file too */
	path = json_string_value(
	    json_object_get(json_array_get(json_object_get(j, "expect"), 0), "where"));
	cr_assert(path && strstr(path, "d\\xff/s.yaml:10"), "%s", path ? path : "(none)");
	json_decref(j);
	assert_xml_document(xml);
}

/* sweep.json and tune.json written, and the folder taken back on resume
 * (the path read back from them is the path given) */
Test(bytes, sweep_and_tune_in_a_folder_whose_name_is_not_utf8)
{
	char dir[400], out[420], spec[450];
	const char *scn;
	struct ts_proc p;
	json_t *j;

	snprintf(dir, sizeof(dir), "%s", ts_tmp("s\xff"));
	scn = small_in(dir);
	snprintf(out, sizeof(out), "%s/sweep", dir);
	snprintf(spec, sizeof(spec), "%s/sweep.json", out);
	for (int k = 0; k < 2; k++) { /* the second time, the same sweep resumed */
		ts_exec(&p, (const char *const[]){"sweep", scn, "--vary",
						  "switch.ecn.kmin=5KB,10KB", "-o", out, NULL});
		cr_assert_eq(p.code, 0, "exit %d: %s", p.code, p.err);
		cr_assert(!k || strstr(p.out, "0 ran, 2 reused"), "%s", p.out);
		ts_proc_free(&p);
	}
	j = load_json(spec);
	cr_assert(strstr(json_string_value(json_object_get(json_object_get(j, "scenario"), "path")),
			 "s\\xff/s.yaml"));
	json_decref(j);

	snprintf(out, sizeof(out), "%s/tune", dir);
	snprintf(spec, sizeof(spec), "%s/tune.json", out);
	for (int k = 0; k < 2; k++) {
		ts_exec(&p,
			(const char *const[]){"tune", scn, "--vary", "switch.ecn.kmin=5KB..50KB",
					      "--minimize", "fct_us.p99", "-o", out, NULL});
		cr_assert_eq(p.code, 0, "exit %d: %s", p.code, p.err);
		ts_proc_free(&p);
	}
	json_decref(load_json(spec));
}

/* UTF-8 in a path passes unchanged into JSON, the terminal and XML. */
Test(bytes, utf8_path_unchanged)
{
	char dir[400], out[420], xml[420];
	const char *scn, *path;
	struct ts_proc p;
	json_t *j;
	char *t;

	snprintf(dir, sizeof(dir), "%s", ts_tmp("caf\xc3\xa9-\xe6\x97\xa5"));
	scn = small_in(dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(xml, sizeof(xml), "%s/check.xml", dir);
	ts_exec(&p, (const char *const[]){"run", scn, "-o", out, NULL});
	cr_assert_eq(p.code, 0, "exit %d: %s", p.code, p.err);
	cr_assert(strstr(p.out, "caf\xc3\xa9-\xe6\x97\xa5/out/results.json"), "%s", p.out);
	ts_proc_free(&p);
	snprintf(out + strlen(out), sizeof(out) - strlen(out), "/results.json");
	j = load_json(out);
	path = json_string_value(
	    json_object_get(json_object_get(json_object_get(j, "provenance"), "scenario"), "path"));
	cr_assert(path && strstr(path, "caf\xc3\xa9-\xe6\x97\xa5/s.yaml"), "%s", path);
	json_decref(j);
	ts_exec(&p, (const char *const[]){"check", scn, "--junit", xml, NULL});
	cr_assert_eq(p.code, 0, "exit %d: %s", p.code, p.err);
	ts_proc_free(&p);
	assert_xml_document(xml);
	t = ts_slurp(xml);
	cr_assert(strstr(t, "caf\xc3\xa9-\xe6\x97\xa5/s.yaml"), "%s", t);
	free(t);
}

/* The scenario of small_in in a folder named c<0xfe><0xff>. */
static const char *small_not_utf8(char *dir, size_t size)
{
	snprintf(dir, size, "%s", ts_tmp("c\xfe\xff"));
	return small_in(dir);
}

Test(bytes, check_json_of_a_path_that_is_not_utf8)
{
	char dir[400];
	const char *scn = small_not_utf8(dir, sizeof(dir));
	struct ts_proc p;
	json_t *j;

	ts_exec(&p, (const char *const[]){"check", scn, "--json", NULL});
	cr_assert_eq(p.code, 0, "exit %d: %s", p.code, p.err);
	j = json_loads(p.out, 0, NULL);
	cr_assert(j, "check --json is not JSON: %s", p.out);
	json_decref(j);
	ts_proc_free(&p);

	/* for people: the path shown with its bytes as \xNN */
	ts_exec(&p, (const char *const[]){"check", scn, NULL});
	cr_assert_eq(p.code, 0, "exit %d: %s", p.code, p.err);
	assert_terminal_text("stdout", p.out);
	cr_assert(strstr(p.out, "c\\xfe\\xff/s.yaml"), "%s", p.out);
	ts_proc_free(&p);
}

Test(bytes, check_sarif_of_a_path_that_is_not_utf8)
{
	char dir[400], sarif[420];
	const char *scn = small_not_utf8(dir, sizeof(dir));
	struct ts_proc p;
	json_t *j, *res, *r;
	size_t i;
	int located = 0;

	snprintf(sarif, sizeof(sarif), "%s/c.sarif", dir);
	ts_exec(&p, (const char *const[]){"check", scn, "--sarif", sarif, NULL});
	cr_assert_eq(p.code, 0, "exit %d: %s", p.code, p.err);
	ts_proc_free(&p);
	/* SARIF 2.1.0 3.4.3: artifactLocation.uri is a URI reference, so
	 * the bytes of the path are percent-encoded (RFC 3986 2.1) */
	j = load_json(sarif);
	res = json_object_get(json_array_get(json_object_get(j, "runs"), 0), "results");
	json_array_foreach(res, i, r) {
		json_t *loc = json_array_get(json_object_get(r, "locations"), 0);
		const char *uri = json_string_value(json_object_get(
		    json_object_get(json_object_get(loc, "physicalLocation"), "artifactLocation"),
		    "uri"));

		if (!uri)
			continue;
		located++;
		cr_assert(strstr(uri, "c%FE%FF/s.yaml"), "%s", uri);
	}
	cr_assert(located > 0);
	json_decref(j);
}

Test(bytes, check_junit_of_a_path_that_is_not_utf8)
{
	char dir[400], xml[420], *t;
	const char *scn = small_not_utf8(dir, sizeof(dir));
	struct ts_proc p;

	snprintf(xml, sizeof(xml), "%s/c.xml", dir);
	ts_exec(&p, (const char *const[]){"check", scn, "--junit", xml, NULL});
	cr_assert_eq(p.code, 0, "exit %d: %s", p.code, p.err);
	ts_proc_free(&p);
	assert_xml_document(xml);
	t = ts_slurp(xml);
	cr_assert(strstr(t, "c\\xfe\\xff/s.yaml"), "%s", t);
	free(t);
}

/*
 * A SONiC config_db.json whose lossless profile is named with a terminal
 * escape code (written "\u001b" in the JSON): the layout of
 * tests/sonic/azure.json (SONiC's Configuration.md and qos_config.j2),
 * with the 300 m cable made 3000 m so that its headroom falls short.
 */
static const char *sonic_with_escape_code(void)
{
	char *text = ts_slurp("tests/sonic/azure.json"), *a, *b, yaml[800];
	static char scn[400];
	const char *cfg = ts_tmp("esc.json");

	cr_assert(text);
	a = replace_all(text, "pg_lossless_100000_300m_profile", "pg_lossless\\u001b[31m_profile");
	b = replace_all(a, "\"300m\"", "\"3000m\"");
	write_file(cfg, b);
	free(text);
	free(a);
	free(b);
	snprintf(scn, sizeof(scn), "%s", ts_tmp("esc.yaml"));
	snprintf(yaml, sizeof(yaml),
		 "name: esc\n"
		 "topology: {kind: star, hosts: 4}\n"
		 "switch: {sonic: %s}\n"
		 "workload: {kind: incast, senders: 2, size: 100KB}\n",
		 cfg);
	write_file(scn, yaml);
	return scn;
}

/* The line of the profile's xoff in esc.json, as in azure.json. */
#define ESC_XOFF_LINE 66

Test(bytes, sonic_profile_with_escape_code_shown)
{
	const char *scn = sonic_with_escape_code(), *line, *xml = ts_tmp("esc.xml");
	char at[100], *t;
	struct ts_proc p;

	ts_exec(&p, (const char *const[]){"check", scn, "--junit", xml, NULL});
	cr_assert_eq(p.code, 1, "exit %d: %s", p.code, p.err); /* HEADROOM_SHORT is an error */
	assert_terminal_text("stdout", p.out);
	line = ts_line_with(p.out, "HEADROOM_SHORT", "BUFFER_PROFILE");
	cr_assert(line, "%s", p.out);
	/* the profile's name with ESC as \x1b, and the line of its xoff */
	snprintf(at, sizeof(at), "esc.json:%d BUFFER_PROFILE|pg_lossless\\x1b[31m_profile|xoff",
		 ESC_XOFF_LINE);
	cr_assert(strstr(line, at), "%s", line);
	ts_proc_free(&p);
	assert_xml_document(xml);
	t = ts_slurp(xml);
	cr_assert(strstr(t, at), "%s", t);
	free(t);
}

Test(bytes, sonic_profile_with_escape_code_located_in_json)
{
	const char *scn = sonic_with_escape_code();
	struct ts_proc p;
	json_t *j, *f;
	size_t i;
	int found = 0;

	ts_exec(&p, (const char *const[]){"check", scn, "--json", NULL});
	cr_assert_eq(p.code, 1, "exit %d: %s", p.code, p.err);
	j = json_loads(p.out, 0, NULL);
	cr_assert(j, "check --json is not JSON: %s", p.out);
	/* the name exactly (JSON holds ESC as \u001b), and its place */
	json_array_foreach(json_object_get(j, "findings"), i, f) {
		if (strcmp(json_string_value(json_object_get(f, "code")), "HEADROOM_SHORT"))
			continue;
		found = 1;
		cr_assert_str_eq(json_string_value(json_object_get(f, "key")),
				 "BUFFER_PROFILE|pg_lossless\x1b[31m_profile|xoff");
		cr_assert(strstr(json_string_value(json_object_get(f, "file")), "esc.json"));
		cr_assert_eq(json_integer_value(json_object_get(f, "line")), ESC_XOFF_LINE);
	}
	cr_assert(found);
	json_decref(j);
	ts_proc_free(&p);
}

Test(bytes, sonic_profile_with_escape_code_located_in_sarif)
{
	const char *scn = sonic_with_escape_code(), *sarif = ts_tmp("esc.sarif");
	struct ts_proc p;
	json_t *j, *f, *res;
	size_t i;
	int found = 0;

	ts_exec(&p, (const char *const[]){"check", scn, "--sarif", sarif, NULL});
	cr_assert_eq(p.code, 1, "exit %d: %s", p.code, p.err);
	ts_proc_free(&p);
	/* a pull request shows the finding on the profile's line */
	j = load_json(sarif);
	res = json_object_get(json_array_get(json_object_get(j, "runs"), 0), "results");
	json_array_foreach(res, i, f) {
		json_t *pl;

		if (strcmp(json_string_value(json_object_get(f, "ruleId")), "HEADROOM_SHORT"))
			continue;
		found = 1;
		pl = json_object_get(json_array_get(json_object_get(f, "locations"), 0),
				     "physicalLocation");
		cr_assert(pl, "HEADROOM_SHORT has no location");
		cr_assert(strstr(json_string_value(json_object_get(
				     json_object_get(pl, "artifactLocation"), "uri")),
				 "esc.json"));
		cr_assert_eq(
		    json_integer_value(json_object_get(json_object_get(pl, "region"), "startLine")),
		    ESC_XOFF_LINE);
	}
	cr_assert(found);
	json_decref(j);
}

Test(bytes, sonic_profile_with_escape_code_imported)
{
	struct ts_proc p;

	sonic_with_escape_code();
	ts_exec(&p, (const char *const[]){"import", "sonic", ts_tmp("esc.json"), NULL});
	cr_assert_eq(p.code, 0, "exit %d: %s", p.code, p.err);
	assert_terminal_text("stdout", p.out);
	cr_assert(ts_line_with(p.out, "pfc: {headroom: 165888",
			       "# BUFFER_PROFILE pg_lossless\\x1b[31m_profile"),
		  "%s", p.out);
	ts_proc_free(&p);
}

/*
 * NCCL_* values of a Kubernetes Deployment (the layout of
 * tests/pod/deployment.yaml, from the Kubernetes Deployment and EnvVar
 * references) with a newline and an escape code in them: import keeps
 * each on its line, so no value makes a YAML key of its own.
 */
Test(bytes, pod_values_with_newlines_imported)
{
	const char *pod = ts_tmp("pod.yaml");
	struct ts_proc p;

	write_file(pod,
		   "apiVersion: apps/v1\n"
		   "kind: Deployment\n"
		   "metadata:\n"
		   "  name: infer\n"
		   "spec:\n"
		   "  replicas: 2\n"
		   "  selector:\n"
		   "    matchLabels: {app: infer}\n"
		   "  template:\n"
		   "    metadata:\n"
		   "      labels: {app: infer}\n"
		   "    spec:\n"
		   "      containers:\n"
		   "        - name: server\n"
		   "          image: example/infer:1\n"
		   "          env:\n"
		   "            - {name: NCCL_DEBUG, value: \"W\\e[31mARN\\nfoo: 1\"}\n"
		   "            - {name: NCCL_IB_QPS_PER_CONNECTION, value: \"2\\nevil: 1\"}\n");
	ts_exec(&p, (const char *const[]){"import", "pod", pod, NULL});
	cr_assert_eq(p.code, 0, "exit %d: %s", p.code, p.err);
	assert_terminal_text("stdout", p.out);
	cr_assert_null(strstr(p.out, "\nfoo:"), "%s", p.out);
	cr_assert_null(strstr(p.out, "\nevil:"), "%s", p.out);
	cr_assert(strstr(p.out, "# NCCL_DEBUG=W\\x1b[31mARN\\x0afoo: 1    # line 17"), "%s", p.out);
	ts_proc_free(&p);
}
