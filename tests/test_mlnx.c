/*
 * Tests of the NVIDIA/Mellanox host config readers (sim/mlnx.c): mlnx_qos
 * output read to exact values, every kind of broken input refused with its
 * line, and cc_params in its grep, pasted-lines and folder forms. Inputs
 * are in tests/mlnx/ and experiments/configs/, named from the source root
 * (ROCESIM_SRC, set by meson test; "." when run by hand from there).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/readers/mlnx.h"
#include "support.h"

static struct mlnx_qos qos_ok(const char *rel)
{
	struct mlnx_qos q;
	struct diag d = {0};
	char msg[1024];
	int err = mlnx_qos_read(ts_src(rel), &q, &d);

	cr_assert_eq(err, 0, "%s: %s", rel, diag_str(&d, msg, sizeof(msg)));
	return q;
}

/* @rel is refused with -EINVAL at @line with @what in the message. */
static void qos_bad(const char *rel, int line, const char *what)
{
	struct mlnx_qos q;
	struct diag d = {0};
	char msg[1024];
	int err = mlnx_qos_read(ts_src(rel), &q, &d);

	diag_str(&d, msg, sizeof(msg));
	cr_assert_eq(err, -EINVAL, "%s: %d (%s)", rel, err, msg);
	cr_assert_eq(d.line, line, "%s: line %d, not %d: %s", rel, d.line, line, msg);
	cr_assert(strstr(msg, what), "%s: \"%s\" does not say \"%s\"", rel, msg, what);
	cr_assert(strstr(d.file, rel), "%s: diag names \"%s\"", rel, d.file);
}

/* The text @text is refused at @line with @what in the message. */
static void qos_text_bad(const char *text, size_t len, int line, const char *what)
{
	struct mlnx_qos q;
	struct diag d = {0};
	char msg[1024];
	int err = mlnx_qos_parse(text, len, "mem.txt", &q, &d);

	diag_str(&d, msg, sizeof(msg));
	cr_assert_eq(err, -EINVAL, "%d (%s) for:\n%s", err, msg, text);
	cr_assert_eq(d.line, line, "line %d, not %d: %s", d.line, line, msg);
	cr_assert(strstr(msg, what), "\"%s\" does not say \"%s\"", msg, what);
}

#define QOS_BAD(text, line, what) qos_text_bad(text, sizeof(text) - 1, line, what)

/* A sample in the layout mlnx-tools' mlnx_qos prints, completed: tests/mlnx/full.txt */
Test(mlnx, full_sample)
{
	struct mlnx_qos q = qos_ok("tests/mlnx/full.txt");
	static const uint8_t prio_tc[8] = {0, 0, 0, 3, 0, 0, 6, 0};

	cr_assert(strstr(q.file, "tests/mlnx/full.txt"));
	cr_assert(q.has_trust);
	cr_assert(q.trust_dscp);
	cr_assert_eq(q.trust_line, 2);
	cr_assert_eq(q.dscp_given, UINT64_MAX, "all 64 DSCPs are listed");
	for (int dscp = 0; dscp < 64; dscp++) {
		cr_assert_eq(q.dscp2prio[dscp], dscp >> 3, "DSCP %d", dscp);
		cr_assert_eq(q.dscp_line[dscp], 4 + (dscp >> 3), "DSCP %d", dscp);
	}
	cr_assert_eq(q.dscp2prio[26], 3);
	cr_assert_eq(q.dscp_line[26], 7);

	cr_assert(q.has_buffer);
	cr_assert_eq(q.rx_buffer[0], 130944);
	cr_assert_eq(q.rx_buffer[1], 130944);
	for (int i = 2; i < 8; i++)
		cr_assert_eq(q.rx_buffer[i], 0);
	for (int p = 0; p < 8; p++)
		cr_assert_eq(q.prio_buffer[p], p == 3, "priority %d", p);
	cr_assert(q.has_cable);
	cr_assert_eq(q.cable_len, 7);

	cr_assert(q.has_pfc);
	cr_assert_eq(q.pfc_enabled, 1u << 3, "PFC on priority 3 only: 0x%02x", q.pfc_enabled);
	cr_assert_eq(q.pfc_line, 16);

	cr_assert(q.has_tc);
	for (int p = 0; p < 8; p++)
		cr_assert_eq(q.prio_tc[p], prio_tc[p], "priority %d", p);
	cr_assert_str_eq(q.tsa[0], "ets");
	cr_assert_eq(q.bw[0], 50);
	cr_assert_eq(q.tc_line[0], 18);
	cr_assert_str_eq(q.tsa[3], "ets");
	cr_assert_eq(q.bw[3], 50);
	cr_assert_eq(q.tc_line[3], 25);
	cr_assert_str_eq(q.tsa[6], "vendor");
	cr_assert_eq(q.bw[6], 0);
	cr_assert_eq(q.tc_line[6], 27);
	for (int tc = 0; tc < 8; tc++) {
		if (tc != 0 && tc != 3 && tc != 6)
			cr_assert_str_eq(q.tsa[tc], "", "no tc %d", tc);
	}
}

