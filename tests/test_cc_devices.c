/*
 * mlx5 cc_params dumps of several devices, rp_min_rate against rp_max_rate,
 * and files that are no cc_params, through the reader and the rocesim
 * binary: what run takes, refuses and check and import say.
 *
 * The samples are written as `grep . /sys/kernel/debug/mlx5/0000:3b:00.[01]/cc_params/[a-z]*`
 * prints them: "path:value" per line, the shell's
 * sorted order, the path as the kernel makes it: the mlx5 core creates
 * /sys/kernel/debug/mlx5/<dev_name(), the PCI address> (Linux
 * drivers/net/ethernet/mellanox/mlx5/core/debugfs.c, mlx5_debugfs_root and
 * dbg_root) and the mlx5 IB driver adds cc_params/ with one file per
 * parameter under it (drivers/infiniband/hw/mlx5/cong.c,
 * mlx5_ib_init_cong_debugfs, mlx5_ib_dbg_cc_name); the values are a
 * ConnectX-6 Dx's defaults (tests/mlnx/cc-grep-r-cx6dx.txt), the second
 * function's rp_gd 7 in cc-grep-two-devices.txt.
 * tests/mlnx/hw-counters.txt is
 * `grep . /sys/class/infiniband/mlx5_0/ports/1/hw_counters/[a-z]*`: the counter names of
 * drivers/infiniband/hw/mlx5/counters.c (basic_q_cnts, out_of_seq_q_cnts, retrans_q_cnts,
 * cong_cnts, extended_err_cnts, roce_accl_cnts) and the core's lifespan file.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "sim/readers/mlnx.h"

#define TWO "tests/mlnx/cc-grep-two-devices.txt"
#define SAME "tests/mlnx/cc-grep-two-devices-same.txt"
#define MINMAX "tests/mlnx/cc-min-above-max.txt"
#define HWC "tests/mlnx/hw-counters.txt"

static void setup(void)
{
	ts_proc_setup("cc_devices");
}

TestSuite(cc_devices, .init = setup, .fini = ts_proc_teardown, .timeout = 120);

/* A small incast naming @cc (YAML for nic.cc_params) with @nics NICs a server. */
static const char *scenario(const char *name, const char *cc, int nics)
{
	const char *path = ts_tmp(name);
	char cwd[1024];
	FILE *f = fopen(path, "w");

	cr_assert(f && getcwd(cwd, sizeof(cwd)));
	fprintf(f,
		"name: %s\n"
		"topology: {kind: star, hosts: 3, nics_per_host: %d}\n"
		"nic:\n"
		"  cc_params: %s\n"
		"workload: {kind: incast, senders: 2, size: 64KB}\n",
		name, nics, cc);
	fclose(f);
	return path;
}

/* "{file: <source>/@rel, device: @dev}", or the path alone when @dev is NULL */
static const char *cc_yaml(const char *rel, const char *dev)
{
	static char buf[2][1200];
	static int k;
	char cwd[1024];

	k ^= 1;
	cr_assert(getcwd(cwd, sizeof(cwd)));
	if (dev)
		snprintf(buf[k], sizeof(buf[k]), "{file: %s/%s, device: \"%s\"}", cwd, rel, dev);
	else
		snprintf(buf[k], sizeof(buf[k]), "%s/%s", cwd, rel);
	return buf[k];
}

/* results.json's effective.nic.dcqcn.@name of the run in @dir */
static long effective(const char *dir, const char *name)
{
	char path[600], key[80], *text, *at;
	long v;

	snprintf(path, sizeof(path), "%s/results.json", dir);
	text = ts_slurp(path);
	cr_assert(text, "no %s", path);
	at = strstr(text, "\"effective\"");
	cr_assert(at);
	at = strstr(at, "\"dcqcn\"");
	cr_assert(at);
	snprintf(key, sizeof(key), "\"%s\":", name);
	at = strstr(at, key);
	cr_assert(at, "no %s in effective.nic.dcqcn", name);
	v = strtol(at + strlen(key), NULL, 10);
	free(text);
	return v;
}

