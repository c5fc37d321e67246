/* cmd_reduce.c: `samebits reduce`: one reduction of a data file (text,
 * .npy, .npz or raw, told apart by content; tools/data_file.c), on the
 * host path or on one OpenCL device, printed so that it round-trips
 * exactly (%.9g, %.17g, integers in full), optionally with its bit
 * pattern or as one JSON line.
 *
 * An answer that is not a value (empty, overflow) or any error is one
 * line on stderr (the library's sb_error_detail() where it has one) and
 * an exit status of cli.h: 0 a value, 1 no value (empty, overflow), 2 a
 * bad command line, 3 an input that cannot be read or is not what it must
 * be, 4 a device that is not there, refused or failed. With --json every
 * outcome, errors included, is one JSON record on stdout. */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corpus.h"
#include "reduce.h"
#include "samebits.h"

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: samebits reduce --op OP [--type T] [--acc A] [--wrap]\n"
            "                       [--map abs|square] [--skip-nan]\n"
            "                       [--dot FILE2 [--dot-array NAME]]\n"
            "                       [--format F] [--array NAME]\n"
            "                       [--mask FILE [--mask-format F] [--mask-array NAME]]\n"
            "                       [--device SEL] [--chunk N] [--bits] [--json]\n"
            "                       [--axis 0|1 | --segments OFFSETS] [--out FILE.npy]\n"
            "                       [FILE|-]\n"
            "\n"
            "Reduces the numbers in FILE (standard input if - or none) and prints\n"
            "the result so that it reads back exactly (%%.9g for f32, %%.17g for\n"
            "f64, integers in full; any/all print 0 or 1).\n"
            "\n"
            "  --op OP        sum, prod, min, max, any, all, count; argmin, argmax\n"
            "                 (the value and its index)\n"
            "  --type T       the element type: i8 u8 i16 u16 i32 u32 i64 u64 f32\n"
            "                 f64 f16 bf16; needed for text and raw (a .npy or\n"
            "                 .npz says it: '<f2' is f16). f16 and bf16 are read\n"
            "                 from .npy, .npz or raw only, never from text (a\n"
            "                 decimal would be rounded twice)\n"
            "  --acc A        the accumulator (default: T); only exact conversions,\n"
            "                 e.g. f32 -> f64, i32 -> i64 (see `samebits.h`)\n"
            "  --wrap         integer sum/prod (and --map, --dot) wrap around\n"
            "                 instead of failing with overflow\n"
            "  --map M        abs or square: each element's |x| or x*x, in the\n"
            "                 accumulator, before the reduction (sum, prod, min,\n"
            "                 max): --op sum --map abs is the L1 norm, --map\n"
            "                 square the squared 2-norm, --op max --map abs max|x|\n"
            "  --skip-nan     float elements that are NaN do not take part, as if\n"
            "                 masked out (numpy's nansum, nanmin, ...)\n"
            "  --dot FILE2    the dot product of FILE and FILE2 (--op sum): the sum\n"
            "                 of x[i] * y[i], each product rounded once. FILE2 has\n"
            "                 FILE's type and length, in any format (--format\n"
            "                 applies to both; --dot-array NAME picks its .npz\n"
            "                 member)\n"
            "  --format F     auto (default), text, npy, npz or raw (below)\n"
            "  --array NAME   the array of a .npz to reduce (default: its only one)\n"
            "  --mask FILE    an element takes part iff its mask value is not 0:\n"
            "                 a .npy or .npz of bool, u1 or i1, text of integers\n"
            "                 0..255 (0/1), or raw bytes, one per element\n"
            "  --mask-format F, --mask-array NAME\n"
            "                 --format and --array for the mask\n"
            "  --device SEL   host (default), a device number of `samebits info`,\n"
            "                 P:D, or a part of its name; the device computes\n"
            "                 even a small input itself\n"
            "  --chunk N      an input of more than N elements (default 2^24) is\n"
            "                 read and reduced in pieces of N through sb_partial:\n"
            "                 memory stays flat and a device takes inputs larger\n"
            "                 than its largest buffer, in several launches. Same\n"
            "                 bits. Raw data and .npy stream from a pipe too; text\n"
            "                 and .npz are read whole. On a terminal an input\n"
            "                 that takes more than a second (SAMEBITS_PROGRESS_\n"
            "                 SECONDS) shows a progress line on stderr\n"
            "  --axis 1       one answer per row of a 2-D .npy (or .npz member),\n"
            "                 C or Fortran order, one line each; --axis 0: per\n"
            "                 column. Each is the reduction of that row's (or\n"
            "                 column's) elements alone: the bits of reducing them\n"
            "                 as a file of their own\n"
            "  --segments OFFSETS\n"
            "                 one answer per segment x[o[b]:o[b+1]] of a 1-D\n"
            "                 input, OFFSETS a .npy of count + 1 non-decreasing\n"
            "                 int64 or uint64 offsets (CUB, PyTorch). With --axis\n"
            "                 or --segments an answer that is not a value prints\n"
            "                 its status word (empty, overflow) on its line, and\n"
            "                 the exit status is 1; --json gives \"results\", one\n"
            "                 {\"status\", \"value\", \"bits\"} each. A --mask has\n"
            "                 the input's shape (2-D for --axis, in either\n"
            "                 order). Not with --dot or --chunk\n"
            "  --out FILE.npy with --axis or --segments: the answers as a 1-D\n"
            "                 .npy instead of lines, in the result's dtype (<u8\n"
            "                 for count, bool for any/all; argmin/argmax: fields\n"
            "                 'value' and 'index' <i8). Written whole or not at\n"
            "                 all: not when some answer has no value (exit 1,\n"
            "                 named on stderr), nor for a bf16 result (numpy has\n"
            "                 no bf16: --acc f32)\n"
            "  --bits         also print the result's bit pattern in hex\n"
            "  --json         print one JSON record instead, for every outcome:\n"
            "                 \"status\" (ok, empty, overflow, unsupported, ...,\n"
            "                 or usage-error, input-error, device-error), \"exit\",\n"
            "                 and \"value\" and \"bits\", or \"error\"\n"
            "\n"
            "auto decides by content, never by the file's name: the \\x93NUMPY\n"
            "magic is .npy, a zip header is .npz, else text, read strictly. Other\n"
            "binary content is refused, naming what it looks like: auto never\n"
            "guesses raw (give --format raw), except for a mask whose bytes are\n"
            "all 0 or 1. Standard input is detected the same way.\n"
            "  text  numbers separated by blanks and/or commas: one per line, a CSV\n"
            "        column, comma-separated rows (all reduced as one array); blank\n"
            "        lines and # comments are skipped. Integers: decimal, range-\n"
            "        checked. Floats: decimal or hex (0x1p-3), inf, nan; '.' is the\n"
            "        decimal point (1,5 is two numbers). Each is rounded once, to\n"
            "        nearest, to T (f32 directly, not via f64), underflow included:\n"
            "        a literal below the smallest normal becomes the correctly\n"
            "        rounded subnormal or zero (1e-46 as f32 is 0). A finite literal\n"
            "        beyond T's largest finite value (1e400 as f64) is an error,\n"
            "        with its line number, as is anything that is not a number of T.\n"
            "  npy   versions 1.0 to 3.0: little-endian C-contiguous arrays of the\n"
            "        types above, or bool (read as u8), any shape (reduced whole;\n"
            "        --axis reads a 2-D one in Fortran order too).\n"
            "  npz   np.savez (stored) or np.savez_compressed (deflated) archives\n"
            "        of .npy arrays; the member's CRC-32 is checked.\n"
            "  raw   little-endian elements of T, nothing else.\n"
            "\n"
            "Exit status: 0 the value was printed; 1 no value (min/max over\n"
            "nothing, or a checked overflow); 2 a bad command line; 3 an input\n"
            "that cannot be read or is not what it must be; 4 no such device, or\n"
            "the device refused or failed. The reason is one line on stderr.\n");
}

