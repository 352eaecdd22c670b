/*
 * Tests of the readers of measured counters (sim/readers/measured.h,
 * nccl_tests_out.h, measured_dir.h) and of `rocesim import` of them.
 * The samples of tests/measured/lab/ are laid out as the tools print them:
 *  - h0.ethtool.*.txt: ethtool's dump_stats ("     %.*s: %llu", after
 *    "NIC statistics:"), the mlx5 names and their order from the kernel's
 *    drivers/net/ethernet/mellanox/mlx5/core/en_stats.c
 *    (pport_per_prio_traffic_stats_desc, pport_per_prio_pfc_stats_desc);
 *  - h0.hw-counters.*.txt: `grep . /sys/class/infiniband/mlx5_0/ports/1/
 *    hw_counters/[a-z]*`, "PATH:value", the files in name order as the
 *    shell's glob gives them;
 *  - leaf0.pfcstat.txt: sonic-utilities tests/pfcstat_test.py
 *    (show_pfc_counters_output: "  Port Rx    PFC0 ...", dashes, rows,
 *    a blank line, the Tx table; "1,200" and N/A as it prints them);
 *  - leaf0.queuestat.txt: sonic-utilities tests/queue_counter_test.py
 *    (show_queue_counters: "For namespace :", then "     Port    TxQ
 *    Counter/pkts ...", tabulate's widths: a column as wide as its widest
 *    value or its header plus 2);
 *  - h0.nccl-inspector.log: NCCL Inspector's JSON lines, a record a
 *    collective, keys as NVIDIA/nccl ext-profiler/inspector/README.md
 *    shows them (its exporter reads a JSON object a line);
 *  - h0.nccl-tests.log: nccl-tests' src/util.cu header, rows and footer,
 *    as the outputs quoted in NVIDIA/nccl-tests issues and docs print them
 *    (8 ranks; algbw = size / time, busbw = algbw x 2 (n-1)/n, computed
 *    by hand for each row below).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc.h"
#include "sim/readers/measured.h"
#include "sim/readers/measured_dir.h"
#include "sim/readers/nccl_inspector.h"
#include "sim/readers/nccl_tests_out.h"
#include "sim/study/compare_measured.h"
#include "support.h"

#define LAB "tests/measured/lab/"

static void setup(void)
{
	ts_proc_setup("measured");
}

TestSuite(measured, .init = setup, .fini = ts_proc_teardown, .timeout = 120);

static uint64_t val(const struct mc_set *s, const char *scope, const char *name)
{
	const struct mc_counter *c = mc_find(s, scope, name);

	cr_assert(c, "no counter %s %s", scope, name);
	cr_assert_not(c->na, "%s %s is N/A", scope, name);
	return c->value;
}

/* @text (a C string) is refused by @parse at @line, the message holding @what. */
static void bad(int (*parse)(const char *, size_t, const char *, struct mc_set *, struct diag *),
		const char *text, int line, const char *what)
{
	struct mc_set s;
	struct diag d = {0};
	char msg[1024];
	int err = parse(text, strlen(text), "x.txt", &s, &d);

	diag_str(&d, msg, sizeof(msg));
	cr_assert_eq(err, -EINVAL, "%d (%s) for:\n%s", err, msg, text);
	cr_assert_eq(d.line, line, "line %d, not %d: %s", d.line, line, msg);
	cr_assert(strstr(msg, what), "\"%s\" does not say \"%s\"", msg, what);
	cr_assert(strstr(msg, "x.txt"), "\"%s\" names no file", msg);
	cr_assert_null(s.v);
}

Test(measured, number)
{
	uint64_t v;
	int na;

	cr_assert_eq(mc__number("1,200", 1, 0, &v, &na), 0);
	cr_assert_eq(v, 1200);
	cr_assert_eq(mc__number("12,345,678", 1, 0, &v, &na), 0);
	cr_assert_eq(v, 12345678);
	cr_assert_eq(mc__number("18446744073709551615", 0, 0, &v, &na), 0);
	cr_assert_eq(v, UINT64_MAX);
	cr_assert_eq(mc__number("N/A", 1, 1, &v, &na), 0);
	cr_assert(na);
	cr_assert_eq(mc__number("18446744073709551616", 0, 0, &v, &na), -1, "above 2^64 - 1");
	cr_assert_eq(mc__number("1,200", 0, 0, &v, &na), -1, "no separators in ethtool");
	cr_assert_eq(mc__number("12,34", 1, 0, &v, &na), -1);
	cr_assert_eq(mc__number(",123", 1, 0, &v, &na), -1);
	cr_assert_eq(mc__number("1234,567", 1, 0, &v, &na), -1);
	cr_assert_eq(mc__number("1,2345", 1, 0, &v, &na), -1);
	cr_assert_eq(mc__number("N/A", 1, 0, &v, &na), -1, "N/A only where allowed");
	cr_assert_eq(mc__number("", 1, 1, &v, &na), -1);
	cr_assert_eq(mc__number("-1", 1, 1, &v, &na), -1);
}

Test(measured, ethtool_sample)
{
	struct mc_set s;
	struct diag d = {0};
	char msg[512], r[160];
	const struct mc_counter *c;

	cr_assert_eq(mc_ethtool_read(ts_src(LAB "h0.ethtool.after.txt"), &s, &d), 0, "%s",
		     diag_str(&d, msg, sizeof(msg)));
	cr_assert_eq(s.kind, MC_ETHTOOL);
	cr_assert_eq(s.n, 62, "every line after the header: %zu", s.n);
	cr_assert_str_eq(s.v[0].name, "rx_packets");
	cr_assert_eq(s.v[0].line, 2);
	cr_assert_eq(s.v[0].value, 10144334);
	cr_assert_eq(val(&s, "", "rx_prio3_pause"), 1392);
	cr_assert_eq(val(&s, "", "rx_prio3_pause_duration"), 10402);
	cr_assert_eq(val(&s, "", "rx_prio3_pause_transition"), 696);
	cr_assert_eq(val(&s, "", "rx_bytes_phy"), 41704063692ull);
	c = mc_find(&s, "", "tx_prio3_pause");
	cr_assert_str_eq(mc_rocesim_name(MC_ETHTOOL, c, r, sizeof(r)), "hosts[].tx_prio3_pause");
	c = mc_find(&s, "", "rx_prio3_pause_duration");
	cr_assert_str_eq(mc_rocesim_name(MC_ETHTOOL, c, r, sizeof(r)),
			 "hosts[].rx_prio3_pause_duration");
	c = mc_find(&s, "", "rx_discards_phy");
	cr_assert_str_eq(mc_rocesim_name(MC_ETHTOOL, c, r, sizeof(r)), "hosts[].rx_discards_phy");
	c = mc_find(&s, "", "rx_prio3_pause_transition");
	cr_assert_null(mc_rocesim_name(MC_ETHTOOL, c, r, sizeof(r)), "rocesim counts none");
	mc_free(&s);
}

