/* cli_util.c: helpers shared by the subcommands of the samebits command
 * (messages, number parsing, timing, machine facts, float bits); see cli.h. */
#define _POSIX_C_SOURCE 200809L   /* clock_gettime, sysconf */

#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


static char last_error[1024];

void cli_error(const char *context, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    fprintf(stderr, "samebits %s: %s\n", context, last_error);
}

const char *cli_last_error(void)
{
    return last_error;
}

static char command_line[4096];

/* Characters a POSIX shell reads literally; anything else gets quoted. */
static int is_shell_safe(const char *s)
{
    if (*s == '\0')
        return 0;
    return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                     "0123456789_./=,:+-@%") == strlen(s);
}

/* Appends `text` to command_line, after a space if `spaced`, and quoted
 * for the shell if it needs it. Whatever does not fit is cut off and the
 * line ends with "...". */
static void append_word(const char *text, int spaced)
{
    char buf[sizeof command_line];
    size_t b = 0;
    const size_t cap = sizeof buf - 5;     /* room for the closing quote */
    if (spaced)
        buf[b++] = ' ';
    const int quote = !is_shell_safe(text);
    if (quote)
        buf[b++] = '\'';
    for (const char *p = text; *p != '\0' && b < cap; p++) {
        if (*p == '\'' && quote) {        /* ' becomes '\'' */
            memcpy(buf + b, "'\\''", 4);
            b += 4;
        } else {
            buf[b++] = *p;
        }
    }
    if (quote)
        buf[b++] = '\'';

    const size_t used = strlen(command_line);
    const size_t room = sizeof command_line - 4;   /* "..." and NUL */
    if (used + b > room) {
        b = used < room ? room - used : 0;
        memcpy(command_line + used, buf, b);
        strcpy(command_line + used + b, "...");
        return;
    }
    memcpy(command_line + used, buf, b);
    command_line[used + b] = '\0';
}

void cli_set_command_line(int argc, char **argv)
{
    command_line[0] = '\0';
    const char *threads = getenv("SAMEBITS_THREADS");
    if (threads != NULL) {
        strcpy(command_line, "SAMEBITS_THREADS=");
        append_word(threads, 0);
    }
    for (int i = 0; i < argc; i++)
        append_word(argv[i], command_line[0] != '\0');
}

const char *cli_command_line(void)
{
    return command_line;
}

const char *cli_option_value(int argc, char **argv, int *i, const char *name,
                             int *missing)
{
    const char *arg = argv[*i];
    const size_t len = strlen(name);
    *missing = 0;
    if (strncmp(arg, name, len) != 0)
        return NULL;
    if (arg[len] == '=')
        return arg + len + 1;
    if (arg[len] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

void cli_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

int cli_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

int cli_parse_uint(const char *s, unsigned long min, unsigned long max,
                   unsigned long *out)
{
    /* strtoul accepts leading blanks and a minus sign; a count must not. */
    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    char *end = NULL;
    errno = 0;
    const unsigned long v = strtoul(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

unsigned cli_online_cpus(void)
{
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (unsigned)online : 1u;
}

unsigned cli_default_threads(void)
{
    return sb_host_thread_count(NULL);   /* the library's one reading */
}

void cli_cpu_model(char *buf, size_t size)
{
    snprintf(buf, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL)
        return;
    char line[512];
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        const char *colon = strchr(line, ':');
        if (colon == NULL)
            continue;
        const char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        snprintf(buf, size, "%.*s", (int)strcspn(v, "\n"), v);
        break;
    }
    fclose(f);
}

uint64_t cli_f64_bits(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

uint32_t cli_f32_bits(float v)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

int cli_parse_op(const char *s)
{
    for (int op = SB_SUM; op <= SB_COUNT; op++)
        if (strcmp(s, sb_op_name((sb_op)op)) == 0)
            return op;
    return -1;
}

int cli_parse_type(const char *s)
{
    for (int t = SB_I8; t <= SB_BF16; t++)
        if (strcmp(s, sb_type_name((sb_type)t)) == 0)
            return t;
    return -1;
}

double cli_half_value(sb_type t, uint16_t bits)
{
    /* f16: 5 exponent bits (bias 15), 10 fraction bits; bf16: 8 (127), 7. */
    const int fraction_bits = t == SB_F16 ? 10 : 7;
    const int bias = t == SB_F16 ? 15 : 127;
    const unsigned field_max = t == SB_F16 ? 0x1Fu : 0xFFu;
    const unsigned field = (bits >> fraction_bits) & field_max;
    const unsigned fraction = bits & ((1u << fraction_bits) - 1);
    double v;
    if (field == field_max)
        v = fraction != 0 ? NAN : INFINITY;
    else if (field == 0)
        v = ldexp(fraction, 1 - bias - fraction_bits);
    else
        v = ldexp((double)((1u << fraction_bits) | fraction),
                  (int)field - bias - fraction_bits);
    return (bits & 0x8000u) ? -v : v;
}

const char *cli_mode_name(unsigned mode)
{
    return mode == SB_MODE_GUARDED ? "guarded"
         : mode == SB_MODE_SOFTWARE ? "software" : "native";
}

int cli_parse_float_mode(const char *s)
{
    if (strcmp(s, "auto") == 0)
        return 0;
    if (strcmp(s, "guarded") == 0)
        return (int)SB_MODE_GUARDED;
    if (strcmp(s, "software") == 0)
        return (int)SB_MODE_SOFTWARE;
    return -1;
}
