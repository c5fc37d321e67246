/* cli.h: what the files of the samebits command share.
 *
 * tools/cli_main.c holds main() and the table of subcommands; each
 * subcommand lives in its own tools/cmd_<name>.c and is one cmd_<name>()
 * entry point below. The helpers (tools/cli_util.c) are the small things
 * several subcommands need: messages, timing, machine facts, bit patterns;
 * tools/data_file.c reads data files (text, .npy, .npz, raw;
 * tools/npz_file.c opens .npz archives) and tools/cli_device.c lists and
 * selects OpenCL devices. The conformance
 * corpus has its own header, tools/corpus.h.
 *
 * Like everything in tools/, this uses only the public header samebits.h.
 *
 * Exit status of every subcommand, one meaning each, the same in every
 * subcommand (documented in `samebits --help` and the README):
 *   CLI_EXIT_OK        0  the value was printed / the work was done
 *   CLI_EXIT_NO_VALUE  1  the reduction has no value: empty (min/max over
 *                         nothing) or a checked overflow
 *   CLI_EXIT_USAGE     2  a bad command line
 *   CLI_EXIT_INPUT     3  an input cannot be read or is not what it must be
 *                         (missing file, unknown format, a number out of
 *                         range, a mask of the wrong length, out of memory
 *                         for it)
 *   CLI_EXIT_DEVICE    4  no such device, or the library or the device
 *                         refused or failed (unsupported type, OpenCL or
 *                         build error)
 *   CLI_EXIT_DIFFERS   5  check, demo: a result differs from what samebits
 *                         promises (a bug to report)
 */
#ifndef SAMEBITS_CLI_H
#define SAMEBITS_CLI_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* The command calls OpenCL itself (it lists and opens devices); CMake sets
 * CL_TARGET_OPENCL_VERSION for it. samebits.h does not include this. */
#include <CL/cl.h>

#include "samebits.h"

#define CLI_EXIT_OK       0
#define CLI_EXIT_NO_VALUE 1
#define CLI_EXIT_USAGE    2
#define CLI_EXIT_INPUT    3
#define CLI_EXIT_DEVICE   4
#define CLI_EXIT_DIFFERS  5

/* A subcommand: argv[0] is the subcommand's name, the options follow. */
typedef int (*cli_command_fn)(int argc, char **argv);

/* ---- subcommands (one file each) ------------------------------------------ */

int cmd_info(int argc, char **argv);    /* tools/cmd_info.c */
int cmd_reduce(int argc, char **argv);  /* tools/cmd_reduce.c */
int cmd_check(int argc, char **argv);   /* tools/cmd_check.c */
int cmd_demo(int argc, char **argv);    /* tools/cmd_demo.c */
int cmd_bench(int argc, char **argv);   /* tools/cmd_bench.c */

/* ---- helpers (tools/cli_util.c) -------------------------------------------- */

#if defined(__GNUC__)
#  define CLI_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#  define CLI_PRINTF(fmt, args)
#endif

/* Prints "samebits <context>: <message>\n" to stderr, and keeps the
 * message for cli_last_error() (a --json record of the failure). */
void cli_error(const char *context, const char *fmt, ...) CLI_PRINTF(2, 3);
const char *cli_last_error(void);   /* "" before any cli_error() */

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

/* The thread count the host path uses for sb_host_options.threads == 0
 * (sb_host_thread_count(NULL): SAMEBITS_THREADS read by the library's one
 * parser, else every online CPU). Baselines use it so that they run on as
 * many threads as the library does. */
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

/* "native", "guarded", "software" for an SB_MODE_*; and back, for
 * --float-mode: "auto" (0), "guarded", "software"; -1 if none. */
const char *cli_mode_name(unsigned mode);
int cli_parse_float_mode(const char *s);

/* Parses "sum", ..., "all" / "i8", ..., "f64", "f16", "bf16"; -1 if not
 * a name. */
int cli_parse_op(const char *s);
int cli_parse_type(const char *s);

/* The value of an f16 or bf16 bit pattern (exact in a double). */
double cli_half_value(sb_type t, uint16_t bits);

/* ---- data files (tools/data_file.c, tools/npz_file.c) -------------------- */

