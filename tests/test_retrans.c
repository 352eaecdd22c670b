/*
 * RC retransmission as the built rocesim runs it: the InfiniBand local ACK
 * timeout (4.096 us x 2^nic.transport.timeout), the retry count after
 * which a QP fails (IBV_WC_RETRY_EXC_ERR), and ConnectX adaptive
 * retransmission (a short first timeout doubling up to the QP's). The
 * case: eight senders into one at line rate through a 1 MB switch without
 * PFC, so that tails are lost with nothing behind them to draw a NAK and
 * only timeouts resend them.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc.h"

static void setup(void)
{
	ts_proc_setup("retrans");
}

TestSuite(retrans, .init = setup, .fini = ts_proc_teardown, .timeout = 120);

#define LOSSY_INCAST                                                                               \
	"run", "experiments/incast-8to1.yaml", "--set", "switch.pfc.enabled=false", "--set",       \
	    "switch.buffer.size=1MB", "--set", "nic.cc=none", "--set", "nic.transport.timeout=12", \
	    "--set", "output.sample=0", "--set", "stop=1s"

/* Run the lossy incast with @extra (a --set value, or NULL) into @dir. */
static json_t *lossy(const char *dir, const char *extra, const char *extra2, char **out)
{
	struct ts_proc p;
	json_error_t e;
	char path[400];
	json_t *j;

	ts_exec(&p,
		(const char *[]){LOSSY_INCAST, "-o", ts_tmp(dir), "--set", extra ? extra : "seed=1",
				 "--set", extra2 ? extra2 : "seed=1", NULL});
	cr_assert(p.code == 0 || p.code == 1, "exit %d: %s", p.code, p.err);
	snprintf(path, sizeof(path), "%s/results.json", ts_tmp(dir));
	j = json_load_file(path, 0, &e);
	cr_assert(j, "%s: %s", path, e.text);
	if (out)
		*out = strdup(p.out);
	ts_proc_free(&p);
	return j;
}

static double num(const json_t *j, const char *a, const char *b)
{
	const json_t *v = json_object_get(json_object_get(json_object_get(j, "summary"), a), b);

	if (!b)
		v = json_object_get(json_object_get(j, "summary"), a);
	cr_assert(json_is_number(v), "no summary.%s%s%s", a, b ? "." : "", b ? b : "");
	return json_number_value(v);
}

Test(retrans, adaptive_retransmission_recovers_a_lost_tail_in_a_fraction_of_the_timeout)
{
	json_t *plain = lossy("plain", NULL, NULL, NULL);
	json_t *adp = lossy("adp", "nic.transport.adaptive_retrans=true", NULL, NULL);
	double first = 262.144, to = 16777.216;
	double n = num(adp, "rc_timeouts", "qp_timeouts"),
	       w = num(adp, "rc_timeouts", "qp_waited_us");

	/* every flow done both ways; the plain one waits whole 16.8 ms timeouts */
	cr_expect_eq(num(plain, "flows_done", NULL), 8);
	cr_expect_eq(num(adp, "flows_done", NULL), 8);
	cr_expect_float_eq(num(plain, "rc_timeouts", "qp_waited_us"),
			   to * num(plain, "rc_timeouts", "qp_timeouts"), 1e-3);
	cr_expect_lt(num(adp, "done_us", NULL), num(plain, "done_us", NULL) / 3, "%f against %f",
		     num(adp, "done_us", NULL), num(plain, "done_us", NULL));
	/* each adaptive timeout at least the first, at most the QP's */
	cr_expect_geq(w, first * n - 1e-3);
	cr_expect_leq(w, to * n + 1e-3);
	cr_expect_eq(num(adp, "rc_timeouts", "qp_errors"), 0);
	json_decref(plain);
	json_decref(adp);
}

Test(retrans, a_qp_fails_after_retry_cnt_retries_and_is_reported)
{
	char *out = NULL;
	json_t *j = lossy("r0", "nic.transport.retry_cnt=0", NULL, &out), *flows, *f;
	size_t i, failed = 0;

	/* no retry: each QP fails at its first timeout, its flow never done */
	flows = json_object_get(j, "flows");
	json_array_foreach(flows, i, f) {
		const char *e = json_string_value(json_object_get(f, "error"));

		if (e) {
			cr_expect_str_eq(e, "retry_exceeded");
			cr_expect(json_is_null(json_object_get(f, "fct_us")));
			failed++;
		}
	}
	cr_expect_eq(failed, 8);
	cr_expect_eq(num(j, "rc_timeouts", "qp_errors"), 8);
	cr_expect_eq(num(j, "rc_timeouts", "timeouts"), 8);
	cr_expect_eq(num(j, "flows_done", NULL), 0);
	cr_expect(
	    strstr(out, "  qp errors  8 QPs failed, retry count exceeded (IBV_WC_RETRY_EXC_ERR)"),
	    "%s", out);
	json_decref(j);
	free(out);

	/* one retry: here every timeout's resend made progress before the
	 * next (3 timeouts at most on a QP, none two in a row), so no QP fails
	 * and the run is the default's */
	j = lossy("r1", "nic.transport.retry_cnt=1", NULL, NULL);
	cr_expect_eq(num(j, "rc_timeouts", "qp_errors"), 0);
	cr_expect_eq(num(j, "flows_done", NULL), 8);
	cr_expect_float_eq(num(j, "done_us", NULL), 51635.746, 1e-3);
	json_decref(j);
}