/* after - before, counter by counter: the run's own counts */
Test(measured, ethtool_diff)
{
	struct mc_set a, b, s;
	struct diag d = {0};
	char msg[512];

	cr_assert_eq(mc_ethtool_read(ts_src(LAB "h0.ethtool.before.txt"), &b, &d), 0);
	cr_assert_eq(mc_ethtool_read(ts_src(LAB "h0.ethtool.after.txt"), &a, &d), 0);
	cr_assert_eq(mc_diff(&b, &a, &s, &d), 0, "%s", diag_str(&d, msg, sizeof(msg)));
	cr_assert_eq(s.n, a.n);
	cr_assert_eq(val(&s, "", "rx_prio3_pause"), 1392 - 1180);
	cr_assert_eq(val(&s, "", "rx_prio3_pause_duration"), 10402 - 8812);
	cr_assert_eq(val(&s, "", "tx_prio3_pause"), 46 - 40);
	cr_assert_eq(val(&s, "", "tx_prio6_packets"), 48 - 32);
	cr_assert_eq(val(&s, "", "rx_discards_phy"), 0);
	cr_assert_eq(mc_find(&s, "", "rx_prio3_pause")->line,
		     mc_find(&a, "", "rx_prio3_pause")->line);
	mc_free(&s);

	/* the other way round: every counter went back, the first is named */
	cr_assert_eq(mc_diff(&a, &b, &s, &d), -EINVAL);
	diag_str(&d, msg, sizeof(msg));
	cr_assert(strstr(msg, "rx_packets went back from 10144334"), "%s", msg);
	cr_assert(strstr(msg, "h0.ethtool.after.txt:2"), "%s", msg);
	cr_assert(strstr(d.file, "h0.ethtool.before.txt"), "%s", msg);
	cr_assert_eq(d.line, 2);
	cr_assert_null(s.v);
	mc_free(&a);
	mc_free(&b);
}

/* a counter only in the after reading is taken whole; one only in the
 * before reading is counted, not dropped unsaid */
Test(measured, diff_unmatched)
{
	static const char before[] = "NIC statistics:\n     a: 1\n     b: 2\n";
	static const char after[] = "NIC statistics:\n     b: 5\n     c: 7\n";
	struct mc_set a, b, s;
	struct diag d = {0};

	cr_assert_eq(mc_ethtool_parse(before, sizeof(before) - 1, "b.txt", &b, &d), 0);
	cr_assert_eq(mc_ethtool_parse(after, sizeof(after) - 1, "a.txt", &a, &d), 0);
	cr_assert_eq(mc_diff(&b, &a, &s, &d), 0);
	cr_assert_eq(s.n, 2);
	cr_assert_eq(val(&s, "", "b"), 3);
	cr_assert_eq(val(&s, "", "c"), 7);
	cr_assert_eq(s.only_before, 1, "a");
	mc_free(&s);
	mc_free(&a);
	mc_free(&b);
}

Test(measured, ethtool_bad)
{
	bad(mc_ethtool_parse, "Features for eth2:\nrx-checksumming: on\n", 1,
	    "not `ethtool -S` output");
	bad(mc_ethtool_parse, "NIC statistics:\n     rx_packets: 12\n     rx_prio3_pau", 3,
	    "no ':' after the counter's name");
	bad(mc_ethtool_parse, "NIC statistics:\n     rx_packets: 12\n     rx_prio3_pause:\n", 3,
	    "no value");
	bad(mc_ethtool_parse, "NIC statistics:\n     rx_packets: 12x\n", 2,
	    "\"12x\" is not a counter value");
	bad(mc_ethtool_parse, "NIC statistics:\n     rx_packets: -3\n", 2, "not a counter value");
	bad(mc_ethtool_parse, "NIC statistics:\n     rx_packets: 1\n     rx_packets: 2\n", 3,
	    "given twice (line 2 too)");
	bad(mc_ethtool_parse, "NIC statistics:\n", 1, "no counter after \"NIC statistics:\"");
	bad(mc_ethtool_parse, "", 0, "empty");
	bad(mc_ethtool_parse, "NIC statistics:\n     rx_packets: 1\x01\n", 2, "binary data");
}

Test(measured, hw_counters_grep)
{
	struct mc_set a, b, s;
	struct diag d = {0};
	char msg[512], r[160];
	const struct mc_counter *c;
	const char *rn;

	cr_assert_eq(mc_hw_counters_read(ts_src(LAB "h0.hw-counters.before.txt"), &b, &d), 0, "%s",
		     diag_str(&d, msg, sizeof(msg)));
	cr_assert_eq(mc_hw_counters_read(ts_src(LAB "h0.hw-counters.after.txt"), &a, &d), 0);
	cr_assert_eq(a.n, 29, "30 files, lifespan is no counter: %zu", a.n);
	cr_assert_null(mc_find(&a, "mlx5_0 port 1", "lifespan"));
	cr_assert_eq(val(&a, "mlx5_0 port 1", "np_cnp_sent"), 1770);
	cr_assert_eq(mc_find(&a, "mlx5_0 port 1", "np_cnp_sent")->line, 5);
	cr_assert_eq(mc_diff(&b, &a, &s, &d), 0);
	cr_assert_eq(val(&s, "mlx5_0 port 1", "np_cnp_sent"), 250);
	cr_assert_eq(val(&s, "mlx5_0 port 1", "np_ecn_marked_roce_packets"), 500);
	cr_assert_eq(val(&s, "mlx5_0 port 1", "rp_cnp_handled"), 247);
	cr_assert_eq(val(&s, "mlx5_0 port 1", "roce_adp_retrans"), 0);
	c = mc_find(&s, "mlx5_0 port 1", "rp_cnp_handled");
	cr_assert(c);
	rn = mc_rocesim_name(MC_HW_COUNTERS, c, r, sizeof(r));
	cr_assert(rn);
	cr_assert_str_eq(rn, "hosts[].rp_cnp_handled");
	mc_free(&s);
	mc_free(&a);
	mc_free(&b);
}

Test(measured, hw_counters_bad)
{
	bad(mc_hw_counters_parse, "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent\n",
	    1, "no ':'");
	bad(mc_hw_counters_parse, "np_cnp_sent:12\nrp_cnp_handled:1e3\n", 2,
	    "\"1e3\" is not a counter value");
	bad(mc_hw_counters_parse, "np_cnp_sent:12\nnp_cnp_sent:13\n", 2, "given twice");
	bad(mc_hw_counters_parse, "\n# nothing\n", 0, "no counter");
	bad(mc_hw_counters_parse, "np_cnp_sent:\n", 1, "no value");
}