typedef enum {
    CLI_FORMAT_AUTO,   /* by content, never by name: the .npy magic, a zip
                          header (.npz), else text; other binary content is
                          refused (auto never guesses raw), except a mask
                          whose bytes are all 0 or 1 */
    CLI_FORMAT_RAW,    /* little-endian elements, nothing else */
    CLI_FORMAT_TEXT,   /* numbers separated by whitespace or commas; blank
                          lines and lines starting with # skipped */
    CLI_FORMAT_NPY,    /* NumPy .npy, versions 1.0 to 3.0 */
    CLI_FORMAT_NPZ     /* NumPy .npz: a zip of .npy members, stored or
                          deflated (np.savez, np.savez_compressed) */
} cli_format;

/* Elements read from a file: mapped where the file can be mapped, read
 * once otherwise. */
typedef struct {
    const void *data;      /* n elements of `type`, native byte order */
    size_t      n;
    sb_type     type;
    cli_format  format;    /* what the file turned out to be */
    size_t      ndim;      /* dimensions: a .npy's (or .npz member's)
                              shape, 1 for text and raw */
    size_t      dims[2];   /* the first two of them (rows, columns) */
    int         fortran;   /* a .npy in Fortran order (column-major); only
                              cli_data_load_shaped() reads one of 2-D */
    void       *map;       /* what to release: an mmap of the file ... */
    size_t      map_size;
    void       *owned;     /* ... and/or memory of ours */
} cli_data;

/* Parses "auto", "raw", "text", "npy", "npz"; -1 if none. */
int cli_parse_format(const char *s);

/* Reads `path` ("-": standard input, read into memory and detected the
 * same way). `type` is the element type, or 0 to take it from a .npy
 * header (raw and text need one). A `mask` file is read as bytes: type
 * SB_U8; a .npy may also hold booleans or i1, text holds integers 0..255.
 * `array` names the member of a .npz (NULL: its only one). A data .npy of
 * booleans reads as u8.
 * @return 0, or -1 with a one-line reason in `err`, or CLI_DATA_NEEDS_TYPE
 *         (with its reason) when the file is text or raw and `type` is 0:
 *         the command line lacks --type. */
#define CLI_DATA_NEEDS_TYPE (-2)
int cli_data_load(const char *path, cli_format format, sb_type type,
                  int mask, const char *array, cli_data *out, char *err,
                  size_t err_size);
/* As cli_data_load(); with `keep_order` a .npy (or .npz member) in
 * Fortran order is read as it is (d->fortran set), for a caller that
 * reads it by its strides, instead of refused. */
int cli_data_load_shaped(const char *path, cli_format format, sb_type type,
                         int mask, const char *array, int keep_order,
                         cli_data *out, char *err, size_t err_size);
void cli_data_free(cli_data *d);

/* Writes `count` items of `item_size` bytes as a 1-D .npy of dtype
 * `descr` (a numpy descr as Python writes it: "'<f4'", or a list of
 * fields), whole or not at all (tools/npy_write.c). @return 0, or -1
 * with a reason in err. */
int cli_npy_write(const char *path, const char *descr, size_t count,
                  const void *items, size_t item_size, char *err,
                  size_t err_size);

/* An input read in pieces, for inputs larger than memory: a regular file
 * is mapped (cli_data_load()) and handed out in slices whose pages are let
 * go once used; raw data or a .npy on a pipe (standard input) is read one
 * piece at a time into a buffer of `piece` elements. Text, .npz and
 * anything else on a pipe is read whole, as cli_data_load() reads it. */
typedef struct {
    cli_data       data;      /* the whole input, unless piped */
    const char    *name;
    sb_type        type;
    cli_format     format;
    size_t         n;         /* elements in all, when n_known */
    int            n_known;   /* piped raw: only at the end */
    size_t         done;      /* elements handed out */
    size_t         released;  /* bytes of the map let go (madvise) */
    int            fd;        /* piped: standard input; else -1 */
    unsigned char *buf;       /* piped: the piece */
    size_t         piece;
    unsigned char  carry_bytes[16]; /* read with the header, not yet used */
    size_t         carry;
} cli_stream;

/* As cli_data_load(), for reading in pieces of at most `piece` elements
 * (piped inputs) with cli_stream_next(). */
int cli_stream_open(const char *path, cli_format format, sb_type type,
                    int mask, const char *array, size_t piece,
                    cli_stream *s, char *err, size_t err_size);
/* The next at most `max` elements (*count 0 at the end), valid until the
 * next call. @return 0, or -1 with a reason (a truncated or overlong
 * .npy, a partial element at the end). */