Test(retrans, adaptive_retransmission_fails_a_qp_after_timeout_x_retry_cnt)
{
	/* retry_cnt 0: no time at all without progress is allowed */
	json_t *j =
	    lossy("a0", "nic.transport.adaptive_retrans=true", "nic.transport.retry_cnt=0", NULL);

	cr_expect_eq(num(j, "rc_timeouts", "qp_errors"), 8);
	cr_expect_eq(num(j, "rc_timeouts", "timeouts"), 8);
	/* each failed at its first, short, timeout */
	cr_expect_float_eq(num(j, "rc_timeouts", "qp_waited_us"), 262.144, 1e-3);
	json_decref(j);
}

Test(retrans, the_transport_keys_are_checked_and_reported)
{
	static const char *const bad[][2] = {
	    {"nic.transport.retry_cnt=8", "nic.transport.retry_cnt"},
	    {"nic.transport.adaptive_retrans=maybe", "nic.transport.adaptive_retrans"},
	    {"nic.transport.adaptive_first=1us", "at least 4us"},
	    {"nic.transport.adaptive_first=5", "nic.transport.adaptive_first"},
	};
	struct ts_proc p;
	json_error_t e;
	json_t *j, *tr;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ts_exec(&p, (const char *[]){
				"run", "experiments/incast-8to1.yaml", "-o", ts_tmp("b"), "--set",
				"nic.transport.adaptive_retrans=true", "--set", bad[i][0], NULL});
		cr_expect_eq(p.code, 2, "%s: exit %d", bad[i][0], p.code);
		cr_expect(strstr(p.err, bad[i][1]), "%s: %s", bad[i][0], p.err);
		ts_proc_free(&p);
	}
	ts_exec(&p, (const char *[]){
			"run", "experiments/incast-8to1.yaml", "-q", "-o", ts_tmp("ok"), "--set",
			"nic.transport.adaptive_retrans=true", "--set", "nic.transport.retry_cnt=3",
			"--set", "nic.transport.adaptive_first=16us", "--set", "stop=10us", NULL});
	cr_assert(p.code == 0 || p.code == 1, "%s", p.err);
	ts_proc_free(&p);
	j = json_load_file(ts_tmp("ok/results.json"), 0, &e);
	cr_assert(j, "%s", e.text);
	tr = json_object_get(json_object_get(json_object_get(j, "effective"), "nic"), "transport");
	cr_expect_eq(json_integer_value(json_object_get(tr, "retry_cnt")), 3);
	cr_expect(json_is_true(json_object_get(tr, "adaptive_retrans")));
	cr_expect_float_eq(json_number_value(json_object_get(tr, "adaptive_first_us")), 16, 1e-9);
	json_decref(j);
}

/* A Pod manifest whose container gives NCCL_IB_RETRY_CNT @value (line 11). */
static void write_pod(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");

	cr_assert(f);
	fprintf(f,
		"apiVersion: v1\n"
		"kind: Pod\n"
		"metadata:\n"
		"  name: nccl\n"
		"spec:\n"
		"  containers:\n"
		"  - name: trainer\n"
		"    image: nvcr.io/nvidia/pytorch:24.05-py3\n"
		"    env:\n"
		"    - name: NCCL_IB_RETRY_CNT\n"
		"      value: \"%s\"\n",
		value);
	fclose(f);
}

Test(retrans, nccl_ib_retry_cnt_of_a_pod_sets_the_retry_count)
{
	const char *pod = ts_tmp("pod.yaml"), *scn = ts_tmp("s.yaml");
	FILE *f = fopen(scn, "w");
	struct ts_proc p;
	json_error_t e;
	json_t *j, *tr;

	cr_assert(f);
	fputs("name: s\n"
	      "topology: {kind: star, hosts: 4}\n"
	      "workload: {kind: allreduce, size: 1MB, pod: pod.yaml}\n"
	      "output: {sample: 0}\n",
	      f);
	fclose(f);
	write_pod(pod, "2");
	ts_exec(&p, (const char *[]){"run", scn, "-q", "-o", ts_tmp("pod"), NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	j = json_load_file(ts_tmp("pod/results.json"), 0, &e);
	cr_assert(j, "%s", e.text);
	tr = json_object_get(json_object_get(json_object_get(j, "effective"), "nic"), "transport");
	cr_expect_eq(json_integer_value(json_object_get(tr, "retry_cnt")), 2);
	json_decref(j);

	/* a value outside 0..7 names the manifest's line */
	write_pod(pod, "9");
	ts_exec(&p, (const char *[]){"run", scn, "-q", "-o", ts_tmp("pod9"), NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(strstr(p.err, "pod.yaml:11") && strstr(p.err, "NCCL_IB_RETRY_CNT"), "%s", p.err);
	ts_proc_free(&p);
}