/* one grep over two devices: the same names, apart by their scope */
Test(measured, hw_counters_two_devices)
{
	static const char text[] =
	    "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent:5\n"
	    "/sys/class/infiniband/mlx5_1/ports/1/hw_counters/np_cnp_sent:7\n"
	    "/sys/class/infiniband/mlx5_1/ports/1/hw_counters/lifespan:10\n";
	struct mc_set s;
	struct diag d = {0};

	cr_assert_eq(mc_hw_counters_parse(text, sizeof(text) - 1, "two.txt", &s, &d), 0);
	cr_assert_eq(s.n, 2);
	cr_assert_eq(val(&s, "mlx5_0 port 1", "np_cnp_sent"), 5);
	cr_assert_eq(val(&s, "mlx5_1 port 1", "np_cnp_sent"), 7);
	mc_free(&s);
}

/* A copied hw_counters folder: a file a counter, its value on the first line */
Test(measured, hw_counters_folder)
{
	const char *dir = ts_tmp("hw_counters");
	char path[600], msg[512];
	struct mc_set s;
	struct diag d = {0};
	FILE *f;

	cr_assert_eq(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/np_cnp_sent", dir);
	f = fopen(path, "w");
	fputs("250\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/lifespan", dir);
	f = fopen(path, "w");
	fputs("10\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/rp_cnp_handled", dir);
	f = fopen(path, "w");
	fputs("247\n", f);
	fclose(f);
	cr_assert_eq(mc_hw_counters_read(dir, &s, &d), 0, "%s", diag_str(&d, msg, sizeof(msg)));
	cr_assert_eq(s.n, 2);
	cr_assert_str_eq(s.v[0].name, "np_cnp_sent", "in name order");
	cr_assert_eq(s.v[0].value, 250);
	cr_assert_eq(s.v[0].line, 1);
	cr_assert_eq(val(&s, "", "rp_cnp_handled"), 247);
	mc_free(&s);

	snprintf(path, sizeof(path), "%s/out_of_sequence", dir);
	f = fopen(path, "w");
	fputs("lots\n", f);
	fclose(f);
	cr_assert_eq(mc_hw_counters_read(dir, &s, &d), -EINVAL);
	diag_str(&d, msg, sizeof(msg));
	cr_assert(strstr(msg, "out_of_sequence:1: out_of_sequence: \"lots\" is not a counter"),
		  "%s", msg);
}

Test(measured, pfcstat_sample)
{
	struct mc_set s;
	struct diag d = {0};
	char msg[512], r[160];
	const struct mc_counter *c;

	cr_assert_eq(mc_pfcstat_read(ts_src(LAB "leaf0.pfcstat.txt"), &s, &d), 0, "%s",
		     diag_str(&d, msg, sizeof(msg)));
	cr_assert_eq(s.n, 3 * 8 * 2);
	cr_assert_eq(val(&s, "Ethernet0", "PFC3 Rx"), 1200, "1,200");
	cr_assert_eq(val(&s, "Ethernet4", "PFC3 Rx"), 401);
	cr_assert_eq(val(&s, "Ethernet0", "PFC3 Tx"), 12);
	cr_assert_eq(val(&s, "Ethernet4", "PFC3 Tx"), 12345, "12,345");
	cr_assert_eq(mc_find(&s, "Ethernet4", "PFC3 Tx")->line, 10);
	c = mc_find(&s, "Ethernet8", "PFC5 Rx");
	cr_assert(c && c->na, "N/A");
	cr_assert_str_eq(
	    mc_rocesim_name(MC_PFCSTAT, mc_find(&s, "Ethernet0", "PFC3 Rx"), r, sizeof(r)),
	    "switches[].ports[].pfc[priority=3].rx_pause+rx_resume");
	mc_free(&s);
}

/* pfcstat_test.py's show_pfc_counters_all, as printed (backplane ports, N/A) */
Test(measured, pfcstat_all_ports)
{
	static const char text[] =
	    "       Port Rx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7\n"
	    "--------------  ------  ------  ------  ------  ------  ------  ------  ------\n"
	    "     Ethernet0   1,200     201     202     203     204     205     206     207\n"
	    "     Ethernet4   1,400     401     402     403     404     405     406     407\n"
	    "  Ethernet-BP0   1,600     601     602     603     604     605     606     607\n"
	    "  Ethernet-BP4   1,800     801     802     803     804     805     806     807\n"
	    "Ethernet-BP256     N/A     N/A     N/A     N/A     N/A     N/A     N/A     N/A\n"
	    "Ethernet-BP260     N/A     N/A     N/A     N/A     N/A     N/A     N/A     N/A\n"
	    "\n"
	    "       Port Tx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7\n"
	    "--------------  ------  ------  ------  ------  ------  ------  ------  ------\n"
	    "     Ethernet0   1,210     211     212     213     214     215     216     217\n"
	    "     Ethernet4   1,410     411     412     413     414     415     416     417\n"
	    "  Ethernet-BP0   1,610     611     612     613     614     615     616     617\n"
	    "  Ethernet-BP4   1,810     811     812     813     814     815     816     817\n"
	    "Ethernet-BP256     N/A     N/A     N/A     N/A     N/A     N/A     N/A     N/A\n"
	    "Ethernet-BP260     N/A     N/A     N/A     N/A     N/A     N/A     N/A     N/A\n";
	struct mc_set s;
	struct diag d = {0};
	uint64_t sum = 0;

	cr_assert_eq(mc_pfcstat_parse(text, sizeof(text) - 1, "all.txt", &s, &d), 0);
	cr_assert_eq(s.n, 6 * 16);
	cr_assert_eq(val(&s, "Ethernet-BP4", "PFC0 Rx"), 1800);
	cr_assert_eq(val(&s, "Ethernet-BP4", "PFC7 Tx"), 817);
	cr_assert(mc_find(&s, "Ethernet-BP260", "PFC7 Tx")->na);
	for (size_t i = 0; i < s.n; i++)
		sum += s.v[i].value;
	/* by hand: a port's row is its PFC0, then base + 1 .. base + 7 (base
	 * 200, 400, 600, 800 for Rx; 210, 410, 610, 810 for Tx); N/A counts 0 */
	cr_assert_eq(sum, (6000 + 7 * 2000 + 4 * 28) + (6040 + 7 * 2040 + 4 * 28));
	mc_free(&s);
}

Test(measured, pfcstat_bad)
{
	static const char head_rx[] =
	    "  Port Rx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7\n"
	    "---------  ------  ------  ------  ------  ------  ------  ------  ------\n";
	static const char head_tx[] =
	    "  Port Tx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7\n"
	    "---------  ------  ------  ------  ------  ------  ------  ------  ------\n";
	static const char row[] =
	    "Ethernet0   1,200     201     202     203     204     205     206     207\n";
	char t[2048];

	/* the Tx table missing: the output cut short */
	snprintf(t, sizeof(t), "%s%s", head_rx, row);
	bad(mc_pfcstat_parse, t, 3, "no \"Port Tx\" table");
	/* a row cut short */
	snprintf(t, sizeof(t), "%s%sEthernet4   1,400     401\n", head_rx, row);
	bad(mc_pfcstat_parse, t, 4, "3 columns, the header (line 1) has 9");
	/* a value that is no number */
	snprintf(
	    t, sizeof(t),
	    "%s%s\n%sEthernet0   1,20     211     212     213     214     215     216     217\n",
	    head_rx, row, head_tx);
	bad(mc_pfcstat_parse, t, 7, "PFC0 Tx: \"1,20\" is not a counter value");
	/* a header and no rows */
	snprintf(t, sizeof(t), "%s%s\n%s", head_rx, row, head_tx);
	bad(mc_pfcstat_parse, t, 6, "has no rows");
	/* no dashes under the header */
	snprintf(t, sizeof(t), "%s", head_rx);
	t[strchr(head_rx, '\n') - head_rx + 1] = '\0';
	strcat(t, row);
	bad(mc_pfcstat_parse, t, 2, "expected the line of dashes");
	/* pfcstat's history table: another kind of numbers */
	bad(mc_pfcstat_parse,
	    "     Port    Priority    RX Pause Transitions    Total RX Pause Time MS\n", 1,
	    "not a pfcstat table");
	bad(mc_pfcstat_parse, "Ethernet0 1 2 3\n", 1, "outside a table");
	bad(mc_pfcstat_parse, "\n\n", 0, "no counters table");
}

Test(measured, queuestat_sample)
{
	struct mc_set s;
	struct diag d = {0};
	char msg[512], r[160];

	cr_assert_eq(mc_queuestat_read(ts_src(LAB "leaf0.queuestat.txt"), &s, &d), 0, "%s",
		     diag_str(&d, msg, sizeof(msg)));
	cr_assert_eq(s.n, 2 * 16 * 4);
	cr_assert_eq(val(&s, "Ethernet0 UC3", "Counter/pkts"), 1024000);
	cr_assert_eq(val(&s, "Ethernet0 UC3", "Counter/bytes"), 4218880000ull);
	cr_assert_eq(val(&s, "Ethernet0 UC3", "Drop/pkts"), 17);
	cr_assert_eq(val(&s, "Ethernet0 UC3", "Drop/bytes"), 70040);
	cr_assert_eq(mc_find(&s, "Ethernet0 UC3", "Drop/bytes")->line, 7);
	cr_assert_eq(val(&s, "Ethernet0 MC8", "Counter/bytes"), 1536);
	cr_assert(mc_find(&s, "Ethernet4 MC15", "Drop/pkts")->na);
	cr_assert_str_eq(
	    mc_rocesim_name(MC_QUEUESTAT, mc_find(&s, "Ethernet0 UC3", "Drop/pkts"), r, sizeof(r)),
	    "switches[].ports[].queues[queue=3].drops");
	cr_assert_null(mc_rocesim_name(MC_QUEUESTAT, mc_find(&s, "Ethernet0 UC3", "Counter/pkts"),
				       r, sizeof(r)));
	mc_free(&s);
}

Test(measured, queuestat_bad)
{
	static const char head[] =
	    "For namespace :\n"
	    "     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes\n"
	    "---------  -----  --------------  ---------------  -----------  ------------\n";
	char t[1024];

	snprintf(t, sizeof(t), "%s", head);
	bad(mc_queuestat_parse, t, 3, "has no rows");
	snprintf(t, sizeof(t), "%sEthernet0    UC0               0                0", head);
	bad(mc_queuestat_parse, t, 4, "4 columns, the header (line 2) has 6");
	snprintf(t, sizeof(t), "%sEthernet0    UC0               0                0   x   0\n",
		 head);
	bad(mc_queuestat_parse, t, 4, "Drop/pkts: \"x\" is not a counter value");
	bad(mc_queuestat_parse, "     Port    Voq    Counter/pkts\n", 1, "not a queuestat table");
}

Test(measured, nccl_tests_sample)
{
	struct nccl_out o;
	struct diag d = {0};
	char msg[512];
	const struct nccl_out_row *r;

	cr_assert_eq(nccl_out_read(ts_src(LAB "h0.nccl-tests.log"), &o, &d), 0, "%s",
		     diag_str(&d, msg, sizeof(msg)));
	cr_assert_eq(o.ranks, 8);
	cr_assert_eq(o.n, 4);
	cr_assert_eq(o.extra_cols, 0);
	r = &o.rows[0];
	cr_assert_eq(r->bytes, 33554432);
	cr_assert_eq(r->count, 8388608);
	cr_assert_str_eq(r->type, "float");
	cr_assert_str_eq(r->redop, "sum");
	cr_assert(r->has_root);
	cr_assert_eq(r->root, -1);
	cr_assert_float_eq(r->time_us, 745.1, 1e-9);
	/* 33554432 B / 745.1 us = 45.03 GB/s; x 2 x 7/8 = 78.81 */
	cr_assert_float_eq(r->algbw, 45.03, 1e-9);
	cr_assert_float_eq(r->busbw, 78.81, 1e-9);
	cr_assert_eq(r->wrong, 0);
	cr_assert_float_eq(r->in_time_us, 744.2, 1e-9);
	cr_assert_float_eq(r->in_busbw, 78.90, 1e-9);
	cr_assert_eq(r->line, 16);
	r = &o.rows[3];
	cr_assert_eq(r->bytes, 268435456);
	cr_assert_float_eq(r->busbw, 87.14, 1e-9);
	cr_assert(o.has_avg);
	cr_assert_float_eq(o.avg_busbw, 83.9537, 1e-9);
	cr_assert_eq(o.avg_line, 21);
	cr_assert(o.has_oob);
	cr_assert_eq(o.oob, 0);
	nccl_out_free(&o);
}

/* Older nccl-tests: no redop or root column; -c 0 prints N/A for #wrong.
 * rccl-tests: algo, proto and nchannels after the in-place group. */
Test(measured, nccl_tests_layouts)
{
	static const char old[] =
	    "#       size         count      type     time   algbw   busbw #wrong     time   "
	    "algbw   busbw #wrong\n"
	    "#        (B)    (elements)               (us)  (GB/s)  (GB/s)            (us)  "
	    "(GB/s)  (GB/s)\n"
	    "   134217728       2097152     float   500.10  268.38  234.83    N/A   498.00  "
	    "269.51  235.82    N/A\n"
	    "# Out of bounds values : 0 OK\n"
	    "# Avg bus bandwidth    : 235.325\n";
	static const char rccl[] =
	    "#       size         count      type   redop    root     time   algbw   busbw #wrong "
	    "    time   algbw   busbw #wrong     algo     proto   nchannels\n"
	    "     1048576        262144     float     sum      -1    76.26   13.75   25.78      0 "
	    "   76.43   13.72   25.72      0  Direct    SIMPLE          32\n"
	    "# Avg bus bandwidth    : 25.75 \n";
	struct nccl_out o;
	struct diag d = {0};
	char msg[512];

	cr_assert_eq(nccl_out_parse(old, sizeof(old) - 1, "old.txt", &o, &d), 0, "%s",
		     diag_str(&d, msg, sizeof(msg)));
	cr_assert_eq(o.n, 1);
	cr_assert_not(o.rows[0].has_root);
	cr_assert_str_eq(o.rows[0].redop, "");
	cr_assert_eq(o.rows[0].wrong, -1, "N/A");
	cr_assert_eq(o.rows[0].in_wrong, -1);
	cr_assert_float_eq(o.rows[0].in_busbw, 235.82, 1e-9);
	nccl_out_free(&o);

	cr_assert_eq(nccl_out_parse(rccl, sizeof(rccl) - 1, "rccl.txt", &o, &d), 0, "%s",
		     diag_str(&d, msg, sizeof(msg)));
	cr_assert_eq(o.extra_cols, 3);
	cr_assert_float_eq(o.rows[0].busbw, 25.78, 1e-9);
	nccl_out_free(&o);
}

static void nccl_bad(const char *text, int line, const char *what)
{
	struct nccl_out o;
	struct diag d = {0};
	char msg[512];
	int err = nccl_out_parse(text, strlen(text), "n.txt", &o, &d);

	diag_str(&d, msg, sizeof(msg));
	cr_assert_eq(err, -EINVAL, "%d (%s)", err, msg);
	cr_assert_eq(d.line, line, "line %d, not %d: %s", d.line, line, msg);
	cr_assert(strstr(msg, what), "\"%s\" does not say \"%s\"", msg, what);
	cr_assert_null(o.rows);
}

Test(measured, nccl_tests_bad)
{
	static const char head[] =
	    "#       size         count      type   redop    root     time   algbw   busbw #wrong "
	    "    time   algbw   busbw #wrong\n";
	static const char row[] = "    33554432       8388608     float     sum      -1    745.1   "
				  "45.03   78.81      0    744.2   45.09   78.90      0\n";
	char t[2048];

	/* the footer missing: the output cut short */
	snprintf(t, sizeof(t), "%s%s", head, row);
	nccl_bad(t, 0, "no \"# Avg bus bandwidth\" line after the 1 rows");
	/* a row cut short */
	snprintf(t, sizeof(t),
		 "%s%s    67108864      16777216     float     sum      -1   1402.6\n", head, row);
	nccl_bad(t, 3, "6 columns, the header (line 1) has 13");
	/* a value that is no number */
	snprintf(t, sizeof(t),
		 "%s    33554432       8388608     float     sum      -1    745,1   "
		 "45.03   78.81      0    744.2   45.09   78.90      0\n",
		 head);
	nccl_bad(t, 2, "time: \"745,1\" is not a number");
	snprintf(t, sizeof(t), "%s%s# Avg bus bandwidth    : fast\n", head, row);
	nccl_bad(t, 3, "Avg bus bandwidth: \"fast\" is not a number");
	nccl_bad(row, 1, "a row before the column header");
	nccl_bad("# nThread 1 nGpus 1\n", 0, "no column header");
	nccl_bad(head, 0, "no row under the column header");
	nccl_bad("Segmentation fault (core dumped)\n", 1, "neither a '#' line nor a row");
}

/* NCCL's own lines (NCCL_DEBUG=INFO) between the preamble and the table */
Test(measured, nccl_tests_debug_lines)
{
	static const char text[] =
	    "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 "
	    "agg iters: 1 validation: 1 graph: 0\n"
	    "node0:41021:41021 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
	    "#       size         count      type   redop    root     time   algbw   busbw #wrong "
	    "    time   algbw   busbw #wrong\n"
	    "           8             2     float     sum      -1    23.45    0.00    0.00      0 "
	    "   22.11    0.00    0.00      0\n"
	    "# Avg bus bandwidth    : 0 \n";
	struct nccl_out o;
	struct diag d = {0};

	cr_assert_eq(nccl_out_parse(text, sizeof(text) - 1, "dbg.txt", &o, &d), 0);
	cr_assert_eq(o.n, 1);
	cr_assert_eq(o.rows[0].bytes, 8);
	nccl_out_free(&o);
}

Test(measured, nccl_inspector_sample)
{
	struct nccl_inspector ni;
	struct diag d = {0};
	char msg[512];
	const struct ni_record *r;

	cr_assert_eq(nccl_inspector_read(ts_src(LAB "h0.nccl-inspector.log"), &ni, &d), 0, "%s",
		     diag_str(&d, msg, sizeof(msg)));
	cr_assert_eq(ni.n, 3);
	cr_assert_eq(ni.skipped, 0);
	r = &ni.v[1];
	cr_assert_str_eq(r->comm_id, "0x5f1c2a9e8b7d31");
	cr_assert_eq(r->rank, 0);
	cr_assert_eq(r->n_ranks, 8);
	cr_assert_eq(r->nnodes, 2);
	cr_assert_str_eq(r->version, "v4.0");
	cr_assert_str_eq(r->hostname, "node0");
	cr_assert_str_eq(r->coll, "AllReduce");
	cr_assert_eq(r->coll_sn, 121);
	cr_assert_eq(r->msg_bytes, 268435456);
	cr_assert_float_eq(r->exec_time_us, 5402, 1e-9);
	cr_assert_str_eq(r->timing_source, "kernel_gpu");
	/* 268435456 B / 5402 us = 49.692 GB/s; x 2 x 7/8 = 86.961 */
	cr_assert_float_eq(r->algbw, 49.691865, 1e-9);
	cr_assert_float_eq(r->busbw, 86.960764, 1e-9);
	cr_assert_eq(r->line, 2);
	nccl_inspector_free(&ni);
}

/* The README's example, indented over several lines, then a verbose
 * record and a record of a send (p2p_perf), one a line */
Test(measured, nccl_inspector_layouts)
{
	static const char text[] =
	    "{\n"
	    "  \"header\": {\n"
	    "    \"id\": \"0x7f8c496ae9f661\",\n"
	    "    \"rank\": 2,\n"
	    "    \"n_ranks\": 8,\n"
	    "    \"nnodes\": 1\n"
	    "  },\n"
	    "  \"metadata\": {\n"
	    "    \"inspector_output_format_version\": \"v4.0\",\n"
	    "    \"git_rev\": \"\",\n"
	    "    \"rec_mechanism\": \"profiler_plugin\",\n"
	    "    \"dump_timestamp_us\": 1748030377748202,\n"
	    "    \"hostname\": \"example-hostname\",\n"
	    "    \"pid\": 1639453\n"
	    "  },\n"
	    "  \"coll_perf\": {\n"
	    "    \"coll\": \"AllReduce\",\n"
	    "    \"coll_sn\": 1407,\n"
	    "    \"coll_msg_size_bytes\": 17179869184,\n"
	    "    \"coll_exec_time_us\": 61974,\n"
	    "    \"coll_algobw_gbs\": 277.210914,\n"
	    "    \"coll_busbw_gbs\": 485.119099\n"
	    "  }\n"
	    "}\n"
	    "{\"header\":{\"id\":\"0xe62dedaa97644a\",\"rank\":4,\"n_ranks\":8,\"nnodes\":1},"
	    "\"metadata\":{\"inspector_output_format_version\":\"v4.0\",\"hostname\":\"h\","
	    "\"pid\":438776},\"coll_perf\":{\"coll\":\"ReduceScatter\",\"coll_sn\":1231,"
	    "\"coll_msg_size_bytes\":2147483648,\"coll_exec_time_us\":41057,"
	    "\"coll_timing_source\":\"kernel_gpu\",\"coll_algobw_gbs\":418.439467,"
	    "\"coll_busbw_gbs\":366.134533,\"event_trace_sn\":{\"coll_start_sn\":1}}}\n"
	    "{\"header\":{\"id\":\"0xe62dedaa97644a\",\"rank\":4,\"n_ranks\":8,\"nnodes\":1},"
	    "\"metadata\":{\"inspector_output_format_version\":\"v5.0\"},\"p2p_perf\":{\"p2p\":"
	    "\"Send\",\"p2p_sn\":3,\"p2p_peer\":5,\"p2p_msg_size_bytes\":1048576}}\n";
	struct nccl_inspector ni;
	struct diag d = {0};
	char msg[512];

	cr_assert_eq(nccl_inspector_parse(text, sizeof(text) - 1, "pretty.log", &ni, &d), 0, "%s",
		     diag_str(&d, msg, sizeof(msg)));
	cr_assert_eq(ni.n, 2);
	cr_assert_eq(ni.skipped, 1, "the send");
	cr_assert_eq(ni.v[0].line, 1);
	cr_assert_eq(ni.v[0].msg_bytes, 17179869184ull);
	cr_assert_float_eq(ni.v[0].busbw, 485.119099, 1e-9);
	cr_assert_str_eq(ni.v[0].timing_source, "");
	cr_assert_eq(ni.v[1].line, 25);
	cr_assert_str_eq(ni.v[1].coll, "ReduceScatter");
	nccl_inspector_free(&ni);
}

static void ni_bad(const char *text, int line, const char *what)
{
	struct nccl_inspector ni;
	struct diag d = {0};
	char msg[512];
	int err = nccl_inspector_parse(text, strlen(text), "i.log", &ni, &d);

	diag_str(&d, msg, sizeof(msg));
	cr_assert_eq(err, -EINVAL, "%d (%s)", err, msg);
	cr_assert_eq(d.line, line, "line %d, not %d: %s", d.line, line, msg);
	cr_assert(strstr(msg, what), "\"%s\" does not say \"%s\"", msg, what);
	cr_assert_null(ni.v);
}

Test(measured, nccl_inspector_bad)
{
#define REC(perf)                                                                                  \
	"{\"header\":{\"id\":\"0x1\",\"rank\":0,\"n_ranks\":2,\"nnodes\":1},\"metadata\":{},"      \
	"\"coll_perf\":" perf "}\n"
#define PERF(t)                                                                                    \
	"{\"coll\":\"AllReduce\",\"coll_sn\":1,\"coll_msg_size_bytes\":8,"                         \
	"\"coll_exec_time_us\":" t ",\"coll_algobw_gbs\":1.0,\"coll_busbw_gbs\":1.0}"

	ni_bad(REC(PERF("10")) REC(PERF("10")) "{\"header\":{\"id\":\"0x1\",\"ra", 3,
	       "the file cut short?");
	ni_bad(REC(PERF("10")) "\n" REC(PERF("\"10us\"")), 3,
	       "coll_perf.coll_exec_time_us: not a number");
	ni_bad(REC("{\"coll\":\"AllReduce\"}"), 1, "coll_perf.coll_sn: missing");
	ni_bad("{\"header\":{\"rank\":0,\"n_ranks\":2},\"metadata\":{}}\n", 1,
	       "coll_perf: missing or not an object");
	ni_bad(
	    "{\"header\":{\"rank\":2,\"n_ranks\":2},\"metadata\":{},\"coll_perf\":" PERF("1") "}",
	    1, "header.rank: not below header.n_ranks");
	ni_bad("[1, 2]\n", 1, "not a JSON object");
	ni_bad("\n\n", 3, "no record");
#undef REC
#undef PERF
}

Test(measured, folder)
{
	struct md_dir m;
	struct diag d = {0};
	char msg[512], dir[512], path[700];
	FILE *f;

	cr_assert_eq(md_read(ts_src("tests/measured/lab"), &m, &d), 0, "%s",
		     diag_str(&d, msg, sizeof(msg)));
	cr_assert_eq(m.n, 6);
	cr_assert_str_eq(m.v[0].node, "h0");
	cr_assert_eq(m.v[0].kind, MC_ETHTOOL);
	cr_assert(strstr(m.v[0].before, "h0.ethtool.before.txt"));
	cr_assert(strstr(m.v[0].path, "h0.ethtool.after.txt"));
	cr_assert_eq(m.v[1].kind, MC_HW_COUNTERS);
	cr_assert_eq(m.v[2].kind, MD_NCCL_INSPECTOR);
	cr_assert_eq(m.v[3].kind, MD_NCCL_TESTS);
	cr_assert_str_eq(m.v[3].before, "");
	cr_assert_str_eq(m.v[4].node, "leaf0");
	cr_assert_eq(m.v[4].kind, MC_PFCSTAT);
	cr_assert_eq(m.v[5].kind, MC_QUEUESTAT);
	cr_assert_eq(m.n_skipped, 1);
	cr_assert_str_eq(m.skipped[0], "notes.txt");
	md_free(&m);

	/* a .before reading without its .after one */
	snprintf(dir, sizeof(dir), "%s", ts_tmp("lab2"));
	cr_assert_eq(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/spine1.pfcstat.before.txt", dir);
	f = fopen(path, "w");
	fputs("x\n", f);
	fclose(f);
	cr_assert_eq(md_read(dir, &m, &d), -EINVAL);
	diag_str(&d, msg, sizeof(msg));
	cr_assert(strstr(msg, "spine1.pfcstat.before.txt: a .before reading of spine1 without"),
		  "%s", msg);
}

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[700];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

/* files named as the lab saved them, named for their node by map.yaml */
Test(measured, folder_map)
{
	struct md_dir m;
	struct diag d = {0};
	char msg[512], dir[512];

	snprintf(dir, sizeof(dir), "%s", ts_tmp("mapped"));
	cr_assert_eq(mkdir(dir, 0755), 0);
	put_file(dir, "dgx07-pre.txt", "NIC statistics:\n     rx_prio3_pause: 1\n");
	put_file(dir, "dgx07-post.txt", "NIC statistics:\n     rx_prio3_pause: 4\n");
	put_file(dir, "leaf0.pfcstat.txt", "x\n");
	put_file(dir, "map.yaml",
		 "# a file of this folder -> the NODE.KIND[.before|.after] it stands for\n"
		 "dgx07-pre.txt: h3.ethtool.before\n"
		 "dgx07-post.txt: h3.ethtool.after\n");
	cr_assert_eq(md_read(dir, &m, &d), 0, "%s", diag_str(&d, msg, sizeof(msg)));
	cr_assert_eq(m.n, 2);
	cr_assert_str_eq(m.v[0].node, "h3");
	cr_assert_eq(m.v[0].kind, MC_ETHTOOL);
	cr_assert(strstr(m.v[0].before, "/dgx07-pre.txt"));
	cr_assert(strstr(m.v[0].path, "/dgx07-post.txt"));
	cr_assert_str_eq(m.v[1].node, "leaf0");
	cr_assert_eq(m.n_skipped, 0, "map.yaml is not listed as not read");
	md_free(&m);

	put_file(dir, "map.yaml", "dgx07-pre.txt: h3.ethtool.before\ndgx07-post.txt: h3.ethtol\n");
	cr_assert_eq(md_read(dir, &m, &d), -EINVAL);
	diag_str(&d, msg, sizeof(msg));
	cr_assert(strstr(msg, "map.yaml:2: dgx07-post.txt: \"h3.ethtol\" is not NODE.KIND"), "%s",
		  msg);
	put_file(dir, "map.yaml", "dgx07-pre.txt: h3.ethtool.before\ndgx08.txt: h4.ethtool\n");
	cr_assert_eq(md_read(dir, &m, &d), -EINVAL);
	diag_str(&d, msg, sizeof(msg));
	cr_assert(strstr(msg, "map.yaml:2: dgx08.txt: no such file"), "%s", msg);
	put_file(dir, "map.yaml", "dgx07-pre.txt: {node: h3}\n");
	cr_assert_eq(md_read(dir, &m, &d), -EINVAL);
	diag_str(&d, msg, sizeof(msg));
	cr_assert(strstr(msg, "map.yaml:1: dgx07-pre.txt: not a name"), "%s", msg);
}

Test(measured, cli_table_and_json)
{
	struct ts_proc p;
	json_error_t je;
	json_t *j, *c;
	size_t i;

	ts_exec(&p, (const char *[]){"import", "ethtool", LAB "h0.ethtool.before.txt",
				     LAB "h0.ethtool.after.txt", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_assert(ts_line_with(p.out, " rx_prio3_pause ", " 212  hosts[].rx_prio3_pause"), "%s",
		  p.out);
	ts_proc_free(&p);

	ts_exec(&p,
		(const char *[]){"import", "hw-counters", "--json", LAB "h0.hw-counters.before.txt",
				 LAB "h0.hw-counters.after.txt", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	j = json_loads(p.out, 0, &je);
	cr_assert(j, "%s", je.text);
	cr_assert_str_eq(json_string_value(json_object_get(j, "kind")), "hw-counters");
	json_array_foreach(json_object_get(j, "counters"), i, c) {
		if (strcmp(json_string_value(json_object_get(c, "name")), "np_cnp_sent"))
			continue;
		cr_assert_eq(json_integer_value(json_object_get(c, "value")), 250);
		cr_assert_str_eq(json_string_value(json_object_get(c, "rocesim")),
				 "hosts[].np_cnp_sent");
		cr_assert_str_eq(json_string_value(json_object_get(c, "scope")), "mlx5_0 port 1");
		break;
	}
	cr_assert_lt(i, json_array_size(json_object_get(j, "counters")), "np_cnp_sent listed");
	json_decref(j);
	ts_proc_free(&p);
}

Test(measured, cli_folder_json)
{
	struct ts_proc p;
	json_error_t je;
	json_t *j, *nodes, *rows;

	ts_exec(&p, (const char *[]){"import", "measured", "--json", "tests/measured/lab", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	j = json_loads(p.out, 0, &je);
	cr_assert(j, "%s", je.text);
	nodes = json_object_get(j, "nodes");
	cr_assert_eq(json_array_size(nodes), 6);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(nodes, 3), "kind")),
			 "nccl-tests");
	rows = json_object_get(json_array_get(nodes, 3), "rows");
	cr_assert_eq(json_array_size(rows), 4);
	cr_assert_float_eq(json_real_value(json_object_get(json_array_get(rows, 3), "busbw_GBps")),
			   87.14, 1e-9);
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(j, "skipped"), 0)),
			 "notes.txt");
	json_decref(j);
	ts_proc_free(&p);
}

Test(measured, cli_refusals)
{
	struct ts_proc p;
	const char *bad_file = ts_tmp("bad.nccl-tests.txt");
	FILE *f = fopen(bad_file, "w");

	fputs("#       size         count      type   redop    root     time   algbw   busbw "
	      "#wrong     time   algbw   busbw #wrong\n"
	      "           8             2     float     sum      -1    23.45    0.00    N/A      0 "
	      "   22.11    0.00    0.00      0\n",
	      f);
	fclose(f);
	ts_exec(&p, (const char *[]){"import", "nccl-tests", bad_file, NULL});
	cr_assert_eq(p.code, 2);
	cr_assert(strstr(p.err, "bad.nccl-tests.txt:2: busbw: \"N/A\" is not a number"), "%s",
		  p.err);
	ts_proc_free(&p);

	/* before and after swapped: every counter went back */
	ts_exec(&p, (const char *[]){"import", "ethtool", LAB "h0.ethtool.after.txt",
				     LAB "h0.ethtool.before.txt", NULL});
	cr_assert_eq(p.code, 2);
	cr_assert(strstr(p.err, "h0.ethtool.before.txt:2: rx_packets went back"), "%s", p.err);
	cr_assert_eq(strchr(p.err, '\n') - p.err + 1, (long)strlen(p.err), "one line: %s", p.err);
	ts_proc_free(&p);

	ts_exec(&p, (const char *[]){"import", "pfcstat", LAB "h0.ethtool.after.txt", NULL});
	cr_assert_eq(p.code, 2);
	cr_assert(strstr(p.err, "h0.ethtool.after.txt:1:"), "%s", p.err);
	ts_proc_free(&p);

	ts_exec(&p, (const char *[]){"import", "ethtool", "a", "b", "c", NULL});
	cr_assert_eq(p.code, 2);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"import", "queuestat", "--csv", "a", NULL});
	cr_assert_eq(p.code, 2);
	cr_assert(strstr(p.err, "unknown option --csv"), "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"import", "measured", ts_tmp("nothing-here"), NULL});
	cr_assert_eq(p.code, 2);
	cr_assert(strstr(p.err, "cannot open folder"), "%s", p.err);
	ts_proc_free(&p);
}

/* A results.json of an nccl_tests run, as results_training.c writes its
 * summary.nccl_tests: 3 of the 4 measured sizes and one more */
static const char run_json[] =
    "{\"schema_version\": 1, \"summary\": {\"nccl_tests\": {\"command\": "
    "\"all_reduce_perf -b 32M -e 512M -f 2 -g 1\", \"collective\": \"all_reduce\", "
    "\"ranks\": 8, \"warmup\": 5, \"iters\": 20, \"rows\": ["
    "{\"size\": 33554432, \"count\": 8388608, \"time_us\": 700.0, \"algbw_GBps\": 47.936, "
    "\"busbw_GBps\": 83.888},"
    "{\"size\": 67108864, \"count\": 16777216, \"time_us\": 1340.0, \"algbw_GBps\": 50.081, "
    "\"busbw_GBps\": 87.641},"
    "{\"size\": 268435456, \"count\": 67108864, \"time_us\": 5300.0, \"algbw_GBps\": 50.648, "
    "\"busbw_GBps\": 88.635},"
    "{\"size\": 536870912, \"count\": 134217728, \"time_us\": 10590.0, \"algbw_GBps\": 50.696, "
    "\"busbw_GBps\": 88.718}], \"avg_busbw_GBps\": 87.2205}}}\n";

static const char *write_run(const char *name)
{
	const char *path = ts_tmp(name);
	FILE *f = fopen(path, "w");

	cr_assert(f);
	fputs(run_json, f);
	fclose(f);
	return path;
}

Test(measured, compare_nccl_tests)
{
	struct cm_table t;
	struct diag d = {0};
	char msg[512], run[600];

	snprintf(run, sizeof(run), "%s", write_run("nccl-run.json"));
	cr_assert_eq(cm_nccl_tests(ts_src(LAB "h0.nccl-tests.log"), run, &t, &d), 0, "%s",
		     diag_str(&d, msg, sizeof(msg)));
	cr_assert_str_eq(t.collective, "all_reduce");
	cr_assert_eq(t.measured_ranks, 8);
	cr_assert_eq(t.simulated_ranks, 8);
	cr_assert_eq(t.n, 5, "32M, 64M, 128M, 256M, 512M");
	cr_assert(t.rows[0].measured && t.rows[0].simulated);
	cr_assert_eq(t.rows[0].bytes, 33554432);
	/* 83.888 simulated / 78.81 measured */
	cr_assert_float_eq(t.rows[0].ratio, 83.888 / 78.81, 1e-12);
	cr_assert_float_eq(t.rows[0].measured_time_us, 745.1, 1e-9);
	cr_assert_float_eq(t.rows[0].simulated_time_us, 700.0, 1e-9);
	cr_assert_eq(t.rows[0].line, 16);
	cr_assert(t.rows[2].measured && !t.rows[2].simulated, "128M measured only");
	cr_assert_eq(t.rows[2].ratio, 0);
	cr_assert_float_eq(t.rows[3].ratio, 88.635 / 87.14, 1e-12);
	cr_assert(!t.rows[4].measured && t.rows[4].simulated, "512M simulated only");
	cr_assert_float_eq(t.measured_avg_busbw, 83.9537, 1e-9);
	cr_assert_float_eq(t.simulated_avg_busbw, 87.2205, 1e-9);
	cm_free(&t);
}

Test(measured, compare_cli)
{
	struct ts_proc p;
	char run[600];
	json_error_t je;
	json_t *j, *rows;

	snprintf(run, sizeof(run), "%s", write_run("nccl-run2.json"));
	ts_exec(&p, (const char *[]){"compare", "--measured", "tests/measured/lab", run, NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_assert(ts_line_with(p.out, "33554432", "       78.81            83.89         1.064"),
		  "%s", p.out);
	cr_assert(ts_line_with(p.out, "536870912", "           -            88.72             -"),
		  "%s", p.out);
	ts_proc_free(&p);

	ts_exec(&p, (const char *[]){"compare", "--json", "--measured", LAB "h0.nccl-tests.log",
				     run, NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	j = json_loads(p.out, 0, &je);
	cr_assert(j, "%s", je.text);
	rows = json_object_get(json_array_get(j, 0), "rows");
	cr_assert_eq(json_array_size(rows), 5);
	cr_assert_float_eq(json_real_value(json_object_get(json_array_get(rows, 3), "ratio")),
			   88.635 / 87.14, 1e-9);
	cr_assert(json_is_null(json_object_get(json_array_get(rows, 4), "measured")));
	json_decref(j);
	ts_proc_free(&p);

	/* a run that is no nccl_tests run, a measured folder of none */
	ts_exec(&p, (const char *[]){"compare", "--measured", LAB "h0.nccl-tests.log",
				     "tests/measured/lab/h0.nccl-inspector.log", NULL});
	cr_assert_eq(p.code, 2);
	cr_assert(strstr(p.err, "h0.nccl-inspector.log"), "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"compare", "--measured", "tests/measured", run, NULL});
	cr_assert_eq(p.code, 2);
	cr_assert(strstr(p.err, "no NODE.nccl-tests file") || strstr(p.err, "no file named"), "%s",
		  p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"compare", "--measured", "tests/measured/lab", NULL});
	cr_assert_eq(p.code, 2);
	ts_proc_free(&p);
}

/* A FIFO given as a reading is refused at once, not waited on */
Test(measured, fifo_is_refused)
{
	static const char *const kinds[] = {"ethtool",	 "hw-counters", "pfcstat",
					    "queuestat", "nccl-tests",	"nccl-inspector"};
	const struct ts_opts o = {.timeout_s = 20};
	char fifo[300];

	snprintf(fifo, sizeof(fifo), "%s", ts_tmp("fifo"));
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct ts_proc p;

		ts_exec_opts(&p, &o, (const char *[]){"import", kinds[i], fifo, NULL});
		cr_assert_eq(p.code, 2, "import %s FIFO: exit %d (signal %d): %s", kinds[i], p.code,
			     p.sig, p.err);
		cr_assert(strstr(p.err, "not a regular file"), "import %s FIFO: %s", kinds[i],
			  p.err);
		ts_proc_free(&p);
	}
	unlink(fifo);
}