Test(cc_devices, reader_keeps_each_device)
{
	const char *dev[4];
	struct cc_params cc;
	struct cc_diff df[4];
	struct diag d = {0};
	char diff[300];

	cr_assert_eq(cc_params_read(TWO, &cc, &d), 0, "%s", d.msg);
	cr_assert_eq(cc.n, 44, "22 parameters of each device");
	cr_assert_str_eq(cc.v[0].device, "0000:3b:00.0");
	cr_assert_str_eq(cc.v[0].name, "np_cnp_dscp");
	cr_assert_str_eq(cc.v[22].device, "0000:3b:00.1");
	cr_assert_eq(cc_params_devices(&cc, dev, 4), 2);
	cr_assert_str_eq(dev[0], "0000:3b:00.0");
	cr_assert_str_eq(dev[1], "0000:3b:00.1");
	cr_assert_eq(cc_params_diff(&cc, dev[0], dev[1], df, 4), 1, "rp_gd alone differs");
	cr_assert_str_eq(df[0].a->name, "rp_gd");
	cr_assert_str_eq(df[0].a->value, "11");
	cr_assert_eq(df[0].a->line, 11);
	cr_assert_str_eq(df[0].b->value, "7");
	cr_assert_eq(df[0].b->line, 33);
	cr_assert_eq(cc_params_diff_str(&cc, dev[0], dev[1], diff, sizeof(diff)), 1);
	cr_assert_str_eq(diff, "rp_gd 11 (line 11) against 7 (line 33)");
	cr_assert_eq(cc_params_keep(&cc, "0000:3b:00.1"), 22);
	cr_assert_str_eq(cc.v[10].name, "rp_gd");
	cr_assert_str_eq(cc.v[10].value, "7");
	cc_params_free(&cc);

	/* the seed's one-device dump, and paths that name no device */
	cr_assert_eq(cc_params_read("experiments/configs/cc_params-seed.txt", &cc, &d), 0);
	cr_assert_eq(cc_params_devices(&cc, dev, 4), 1);
	cr_assert_str_eq(dev[0], "0000:3b:00.0");
	cc_params_free(&cc);
	cr_assert_eq(cc_params_parse("cc_params/rp_gd:11\nrp_ai_rate 5\n", 32, "mem", &cc, &d), 0,
		     "%s", d.msg);
	cr_assert_eq(cc_params_devices(&cc, dev, 4), 1);
	cr_assert_str_eq(dev[0], "");
	cc_params_free(&cc);
	/* lines without a device are every device's: one device here */
	cr_assert_eq(cc_params_read("tests/mlnx/cc-grep.txt", &cc, &d), 0);
	cr_assert_eq(cc_params_devices(&cc, dev, 4), 1);
	cr_assert_str_eq(dev[0], "0000:3b:00.0");
	cr_assert_eq(cc_params_keep(&cc, "0000:3b:00.0"), 4);
	cc_params_free(&cc);
}

Test(cc_devices, run_refuses_devices_that_differ)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"run", scenario("two.yaml", cc_yaml(TWO, NULL), 1), "-o",
				     ts_tmp("two-out"), NULL});
	cr_assert_eq(p.code, 2, "exit %d: %s", p.code, p.err);
	cr_assert(strstr(p.err,
			 TWO ":33: rp_gd: devices 0000:3b:00.0 and 0000:3b:00.1 give "
			     "different DCQCN parameters: rp_gd 11 (line 11) against 7 (line 33)"),
		  "%s", p.err);
	cr_assert(strstr(p.err, "device: 0000:3b:00.1}"), "says how to pick one: %s", p.err);
	cr_assert_eq(access(ts_tmp("two-out"), F_OK), -1, "nothing written");
	ts_proc_free(&p);

	/* two NICs a server: each would take its device, but the model has one set */
	ts_exec(&p, (const char *[]){"run", scenario("two-nics.yaml", cc_yaml(TWO, NULL), 2), "-o",
				     ts_tmp("two-nics-out"), NULL});
	cr_assert_eq(p.code, 2, "exit %d: %s", p.code, p.err);
	cr_assert(strstr(p.err, "rocesim gives every NIC one set of them"), "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"check", ts_tmp("two-nics.yaml"), NULL});
	cr_assert_eq(p.code, 1, "exit %d: %s", p.code, p.out);
	cr_assert(strstr(p.out, "error CC_PARAM_DEVICES "), "%s", p.out);
	cr_assert(strstr(p.out, "(2 devices for 2 NICs a server: device i would be NIC i, but "
				"rocesim gives all NICs one set of DCQCN parameters)"),
		  "%s", p.out);
	ts_proc_free(&p);
}