typedef struct {
    sb_reduction r;
    const char  *file, *mask_file, *device;
    const char  *array, *mask_array;       /* a .npz member, or NULL */
    const char  *dot_file, *dot_array;     /* --dot FILE2, or NULL */
    cli_format   format, mask_format;
    int          bits, json;
    size_t       chunk;                    /* elements per piece */
    int          have_chunk;
    int          axis;                     /* --axis 0 or 1; -1 if none */
    const char  *segments;                 /* --segments OFFSETS, or NULL */
    const char  *out_file;                 /* --out FILE.npy, or NULL */
} reduce_args;

/* Elements per piece when the input is read in pieces: 2^24 (64 MB of
 * f32) keeps memory flat and a device's launches long. A power of two, so
 * that every piece but the last is one aligned subtree of the order's
 * tree (one launch on a device). */
#define DEFAULT_CHUNK ((size_t)1 << 24)

/* --format F / --mask-format F. */
static int parse_format_option(const char *option, const char *v,
                               int missing, cli_format *out)
{
    const int f = missing ? -1 : cli_parse_format(v);
    if (f < 0) {
        cli_error("reduce", "%s wants auto, text, npy, npz or raw", option);
        return -1;
    }
    *out = (cli_format)f;
    return 0;
}

static int parse_args(int argc, char **argv, reduce_args *a)
{
    memset(a, 0, sizeof *a);
    a->file = "-";
    a->chunk = DEFAULT_CHUNK;
    a->axis = -1;
    int op = -1, type = 0, acc = 0, have_file = 0, have_mask_format = 0;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int missing = 0;
        if (cli_is_help(argv[i])) {
            print_usage(stdout);
            return CLI_EXIT_OK;
        } else if (strcmp(argv[i], "--wrap") == 0) {
            a->r.flags |= SB_WRAP;
        } else if (strcmp(argv[i], "--skip-nan") == 0) {
            a->r.flags |= SB_SKIP_NAN;
        } else if ((v = cli_option_value(argc, argv, &i, "--map", &missing)) || missing) {
            if (missing || (strcmp(v, "abs") != 0 && strcmp(v, "square") != 0)) {
                cli_error("reduce", "--map wants abs or square");
                return CLI_EXIT_USAGE;
            }
            a->r.map = strcmp(v, "abs") == 0 ? SB_MAP_ABS : SB_MAP_SQUARE;
        } else if ((v = cli_option_value(argc, argv, &i, "--dot", &missing)) || missing) {
            if (missing) {
                cli_error("reduce", "--dot wants the file of the second factors");
                return CLI_EXIT_USAGE;
            }
            a->dot_file = v;
        } else if ((v = cli_option_value(argc, argv, &i, "--dot-array", &missing)) || missing) {
            if (missing) {
                cli_error("reduce", "--dot-array wants the name of an array "
                          "of the --dot .npz");
                return CLI_EXIT_USAGE;
            }
            a->dot_array = v;
        } else if (strcmp(argv[i], "--bits") == 0) {
            a->bits = 1;
        } else if (strcmp(argv[i], "--json") == 0) {
            a->json = 1;
        } else if ((v = cli_option_value(argc, argv, &i, "--op", &missing)) || missing) {
            if (missing || (op = cli_parse_op(v)) < 0) {
                cli_error("reduce", "--op wants sum, prod, min, max, any or all");
                return CLI_EXIT_USAGE;
            }
        } else if ((v = cli_option_value(argc, argv, &i, "--type", &missing)) || missing) {
            if (missing || (type = cli_parse_type(v)) < 0) {
                cli_error("reduce", "--type wants i8 u8 i16 u16 i32 u32 i64 u64 "
                          "f32 f64 f16 or bf16");
                return CLI_EXIT_USAGE;
            }
        } else if ((v = cli_option_value(argc, argv, &i, "--acc", &missing)) || missing) {
            if (missing || (acc = cli_parse_type(v)) < 0) {
                cli_error("reduce", "--acc wants i8 u8 i16 u16 i32 u32 i64 u64 "
                          "f32 f64 f16 or bf16");
                return CLI_EXIT_USAGE;
            }
        } else if ((v = cli_option_value(argc, argv, &i, "--mask", &missing)) || missing) {
            if (missing) {
                cli_error("reduce", "--mask wants a file");
                return CLI_EXIT_USAGE;
            }
            a->mask_file = v;
        } else if ((v = cli_option_value(argc, argv, &i, "--device", &missing)) || missing) {
            if (missing) {
                cli_error("reduce", "--device wants host, N, P:D or a name");
                return CLI_EXIT_USAGE;
            }
            a->device = v;
        } else if ((v = cli_option_value(argc, argv, &i, "--format", &missing)) || missing) {
            if (parse_format_option("--format", v, missing, &a->format) != 0)
                return CLI_EXIT_USAGE;
        } else if ((v = cli_option_value(argc, argv, &i, "--mask-format", &missing)) || missing) {
            if (parse_format_option("--mask-format", v, missing,
                                    &a->mask_format) != 0)
                return CLI_EXIT_USAGE;
            have_mask_format = 1;
        } else if ((v = cli_option_value(argc, argv, &i, "--chunk", &missing)) || missing) {
            char *end = NULL;
            const unsigned long long c = missing ? 0 : strtoull(v, &end, 10);
            if (missing || end == v || *end != '\0' || v[0] == '-' || c == 0
                    || c > ((size_t)1 << 40)) {
                cli_error("reduce", "--chunk wants a number of elements, 1 "
                          "to 2^40");
                return CLI_EXIT_USAGE;
            }
            a->chunk = (size_t)c;
            a->have_chunk = 1;
        } else if ((v = cli_option_value(argc, argv, &i, "--axis", &missing)) || missing) {
            if (missing || (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)) {
                cli_error("reduce", "--axis wants 0 (one answer per column) "
                          "or 1 (one answer per row) of a 2-D .npy");
                return CLI_EXIT_USAGE;
            }
            a->axis = v[0] - '0';
        } else if ((v = cli_option_value(argc, argv, &i, "--segments", &missing)) || missing) {
            if (missing || v[0] == '\0') {
                cli_error("reduce", "--segments wants a .npy of int64 or "
                          "uint64 offsets");
                return CLI_EXIT_USAGE;
            }
            a->segments = v;
        } else if ((v = cli_option_value(argc, argv, &i, "--out", &missing)) || missing) {
            if (missing || v[0] == '\0') {
                cli_error("reduce", "--out wants the name of the .npy to "
                          "write");
                return CLI_EXIT_USAGE;
            }
            a->out_file = v;
        } else if ((v = cli_option_value(argc, argv, &i, "--array", &missing)) || missing) {
            if (missing || v[0] == '\0') {
                cli_error("reduce", "--array wants the name of an array of "
                          "the .npz");
                return CLI_EXIT_USAGE;
            }
            a->array = v;
        } else if ((v = cli_option_value(argc, argv, &i, "--mask-array", &missing)) || missing) {
            if (missing || v[0] == '\0') {
                cli_error("reduce", "--mask-array wants the name of an array "
                          "of the mask's .npz");
                return CLI_EXIT_USAGE;
            }
            a->mask_array = v;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_error("reduce", "unknown option '%s'", argv[i]);
            print_usage(stderr);
            return CLI_EXIT_USAGE;
        } else if (have_file) {
            cli_error("reduce", "one input file only ('%s' and '%s')", a->file,
                      argv[i]);
            return CLI_EXIT_USAGE;
        } else {
            a->file = argv[i];
            have_file = 1;
        }
    }
    if (op < 0) {
        cli_error("reduce", "--op is needed (sum, prod, min, max, any, all, "
                  "argmin, argmax, count)");
        return CLI_EXIT_USAGE;
    }
    if (a->mask_file != NULL && strcmp(a->mask_file, "-") == 0
            && strcmp(a->file, "-") == 0) {
        cli_error("reduce", "the data and the mask cannot both come from "
                  "standard input: name a FILE for one of them");
        return CLI_EXIT_USAGE;
    }
    if (a->dot_file != NULL && strcmp(a->dot_file, "-") == 0
            && (strcmp(a->file, "-") == 0
                || (a->mask_file != NULL && strcmp(a->mask_file, "-") == 0))) {
        cli_error("reduce", "only one of the inputs can come from standard "
                  "input: name a file for the others");
        return CLI_EXIT_USAGE;
    }
    if (a->dot_file == NULL && a->dot_array != NULL) {
        cli_error("reduce", "--dot-array is for the --dot file: give --dot "
                  "FILE2");
        return CLI_EXIT_USAGE;
    }
    /* An option that would be ignored is a mistake to say, not to skip. */
    if (a->mask_file == NULL && (have_mask_format || a->mask_array != NULL)) {
        cli_error("reduce", "%s is for the mask: give --mask FILE",
                  have_mask_format ? "--mask-format" : "--mask-array");
        return CLI_EXIT_USAGE;
    }
    if (a->array != NULL && a->format != CLI_FORMAT_AUTO
            && a->format != CLI_FORMAT_NPZ) {
        cli_error("reduce", "--array picks an array of a .npz, and --format "
                  "says the input is not one");
        return CLI_EXIT_USAGE;
    }
    if (a->mask_array != NULL && a->mask_format != CLI_FORMAT_AUTO
            && a->mask_format != CLI_FORMAT_NPZ) {
        cli_error("reduce", "--mask-array picks an array of a .npz, and "
                  "--mask-format says the mask is not one");
        return CLI_EXIT_USAGE;
    }
    if (a->dot_file != NULL && op != SB_SUM) {
        cli_error("reduce", "--dot is a sum of products: --op sum, not %s",
                  sb_op_name((sb_op)op));
        return CLI_EXIT_USAGE;
    }
    if (a->dot_file != NULL && a->r.map != SB_MAP_NONE) {
        cli_error("reduce", "--dot takes no --map");
        return CLI_EXIT_USAGE;
    }
    if (a->axis >= 0 && a->segments != NULL) {
        cli_error("reduce", "--axis and --segments are two ways to cut the "
                  "input: give one");
        return CLI_EXIT_USAGE;
    }
    if (a->axis >= 0 || a->segments != NULL) {
        const char *other = a->dot_file != NULL ? "--dot"
                          : a->have_chunk ? "--chunk" : NULL;
        if (other != NULL) {
            cli_error("reduce", "%s does not go with %s (it reduces a whole "
                      "input read into memory, without a second factor)",
                      a->axis >= 0 ? "--axis" : "--segments", other);
            return CLI_EXIT_USAGE;
        }
    } else if (a->out_file != NULL) {
        cli_error("reduce", "--out writes the answers of --axis or "
                  "--segments; one answer prints on standard output");
        return CLI_EXIT_USAGE;
    }
    a->r.op = (sb_op)op;
    a->r.input = (sb_type)type;
    a->r.accumulator = (sb_type)acc;
    return -1;
}

