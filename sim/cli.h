/*
 * The verbs of the command line besides run (main.c): each takes the
 * arguments after its verb and returns the exit code (0 ok, 1 the check
 * found what it was asked to fail on, 2 bad input or usage).
 */
#ifndef ROCESIM_CLI_H
#define ROCESIM_CLI_H

int cmd_check(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_import(int argc, char **argv);

#endif