Test(mlnx, pcp_trust)
{
	struct mlnx_qos q = qos_ok("tests/mlnx/pcp.txt");

	cr_assert(q.has_trust);
	cr_assert_not(q.trust_dscp);
	cr_assert_eq(q.dscp_given, 0, "pcp output has no dscp2prio");
	cr_assert(q.has_pfc);
	cr_assert_eq(q.pfc_enabled, 0x08);
	cr_assert_str_eq(q.tsa[3], "ets");
}

/*
 * Real-world shapes: a prio with 9 DSCPs wrapped onto a second prio:6 line,
 * CRLF line ends, tabs and doubled blanks, a receive buffer line without
 * max_buffer_size, several priorities on one line, a rate limit, strict.
 */
Test(mlnx, wrapped_and_untidy)
{
	struct mlnx_qos q = qos_ok("tests/mlnx/wrapped.txt");
	static const uint8_t prio_tc[8] = {0, 0, 0, 3, 3, 0, 6, 0};

	cr_assert(q.trust_dscp);
	cr_assert_eq(q.dscp_given, UINT64_MAX);
	cr_assert_eq(q.dscp2prio[30], 6);
	cr_assert_eq(q.dscp_line[30], 11, "the second prio:6 line");
	cr_assert_eq(q.dscp2prio[48], 6);
	cr_assert_eq(q.dscp2prio[26], 3);
	cr_assert_eq(q.rx_buffer[2], 896);
	cr_assert_eq(q.rx_buffer[3], 80256);
	cr_assert_eq(q.cable_len, 30);
	cr_assert_eq(q.pfc_enabled, 0x18);
	cr_assert_eq(q.prio_buffer[4], 1);
	for (int p = 0; p < 8; p++)
		cr_assert_eq(q.prio_tc[p], prio_tc[p], "priority %d", p);
	cr_assert_eq(q.bw[0], 40);
	cr_assert_eq(q.bw[3], 60);
	cr_assert_str_eq(q.tsa[6], "strict");
}

/* A partial paste in memory: lines it does not know are skipped. */
Test(mlnx, text_partial)
{
	static const char text[] = "$ mlnx_qos -i eth2\n"
				   "some banner\n"
				   "PFC configuration:\n"
				   "  priority 0 1 2 3 4 5 6 7\n"
				   "  enabled  0,0,0,1,0,0,0,0\n"
				   "dscp2prio mapping:\n"
				   "  prio:3 dscp:26,\n"
				   "  prio:5 dscp:40,41,42,43,44,45,46,47,\n"
				   "        48,\n";
	struct mlnx_qos q;
	struct diag d = {0};

	cr_assert_eq(mlnx_qos_parse(text, sizeof(text) - 1, "paste", &q, &d), 0, "%s", d.msg);
	cr_assert_str_eq(q.file, "paste");
	cr_assert_not(q.has_trust);
	cr_assert_not(q.has_tc);
	cr_assert_not(q.has_buffer);
	cr_assert_eq(q.pfc_enabled, 0x08);
	cr_assert_eq(q.dscp_given, (1ULL << 26) | (0x1ffULL << 40));
	cr_assert_eq(q.dscp2prio[48], 5, "a wrapped line without its prio: prefix");
	cr_assert_eq(q.dscp_line[48], 9);
}