/* The result as text that reads back to the same bits. */
void reduce_format_value(sb_reduction r, const void *result, char *buf,
                         size_t size)
{
    const sb_type acc = r.accumulator ? r.accumulator : r.input;
    if (r.op == SB_ANY || r.op == SB_ALL) {
        snprintf(buf, size, "%u", *(const unsigned char *)result);
        return;
    }
    if (r.op == SB_COUNT) {
        uint64_t v;
        memcpy(&v, result, 8);
        snprintf(buf, size, "%" PRIu64, v);
        return;
    }
    /* argmin / argmax: the value (an sb_arg_result's first bytes); the
     * index is printed beside it. */
    switch (acc) {
    case SB_F32: { float v; memcpy(&v, result, 4); snprintf(buf, size, "%.9g", (double)v); break; }
    case SB_F64: { double v; memcpy(&v, result, 8); snprintf(buf, size, "%.17g", v); break; }
    case SB_F16:
    case SB_BF16: { uint16_t v; memcpy(&v, result, 2); snprintf(buf, size, "%.9g", cli_half_value(acc, v)); break; }
    case SB_I8:  { int8_t v;  memcpy(&v, result, 1); snprintf(buf, size, "%d", v); break; }
    case SB_U8:  { uint8_t v; memcpy(&v, result, 1); snprintf(buf, size, "%u", v); break; }
    case SB_I16: { int16_t v; memcpy(&v, result, 2); snprintf(buf, size, "%d", v); break; }
    case SB_U16: { uint16_t v; memcpy(&v, result, 2); snprintf(buf, size, "%u", v); break; }
    case SB_I32: { int32_t v; memcpy(&v, result, 4); snprintf(buf, size, "%" PRId32, v); break; }
    case SB_U32: { uint32_t v; memcpy(&v, result, 4); snprintf(buf, size, "%" PRIu32, v); break; }
    case SB_I64: { int64_t v; memcpy(&v, result, 8); snprintf(buf, size, "%" PRId64, v); break; }
    default:     { uint64_t v; memcpy(&v, result, 8); snprintf(buf, size, "%" PRIu64, v); break; }
    }
}