Test(cc_devices, device_picks_one)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"run", scenario("pick.yaml", cc_yaml(TWO, "0000:3b:00.1"), 1),
				     "-o", ts_tmp("pick-out"), "--quiet", NULL});
	cr_assert_eq(p.code, 0, "exit %d: %s", p.code, p.err);
	cr_assert_eq(effective(ts_tmp("pick-out"), "rp_gd"), 7);
	ts_proc_free(&p);
	{
		char path[600], *text;

		snprintf(path, sizeof(path), "%s/results.json", ts_tmp("pick-out"));
		text = ts_slurp(path);
		cr_assert(text && strstr(text, "\"cc_params_device\": \"0000:3b:00.1\""),
			  "effective.nic.dcqcn names the device taken");
		free(text);
	}
	ts_exec(&p,
		(const char *[]){"run", ts_tmp("pick.yaml"), "-o", ts_tmp("pick0-out"), "--quiet",
				 "--set", "nic.cc_params.device=0000:3b:00.0", NULL});
	cr_assert_eq(p.code, 0, "exit %d: %s", p.code, p.err);
	cr_assert_eq(effective(ts_tmp("pick0-out"), "rp_gd"), 11);
	ts_proc_free(&p);
	/* a device picked: check says nothing of the other */
	ts_exec(&p, (const char *[]){"check", ts_tmp("pick.yaml"), NULL});
	cr_assert_eq(p.code, 0, "exit %d: %s", p.code, p.out);
	cr_assert_null(strstr(p.out, "CC_PARAM_DEVICES"), "%s", p.out);
	cr_assert_null(strstr(p.out, "CC_PARAM_DUPLICATE"), "%s", p.out);
	ts_proc_free(&p);
}

Test(cc_devices, devices_that_agree_are_used_and_said)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"run", scenario("same.yaml", cc_yaml(SAME, NULL), 1), "-o",
				     ts_tmp("same-out"), "--quiet", NULL});
	cr_assert_eq(p.code, 0, "exit %d: %s", p.code, p.err);
	cr_assert_eq(effective(ts_tmp("same-out"), "rp_gd"), 11);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"check", ts_tmp("same.yaml"), NULL});
	cr_assert_eq(p.code, 0, "exit %d: %s", p.code, p.out);
	cr_assert(strstr(p.out, "info CC_PARAM_DEVICES "), "%s", p.out);
	cr_assert(strstr(p.out, "2 devices, 0000:3b:00.0 and 0000:3b:00.1: the dump's devices "
				"give the same DCQCN parameters: every NIC takes them"),
		  "%s", p.out);
	cr_assert_null(strstr(p.out, "CC_PARAM_DUPLICATE"), "each device's names once: %s", p.out);
	ts_proc_free(&p);
}

Test(cc_devices, check_names_both_devices)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"check", scenario("chk.yaml", cc_yaml(TWO, NULL), 1), NULL});
	cr_assert_eq(p.code, 1, "exit %d: %s", p.code, p.out);
	cr_assert(strstr(p.out, "error CC_PARAM_DEVICES "), "%s", p.out);
	cr_assert(strstr(p.out, "devices 0000:3b:00.0 and 0000:3b:00.1: the dump's devices give "
				"different DCQCN parameters: rp_gd 11 (line 11) against 7 (line "
				"33) (one NIC a server); run refuses it"),
		  "%s", p.out);
	cr_assert_null(strstr(p.out, "CC_PARAM_DUPLICATE"), "%s", p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"check", ts_tmp("chk.yaml"), "--json", NULL});
	cr_assert(strstr(p.out, "\"line\": 33"), "the second device's rp_gd: %s", p.out);
	ts_proc_free(&p);
}