Test(mlnx, broken_files)
{
	qos_bad("tests/mlnx/bad-cut-short.txt", 7, "cut short");
	qos_bad("tests/mlnx/bad-pfc-7.txt", 16, "7 values, not 8");
	qos_bad("tests/mlnx/bad-cable.txt", 13, "\"seven\" is not a number");
	qos_bad("tests/mlnx/bad-dscp-64.txt", 11, "DSCP 64 is out of range");
	qos_bad("tests/mlnx/bad-prio-8.txt", 11, "prio 8 is out of range");
	qos_bad("tests/mlnx/empty.txt", 0, "empty file, not mlnx_qos output");
	qos_bad("tests/mlnx/not-qos.txt", 0, "not mlnx_qos output");
}

Test(mlnx, binary_garbage)
{
	struct mlnx_qos q;
	struct diag d = {0};
	char msg[1024];
	int err = mlnx_qos_read(ts_src("tests/mlnx/garbage.bin"), &q, &d);

	diag_str(&d, msg, sizeof(msg));
	cr_assert_eq(err, -EINVAL, "%s", msg);
	cr_assert_gt(d.line, 0, "%s", msg);
	cr_assert(strstr(msg, "binary data"), "%s", msg);

	/* a NUL in an otherwise good file is named with its line */
	QOS_BAD("Priority trust state: dscp\nCable len: 7\0\nPFC configuration:\n", 2,
		"binary data (byte 0x00)");
}

Test(mlnx, not_a_file)
{
	struct mlnx_qos q;
	struct diag d = {0};

	cr_assert_eq(mlnx_qos_read(ts_src("tests/mlnx/no-such-file.txt"), &q, &d), -ENOENT);
	cr_assert(strstr(d.msg, "cannot read: No such file"), "%s", d.msg);
	cr_assert_eq(mlnx_qos_read(ts_src("tests/mlnx"), &q, &d), -EINVAL);
	cr_assert(strstr(d.msg, "not a regular file"), "%s", d.msg);
}

