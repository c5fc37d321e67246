/* cmd_reduce.c: `samebits reduce`: one reduction of a data file (raw,
 * text or .npy; tools/data_file.c), on the host path or on one OpenCL
 * device, printed so that it round-trips exactly (%.9g, %.17g, integers
 * in full), optionally with its bit pattern or as one JSON line.
 *
 * An answer that is not a value (empty, overflow) or any error is one
 * line on stderr and exit status 1; with --json the JSON line is printed
 * as well, with its status. */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "samebits.h"

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: samebits reduce --op OP --type T [--acc A] [--wrap]\n"
            "                       [--mask FILE] [--device SEL] [--format F]\n"
            "                       [--bits] [--json] [FILE|-]\n"
            "\n"
            "Reduces the numbers in FILE (standard input if - or none) and prints\n"
            "the result so that it reads back exactly (%%.9g for f32, %%.17g for\n"
            "f64, integers in full; any/all print 0 or 1).\n"
            "\n"
            "  --op OP        sum, prod, min, max, any, all\n"
            "  --type T       the element type: i8 u8 i16 u16 i32 u32 i64 u64 f32\n"
            "                 f64 (a .npy file's header gives it)\n"
            "  --acc A        the accumulator (default: T); only exact conversions,\n"
            "                 e.g. f32 -> f64, i32 -> i64 (see `samebits.h`)\n"
            "  --wrap         integer sum/prod wrap around instead of failing\n"
            "                 with overflow\n"
            "  --mask FILE    one byte per element (raw, text or .npy of u1/i1/b1):\n"
            "                 an element takes part iff its byte is not 0\n"
            "  --device SEL   host (default), a device number of `samebits info`,\n"
            "                 P:D, or a part of its name; the device computes\n"
            "                 even a small input itself\n"
            "  --format F     auto (default: .npy by its header or name, text by a\n"
            "                 .txt or .csv name, else raw), raw, text, npy\n"
            "  --bits         also print the result's bit pattern in hex\n"
            "  --json         print one JSON line instead\n"
            "\n"
            "Raw files are little-endian elements and nothing else. Text files\n"
            "hold one number per line (blank lines and lines starting with # are\n"
            "skipped). .npy files: versions 1.0 to 3.0, little-endian\n"
            "C-contiguous arrays of the types above, any shape (reduced as a\n"
            "whole). Exit status 1, with a one-line reason on stderr, when the\n"
            "result is empty (min/max over nothing) or overflow, or on error.\n");
}

typedef struct {
    sb_reduction r;
    const char  *file, *mask_file, *device;
    cli_format   format;
    int          bits, json;
} reduce_args;

static int parse_args(int argc, char **argv, reduce_args *a)
{
    memset(a, 0, sizeof *a);
    a->file = "-";
    int op = -1, type = 0, acc = 0, have_file = 0;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int missing = 0;
        if (cli_is_help(argv[i])) {
            print_usage(stdout);
            return CLI_EXIT_OK;
        } else if (strcmp(argv[i], "--wrap") == 0) {
            a->r.flags |= SB_WRAP;
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
                          "f32 or f64");
                return CLI_EXIT_USAGE;
            }
        } else if ((v = cli_option_value(argc, argv, &i, "--acc", &missing)) || missing) {
            if (missing || (acc = cli_parse_type(v)) < 0) {
                cli_error("reduce", "--acc wants i8 u8 i16 u16 i32 u32 i64 u64 "
                          "f32 or f64");
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
            const int f = missing ? -1 : cli_parse_format(v);
            if (f < 0) {
                cli_error("reduce", "--format wants auto, raw, text or npy");
                return CLI_EXIT_USAGE;
            }
            a->format = (cli_format)f;
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
        cli_error("reduce", "--op is needed (sum, prod, min, max, any, all)");
        return CLI_EXIT_USAGE;
    }
    a->r.op = (sb_op)op;
    a->r.input = (sb_type)type;
    a->r.accumulator = (sb_type)acc;
    return -1;
}

