/*
 * Units: parse the numbers of a scenario into integers. Sizes in bytes (SI
 * and binary prefixes), rates in bit/s, times in picoseconds, lengths in
 * millimetres, percentages as a fraction. Decimal input is exact: "1.2MB"
 * is 1200000, "150KiB" is 153600; a value that is not a whole number of the
 * base unit ("0.5B", "0.1ps") is refused rather than rounded.
 */
#ifndef ROCESIM_UNITS_H
#define ROCESIM_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine/simtime.h"

/*
 * The longest time and cable a scenario may give: 10^6 s (11.6 days) and
 * 1000 km. The simulator adds a few input times to its clock (a PAUSE's
 * arrival + the response + the watchdog's detection, a fault's start +
 * its duration), and with each term at most 10^18 ps those sums stay far
 * inside 64 bits.
 */
#define UNITS_TIME_MAX (1000000 * SIMTIME_S)
#define UNITS_LENGTH_MAX_MM 1000000000ULL

enum units_err {
	UNITS_OK = 0,
	UNITS_ESYNTAX = -1,   /* not a number with a known unit */
	UNITS_ENOUNIT = -2,   /* a bare number where a unit is required */
	UNITS_ERANGE = -3,    /* does not fit in 64 bits, or above the ceiling */
	UNITS_EFRACTION = -4, /* not a whole number of the base unit */
};

/* "150KB", "1.2MB", "150KiB", "64B", "65536" (bare bytes). */
int units_size(const char *s, uint64_t *bytes);
/* "100Gbps", "400Gb/s", "50Mbps", "1Tbps", "1000bps"; in bytes per second
 * "450GB/s" (3600 Gbps), "25MB/s". */
int units_rate(const char *s, uint64_t *bps);
/* "1us", "1.5us", "50ms", "2s", "100ns", "5ps" ("µs" too); 0 may be bare.
 * At most UNITS_TIME_MAX. */
int units_time(const char *s, simtime_t *ps);
/* "5m", "2.5m", "2km", "30cm", "500mm": cable length, at most 1000 km. */
int units_length(const char *s, uint64_t *mm);
/* "20%", "0.5%", or a bare fraction "0.2"; must lie in [0, 1]. */
int units_fraction(const char *s, double *frac);

/*
 * Numbers for people, three significant digits in the largest unit that
 * keeps them at 1 or more: a time given in microseconds as "812 ns",
 * "4.37 ms", "4.29 s"; a size in bytes as "900 B", "1.15 MB" (SI, as
 * scenarios write them). Into @buf (at least 16 bytes), which is returned.
 */
const char *units_show_time(double us, char *buf, size_t size);
const char *units_show_size(double bytes, char *buf, size_t size);

/* Plain words for an error code, for messages. */
const char *units_strerror(int err);

#endif
