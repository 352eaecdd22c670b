/*
 * The exit codes of rocesim, which the layers that do a verb's work (the
 * checks, sweeps, tunes and comparisons) return as they are for the command
 * line to exit with: 0 ok, 1 the check found what it was asked to fail on,
 * 2 bad input or usage, 3 an I/O failure after a good run.
 */
#ifndef ROCESIM_EXIT_CODES_H
#define ROCESIM_EXIT_CODES_H

#define ROCESIM_EXIT_FOUND 1
#define ROCESIM_EXIT_INPUT 2
#define ROCESIM_EXIT_IO 3 /* an I/O failure after a good run: the results could not be kept */

#endif