/* The result as text that reads back to the same bits. */
static void format_value(sb_reduction r, const void *result, char *buf,
                         size_t size)
{
    const sb_type acc = r.accumulator ? r.accumulator : r.input;
    if (r.op == SB_ANY || r.op == SB_ALL) {
        snprintf(buf, size, "%u", *(const unsigned char *)result);
        return;
    }
    switch (acc) {
    case SB_F32: { float v; memcpy(&v, result, 4); snprintf(buf, size, "%.9g", (double)v); break; }
    case SB_F64: { double v; memcpy(&v, result, 8); snprintf(buf, size, "%.17g", v); break; }
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

/* Why a status is not a value, in one line for the user. */
static void explain(sb_reduction r, sb_status s)
{
    const sb_type acc = r.accumulator ? r.accumulator : r.input;
    if (s == SB_EMPTY)
        cli_error("reduce", "empty: %s over no element (no data, or the mask "
                  "takes none) has no value", sb_op_name(r.op));
    else if (s == SB_OVERFLOW)
        cli_error("reduce", "overflow: the checked %s %s overflows in tree "
                  "order (try a wider --acc, or --wrap)", sb_type_name(acc),
                  sb_op_name(r.op));
    else
        cli_error("reduce", "%s", sb_status_string(s));
}

/* Reduces on the device `d`, from a cl_mem, with no host shortcut. */
static sb_status reduce_on_device(const cli_device *d, sb_reduction r,
                                  const cli_data *x, const cli_data *mask,
                                  void *result, char *why, size_t why_size)
{
    cl_int err = CL_SUCCESS;
    cl_context clctx = cli_cl_context(d, &err);
    if (clctx == NULL) {
        snprintf(why, why_size, "clCreateContext: %s", cli_cl_error_name(err));
        return SB_OPENCL_ERROR;
    }
    const sb_options opts = { .flags = SB_OPT_NO_HOST };
    sb_context *ctx = NULL;
    sb_status s = sb_context_create(clctx, d->device, &opts, &ctx);
    cl_mem xb = NULL, mb = NULL;
    const size_t bytes = x->n * sb_type_size(x->type);
    if (s == SB_OK && x->n > 0) {
        xb = clCreateBuffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                            bytes, (void *)x->data, &err);
        if (xb != NULL && mask != NULL)
            mb = clCreateBuffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                mask->n, (void *)mask->data, &err);
        if (xb == NULL || (mask != NULL && mb == NULL)) {
            snprintf(why, why_size, "clCreateBuffer (%zu bytes): %s", bytes,
                     cli_cl_error_name(err));
            s = SB_OPENCL_ERROR;
        }
    }
    if (s == SB_OK)
        s = sb_reduce(ctx, NULL, r, xb, 0, mb, 0, x->n, result);
    if (s == SB_BUILD_ERROR) {
        snprintf(why, why_size, "%s", sb_context_build_log(ctx));
        why[strcspn(why, "\n")] = '\0';       /* the log's first line */
    }
    else if (s == SB_OPENCL_ERROR && why[0] == '\0')
        snprintf(why, why_size, "%s",
                 cli_cl_error_name(sb_context_last_cl_error(ctx)));
    else if (s == SB_UNSUPPORTED) {
        sb_device_caps caps;
        if (sb_device_report(d->device, &caps) == SB_OK) {
            const sb_type acc = r.accumulator ? r.accumulator : r.input;
            snprintf(why, why_size, "%s",
                     caps.reason[r.input][0] ? caps.reason[r.input]
                                             : caps.reason[acc]);
        }
    }
    if (mb != NULL)
        clReleaseMemObject(mb);
    if (xb != NULL)
        clReleaseMemObject(xb);
    sb_context_release(ctx);
    clReleaseContext(clctx);
    return s;
}