Test(mlnx, broken_text)
{
	QOS_BAD("dscp2prio mapping:\n prio:3 dscp:31,30,29,28,27,26,25,24\n", 2, "cut short");
	QOS_BAD("dscp2prio mapping:\n prio:3\n", 2, "cut short");
	QOS_BAD("dscp2prio mapping:\n prio:3 ds\n", 2, "cut short");
	QOS_BAD("dscp2prio mapping:\n prio: dscp:01,\n", 2, "not a number");
	QOS_BAD("dscp2prio mapping:\n prio:3 dscp:31,3x,\n", 2, "\"3x\" is not a DSCP");
	QOS_BAD("dscp2prio mapping:\n prio:3 dscp:31,,30,\n", 2, "an empty DSCP");
	QOS_BAD("dscp2prio mapping:\n prio:3 dscp:31 30,\n", 2, "no comma after DSCP 31");
	QOS_BAD("dscp2prio mapping:\n prio:3 dscp:31,\n prio:4 dscp:31,\n", 3,
		"DSCP 31 is mapped twice (to prio 3 on line 2)");
	QOS_BAD("dscp2prio mapping:\n prio:3 dscp:99999999999999999999,\n", 2, "out of range");
	QOS_BAD("Priority trust state: l2\n", 1, "neither dscp, pcp nor none");
	QOS_BAD("Priority trust state: dscp\nPriority trust state: dscp\n", 2,
		"given twice (first on line 1)");
	QOS_BAD("Receive buffer size (bytes): 1,2,3,4,5,6,7,\n", 1, "7 sizes");
	QOS_BAD("Receive buffer size (bytes): 1,2,3,4,5,6,7,8x,\n", 1, "\"8x\" is not a number");
	QOS_BAD("Receive buffer size (bytes): 1,2,3,4,5,6,7,4294967296,\n", 1, "out of range");
	QOS_BAD("PFC configuration:\n priority 0 1 2 3 4 5 6\n", 2, "the priority row");
	QOS_BAD("PFC configuration:\n enabled 0 0 0 2 0 0 0 0\n", 2, "2 is out of range (0-1)");
	QOS_BAD("PFC configuration:\n enabled 0 0 0 1 0 0 0 0 0\n", 2, "9 values");
	QOS_BAD("PFC configuration:\n buffer 0 0 0 1 0 0 0 8\n", 2, "8 is out of range (0-7)");
	QOS_BAD("PFC configuration:\n buffer 0 0 0 1\n", 2, "4 values");
	QOS_BAD("tc: 8 ratelimit: unlimited, tsa: ets, bw: 50%\n", 1, "tc 8 is out of range");
	QOS_BAD("tc: x ratelimit: unlimited, tsa: ets, bw: 50%\n", 1, "not a traffic class");
	QOS_BAD("tc: 3 ratelimit: unlimited, tsa: wrr\n", 1, "tsa \"wrr\" is not ets");
	QOS_BAD("Receive buffer size (bytes): 1,2,3,4,5,6,7,8,total_size=12x\n", 1,
		"\"12x\" is not a size in bytes");
	QOS_BAD("default priority:\n\tprio:9\n", 2, "prio 9 is out of range");
	QOS_BAD("tc: 3 ratelimit: unlimited\n", 1, "no \"tsa:\"");
	QOS_BAD("tc: 3 ratelimit: unlimited, tsa: ets\n", 1, "without \"bw");
	QOS_BAD("tc: 3 ratelimit: unlimited, tsa: ets, bw: 150%\n", 1, "bw 150% is out of range");
	QOS_BAD(
	    "tc: 3 ratelimit: unlimited, tsa: vendor\ntc: 3 ratelimit: unlimited, tsa: vendor\n", 2,
	    "tc 3: given twice");
	QOS_BAD("tc: 3 ratelimit: unlimited, tsa: vendor\n priority: 3\n"
		"tc: 4 ratelimit: unlimited, tsa: vendor\n priority: 3\n",
		4, "priority 3 is already in tc 3 (line 2)");
	QOS_BAD("tc: 3 ratelimit: unlimited, tsa: vendor\n priority: 9\n", 2, "out of range");
	QOS_BAD("tc: 3 ratelimit: unlimited, tsa: vendor\n priority:\n", 2, "without a priority");
	QOS_BAD("Cable len: 7\n priority:  3\n", 2, "outside a tc block");
	QOS_BAD("Cable len: -1\n", 1, "not a number");
	QOS_BAD("Cable len: 7 m\n", 1, "not a number");
	QOS_BAD("", 0, "empty file");
	QOS_BAD("\n  \n\t\n", 0, "empty file");
	QOS_BAD("DCBX mode: OS controlled\n", 0, "not mlnx_qos output");
}

/*
 * The layouts the mlnx_qos versions print (mlnx-tools' python/mlnx_qos and
 * dcbnetlink.py): the receive buffer line ending in total_size=N (netlink)
 * or in its comma (sysfs), "default priority:" with its prio:N line, every
 * tc on tsa vendor, a rate limit in Gbps, no buffer lines at all ("Buffers
 * commands are not supported"), the lldpad warning, trust "none" and tsa
 * "unknown".
 */
