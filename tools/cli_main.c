/* cli_main.c: main() of the samebits command: the table of subcommands,
 * the top-level usage text, and dispatch to tools/cmd_<name>.c.
 *
 * A new subcommand is one new file, one declaration in cli.h and one row in
 * `commands` below; main() itself never changes.
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include "samebits.h"

typedef struct {
    const char     *name;
    cli_command_fn  run;
    const char     *summary;   /* one line for the usage text */
} cli_command;

static const cli_command commands[] = {
    { "demo",   cmd_demo,
      "the same bits on the host and every device: a series summed" },
    { "info",   cmd_info,
      "OpenCL platforms and devices, and what samebits can do on each" },
    { "reduce", cmd_reduce,
      "reduce a data file (text, .npy, .npz or raw) on the host or a device" },
    { "check",  cmd_check,
      "prove a device: the conformance corpus against its golden results" },
    { "bench",  cmd_bench,
      "throughput of the host path and each device against baselines" },
};

static const size_t command_count = sizeof commands / sizeof commands[0];

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: samebits <command> [options]\n"
            "       samebits <command> --help\n"
            "       samebits --version\n"
            "\n"
            "samebits %s: deterministic parallel reductions, the same bits "
            "everywhere.\n"
            "\n"
            "commands:\n", SAMEBITS_VERSION_STRING);
    for (size_t i = 0; i < command_count; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\n"
            "exit status, the same meaning in every command:\n"
            "  0  the value was printed / the work was done\n"
            "  1  no value: min/max over nothing (empty), or a checked overflow\n"
            "  2  a bad command line\n"
            "  3  an input that cannot be read or is not what it must be\n"
            "  4  no such device, or the device refused or failed\n"
            "  5  check, demo: a result differs from what samebits promises\n"
            "     (a bug: please report it)\n"
            "With --json (reduce, bench) every outcome, errors included, is a\n"
            "JSON record on standard output.\n");
}

static const cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < command_count; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

int main(int argc, char **argv)
{
    cli_set_command_line(argc, argv);
    if (argc < 2) {
        print_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (cli_is_help(name) || strcmp(name, "help") == 0) {
        /* "samebits help bench" is "samebits bench --help". */
        if (argc > 2 && strcmp(name, "help") == 0) {
            const cli_command *c = find_command(argv[2]);
            if (c != NULL) {
                char help[] = "--help";
                char *sub_argv[] = { argv[2], help, NULL };
                return c->run(2, sub_argv);
            }
        }
        print_usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0) {
        printf("samebits %s\n", SAMEBITS_VERSION_STRING);
        return CLI_EXIT_OK;
    }
    const cli_command *c = find_command(name);
    if (c == NULL) {
        fprintf(stderr, "samebits: unknown command '%s'\n\n", name);
        print_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    return c->run(argc - 1, argv + 1);
}