static void print_json(const reduce_args *a, sb_reduction r, size_t n,
                       const char *target, sb_status s, const char *value,
                       const char *bits)
{
    const sb_type acc = r.accumulator ? r.accumulator : r.input;
    printf("{\"op\":\"%s\",\"type\":\"%s\",\"acc\":\"%s\",\"wrap\":%s,"
           "\"n\":%zu,\"masked\":%s,\"device\":", sb_op_name(r.op),
           sb_type_name(r.input), sb_type_name(acc),
           (r.flags & SB_WRAP) ? "true" : "false", n,
           a->mask_file ? "true" : "false");
    cli_json_string(stdout, target);
    printf(",\"status\":\"%s\"", corpus_status_word(s));
    if (s == SB_OK)
        printf(",\"value\":\"%s\",\"bits\":\"%s\"", value, bits);
    printf("}\n");
}

int cmd_reduce(int argc, char **argv)
{
    reduce_args a;
    const int parsed = parse_args(argc, argv, &a);
    if (parsed >= 0)
        return parsed;

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
            return CLI_EXIT_FAILURE;
        }
        if (sel.host || sel.count != 1) {
            cli_error("reduce", "--device %s names %zu targets; name one",
                      a.device, sel.count + (size_t)sel.host);
            cli_devices_free(&list);
            return CLI_EXIT_USAGE;
        }
        dev = sel.devices[0];
    }

    int rc = CLI_EXIT_FAILURE;
    cli_data x, mask;
    memset(&mask, 0, sizeof mask);
    char err[512] = "";
    if (cli_data_load(a.file, a.format, a.r.input, 0, &x, err, sizeof err) != 0) {
        cli_error("reduce", "%s", err);
        cli_devices_free(&list);
        return CLI_EXIT_FAILURE;
    }
    sb_reduction r = a.r;
    r.input = x.type;
    if (sb_reduction_check(r) != SB_OK) {
        const sb_type acc = r.accumulator ? r.accumulator : r.input;
        if ((r.flags & SB_WRAP) && (acc == SB_F32 || acc == SB_F64))
            cli_error("reduce", "--wrap is for integer accumulators, not %s",
                      sb_type_name(acc));
        else
            cli_error("reduce", "%s input cannot use a %s accumulator: only "
                      "exact conversions are allowed (samebits.h, "
                      "sb_reduction)", sb_type_name(r.input), sb_type_name(acc));
        goto done;
    }
    if (a.mask_file != NULL) {
        if (cli_data_load(a.mask_file, CLI_FORMAT_AUTO, SB_U8, 1, &mask, err,
                          sizeof err) != 0) {
            cli_error("reduce", "mask %s", err);
            goto done;
        }
        if (mask.n != x.n) {
            cli_error("reduce", "the mask %s has %zu bytes, the data %zu "
                      "elements: they must match", a.mask_file, mask.n, x.n);
            goto done;
        }
    }

    unsigned char result[16] = { 0 };
    char why[256] = "";
    char target[320] = "host";
    sb_status s;
    if (dev == NULL) {
        s = sb_reduce_host(r, x.data, a.mask_file ? mask.data : NULL, x.n,
                           result);
    } else {
        cli_device_title(dev, target, sizeof target);
        s = reduce_on_device(dev, r, &x, a.mask_file ? &mask : NULL, result,
                             why, sizeof why);
    }
    char value[64] = "", bits[CORPUS_RESULT_MAX] = "";
    if (s == SB_OK) {
        format_value(r, result, value, sizeof value);
        corpus_format_result(bits, sizeof bits, r, s, result);
        bits[strcspn(bits, " ")] = '\0';       /* the bits without "ok" */
    }
    if (a.json)
        print_json(&a, r, x.n, target, s, value, bits);
    else if (s == SB_OK)
        printf(a.bits ? "%s %s\n" : "%s\n", value, bits);
    if (s == SB_OK) {
        rc = CLI_EXIT_OK;
    } else if (why[0] != '\0') {
        cli_error("reduce", "%s: %s", sb_status_string(s), why);
    } else {
        explain(r, s);
    }
done:
    cli_data_free(&mask);
    cli_data_free(&x);
    cli_devices_free(&list);
    return rc;
}