Test(mlnx, every_version_layout)
{
	struct mlnx_qos q = qos_ok("tests/mlnx/ofed-netlink-total-size.txt");

	cr_assert(q.has_buffer);
	cr_assert_eq(q.rx_buffer[0], 20016);
	cr_assert_eq(q.rx_buffer[1], 156096);
	cr_assert_eq(q.rx_total, 1027728);
	cr_assert_not(q.has_default_prio, "\"default priority:\" with no prio line");
	cr_assert_eq(q.dscp2prio[26], 3);
	cr_assert_eq(q.dscp_given, UINT64_MAX);
	cr_assert_eq(q.pfc_enabled, 0x08);
	for (int tc = 0; tc < 8; tc++)
		cr_assert_str_eq(q.tsa[tc], "vendor", "tc %d", tc);
	cr_assert_eq(q.prio_tc[0], 1);
	cr_assert_eq(q.prio_tc[1], 0);
	cr_assert_eq(q.prio_tc[3], 3);

	q = qos_ok("tests/mlnx/ofed-sysfs-buffer.txt");
	cr_assert(q.has_default_prio);
	cr_assert_eq(q.default_prio, 0);
	cr_assert_eq(q.dscp_given, UINT64_MAX, "prio:0 under default priority is not a DSCP list");
	cr_assert_eq(q.rx_buffer[0], 130944);
	cr_assert_eq(q.rx_total, 0);
	cr_assert_str_eq(q.tsa[0], "ets");
	cr_assert_eq(q.bw[0], 40);
	cr_assert_str_eq(q.tsa[4], "strict");
	cr_assert_eq(q.prio_tc[7], 4);

	q = qos_ok("tests/mlnx/no-buffer-commands.txt");
	cr_assert_not(q.has_buffer);
	cr_assert(q.has_trust);
	cr_assert_not(q.trust_dscp);
	cr_assert_eq(q.pfc_enabled, 0x08);
	cr_assert_eq(q.pfc_line, 10);
	cr_assert_str_eq(q.tsa[0], "strict");

	q = qos_ok("tests/mlnx/trust-not-supported.txt");
	cr_assert(q.trust_none);
	cr_assert_not(q.trust_dscp);
	cr_assert_eq(q.trust_line, 3);
	cr_assert_eq(q.rx_total, 262016);
	cr_assert_str_eq(q.tsa[0], "unknown");
	cr_assert_str_eq(q.tsa[1], "ets");
	cr_assert_eq(q.bw[1], 100);

	/* tsa printed empty (mlnx_qos could not read it) */
	{
		static const char t[] = "tc: 2 ratelimit: unlimited, tsa: \n priority: 2\n";
		struct diag d = {0};

		cr_assert_eq(mlnx_qos_parse(t, sizeof(t) - 1, "mem.txt", &q, &d), 0, "%s", d.msg);
		cr_assert_str_eq(q.tsa[2], "unknown");
	}
}

/* The example configs of experiments/configs parse to what they say. */
Test(mlnx, experiment_configs)
{
	struct mlnx_qos q = qos_ok("experiments/configs/mlnx_qos.txt");
	struct mlnx_qos s = qos_ok("experiments/configs/mlnx_qos-seed.txt");

	cr_assert(q.trust_dscp);
	cr_assert_eq(q.dscp_given, UINT64_MAX);
	cr_assert_eq(q.pfc_enabled, 0x08);
	cr_assert_str_eq(q.tsa[0], "ets");
	cr_assert_eq(q.bw[0] + q.bw[3], 100);
	cr_assert_str_eq(q.tsa[6], "vendor");

	cr_assert(s.has_trust);
	cr_assert_not(s.trust_dscp, "the seed trusts pcp");
	cr_assert_eq(s.dscp_given, 0);
	cr_assert_eq(s.pfc_enabled, 0x18, "the seed has PFC on 3 and 4");
	cr_assert_eq(memcmp(s.prio_tc, q.prio_tc, 8), 0);
}

/* ---- cc_params ---- */

static void cc_expect(const struct cc_params *cc, size_t i, const char *name, const char *value,
		      int line)
{
	cr_assert_lt(i, cc->n, "entry %zu of %zu", i, cc->n);
	cr_assert_str_eq(cc->v[i].name, name, "entry %zu", i);
	cr_assert_str_eq(cc->v[i].value, value, "entry %zu (%s)", i, name);
	cr_assert_eq(cc->v[i].line, line, "entry %zu (%s)", i, name);
}

