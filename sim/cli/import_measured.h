/*
 * rocesim import of measured counters (import_measured.c): ethtool,
 * hw-counters, pfcstat, queuestat, nccl-tests, and a folder of them
 * (measured), for import.c to hand its arguments to.
 */
#ifndef ROCESIM_IMPORT_MEASURED_H
#define ROCESIM_IMPORT_MEASURED_H

/* The usage lines of the measured kinds, for import's usage. */
extern const char imp_measured_usage[];

/* 1 when @kind is one of the measured kinds (or "measured"). */
int imp_is_measured(const char *kind);

/* rocesim import @kind with the arguments after the kind: [--json] FILE
 * [AFTER], or [--json] DIR for "measured"; the exit code. */
int imp_measured(const char *kind, int argc, char **argv, const char *usage);

#endif
