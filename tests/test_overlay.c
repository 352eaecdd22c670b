/*
 * Overlays (`--with FILE`, scn_load_with): partial scenarios merged onto a
 * scenario before the schema load. Mappings merge key by key, lists are
 * replaced, KEY+ appends; later overlays win over earlier ones and --set
 * over all; errors name the overlay's file and line; paths an overlay names
 * are relative to its folder; and a run with overlays gives the results of
 * the same scenario written out in full. Every overlay in tests/bad/overlay/
 * is refused on one line naming itself.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc.h"
#include "sim/config/scenario.h"
#include "sim/readers/topo_read.h"

static void setup(void)
{
	ts_proc_setup("overlay");
}

TestSuite(overlay, .init = setup, .fini = ts_proc_teardown, .timeout = 120);

static const char base_yaml[] = "name: base\n"
				"topology:\n"
				"  kind: leaf_spine\n"
				"  leaves: 2\n"
				"  spines: 2\n"
				"  hosts_per_leaf: 2\n"
				"switch:\n"
				"  lossless: [3]\n"
				"  ecn: {kmin: 100KB, kmax: 1MB}\n"
				"workload:\n"
				"  kind: permutation\n"
				"  size: 100KB\n"
				"faults:\n"
				"  - {kind: link_down, link: leaf0-spine1, at: 10us}\n";

/* Write @text to @name in the temporary folder; returns its path. */
static const char *put(const char *name, const char *text)
{
	const char *path = ts_tmp(name);
	FILE *f = fopen(path, "w");

	cr_assert(f, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
	return path;
}

/* Load base.yaml with @n overlays (files in the temporary folder) and @n_sets --set. */
static int load(const char *const *overlays, size_t n, const char *const *sets, size_t n_sets,
		struct scenario **s, struct diag *d)
{
	struct scn_load_opts o = {
	    .overlays = overlays, .n_overlays = n, .sets = sets, .n_sets = n_sets};

	return scn_load_with(put("base.yaml", base_yaml), &o, s, d);
}

/* Resolve @s against its topology, as run does. */
static int resolve(struct scenario *s, struct diag *d)
{
	struct topo *t;
	int err = topo_build(&s->topo, &t, d);

	if (!err)
		err = scn_resolve(s, t, d);
	topo_free(t);
	return err;
}

Test(overlay, a_mapping_merges_key_by_key)
{
	const char *ov[] = {put("kmin.yaml", "switch:\n  ecn:\n    kmin: 200KB\n")};
	struct scenario *s;
	struct diag d = {0};

	cr_assert_eq(load(ov, 1, NULL, 0, &s, &d), 0, "%s", d.msg);
	cr_assert_eq(resolve(s, &d), 0, "%s", d.msg);
	cr_expect_eq(s->sw.ecn.kmin, 200000);
	cr_expect_eq(s->sw.ecn.kmax, 1000000, "kmax of the scenario is kept");
	cr_expect_eq(s->sw.lossless, 1u << 3, "switch.lossless of the scenario is kept");
	cr_expect_eq(s->n_faults, 1);
	cr_expect_str_eq(s->name, "base");
	scn_free(s);
}

Test(overlay, a_list_replaces_and_key_plus_appends)
{
	const char *repl[] = {put("repl.yaml",
				  "switch: {lossless: [4]}\n"
				  "faults:\n"
				  "  - {kind: link_down, link: leaf1-spine0, at: 5us}\n")};
	const char *app[] = {put("app.yaml",
				 "switch: {lossless+: [4]}\n"
				 "faults+:\n"
				 "  - {kind: link_down, link: leaf1-spine0, at: 5us}\n"
				 "  - {kind: link_down, link: leaf1-spine1, at: 6us}\n")};
	struct scenario *s;
	struct diag d = {0};

	cr_assert_eq(load(repl, 1, NULL, 0, &s, &d), 0, "%s", d.msg);
	cr_assert_eq(resolve(s, &d), 0, "%s", d.msg);
	cr_expect_eq(s->sw.lossless, 1u << 4, "the list is replaced");
	cr_assert_eq(s->n_faults, 1, "the list is replaced");
	cr_expect_eq(s->faults[0].at, 5000000);
	scn_free(s);

	cr_assert_eq(load(app, 1, NULL, 0, &s, &d), 0, "%s", d.msg);
	cr_assert_eq(resolve(s, &d), 0, "%s", d.msg);
	cr_expect_eq(s->sw.lossless, (1u << 3) | (1u << 4), "lossless+ appends");
	cr_assert_eq(s->n_faults, 3, "faults+ appends");
	cr_expect_eq(s->faults[0].at, 10000000);
	cr_expect_eq(s->faults[1].at, 5000000);
	cr_expect_eq(s->faults[2].at, 6000000);
	scn_free(s);
}

Test(overlay, later_overlays_win_and_set_wins_over_all)
{
	const char *ov[] = {put("a.yaml", "switch: {ecn: {kmin: 200KB, kmax: 2MB}}\nseed: 5\n"),
			    put("b.yaml", "switch: {ecn: {kmin: 300KB}}\n")};
	const char *sets[] = {"seed=9"};
	struct scenario *s;
	struct diag d = {0};

	cr_assert_eq(load(ov, 2, sets, 1, &s, &d), 0, "%s", d.msg);
	cr_expect_eq(s->sw.ecn.kmin, 300000, "the later overlay wins");
	cr_expect_eq(s->sw.ecn.kmax, 2000000, "what the later one leaves is the earlier one's");
	cr_expect_eq(s->seed, 9, "--set wins over --with");
	scn_free(s);
}

Test(overlay, an_error_names_the_overlay_file_and_line)
{
	const char *ov = put("bad.yaml", "# a unit amiss\nswitch:\n  ecn:\n    kmin: 2XB\n");
	const char *ovs[] = {ov};
	struct scenario *s;
	struct diag d = {0};

	cr_assert_neq(load(ovs, 1, NULL, 0, &s, &d), 0);
	cr_expect_str_eq(d.file, ov);
	cr_expect_eq(d.line, 4, "line %d: %s", d.line, d.msg);
	cr_expect_str_eq(d.path, "switch.ecn.kmin");

	/* an error at a key the scenario wrote still names the scenario */
	ovs[0] = put("one-spine.yaml", "topology: {spines: 1}\n");
	cr_assert_eq(load(ovs, 1, NULL, 0, &s, &d), 0, "%s", d.msg);
	cr_assert_neq(resolve(s, &d), 0);
	scn_locate(s, &d);
	cr_expect(strstr(d.file, "base.yaml"), "%s:%d: %s", d.file, d.line, d.msg);
	cr_expect_eq(d.line, 14, "%s:%d: %s: %s", d.file, d.line, d.path, d.msg);
	scn_free(s);
}

Test(overlay, a_missing_overlay_is_refused)
{
	const char *ovs[] = {ts_tmp("nope.yaml")};
	struct scenario *s;
	struct diag d = {0};

	cr_assert_neq(load(ovs, 1, NULL, 0, &s, &d), 0);
	cr_expect_str_eq(d.file, ovs[0]);
	cr_expect(strstr(d.msg, "cannot read overlay"), "%s", d.msg);
}

Test(overlay, paths_in_an_overlay_are_relative_to_its_folder)
{
	char *cc = ts_slurp("experiments/configs/cc_params.txt");
	const char *ovs[1];
	struct scenario *s;
	struct diag d = {0};

	cr_assert(cc);
	put("cc.txt", cc);
	free(cc);
	ovs[0] = put("cc.yaml", "nic: {cc_params: cc.txt}\n");
	/* from the source root: the overlay is in the temporary folder, the scenario not */
	cr_assert_eq(scn_load_with("tests/good/two-flows.yaml",
				   &(struct scn_load_opts){.overlays = ovs, .n_overlays = 1}, &s,
				   &d),
		     0, "%s:%d: %s", d.file, d.line, d.msg);
	cr_expect_str_eq(s->cfg.cc_params, ts_tmp("cc.txt"));
	scn_free(s);
}

/* results.json of @dir without its "run" block, as text. */
static char *results(const char *dir)
{
	char path[400];
	json_t *j;
	char *text;

	snprintf(path, sizeof(path), "%s/results.json", dir);
	j = json_load_file(path, 0, NULL);
	cr_assert(j, "no %s", path);
	json_object_del(j, "run");
	/* names the files read, which differ between the runs compared */
	json_object_del(j, "provenance");
	text = json_dumps(j, JSON_SORT_KEYS | JSON_INDENT(1));
	json_decref(j);
	return text;
}

Test(overlay, run_with_gives_the_results_of_the_scenario_written_in_full)
{
	const char *base = put("base.yaml", base_yaml);
	const char *ov1 = put("w1.yaml", "switch:\n  ecn: {kmin: 20KB, kmax: 40KB}\n"
					 "faults+:\n"
					 "  - {kind: link_down, link: leaf1-spine1, at: 3us}\n");
	const char *ov2 = put("w2.yaml", "workload: {size: 300KB}\n");
	const char *full = put("full.yaml", "name: base\n"
					    "topology:\n"
					    "  kind: leaf_spine\n"
					    "  leaves: 2\n"
					    "  spines: 2\n"
					    "  hosts_per_leaf: 2\n"
					    "switch:\n"
					    "  lossless: [3]\n"
					    "  ecn: {kmin: 20KB, kmax: 40KB}\n"
					    "workload:\n"
					    "  kind: permutation\n"
					    "  size: 300KB\n"
					    "faults:\n"
					    "  - {kind: link_down, link: leaf0-spine1, at: 10us}\n"
					    "  - {kind: link_down, link: leaf1-spine1, at: 3us}\n");
	struct ts_proc p;
	char *a, *b;

	ts_exec(&p, (const char *[]){"run", base, "--with", ov1, "--with", ov2, "-o",
				     ts_tmp("out-with"), "--quiet", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"run", full, "-o", ts_tmp("out-full"), "--quiet", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"run", base, "-o", ts_tmp("out-base"), "--quiet", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	a = results(ts_tmp("out-with"));
	b = results(ts_tmp("out-full"));
	cr_expect_str_eq(a, b);
	free(b);
	b = results(ts_tmp("out-base"));
	cr_expect_str_neq(a, b, "the overlays change nothing");
	free(a);
	free(b);
}

Test(overlay, check_takes_with_too)
{
	const char *ov = put("c.yaml", "switch: {ecn: {kmin: 2XB}}\n");
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"check", put("base.yaml", base_yaml), "--with", ov, NULL});
	cr_expect_eq(p.code, 2, "%s", p.err);
	cr_expect(strstr(p.err, "c.yaml:1: switch.ecn.kmin: \"2XB\""), "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"check", put("base.yaml", base_yaml), "--with", NULL});
	cr_expect_eq(p.code, 2, "%s", p.err);
	cr_expect(strstr(p.err, "--with needs an overlay file"), "%s", p.err);
	ts_proc_free(&p);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

Test(overlay, every_bad_overlay_is_refused_on_one_line_naming_itself)
{
	DIR *dir = opendir("tests/bad/overlay");
	struct dirent *e;
	char *names[64];
	size_t n = 0;

	cr_assert(dir, "no tests/bad/overlay folder");
	while ((e = readdir(dir)) && n < 64) {
		size_t len = strlen(e->d_name);

		if (len > 5 && !strcmp(e->d_name + len - 5, ".yaml"))
			names[n++] = strdup(e->d_name);
	}
	closedir(dir);
	qsort(names, n, sizeof(names[0]), by_name);
	cr_assert_geq(n, 8, "tests/bad/overlay holds %zu overlays", n);
	for (size_t i = 0; i < n; i++) {
		char file[300], prefix[400], *text, *want;
		struct ts_proc p;

		snprintf(file, sizeof(file), "tests/bad/overlay/%s", names[i]);
		text = ts_slurp(file);
		cr_assert(text && !strncmp(text, "# error: :", 10), "%s: no \"# error: :LINE:\"",
			  file);
		want = text + 9;
		want[strcspn(want, "\n")] = '\0';
		ts_exec(&p, (const char *[]){"run", "tests/good/permutation.yaml", "--with", file,
					     "-o", ts_tmp("bad-out"), NULL});
		snprintf(prefix, sizeof(prefix), "rocesim: %s%.*s", file,
			 (int)strcspn(want + 1, ":") + 2, want);
		cr_expect_eq(p.code, 2, "%s: exit %d: %s", file, p.code, p.err);
		cr_expect(!strncmp(p.err, prefix, strlen(prefix)), "%s: expected \"%s\": %s", file,
			  prefix, p.err);
		cr_expect(strstr(p.err, want), "%s: lacks \"%s\": %s", file, want, p.err);
		cr_expect(strchr(p.err, '\n') == p.err + strlen(p.err) - 1, "%s: not one line: %s",
			  file, p.err);
		ts_proc_free(&p);
		free(text);
		free(names[i]);
	}
}