Test(cc_devices, bad_device_or_key_refused)
{
	static const struct {
		const char *cc, *say;
	} bad[] = {
	    {"{file: F, device: \"0000:3b:00.2\"}",
	     "nic.cc_params.device: \"0000:3b:00.2\" is no device of"},
	    {"{file: F, dev: x}", "nic.cc_params.dev: unknown key (expected one of: file, device)"},
	    {"{device: \"0000:3b:00.1\"}", "nic.cc_params: needs file:"},
	};
	char cc[1200], *at;
	struct ts_proc p;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(cc, sizeof(cc), "%s", bad[i].cc);
		if ((at = strstr(cc, "F,"))) {
			char rest[200];

			snprintf(rest, sizeof(rest), "%s", at + 1);
			snprintf(at, sizeof(cc) - (size_t)(at - cc), "%s%s", cc_yaml(TWO, NULL),
				 rest);
		}
		ts_exec(&p, (const char *[]){"run", scenario("bad.yaml", cc, 1), "-o",
					     ts_tmp("bad-out"), NULL});
		cr_assert_eq(p.code, 2, "%s: exit %d: %s", bad[i].cc, p.code, p.err);
		cr_assert(strstr(p.err, bad[i].say), "%s: %s", bad[i].cc, p.err);
		cr_assert(strstr(p.err, "bad.yaml:4: "), "named at its line: %s", p.err);
		ts_proc_free(&p);
	}
	/* a file whose lines name no device */
	ts_exec(&p, (const char *[]){
			"run",
			scenario("nodev.yaml",
				 cc_yaml("experiments/configs/cc_params", "0000:3b:00.0"), 1),
			"-o", ts_tmp("nodev-out"), NULL});
	cr_assert_eq(p.code, 2, "exit %d: %s", p.code, p.err);
	cr_assert(strstr(p.err, "experiments/configs/cc_params names no device"), "%s", p.err);
	ts_proc_free(&p);
	/* a device --set on a scenario without a dump: refused, not dropped */
	ts_exec(&p, (const char *[]){"check", "experiments/incast-8to1.yaml", "--set",
				     "nic.cc_params.device=0000:3b:00.0", NULL});
	cr_assert_eq(p.code, 2, "exit %d: %s", p.code, p.err);
	cr_assert(strstr(p.err, "nic.cc_params.device: names a device of no file"), "%s", p.err);
	ts_proc_free(&p);
}

Test(cc_devices, import_shows_each_device)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"import", "cc-params", TWO, NULL});
	cr_assert_eq(p.code, 0, "exit %d: %s", p.code, p.err);
	cr_assert(strstr(p.out, "# " TWO ": 2 devices;"), "%s", p.out);
	cr_assert(strstr(p.out, "# device 0000:3b:00.0 (line 1 on)\nnic:\n  cc: dcqcn\n"
				"  dcqcn:\n    np_cnp_dscp: 48\n"),
		  "%s", p.out);
	cr_assert(strstr(p.out, "    rp_gd: 11\n"), "%s", p.out);
	cr_assert(strstr(p.out, "# device 0000:3b:00.1 (line 23 on) differs from 0000:3b:00.0: "
				"rp_gd 11 (line 11) against 7 (line 33)\n# nic:\n"),
		  "%s", p.out);
	cr_assert(strstr(p.out, "#     rp_gd: 7\n"), "%s", p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"import", "cc-params", SAME, NULL});
	cr_assert_eq(p.code, 0);
	cr_assert(strstr(p.out, "# device 0000:3b:00.1 (line 23 on): the same as 0000:3b:00.0\n"),
		  "%s", p.out);
	ts_proc_free(&p);
}

Test(cc_devices, import_refuses_hw_counters)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"import", "cc-params", HWC, NULL});
	cr_assert_eq(p.code, 2, "exit %d: %s", p.code, p.out);
	cr_assert_str_eq(p.out, "", "nothing printed: %s", p.out);
	cr_assert(strstr(p.err, "rocesim: " HWC ": no cc_params name found: none of its 28 "
				"name:value lines (\"duplicate_request\" at line 1, ...)"),
		  "%s", p.err);
	ts_proc_free(&p);
	/* the same file given to a scenario: run refuses its first line */
	ts_exec(&p, (const char *[]){"run", scenario("hwc.yaml", cc_yaml(HWC, NULL), 1), "-o",
				     ts_tmp("hwc-out"), NULL});
	cr_assert_eq(p.code, 2, "exit %d: %s", p.code, p.err);
	cr_assert(strstr(p.err, HWC ":1: duplicate_request: no such mlx5 cc_params name"), "%s",
		  p.err);
	ts_proc_free(&p);
}

