/*
 * Where check says PFC will come from on a switch's buffer: the seed's
 * ladder (ECN 150 KB / 1.2 MB, XOFF 2.4 MB, headroom 1.6 MB per port) on a
 * 12-port switch with the buffer defaulted, under a 7:1 incast
 * (tests/check/seed-ladder-incast-7to1.yaml). check names the default
 * buffer, the headroom reserved, what the 2 m cables need and the XOFF
 * the pool cannot give; run shows the pool filling and every PAUSE sent
 * below XOFF.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc.h"

#define SCN "tests/check/seed-ladder-incast-7to1.yaml"

static void setup(void)
{
	ts_proc_setup("check_buffer");
}

TestSuite(check_buffer, .init = setup, .fini = ts_proc_teardown, .timeout = 120);

static void has(const char *out, const char *want)
{
	cr_assert(strstr(out, want), "no \"%s\" in:\n%s", want, out);
}

Test(check_buffer, seed_ladder_explains_the_pauses)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"check", SCN, NULL});
	cr_assert_eq(p.code, 0, "warnings and info only: exit %d\n%s", p.code, p.out);
	has(p.out, "info BUFFER_DEFAULT switch.buffer.size 32000000 B (default): no buffer size "
		   "is given");
	/* 12 ports x 1 lossless priority x 1,600,000 B = 19,200,000 B of 32,000,000 B */
	has(p.out, "info HEADROOM_RESERVED sw0: switch.pfc.headroom (" SCN ":15); "
		   "switch.buffer.size 32000000 B (default): 12 lossless priority groups reserve "
		   "19200000 B of headroom, 60% of the 32000000 B buffer; 12800000 B are left to "
		   "share");
	/*
	 * What a 2 m cable at 100G needs with MTU 4096: 3 frames of 4096 + 62 B
	 * of headers + 20 B of preamble and gap (12,534 B), the PAUSE (64 + 20
	 * B), and 2 x 10 ns of propagation plus 394 quanta of response (2,017.28
	 * ns) at 12.5 B/ns (25,466 B): 38,084 B; 1,600,000 - 38,084 = 1,561,916 B
	 * more, 18,742,992 B over 12 ports.
	 */
	has(p.out, "info HEADROOM_EXCESS sw0: switch.pfc.headroom 1600000 B (" SCN ":15); port "
		   "sw0:h0, link 100 Gb/s 2 m: its cable needs 38084 B (the formula of "
		   "HEADROOM_SHORT): 1561916 B more than needed; over the 12 ports with more than "
		   "their cable needs, 18742992 B of the buffer are held back");
	/* 12 x 2,400,000 = 28,800,000 B > 12,800,000 B; 12,800,000 / 2,400,000 = 5 */
	has(p.out, "warning XOFF_ABOVE_POOL sw0: switch.pfc.xoff 2400000 B (" SCN ":15) x 12 "
		   "lossless priority groups: 28800000 B is more than the 12800000 B shared pool: "
		   "at most 5 groups can reach XOFF together; when more ports are congested at "
		   "once (an incast of 6 or more senders) the pool runs out first");
	ts_proc_free(&p);

	/* the same findings in --json, each at its key */
	ts_exec(&p, (const char *[]){"check", SCN, "--json", NULL});
	cr_assert_eq(p.code, 0);
	has(p.out, "\"code\": \"XOFF_ABOVE_POOL\"");
	has(p.out, "\"key\": \"switch.pfc.xoff\"");
	has(p.out, "\"code\": \"BUFFER_DEFAULT\"");
	ts_proc_free(&p);
}

Test(check_buffer, said_only_when_true)
{
	struct ts_proc p;

	/* a buffer given, headroom near the cable's need, XOFF the pool can give:
	 * 12 x 40,960 = 491,520 B reserved, 12 x 600,000 = 7.2 MB < 31.5 MB */
	ts_exec(&p, (const char *[]){"check", SCN, "--set", "switch.buffer.size=32MB", "--set",
				     "switch.pfc.headroom=40KiB", "--set", "switch.pfc.xoff=600KB",
				     NULL});
	cr_assert_eq(p.code, 0, "exit %d\n%s", p.code, p.out);
	cr_assert_null(strstr(p.out, "BUFFER_DEFAULT"), "%s", p.out);
	cr_assert_null(strstr(p.out, "HEADROOM_EXCESS"), "%s", p.out);
	cr_assert_null(strstr(p.out, "XOFF_ABOVE_POOL"), "%s", p.out);
	has(p.out, "12 lossless priority groups reserve 491520 B of headroom, 2% of the 32000000 "
		   "B buffer; 31508480 B are left to share");
	ts_proc_free(&p);
	/* a dynamic threshold: no static XOFF to compare */
	ts_exec(&p, (const char *[]){"check", SCN, "--set", "switch.pfc.dynamic_th=-2", NULL});
	cr_assert_null(strstr(p.out, "XOFF_ABOVE_POOL"), "%s", p.out);
	ts_proc_free(&p);
}

/* Every port that sent PAUSE peaked below XOFF: the pool, not XOFF, paused it. */
Test(check_buffer, the_run_pauses_on_the_pool)
{
	json_t *r, *sw, *port;
	json_error_t je;
	struct ts_proc p;
	size_t i;
	uint64_t shared, peak, pauses = 0;
	char path[600];

	ts_exec(&p, (const char *[]){"run", SCN, "-o", ts_tmp("out"), "--quiet", NULL});
	cr_assert_eq(p.code, 0, "exit %d: %s", p.code, p.err);
	ts_proc_free(&p);
	snprintf(path, sizeof(path), "%s/results.json", ts_tmp("out"));
	r = json_load_file(path, 0, &je);
	cr_assert(r, "%s: %s", path, je.text);
	sw = json_array_get(json_object_get(r, "switches"), 0);
	shared = (uint64_t)json_integer_value(json_object_get(sw, "shared_bytes"));
	peak = (uint64_t)json_integer_value(json_object_get(sw, "shared_peak_bytes"));
	cr_assert_eq(shared, 12800000, "32 MB less 12 x 1.6 MB");
	/* full to within one 4096 B frame on the wire (4,178 B) */
	cr_assert(peak <= shared && peak + 4178 > shared, "pool peak %llu of %llu",
		  (unsigned long long)peak, (unsigned long long)shared);
	json_array_foreach(json_object_get(sw, "ports"), i, port) {
		json_t *pfc = json_array_get(json_object_get(port, "pfc"), 0);
		json_t *pg = json_array_get(json_object_get(port, "pgs"), 0);
		uint64_t tx = (uint64_t)json_integer_value(json_object_get(pfc, "tx_pause"));

		pauses += tx;
		if (tx)
			cr_assert_lt(json_integer_value(json_object_get(pg, "peak_bytes")), 2400000,
				     "%s paused below XOFF",
				     json_string_value(json_object_get(port, "name")));
	}
	cr_assert_gt(pauses, 0, "the incast pauses");
	cr_assert_eq(
	    json_integer_value(json_object_get(json_object_get(r, "summary"), "lossless_drops")),
	    0);
	json_decref(r);
}