/* The widest integer accumulator `input` may use with more bits than
 * `acc`, for the hint of an overflow; 0 when there is none (a u64 sum has
 * nowhere wider to go). */
static sb_type wider_accumulator(sb_reduction r)
{
    const sb_type acc = r.accumulator ? r.accumulator : r.input;
    static const sb_type wide[] = { SB_I64, SB_U64, SB_I32, SB_U32 };
    for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++) {
        sb_reduction w = r;
        w.accumulator = wide[i];
        if (sb_type_size(wide[i]) > sb_type_size(acc)
                && sb_reduction_check(w) == SB_OK)
            return wide[i];
    }
    return (sb_type)0;
}

/* The exit status of a library status (cli.h). */
int reduce_exit_status(sb_status s, int on_device)
{
    switch (s) {
    case SB_OK:               return CLI_EXIT_OK;
    case SB_EMPTY:
    case SB_OVERFLOW:         return CLI_EXIT_NO_VALUE;
    case SB_INVALID_ARGUMENT: return CLI_EXIT_USAGE;
    case SB_OUT_OF_MEMORY:    return on_device ? CLI_EXIT_DEVICE : CLI_EXIT_INPUT;
    default:                  return CLI_EXIT_DEVICE;
    }
}

/* Why a status is not a value, in one line for the user: the library's
 * detail, and for an overflow what would avoid it. */