static void cc_bad(const char *rel, int line, const char *what)
{
	struct cc_params cc;
	struct diag d = {0};
	char msg[1024];
	int err = cc_params_read(ts_src(rel), &cc, &d);

	diag_str(&d, msg, sizeof(msg));
	cr_assert_eq(err, -EINVAL, "%s: %d (%s)", rel, err, msg);
	cr_assert_eq(d.line, line, "%s: line %d, not %d: %s", rel, d.line, line, msg);
	cr_assert(strstr(msg, what), "%s: \"%s\" does not say \"%s\"", rel, msg, what);
	cr_assert_null(cc.v);
	cr_assert_eq(cc.n, 0);
}

Test(cc_params, grep_form_with_pci_path)
{
	struct cc_params cc;
	struct diag d = {0};

	cr_assert_eq(cc_params_read(ts_src("tests/mlnx/cc-grep.txt"), &cc, &d), 0, "%s", d.msg);
	cr_assert_eq(cc.n, 4);
	cc_expect(&cc, 0, "rp_gd", "11", 1);
	cc_expect(&cc, 1, "rp_ai_rate", "5", 2);
	cc_expect(&cc, 2, "np_cnp_dscp", "48", 3);
	cc_expect(&cc, 3, "rp_time_reset", "300", 4);
	cr_assert(strstr(cc.v[0].file, "tests/mlnx/cc-grep.txt"));
	cc_params_free(&cc);
	cr_assert_null(cc.v);
}

Test(cc_params, pasted_lines_and_comments)
{
	struct cc_params cc;
	struct diag d = {0};

	cr_assert_eq(cc_params_read(ts_src("tests/mlnx/cc-lines.txt"), &cc, &d), 0, "%s", d.msg);
	cr_assert_eq(cc.n, 5);
	cc_expect(&cc, 0, "rp_gd", "50", 3);
	cc_expect(&cc, 1, "rp_hai_rate", "15", 4);
	cc_expect(&cc, 2, "rp_dce_tcp_g", "4", 5);
	cc_expect(&cc, 3, "rp_initial_alpha_value", "1024", 6);
	cc_expect(&cc, 4, "np_min_time_between_cnps", "0", 7);
	cc_params_free(&cc);
}

Test(cc_params, no_value_or_no_name)
{
	cc_bad("tests/mlnx/cc-no-value.txt", 2, "no value in \"rp_ai_rate:\"");
	cc_bad("tests/mlnx/cc-no-name.txt", 2, "no name");
}

Test(cc_params, text_forms)
{
	static const char text[] = "0000:3b:00.0/cc_params/rp_gd 11\n"
				   "/sys/kernel/debug/mlx5/0000:3b:00.0/cc_params/rp_min_rate=1\n"
				   "rp_byte_reset\t32767\r\n";
	struct cc_params cc;
	struct diag d = {0};

	cr_assert_eq(cc_params_parse(text, sizeof(text) - 1, "mem", &cc, &d), 0, "%s", d.msg);
	cr_assert_eq(cc.n, 3);
	cc_expect(&cc, 0, "rp_gd", "11", 1);
	cc_expect(&cc, 1, "rp_min_rate", "1", 2);
	cc_expect(&cc, 2, "rp_byte_reset", "32767", 3);
	cc_params_free(&cc);

	cr_assert_eq(cc_params_parse("rp_gd\n", 6, "mem", &cc, &d), -EINVAL);
	cr_assert_eq(d.line, 1);
	cr_assert_eq(cc_params_parse("# nothing\n\n", 11, "mem", &cc, &d), -EINVAL);
	cr_assert(strstr(d.msg, "not cc_params"), "%s", d.msg);
	cr_assert_eq(cc_params_parse("rp_gd:1\nrp\001:2\n", 14, "mem", &cc, &d), -EINVAL);
	cr_assert_eq(d.line, 2);
	cr_assert(strstr(d.msg, "binary data"), "%s", d.msg);
	cr_assert_null(cc.v);
	cr_assert_eq(
	    cc_params_parse("rp_gd:123456789012345678901234567890123456789012345678901234567890"
			    "1234\n",
			    70, "mem", &cc, &d),
	    -EINVAL);
	cr_assert(strstr(d.msg, "longer than 63"), "%s", d.msg);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

static void remove_tree(const char *dir, const char *const *names, size_t n)
{
	char path[512];

	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		remove(path);
	}
	rmdir(dir);
}

