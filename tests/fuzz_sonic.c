/*
 * libFuzzer harness for the SONiC config_db.json reader: the input is the
 * text of a config_db.json, read with sonic_read_text. A refusal must come
 * with a one-line message; a success must leave a struct the scenario
 * loader can trust (NUL-terminated names, maps in range, a known watchdog
 * action). Crashes, leaks, UB and broken invariants (abort) are the
 * findings; refusals are expected.
 *
 * A last line "#failalloc N" (or "N+") makes the reader's N-th allocation
 * (and every later one) fail (tests/fuzz/oom.h): it must then refuse with
 * -ENOMEM. jansson's own allocations never fail here: jansson 2.14's parser
 * goes on when its string buffer cannot grow, with a byte missing (a wrong
 * key that parses, or a read past the buffer; jansson issue #362), which no
 * reader can repair; that the reader takes jansson's refusal for want of
 * memory as "out of memory" is a test of tests/test_oom.c.
 *
 * Not part of the meson build (it needs clang's -fsanitize=fuzzer): `make
 * fuzz` builds it with every library source below the command line and
 * runs it on its seeds (tests/fuzz/run.sh; `tests/fuzz/run.sh sonic` runs
 * this one alone). A crash, leak or timeout is kept in
 * build-fuzz/sonic/findings/; replay it with `build-fuzz/sonic/fuzz_sonic FILE` or `build/rocesim
 * import sonic FILE`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/sonic.h"
#include "tests/fuzz/oom.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A char array field must hold a NUL-terminated string. */
#define TERMINATED(a) (memchr((a), '\0', sizeof(a)) != NULL)

static void check_ok(const struct sonic_cfg *c)
{
	if (!TERMINATED(c->file) || !TERMINATED(c->profile) || !TERMINATED(c->pg_where) ||
	    !TERMINATED(c->pfc_where) || !TERMINATED(c->dscp_map) || !TERMINATED(c->wred) ||
	    !TERMINATED(c->wd_action))
		abort();
	if (c->n_ports == 0)
		abort();
	if (c->has_profile && c->pg_null)
		abort();
	if (c->has_dynamic_th && c->has_static_th)
		abort();
	if (c->has_dynamic_th && (c->dynamic_th < -128 || c->dynamic_th > 127))
		abort();
	if (!(c->pmax >= 0.0 && c->pmax <= 1.0))
		abort();
	for (int i = 0; i < 64; i++) {
		if (c->dscp_to_tc[i] > 7)
			abort();
	}
	for (int i = 0; i < 8; i++) {
		if (c->tc_to_pg[i] > 7 || c->tc_to_queue[i] > 7)
			abort();
	}
	if (!c->has_dscp_map && c->dscp_given)
		abort();
	if (c->has_watchdog && strcmp(c->wd_action, "drop") && strcmp(c->wd_action, "forward") &&
	    strcmp(c->wd_action, "alert"))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sonic_cfg c;
	struct diag d = {0};
	struct fuzz_oom o;
	char buf[1024];
	int err, failed;

	size = fuzz_oom_strip(data, size, &o);
	fuzz_oom_arm(&o);
	err = sonic_read_text("fuzz.json", (const char *)data, size, &c, &d);
	failed = fuzz_oom_disarm(&o);
	fuzz_oom_check(failed, err, &d, "sonic_read_text");
	fuzz_oom_done(&o);
	if (err) {
		if (err != -22 && err != -12)
			abort();
		diag_str(&d, buf, sizeof(buf));
		if ((!buf[0] && err != -ENOMEM) || strchr(buf, '\n'))
			abort();
		return 0;
	}
	check_ok(&c);
	return 0;
}