void reduce_explain(sb_reduction r, sb_status s, const char *detail)
{
    if (s == SB_EMPTY) {
        cli_error("reduce", "empty: %s", detail);
    } else if (s == SB_OVERFLOW) {
        const sb_type wider = wider_accumulator(r);
        if (wider != 0)
            cli_error("reduce", "overflow: %s (a wider accumulator, --acc %s, "
                      "or --wrap avoids it)", detail, sb_type_name(wider));
        else
            cli_error("reduce", "overflow: %s (%s is the widest accumulator "
                      "for %s input; --wrap computes modulo 2^%zu)", detail,
                      sb_type_name(r.accumulator ? r.accumulator : r.input),
                      sb_type_name(r.input),
                      8 * sb_type_size(r.accumulator ? r.accumulator
                                                     : r.input));
    } else {
        cli_error("reduce", "%s: %s", corpus_status_word(s), detail);
    }
}

/* ---- the device ---------------------------------------------------------- */

/* A device run: its context, and buffers for one piece of `piece`
 * elements (and mask bytes), rewritten for each piece. */
typedef struct {
    cl_context  clctx;
    sb_context *ctx;
    cl_mem      xb, yb, mb;        /* yb: a dot product's second factors */
    size_t      piece;
} device_run;

static void device_close(device_run *run)
{
    if (run->mb != NULL)
        clReleaseMemObject(run->mb);
    if (run->yb != NULL)
        clReleaseMemObject(run->yb);
    if (run->xb != NULL)
        clReleaseMemObject(run->xb);
    sb_context_release(run->ctx);
    if (run->clctx != NULL)
        clReleaseContext(run->clctx);
    memset(run, 0, sizeof *run);
}

/* Opens `d` for pieces of up to `want` elements of `type`, fewer where
 * the device's largest buffer is smaller. On failure `why` holds the
 * sentence. */
static sb_status device_open(const cli_device *d, sb_type type, size_t want,
                             int masked, int dot, device_run *run, char *why,
                             size_t why_size)
{
    memset(run, 0, sizeof *run);
    const size_t elem = sb_type_size(type);
    sb_device_caps caps;
    run->piece = want > 0 ? want : 1;
    if (sb_device_report(d->device, &caps) == SB_OK
            && caps.max_alloc / elem < run->piece)
        run->piece = caps.max_alloc / elem > 0 ? (size_t)(caps.max_alloc / elem)
                                               : 1;
    cl_int err = CL_SUCCESS;
    run->clctx = cli_cl_context(d, &err);
    if (run->clctx == NULL) {
        snprintf(why, why_size, "clCreateContext failed: %s",
                 cli_cl_error_name(err));
        return SB_OPENCL_ERROR;
    }
    /* The device computes even a small input itself. */
    const sb_options opts = { .flags = SB_OPT_NO_HOST };
    const sb_status s = sb_context_create(run->clctx, d->device, &opts,
                                          &run->ctx);
    if (s != SB_OK) {
        snprintf(why, why_size, "%s", sb_error_detail());
        return s;
    }
    run->xb = clCreateBuffer(run->clctx, CL_MEM_READ_ONLY, run->piece * elem,
                             NULL, &err);
    if (run->xb != NULL && dot)
        run->yb = clCreateBuffer(run->clctx, CL_MEM_READ_ONLY,
                                 run->piece * elem, NULL, &err);
    if (run->xb != NULL && (!dot || run->yb != NULL) && masked)
        run->mb = clCreateBuffer(run->clctx, CL_MEM_READ_ONLY, run->piece,
                                 NULL, &err);
    if (run->xb == NULL || (dot && run->yb == NULL)
            || (masked && run->mb == NULL)) {
        snprintf(why, why_size, "clCreateBuffer (%zu bytes) failed: %s",
                 run->xb == NULL || (dot && run->yb == NULL)
                     ? run->piece * elem : run->piece,
                 cli_cl_error_name(err));
        return err == CL_OUT_OF_HOST_MEMORY
                    || err == CL_MEM_OBJECT_ALLOCATION_FAILURE
                ? SB_OUT_OF_MEMORY : SB_OPENCL_ERROR;
    }
    return SB_OK;
}

/* Writes k elements (y: and their dot factors; mask bytes) into the
 * run's buffers. */
static sb_status device_write(device_run *run, const void *x, const void *y,
                              const unsigned char *mask, size_t k,
                              size_t elem, char *why, size_t why_size)
{
    cl_command_queue q = sb_context_queue(run->ctx);
    cl_int err = CL_SUCCESS;
    if (k > 0)
        err = clEnqueueWriteBuffer(q, run->xb, CL_TRUE, 0, k * elem, x, 0,
                                   NULL, NULL);
    if (err == CL_SUCCESS && y != NULL && k > 0)
        err = clEnqueueWriteBuffer(q, run->yb, CL_TRUE, 0, k * elem, y, 0,
                                   NULL, NULL);
    if (err == CL_SUCCESS && mask != NULL && k > 0)
        err = clEnqueueWriteBuffer(q, run->mb, CL_TRUE, 0, k, mask, 0, NULL,
                                   NULL);
    if (err != CL_SUCCESS) {
        snprintf(why, why_size, "clEnqueueWriteBuffer (%zu bytes) failed: %s",
                 k * elem, cli_cl_error_name(err));
        return SB_OPENCL_ERROR;
    }
    return SB_OK;
}

/* The library's detail, and for a build error the log's first line. */
static void device_why(const device_run *run, sb_status s, char *why,
                       size_t why_size)
{
    snprintf(why, why_size, "%s", sb_error_detail());
    if (s == SB_BUILD_ERROR) {
        const size_t used = strlen(why);
        snprintf(why + used, why_size - used, ": %s",
                 sb_context_build_log(run->ctx));
        why[used + strcspn(why + used, "\n")] = '\0';
    }
}

/* ---- progress ---------------------------------------------------------------- */

/* One line on stderr, rewritten in place, when stderr is a terminal and
 * the input has taken more than a second. */
typedef struct {
    int    on, shown;
    double start, last;
    double after;          /* seconds before the line appears */
    size_t total;          /* bytes, 0 if unknown */
} progress;