int cli_stream_next(cli_stream *s, size_t max, const void **elems,
                    size_t *count, char *err, size_t err_size);
void cli_stream_close(cli_stream *s);

/* The .npy member of the zip archive b[0, size) (tools/npz_file.c): the one
 * named `array` (with or without its .npy suffix) or, when `array` is NULL,
 * the only one. `option` is the option that names a member ("--array"),
 * for the messages. Sets *member and *member_size to the member's bytes:
 * in place for a stored member, or in *inflated (malloc'd, the caller frees
 * it) for a deflated one; its name, for messages, goes to `name`. Every
 * offset and size is checked against `size`, and the CRC-32 against the
 * member's bytes.
 * @return 0, or -1 with a one-line reason in `err`. */
int cli_npz_member(const unsigned char *b, size_t size, const char *path,
                   const char *array, const char *option,
                   const unsigned char **member, size_t *member_size,
                   void **inflated, char *name, size_t name_size,
                   char *err, size_t err_size);

/* ---- OpenCL devices (tools/cli_device.c) ----------------------------------- */

/* One OpenCL device, numbered as the library numbers them
 * (sb_device_list(): platform by platform, in the order of
 * clGetPlatformIDs and clGetDeviceIDs), so --device N, SAMEBITS_DEVICE=N
 * and `samebits info` agree. */
typedef struct {
    unsigned       index;              /* N of --device N */
    unsigned       platform_index;     /* P and D of "P:D" */
    unsigned       device_index;
    cl_platform_id platform;
    cl_device_id   device;
    char           name[256];          /* CL_DEVICE_NAME */
    char           platform_name[256];
    char           platform_vendor[256];
    char           platform_version[256];
    char           label[96];          /* short: "POCL 3.1", "Oclgrind 21.10" */
    int            simulator;          /* Oclgrind: slow, for tests */
} cli_device;

typedef struct {
    cli_device *devices;
    size_t      count;
    unsigned    platform_count;
    cl_int      error;     /* CL_SUCCESS, or why no platform could be listed */
} cli_device_list;

/* Lists every device of every platform. Never fails: with no OpenCL
 * platform (or no ICD loader configuration) the list is empty and
 * `error` says why. */
void cli_devices_load(cli_device_list *list);
void cli_devices_free(cli_device_list *list);

/* The standard explanation when there is no OpenCL platform. */
void cli_print_no_platform(FILE *out, const cli_device_list *list);

/* What a command runs on: the host path and/or some devices. */
#define CLI_MAX_DEVICES 64
typedef struct {
    int               host;
    size_t            count;
    const cli_device *devices[CLI_MAX_DEVICES];
} cli_selection;

/* Adds to `sel` what `spec` names: comma-separated items, each "host",
 * "all" (host and every device), "devices" (every device), or one device
 * in the grammar of SAMEBITS_DEVICE, read by the library
 * (sb_device_select()): a number N, "P:D", or a case-insensitive part of a
 * device's name or its platform's name, vendor or version ("pocl",
 * "oclgrind", "nvidia") that names exactly one device. An item that names
 * no device, or several, is an error: returns -1 after a message on
 * stderr (the library's detail). */
int cli_select(const char *context, const char *spec,
               const cli_device_list *list, cli_selection *sel);

/* Adds every device to `sel`; simulators only if `simulators`. */
void cli_select_devices(const cli_device_list *list, int simulators,
                        cli_selection *sel);

/* Loads the device list and fills `sel` (zeroed first): what `spec` names
 * (cli_select), or, when `spec` is NULL, every device (simulators only if
 * `simulators`). Returns 0, or -1 after a message (the list is then
 * freed). */
int cli_select_or_all(const char *context, const char *spec, int simulators,
                      cli_device_list *list, cli_selection *sel);

/* "dev 1" style short name and "pthread-... (POCL 3.1)" long name. */
void cli_device_title(const cli_device *d, char *buf, size_t size);

/* A cl_context with the one device `d`; NULL (and *err) on failure. */
cl_context cli_cl_context(const cli_device *d, cl_int *err);

/* "CL_OUT_OF_RESOURCES" etc., or "OpenCL error N" (sb_cl_error_name()). */
const char *cli_cl_error_name(cl_int err);

#endif /* SAMEBITS_CLI_H */
