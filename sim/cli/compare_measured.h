/*
 * rocesim compare --measured (compare_measured.c), for compare.c to hand
 * its arguments to when they hold --measured.
 */
#ifndef ROCESIM_CLI_COMPARE_MEASURED_H
#define ROCESIM_CLI_COMPARE_MEASURED_H

/* The usage lines of --measured, for compare's usage. */
extern const char cmp_measured_usage[];

/* rocesim compare with @argc arguments @argv holding --measured DIR; the
 * exit code. @usage: compare's whole usage, for usage errors. */
int cmp_measured(int argc, char **argv, const char *usage);

#endif