/* SAMEBITS_PROGRESS_SECONDS: how long an input runs before the progress
 * line appears (default 1; 0 shows it from the first piece, for tests). */
static double progress_delay(void)
{
    const char *v = getenv("SAMEBITS_PROGRESS_SECONDS");
    char *end = NULL;
    const double d = v != NULL ? strtod(v, &end) : 1.0;
    return v != NULL && end != v && *end == '\0' && d >= 0 && d < 1e6
           ? d : 1.0;
}

static void progress_show(progress *pr, size_t done, int final)
{
    if (!pr->on)
        return;
    if (final) {
        if (pr->shown)
            fprintf(stderr, "\r\033[K");
        return;
    }
    const double now = cli_now();
    if (now - pr->start < pr->after
            || (pr->shown && now - pr->last < 0.25))
        return;
    pr->last = now;
    pr->shown = 1;
    const double gb = 1e-9 * (double)done;
    const double rate = gb / (now - pr->start);
    if (pr->total > 0)
        fprintf(stderr, "\rsamebits reduce: %.2f of %.2f GB (%.0f%%), "
                "%.2f GB/s\033[K", gb, 1e-9 * (double)pr->total,
                100.0 * (double)done / (double)pr->total, rate);
    else
        fprintf(stderr, "\rsamebits reduce: %.2f GB, %.2f GB/s\033[K", gb,
                rate);
    fflush(stderr);
}

/* The library's verdict on the reduction, in the command's words.
 * @return CLI_EXIT_OK, or CLI_EXIT_USAGE after the message. */
int reduce_check_reduction(sb_reduction r)
{
    if (sb_reduction_check(r) == SB_OK)
        return CLI_EXIT_OK;
    const sb_type acc = r.accumulator ? r.accumulator : r.input;
    const int boolean = r.op == SB_ANY || r.op == SB_ALL;
    const int float_input = r.input == SB_F32 || r.input == SB_F64 ||
                            r.input == SB_F16 || r.input == SB_BF16;
    if ((r.flags & SB_SKIP_NAN) && !float_input)
        cli_error("reduce", "--skip-nan is for float input (f32, f64, f16, "
                  "bf16); %s has no NaN", sb_type_name(r.input));
    else if (boolean && r.map != SB_MAP_NONE)
        cli_error("reduce", "--map %s is for sum, prod, min and max, not %s",
                  sb_map_name(r.map), sb_op_name(r.op));
    else if (boolean && !(r.flags & SB_WRAP))
        cli_error("reduce", "--op %s takes no --acc: it reads each element "
                  "as true or false (%s)", sb_op_name(r.op), sb_error_detail());
    else if ((r.flags & SB_WRAP) && (acc == SB_F32 || acc == SB_F64 ||
                                      acc == SB_F16 || acc == SB_BF16))
        cli_error("reduce", "--wrap is for integer accumulators, not %s",
                  sb_type_name(acc));
    else
        cli_error("reduce", "--acc %s: %s (samebits.h, sb_reduction)",
                  sb_type_name(acc), sb_error_detail());
    return CLI_EXIT_USAGE;
}

/* What `samebits reduce` did, for its one line and its --json record. */
typedef struct {
    int          json;
    int          parsed;        /* the reduction below is known */
    int          loaded;        /* and so are n and the input type */
    sb_reduction r;
    size_t       n;
    int          masked;
    int          dot;           /* --dot: a dot product */
    char         target[320];
    int          ran;           /* the library was called: status is set */
    sb_status    status;
    char         value[64];
    char         bits[CORPUS_RESULT_MAX];
    uint64_t     index;         /* argmin / argmax: the position */
} reduce_outcome;

/* Prints the JSON record of any outcome: the reduction when known, the
 * status word (the library's, or usage-error / input-error /
 * device-error when it was not called), the exit status, and either the
 * value and bits or the error line. */
static int finish(const reduce_outcome *o, int rc)
{
    if (!o->json)
        return rc;
    printf("{");
    if (o->parsed) {
        const sb_type acc = o->r.accumulator ? o->r.accumulator : o->r.input;
        printf("\"op\":\"%s\",\"type\":\"%s\",\"acc\":\"%s\",\"wrap\":%s,"
               "\"map\":\"%s\",\"skip_nan\":%s,\"dot\":%s,",
               sb_op_name(o->r.op),
               o->r.input ? sb_type_name(o->r.input) : "?",
               acc ? sb_type_name(acc) : "?",
               (o->r.flags & SB_WRAP) ? "true" : "false",
               sb_map_name(o->r.map),
               (o->r.flags & SB_SKIP_NAN) ? "true" : "false",
               o->dot ? "true" : "false");
        if (o->loaded)
            printf("\"n\":%zu,", o->n);
        printf("\"masked\":%s,\"device\":", o->masked ? "true" : "false");
        cli_json_string(stdout, o->target);
        printf(",");
    }
    const char *word = o->ran ? corpus_status_word(o->status)
                     : rc == CLI_EXIT_USAGE ? "usage-error"
                     : rc == CLI_EXIT_INPUT ? "input-error" : "device-error";
    printf("\"status\":\"%s\",\"exit\":%d", word, rc);
    if (rc == CLI_EXIT_OK) {
        printf(",\"value\":\"%s\",\"bits\":\"%s\"", o->value, o->bits);
        if (o->r.op == SB_ARGMIN || o->r.op == SB_ARGMAX)
            printf(",\"index\":%" PRIu64, o->index);
    } else {
        printf(",\"error\":");
        cli_json_string(stdout, cli_last_error());
    }
    printf("}\n");
    return rc;
}