Test(cc_params, folder_form)
{
	static const char *const names[] = {"rp_gd", "np_cnp_dscp", "rp_ai_rate", ".hidden",
					    "sub/x", "sub",	    "empty"};
	char dir[] = "/tmp/rocesim-cc-XXXXXX", sub[600], path[600];
	struct cc_params cc;
	struct diag d = {0};

	cr_assert(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	write_file(dir, "rp_gd", "11\n");
	write_file(dir, "np_cnp_dscp", "  48  \nsecond line ignored\n");
	write_file(dir, "rp_ai_rate", "5");
	write_file(dir, ".hidden", "junk");
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	cr_assert_eq(mkdir(sub, 0700), 0);
	write_file(dir, "sub/x", "1\n");

	cr_assert_eq(cc_params_read(dir, &cc, &d), 0, "%s", d.msg);
	cr_assert_eq(cc.n, 3, "dotfiles and sub-folders are skipped");
	cc_expect(&cc, 0, "np_cnp_dscp", "48", 1);
	cc_expect(&cc, 1, "rp_ai_rate", "5", 1);
	cc_expect(&cc, 2, "rp_gd", "11", 1);
	snprintf(path, sizeof(path), "%s/rp_gd", dir);
	cr_assert_str_eq(cc.v[2].file, path);
	cc_params_free(&cc);

	/* a parameter file without a value is an error naming it */
	write_file(dir, "empty", "\n");
	cr_assert_eq(cc_params_read(dir, &cc, &d), -EINVAL);
	snprintf(path, sizeof(path), "%s/empty", dir);
	cr_assert_str_eq(d.file, path);
	cr_assert_eq(d.line, 1);
	cr_assert(strstr(d.msg, "no value"), "%s", d.msg);
	cr_assert_null(cc.v);

	remove_tree(dir, names, sizeof(names) / sizeof(names[0]));
}

/* experiments/configs/cc_params/ and cc_params.txt hold the same defaults. */
Test(cc_params, experiment_configs)
{
	struct cc_params folder, text, seed;
	struct diag d = {0};
	int found = 0;

	cr_assert_eq(cc_params_read(ts_src("experiments/configs/cc_params"), &folder, &d), 0, "%s",
		     d.msg);
	cr_assert_eq(cc_params_read(ts_src("experiments/configs/cc_params.txt"), &text, &d), 0,
		     "%s", d.msg);
	cr_assert_eq(cc_params_read(ts_src("experiments/configs/cc_params-seed.txt"), &seed, &d), 0,
		     "%s", d.msg);
	cr_assert_eq(folder.n, 19);
	cr_assert_eq(text.n, folder.n);
	for (size_t i = 0; i < folder.n; i++) {
		cr_assert_str_eq(text.v[i].name, folder.v[i].name);
		cr_assert_str_eq(text.v[i].value, folder.v[i].value, "%s", folder.v[i].name);
	}
	cr_assert_eq(seed.n, 22);
	for (size_t i = 0; i < seed.n; i++) {
		if (!strcmp(seed.v[i].name, "rp_gd")) {
			cr_assert_str_eq(seed.v[i].value, "50");
			found++;
		}
		if (!strcmp(seed.v[i].name, "rp_enable"))
			found++;
	}
	cr_assert_eq(found, 2);
	cc_params_free(&folder);
	cc_params_free(&text);
	cc_params_free(&seed);
}
