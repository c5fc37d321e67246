/* cli.h: what the files of the samebits command share.
 *
 * tools/samebits.c holds main() and the table of subcommands; each
 * subcommand lives in its own tools/cmd_<name>.c and is one cmd_<name>()
 * entry point below. The helpers (tools/cli_util.c) are the small things
 * several subcommands need: messages, timing, machine facts, bit patterns.
 *
 * Like everything in tools/, this uses only the public header samebits.h.
 *
 * Exit status of every subcommand: CLI_EXIT_OK; CLI_EXIT_FAILURE when the
 * work could not be done or found something wrong (e.g. a library result
 * that breaks the promise); CLI_EXIT_USAGE for a bad command line.
 */
#ifndef SAMEBITS_CLI_H
#define SAMEBITS_CLI_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#define CLI_EXIT_OK      0
#define CLI_EXIT_FAILURE 1
#define CLI_EXIT_USAGE   2

/* A subcommand: argv[0] is the subcommand's name, the options follow. */
typedef int (*cli_command_fn)(int argc, char **argv);

/* ---- subcommands (one file each) ------------------------------------------ */

int cmd_demo(int argc, char **argv);    /* tools/cmd_demo.c */
int cmd_bench(int argc, char **argv);   /* tools/cmd_bench.c */

/* ---- helpers (tools/cli_util.c) -------------------------------------------- */

#if defined(__GNUC__)
#  define CLI_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#  define CLI_PRINTF(fmt, args)
#endif

/* Prints "samebits <context>: <message>\n" to stderr. */
void cli_error(const char *context, const char *fmt, ...) CLI_PRINTF(2, 3);

/* Remembers the whole command line (main() calls this first), so that a
 * subcommand can print it exactly: cli_command_line() gives it as one
 * shell-quoted string, preceded by SAMEBITS_THREADS=... when that variable
 * is set, since it changes what the host path does. */
void cli_set_command_line(int argc, char **argv);
const char *cli_command_line(void);

/* Says whether `arg` is -h or --help, so that every subcommand answers both. */
int cli_is_help(const char *arg);

/* Parses a whole decimal string into [min, max]; returns 0 on success,
 * -1 (and leaves *out untouched) otherwise. */
int cli_parse_uint(const char *s, unsigned long min, unsigned long max,
                   unsigned long *out);

/* Monotonic wall-clock time in seconds, for timing (not for dates). */
double cli_now(void);

/* The number of online CPUs (at least 1). */
unsigned cli_online_cpus(void);

/* The thread count the host path uses for sb_host_options.threads == 0:
 * SAMEBITS_THREADS if it is a positive integer, else every online CPU,
 * capped at 256, as samebits.h documents. Baselines use it so that they
 * run on as many threads as the library does. */
unsigned cli_default_threads(void);

/* Writes the CPU model name (the first "model name" of /proc/cpuinfo) to
 * `buf`, or "unknown" when there is none. */
void cli_cpu_model(char *buf, size_t size);

/* Value of option `name` at argv[*i]: "--name value" (advancing *i) or
 * "--name=value". NULL if argv[*i] is not that option; `missing` is set
 * when the option is there but its value is not. */
const char *cli_option_value(int argc, char **argv, int *i, const char *name,
                             int *missing);

/* Writes `s` to `out` as a JSON string, quotes included. */
void cli_json_string(FILE *out, const char *s);

/* The bit patterns of floats, for printing and comparing results exactly. */
uint64_t cli_f64_bits(double v);
uint32_t cli_f32_bits(float v);

#endif /* SAMEBITS_CLI_H */