int cmd_reduce(int argc, char **argv)
{
    reduce_outcome out;
    memset(&out, 0, sizeof out);
    snprintf(out.target, sizeof out.target, "host");
    /* --json asks for a record of every outcome, a bad command line too. */
    for (int i = 1; i < argc; i++)
        out.json |= strcmp(argv[i], "--json") == 0;
    reduce_args a;
    const int parsed = parse_args(argc, argv, &a);
    if (parsed == CLI_EXIT_OK)
        return parsed;                         /* --help */
    if (parsed >= 0)
        return finish(&out, parsed);
    out.parsed = 1;
    out.r = a.r;
    out.masked = a.mask_file != NULL;
    out.dot = a.dot_file != NULL;

    /* Where it runs: the host, or exactly one device. */
    cli_device_list list;
    memset(&list, 0, sizeof list);
    const cli_device *dev = NULL;
    if (a.device != NULL && strcmp(a.device, "host") != 0) {
        cli_selection sel;
        memset(&sel, 0, sizeof sel);
        cli_devices_load(&list);
        if (cli_select("reduce", a.device, &list, &sel) != 0) {
            cli_devices_free(&list);
            return finish(&out, CLI_EXIT_DEVICE);
        }
        if (sel.host || sel.count != 1) {
            cli_error("reduce", "--device %s names %zu targets; name one",
                      a.device, sel.count + (size_t)sel.host);
            cli_devices_free(&list);
            return finish(&out, CLI_EXIT_USAGE);
        }
        dev = sel.devices[0];
        cli_device_title(dev, out.target, sizeof out.target);
    }
    if (a.axis >= 0 || a.segments != NULL) {
        const reduce_batched_args b = {
            .r = a.r, .file = a.file, .array = a.array, .format = a.format,
            .mask_file = a.mask_file, .mask_array = a.mask_array,
            .mask_format = a.mask_format, .axis = a.axis,
            .segments = a.segments, .out_file = a.out_file, .bits = a.bits,
            .json = a.json };
        const int brc = reduce_batched(&b, dev, out.target);
        cli_devices_free(&list);
        return brc;
    }

    int rc;
    cli_stream xs, ms, ys;
    memset(&xs, 0, sizeof xs);
    memset(&ms, 0, sizeof ms);
    memset(&ys, 0, sizeof ys);
    xs.fd = ms.fd = ys.fd = -1;
    device_run run;
    memset(&run, 0, sizeof run);
    char err[512] = "";
    /* With --type the reduction is known before any file is read: a bad
     * --acc is the command line's error whatever the file holds. */
    sb_reduction r = a.r;
    if (r.input != 0 && (rc = reduce_check_reduction(r)) != CLI_EXIT_OK)
        goto done;
    const int loaded = cli_stream_open(a.file, a.format, a.r.input, 0,
                                       a.array, a.chunk, &xs, err,
                                       sizeof err);
    if (loaded != 0) {
        cli_error("reduce", "%s", err);
        cli_devices_free(&list);
        return finish(&out, loaded == CLI_DATA_NEEDS_TYPE ? CLI_EXIT_USAGE
                                                          : CLI_EXIT_INPUT);
    }
    r.input = xs.type;
    out.r = r;
    out.n = xs.n;
    out.loaded = xs.n_known;
    if ((rc = reduce_check_reduction(r)) != CLI_EXIT_OK)
        goto done;
    if (a.dot_file != NULL) {
        if (cli_stream_open(a.dot_file, a.format, r.input, 0, a.dot_array,
                            a.chunk, &ys, err, sizeof err) != 0) {
            cli_error("reduce", "--dot %s", err);
            rc = CLI_EXIT_INPUT;
            goto done;
        }
        if (xs.n_known && ys.n_known && ys.n != xs.n) {
            cli_error("reduce", "the --dot file %s has %zu elements, the "
                      "data %zu: they must match", a.dot_file, ys.n, xs.n);
            rc = CLI_EXIT_INPUT;
            goto done;
        }
    }
    const char *mask_name = a.mask_file;
    if (a.mask_file != NULL) {
        if (cli_stream_open(a.mask_file, a.mask_format, SB_U8, 1,
                            a.mask_array, a.chunk, &ms, err,
                            sizeof err) != 0) {
            cli_error("reduce", "mask %s", err);
            rc = CLI_EXIT_INPUT;
            goto done;
        }
        if (xs.n_known && ms.n_known && ms.n != xs.n) {
            cli_error("reduce", "the mask %s has %zu %s, the data %zu "
                      "elements: they must match", a.mask_file, ms.n,
                      ms.format == CLI_FORMAT_RAW ? "bytes" : "values",
                      xs.n);
            rc = CLI_EXIT_INPUT;
            goto done;
        }
    }

    unsigned char result[16] = { 0 };
    char why[1024] = "";
    const size_t elem = sb_type_size(r.input);
    size_t piece = a.chunk;
    if (dev != NULL) {
        /* A buffer as large as the input when it fits in one piece. */
        const size_t want = xs.n_known && xs.n < piece ? xs.n : piece;
        out.status = device_open(dev, r.input, want, a.mask_file != NULL,
                                 a.dot_file != NULL, &run, why, sizeof why);
        if (out.status != SB_OK) {
            out.ran = 1;
            rc = reduce_exit_status(out.status, 1);
            reduce_explain(r, out.status, why);
            goto done;
        }
        piece = run.piece;
    }
    /* In memory (or mapped) and no longer than a piece: one call, as the
     * library's own, with its details (an overflow names positions). */
    if (xs.fd < 0 && ms.fd < 0 && ys.fd < 0 && xs.n <= piece) {
        const void *x = xs.data.data;
        const void *y = a.dot_file ? ys.data.data : NULL;
        const unsigned char *m = a.mask_file ? ms.data.data : NULL;
        if (dev == NULL) {
            out.status = y != NULL ? sb_dot_host(r, x, y, m, xs.n, result)
                                   : sb_reduce_host(r, x, m, xs.n, result);
            snprintf(why, sizeof why, "%s", sb_error_detail());
        } else {
            out.status = device_write(&run, x, y, m, xs.n, elem, why,
                                      sizeof why);
            cl_mem xb = xs.n ? run.xb : NULL, yb = xs.n ? run.yb : NULL;
            cl_mem mb = m ? run.mb : NULL;
            if (out.status == SB_OK) {
                out.status = a.dot_file
                    ? sb_dot(run.ctx, NULL, r, xb, 0, yb, 0, mb, 0, xs.n,
                             result)
                    : sb_reduce(run.ctx, NULL, r, xb, 0, mb, 0, xs.n, result);
                device_why(&run, out.status, why, sizeof why);
            }
        }
    } else {
        /* In pieces, through a partial: the same bits and status. */
        progress pr = { .on = !a.json && isatty(STDERR_FILENO),
                        .start = cli_now(), .after = progress_delay(),
                        .total = xs.n_known ? xs.n * elem : 0 };
        sb_partial part;
        out.status = sb_partial_init(&part, r, 0);
        for (;;) {
            const void *x = NULL, *m = NULL;
            size_t k = 0, km = 0;
            if (cli_stream_next(&xs, piece, &x, &k, err, sizeof err) != 0) {
                cli_error("reduce", "%s", err);
                rc = CLI_EXIT_INPUT;
                progress_show(&pr, 0, 1);
                goto done;
            }
            if (a.mask_file != NULL) {
                if (cli_stream_next(&ms, k > 0 ? k : 1, &m, &km, err,
                                    sizeof err) != 0) {
                    cli_error("reduce", "mask %s", err);
                    rc = CLI_EXIT_INPUT;
                    progress_show(&pr, 0, 1);
                    goto done;
                }
                if (km != k) {
                    progress_show(&pr, 0, 1);
                    cli_error("reduce", "the mask %s has %s values than the "
                              "data (%zu elements): they must match",
                              mask_name, km < k ? "fewer" : "more", xs.done);
                    rc = CLI_EXIT_INPUT;
                    goto done;
                }
            }
            const void *y = NULL;
            if (a.dot_file != NULL) {
                size_t ky = 0;
                if (cli_stream_next(&ys, k > 0 ? k : 1, &y, &ky, err,
                                    sizeof err) != 0) {
                    cli_error("reduce", "--dot %s", err);
                    rc = CLI_EXIT_INPUT;
                    progress_show(&pr, 0, 1);
                    goto done;
                }
                if (ky != k) {
                    progress_show(&pr, 0, 1);
                    cli_error("reduce", "the --dot file %s has %s elements "
                              "than the data (%zu): they must match",
                              a.dot_file, ky < k ? "fewer" : "more", xs.done);
                    rc = CLI_EXIT_INPUT;
                    goto done;
                }
            }
            if (k == 0)
                break;
            if (dev == NULL) {
                out.status = y != NULL
                    ? sb_partial_add_dot_host(&part, x, y, m, k)
                    : sb_partial_add_host(&part, x, m, k);
                snprintf(why, sizeof why, "%s", sb_error_detail());
            } else {
                out.status = device_write(&run, x, y, m, k, elem, why,
                                          sizeof why);
                cl_mem mb = m ? run.mb : NULL;
                if (out.status == SB_OK) {
                    out.status = y != NULL
                        ? sb_partial_add_dot(run.ctx, NULL, &part, run.xb, 0,
                                             run.yb, 0, mb, 0, k)
                        : sb_partial_add(run.ctx, NULL, &part, run.xb, 0, mb,
                                         0, k);
                    device_why(&run, out.status, why, sizeof why);
                }
            }
            if (out.status != SB_OK)
                break;                     /* the library failed: stop */
            progress_show(&pr, xs.done * elem, 0);
        }
        progress_show(&pr, 0, 1);
        out.n = xs.done;
        out.loaded = 1;
        if (out.status == SB_OK) {
            out.status = sb_partial_finish(&part, result);
            snprintf(why, sizeof why, "%s", sb_error_detail());
        }
    }
    out.ran = 1;
    rc = reduce_exit_status(out.status, dev != NULL);
    if (out.status == SB_OK) {
        reduce_format_value(r, result, out.value, sizeof out.value);
        corpus_format_result(out.bits, sizeof out.bits, r, out.status, result);
        out.bits[strcspn(out.bits, " ")] = '\0';   /* the bits without "ok" */
        const int arg = r.op == SB_ARGMIN || r.op == SB_ARGMAX;
        if (arg)
            memcpy(&out.index, result + 8, sizeof out.index);
        if (!out.json && arg)
            printf(a.bits ? "%s at index %" PRIu64 " %s\n"
                          : "%s at index %" PRIu64 "\n",
                   out.value, out.index, out.bits);
        else if (!out.json)
            printf(a.bits ? "%s %s\n" : "%s\n", out.value, out.bits);
        /* The answer for no element is the start value, as documented; a
         * producer that wrote nothing should not pass unnoticed. */
        if (out.n == 0)
            fprintf(stderr, "samebits reduce: note: %s holds no element; "
                    "the %s of nothing is %s\n",
                    strcmp(a.file, "-") == 0 ? "standard input" : a.file,
                    sb_op_name(r.op), out.value);
    } else {
        reduce_explain(r, out.status, why);
    }
done:
    device_close(&run);
    cli_stream_close(&ys);
    cli_stream_close(&ms);
    cli_stream_close(&xs);
    cli_devices_free(&list);
    return finish(&out, rc);
}