Test(cc_devices, min_rate_above_max_rate)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"run", scenario("mm.yaml", cc_yaml(MINMAX, NULL), 1), "-o",
				     ts_tmp("mm-out"), NULL});
	cr_assert_eq(p.code, 2, "exit %d: %s", p.code, p.err);
	cr_assert(strstr(p.err, MINMAX ":10: rp_min_rate: 2000 Mb/s is above rp_max_rate 1000 "
				       "Mb/s ("),
		  "%s", p.err);
	cr_assert(strstr(p.err, MINMAX ":7)"), "rp_max_rate's line too: %s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"check", ts_tmp("mm.yaml"), NULL});
	cr_assert_eq(p.code, 1, "exit %d: %s", p.code, p.out);
	cr_assert(strstr(p.out, "error CC_PARAM_ORDER nic.dcqcn.rp_min_rate 2000 ("), "%s", p.out);
	cr_assert(strstr(p.out, MINMAX ":10 rp_min_rate); nic.dcqcn.rp_max_rate 1000 ("), "%s",
		  p.out);
	cr_assert(strstr(p.out, MINMAX ":7 rp_max_rate)"), "%s", p.out);
	ts_proc_free(&p);
	/* the scenario's own keys: named at --set */
	ts_exec(&p, (const char *[]){"run", scenario("mm2.yaml", cc_yaml(SAME, NULL), 1), "-o",
				     ts_tmp("mm2-out"), "--set", "nic.dcqcn.rp_min_rate=5000",
				     "--set", "nic.dcqcn.rp_max_rate=4000", NULL});
	cr_assert_eq(p.code, 2, "exit %d: %s", p.code, p.err);
	cr_assert(strstr(p.err, "--set: nic.dcqcn.rp_min_rate: 5000 Mb/s is above rp_max_rate "
				"4000 Mb/s (nic.dcqcn.rp_max_rate)"),
		  "%s", p.err);
	ts_proc_free(&p);
	/* rp_max_rate 0 is the port's speed: any minimum goes */
	ts_exec(&p, (const char *[]){"run", ts_tmp("mm2.yaml"), "-o", ts_tmp("mm3-out"), "--quiet",
				     "--set", "nic.dcqcn.rp_min_rate=5000", NULL});
	cr_assert_eq(p.code, 0, "exit %d: %s", p.code, p.err);
	ts_proc_free(&p);
}

Test(cc_devices, run_summary_says_check_errors)
{
	char cwd[1024], set[1200];
	struct ts_proc p;

	cr_assert(getcwd(cwd, sizeof(cwd)));
	/* the seed's mistakes with the good cc_params: run goes, check finds errors */
	snprintf(set, sizeof(set), "nic.cc_params=%s/experiments/configs/cc_params.txt", cwd);
	ts_exec(&p, (const char *[]){"run", "experiments/configs-seed-mistakes.yaml", "-o",
				     ts_tmp("seed-out"), "--set", set, "--set", "workload.size=1MB",
				     NULL});
	cr_assert_eq(p.code, 0, "exit %d: %s", p.code, p.err);
	cr_assert(strstr(p.out, "\n  check      1 error (rocesim check "
				"experiments/configs-seed-mistakes.yaml), the first: "
				"DSCP_NOT_LOSSLESS "),
		  "%s", p.out);
	ts_proc_free(&p);
	/* a scenario without errors: no such line */
	ts_exec(&p, (const char *[]){"run", scenario("clean.yaml", cc_yaml(SAME, NULL), 1), "-o",
				     ts_tmp("clean-out"), NULL});
	cr_assert_eq(p.code, 0, "exit %d: %s", p.code, p.err);
	cr_assert_null(strstr(p.out, "  check "), "%s", p.out);
	ts_proc_free(&p);
}
