/* cmd_reduce_batched.c: `samebits reduce --axis 0|1` and `--segments`:
 * one answer per column or row of a 2-D .npy (C or Fortran order, read
 * in place through the strides of sb_reduce_batched_host() /
 * sb_reduce_batched(), never transposed), or per segment of a 1-D input
 * cut by an offsets .npy (sb_reduce_segments_host() /
 * sb_reduce_segments()). Each answer has the bits and status of
 * sb_reduce_host() over that row's, column's or segment's elements
 * gathered into one array.
 *
 * A --mask has the input's shape and is indexed as the input is (one in
 * the other memory order than a 2-D input's is copied into the input's).
 *
 * Printed one line per answer, in order: the value as `samebits reduce`
 * prints one (with --bits its bit pattern, for argmin/argmax "at index
 * I"), or the status word (empty, overflow) where there is no value; or,
 * with --json, one record with a "results" array; or, with --out, written
 * as a 1-D .npy, only when every answer is a value. Exit status 0 when
 * every answer is a value, 1 when some are not (each named on stderr),
 * else as cli.h. */
#include "reduce.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "samebits.h"

/* One run: where the answers come from and what they are. */
typedef struct {
    const reduce_batched_args *a;
    const char    *target;        /* "host" or the device's title */
    sb_reduction   r;
    int            loaded;        /* the input is read: its shape is known */
    size_t         ndim, dims[2]; /* the input's shape */
    int            fortran;
    size_t         total;         /* elements of the input */
    size_t         count;         /* answers */
    size_t         n;             /* --axis: elements per answer */
    ptrdiff_t      elem_stride, batch_stride;
    uint64_t      *offsets;       /* --segments: count + 1 of them */
    const unsigned char *mask;    /* --mask, indexed as the input, or NULL */
    unsigned char *mask_copy;     /* the mask reordered, when it was */
    int            ran;           /* the library answered: statuses hold */
    unsigned char *results;
    sb_status     *statuses;
} batch_run;

static const char *unit_name(const reduce_batched_args *a)
{
    return a->segments != NULL ? "segment" : a->axis == 0 ? "column" : "row";
}

static const char *input_name(const reduce_batched_args *a)
{
    return strcmp(a->file, "-") == 0 ? "standard input" : a->file;
}

/* ---- inputs ------------------------------------------------------------------- */

/* The data: a 2-D .npy (or .npz member) for --axis, kept in its order;
 * any flat input (1-D .npy, text, raw) for --segments. */
static int load_input(batch_run *br, cli_data *x)
{
    const reduce_batched_args *a = br->a;
    char err[512] = "";
    if (a->axis >= 0 && (a->format == CLI_FORMAT_TEXT
                         || a->format == CLI_FORMAT_RAW)) {
        cli_error("reduce", "--axis needs a 2-D .npy (or .npz member), "
                  "and --format says %s is %s", input_name(a),
                  a->format == CLI_FORMAT_TEXT ? "text" : "raw");
        return CLI_EXIT_INPUT;
    }
    const int rc = cli_data_load_shaped(a->file, a->format, a->r.input, 0,
                                        a->array, a->axis >= 0, x, err,
                                        sizeof err);
    if (rc == CLI_DATA_NEEDS_TYPE && a->axis >= 0) {
        cli_error("reduce", "--axis needs a 2-D .npy (or .npz member); %s "
                  "is text or raw data, which have no shape",
                  input_name(a));
        return CLI_EXIT_INPUT;
    }
    if (rc != 0) {
        cli_error("reduce", "%s", err);
        return rc == CLI_DATA_NEEDS_TYPE ? CLI_EXIT_USAGE : CLI_EXIT_INPUT;
    }
    br->loaded = 1;
    br->ndim = x->ndim;
    br->dims[0] = x->dims[0];
    br->dims[1] = x->dims[1];
    br->fortran = x->fortran;
    br->total = x->n;
    const int npy = x->format == CLI_FORMAT_NPY || x->format == CLI_FORMAT_NPZ;
    if (a->axis >= 0 && !npy) {
        cli_error("reduce", "--axis needs a 2-D .npy (or .npz member); %s "
                  "is text or raw data, which have no shape", input_name(a));
        return CLI_EXIT_INPUT;
    }
    if (a->axis >= 0 && x->ndim != 2) {
        cli_error("reduce", "--axis needs a 2-D array; %s is %zu-D%s",
                  input_name(a), x->ndim, x->ndim == 1
                  ? " (reduce it whole: leave out --axis)" : "");
        return CLI_EXIT_INPUT;
    }
    if (a->segments != NULL && x->ndim != 1) {
        cli_error("reduce", "--segments cuts a 1-D array; %s is %zu-D "
                  "(a.ravel() or --axis)", input_name(a), x->ndim);
        return CLI_EXIT_INPUT;
    }
    return CLI_EXIT_OK;
}

/* Where the answers' elements are: element (i, j) of a rows x cols array
 * is at i * cols + j in C order, at i + j * rows in Fortran order. */
static void axis_strides(batch_run *br)
{
    const size_t rows = br->dims[0], cols = br->dims[1];
    const ptrdiff_t pr = (ptrdiff_t)rows, pc = (ptrdiff_t)cols;
    if (br->a->axis == 1) {             /* each row: cols elements */
        br->count = rows;
        br->n = cols;
        br->elem_stride = br->fortran ? pr : 1;
        br->batch_stride = br->fortran ? 1 : pc;
    } else {                            /* each column: rows elements */
        br->count = cols;
        br->n = rows;
        br->elem_stride = br->fortran ? 1 : pc;
        br->batch_stride = br->fortran ? pr : 1;
    }
}

/* --segments OFFSETS: a 1-D .npy of count + 1 int64 or uint64 offsets,
 * non-decreasing, the last at most the input's length. */
static int load_offsets(batch_run *br)
{
    const char *path = br->a->segments;
    char err[512] = "";
    cli_data d;
    const int rc = cli_data_load(path, CLI_FORMAT_AUTO, (sb_type)0, 0, NULL,
                                 &d, err, sizeof err);
    if (rc == CLI_DATA_NEEDS_TYPE) {
        cli_error("reduce", "--segments %s: the offsets must be a .npy of "
                  "int64 or uint64, not text or raw", path);
        return CLI_EXIT_INPUT;
    }
    if (rc != 0) {
        cli_error("reduce", "--segments %s", err);
        return CLI_EXIT_INPUT;
    }
    int out = CLI_EXIT_INPUT;
    const int npy = d.format == CLI_FORMAT_NPY || d.format == CLI_FORMAT_NPZ;
    if (!npy || (d.type != SB_I64 && d.type != SB_U64)) {
        cli_error("reduce", "--segments %s: the offsets must be a .npy of "
                  "int64 or uint64, not %s", path,
                  npy ? sb_type_name(d.type) : "text");
    } else if (d.ndim != 1 || d.n == 0) {
        cli_error("reduce", "--segments %s: the offsets must be 1-D, count "
                  "+ 1 of them (at least one); this is %s", path,
                  d.ndim != 1 ? "not 1-D" : "empty");
    } else if ((br->offsets = malloc(d.n * sizeof *br->offsets)) == NULL) {
        cli_error("reduce", "--segments %s: out of memory", path);
    } else {
        memcpy(br->offsets, d.data, d.n * sizeof *br->offsets);
        out = CLI_EXIT_OK;
        for (size_t i = 0; i < d.n && out == CLI_EXIT_OK; i++) {
            const uint64_t o = br->offsets[i];
            if (d.type == SB_I64 && o > (uint64_t)INT64_MAX) {
                cli_error("reduce", "--segments %s: offset %zu is negative "
                          "(%" PRId64 ")", path, i, (int64_t)o);
                out = CLI_EXIT_INPUT;
            } else if (i > 0 && o < br->offsets[i - 1]) {
                cli_error("reduce", "--segments %s: the offsets decrease at "
                          "%zu (%" PRIu64 " after %" PRIu64 ")", path, i, o,
                          br->offsets[i - 1]);
                out = CLI_EXIT_INPUT;
            } else if (o > br->total) {
                cli_error("reduce", "--segments %s: offset %zu (%" PRIu64
                          ") is past the end of %s (%zu elements)", path, i,
                          o, input_name(br->a), br->total);
                out = CLI_EXIT_INPUT;
            }
        }
        br->count = d.n - 1;
    }
    cli_data_free(&d);
    return out;
}

/* --mask FILE: one byte per element. For --axis a 2-D .npy of the
 * input's shape, in either order: the library reads the mask through the
 * input's strides, so one in the other order is copied into the input's
 * (element (i, j) at i * cols + j in C order, i + j * rows in Fortran's).
 * For --segments any mask of the input's length. */
static int load_mask(batch_run *br, cli_data *m)
{
    const reduce_batched_args *a = br->a;
    char err[512] = "";
    const int rc = cli_data_load_shaped(a->mask_file, a->mask_format, SB_U8,
                                        1, a->mask_array, a->axis >= 0, m,
                                        err, sizeof err);
    if (rc != 0) {
        cli_error("reduce", "mask %s", err);
        return CLI_EXIT_INPUT;
    }
    const size_t rows = br->dims[0], cols = br->dims[1];
    if (a->axis >= 0) {
        const int npy = m->format == CLI_FORMAT_NPY
                        || m->format == CLI_FORMAT_NPZ;
        if (!npy || m->ndim != 2 || m->dims[0] != rows
                || m->dims[1] != cols) {
            cli_error("reduce", "--axis with --mask: the mask %s must be a "
                      "2-D .npy of the input's shape (%zu, %zu)%s",
                      a->mask_file, rows, cols, npy ? "" : ", not text or raw");
            return CLI_EXIT_INPUT;
        }
        if (m->fortran != br->fortran && m->n > 0) {
            const unsigned char *src = m->data;
            if ((br->mask_copy = malloc(m->n)) == NULL) {
                cli_error("reduce", "out of memory for the mask");
                return CLI_EXIT_INPUT;
            }
            for (size_t i = 0; i < rows; i++)
                for (size_t j = 0; j < cols; j++)
                    br->mask_copy[br->fortran ? i + j * rows : i * cols + j] =
                        src[m->fortran ? i + j * rows : i * cols + j];
            br->mask = br->mask_copy;
            return CLI_EXIT_OK;
        }
    } else if (m->n != br->total) {
        cli_error("reduce", "the mask %s has %zu values, the data %zu "
                  "elements: they must match", a->mask_file, m->n, br->total);
        return CLI_EXIT_INPUT;
    }
    br->mask = m->data;
    return CLI_EXIT_OK;
}

/* ---- the device --------------------------------------------------------------- */

/* The reduction on `dev`: the whole input in one buffer (and the offsets
 * in another), then one library call. On failure `why` says why. */
static sb_status run_device(batch_run *br, const cli_device *dev,
                            const void *x, char *why, size_t why_size)
{
    cl_int err = CL_SUCCESS;
    cl_context clctx = cli_cl_context(dev, &err);
    if (clctx == NULL) {
        snprintf(why, why_size, "clCreateContext failed: %s",
                 cli_cl_error_name(err));
        return SB_OPENCL_ERROR;
    }
    /* The device computes even a small input itself. */
    const sb_options opts = { .flags = SB_OPT_NO_HOST };
    sb_context *ctx = NULL;
    cl_mem xb = NULL, ob = NULL, mb = NULL;
    sb_status s = sb_context_create(clctx, dev->device, &opts, &ctx);
    if (s != SB_OK) {
        snprintf(why, why_size, "%s", sb_error_detail());
        goto done;
    }
    /* A buffer cannot be empty: one element at least, never read. */
    const size_t elem = sb_type_size(br->r.input);
    static const uint64_t none[1] = { 0 };
    xb = clCreateBuffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                        (br->total > 0 ? br->total : 1) * elem,
                        (void *)(uintptr_t)(br->total > 0 ? x : none), &err);
    if (xb != NULL && br->offsets != NULL)
        ob = clCreateBuffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                            (br->count + 1) * sizeof(uint64_t),
                            br->offsets, &err);
    if (xb != NULL && br->mask != NULL)
        mb = clCreateBuffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                            br->total > 0 ? br->total : 1,
                            (void *)(uintptr_t)(br->total > 0 ? br->mask
                                                : (const void *)none), &err);
    if (xb == NULL || (br->offsets != NULL && ob == NULL)
            || (br->mask != NULL && mb == NULL)) {
        snprintf(why, why_size, "clCreateBuffer failed: %s",
                 cli_cl_error_name(err));
        s = err == CL_OUT_OF_HOST_MEMORY
                    || err == CL_MEM_OBJECT_ALLOCATION_FAILURE
                    || err == CL_INVALID_BUFFER_SIZE
                ? SB_OUT_OF_MEMORY : SB_OPENCL_ERROR;
        goto done;
    }
    s = br->offsets != NULL
        ? sb_reduce_segments(ctx, NULL, br->r, xb, 0, mb, 0, ob, 0,
                             br->count, br->results, br->statuses)
        : sb_reduce_batched(ctx, NULL, br->r, xb, 0, mb, 0, br->n,
                            br->elem_stride, br->count, br->batch_stride,
                            br->results, br->statuses);
    snprintf(why, why_size, "%s", sb_error_detail());
    if (s == SB_BUILD_ERROR) {          /* and the log's first line */
        const size_t used = strlen(why);
        snprintf(why + used, why_size - used, ": %s",
                 sb_context_build_log(ctx));
        why[used + strcspn(why + used, "\n")] = '\0';
    }
done:
    if (mb != NULL)
        clReleaseMemObject(mb);
    if (ob != NULL)
        clReleaseMemObject(ob);
    if (xb != NULL)
        clReleaseMemObject(xb);
    sb_context_release(ctx);
    clReleaseContext(clctx);
    return s;
}

/* ---- output ------------------------------------------------------------------- */

/* Answer b as "<value>" and "<bits>" (and its index for argmin/argmax). */
static void answer_text(const batch_run *br, size_t b, char *value,
                        size_t value_size, char *bits, size_t bits_size,
                        uint64_t *index)
{
    const size_t rs = sb_result_size(br->r);
    const unsigned char *res = br->results + b * rs;
    reduce_format_value(br->r, res, value, value_size);
    corpus_format_result(bits, bits_size, br->r, SB_OK, res);
    bits[strcspn(bits, " ")] = '\0';            /* the bits without "ok" */
    *index = 0;
    if (br->r.op == SB_ARGMIN || br->r.op == SB_ARGMAX)
        memcpy(index, res + 8, sizeof *index);
}

static void print_text(const batch_run *br)
{
    const int arg = br->r.op == SB_ARGMIN || br->r.op == SB_ARGMAX;
    for (size_t b = 0; b < br->count; b++) {
        if (br->statuses[b] != SB_OK) {
            printf("%s\n", corpus_status_word(br->statuses[b]));
            continue;
        }
        char value[64], bits[CORPUS_RESULT_MAX];
        uint64_t index;
        answer_text(br, b, value, sizeof value, bits, sizeof bits, &index);
        printf("%s", value);
        if (arg)
            printf(" at index %" PRIu64, index);
        printf(br->a->bits ? " %s\n" : "\n", bits);
    }
}

/* The record of every outcome: the reduction, what was cut how, the
 * status word (the first answer's that is not a value, or ok; or
 * usage-error / input-error / device-error / the library's word when it
 * failed), the exit status, the answers, and the error line. */
static int print_json(const batch_run *br, sb_status lib, int rc)
{
    const reduce_batched_args *a = br->a;
    const sb_reduction r = br->r;
    const sb_type acc = r.accumulator ? r.accumulator : r.input;
    printf("{\"op\":\"%s\",\"type\":\"%s\",\"acc\":\"%s\",\"wrap\":%s,"
           "\"map\":\"%s\",\"skip_nan\":%s,",
           sb_op_name(r.op), r.input ? sb_type_name(r.input) : "?",
           acc ? sb_type_name(acc) : "?",
           (r.flags & SB_WRAP) ? "true" : "false", sb_map_name(r.map),
           (r.flags & SB_SKIP_NAN) ? "true" : "false");
    if (a->segments != NULL) {
        printf("\"segments\":");
        cli_json_string(stdout, a->segments);
        printf(",");
    } else {
        printf("\"axis\":%d,", a->axis);
    }
    if (br->loaded && br->ndim == 2)
        printf("\"shape\":[%zu,%zu],\"order\":\"%s\",", br->dims[0],
               br->dims[1], br->fortran ? "F" : "C");
    else if (br->loaded)
        printf("\"n\":%zu,", br->total);
    printf("\"device\":");
    cli_json_string(stdout, br->target);
    const char *word = "ok";
    if (br->ran) {
        for (size_t b = 0; b < br->count; b++)
            if (br->statuses[b] != SB_OK) {
                word = corpus_status_word(br->statuses[b]);
                break;
            }
        /* Every answer a value, and still a failure: --out's file. */
        if (rc != CLI_EXIT_OK && rc != CLI_EXIT_NO_VALUE)
            word = "input-error";
    } else {
        word = lib != SB_OK ? corpus_status_word(lib)
             : rc == CLI_EXIT_USAGE ? "usage-error"
             : rc == CLI_EXIT_INPUT ? "input-error" : "device-error";
    }
    printf(",\"status\":\"%s\",\"exit\":%d", word, rc);
    if (br->ran) {
        printf(",\"count\":%zu,\"results\":[", br->count);
        for (size_t b = 0; b < br->count; b++) {
            printf(b ? ",{" : "{");
            printf("\"status\":\"%s\"", corpus_status_word(br->statuses[b]));
            if (br->statuses[b] == SB_OK) {
                char value[64], bits[CORPUS_RESULT_MAX];
                uint64_t index;
                answer_text(br, b, value, sizeof value, bits, sizeof bits,
                            &index);
                printf(",\"value\":\"%s\",\"bits\":\"%s\"", value, bits);
                if (r.op == SB_ARGMIN || r.op == SB_ARGMAX)
                    printf(",\"index\":%" PRIu64, index);
            }
            printf("}");
        }
        printf("]");
    }
    if (rc != CLI_EXIT_OK) {
        printf(",\"error\":");
        cli_json_string(stdout, cli_last_error());
    }
    printf("}\n");
    return rc;
}

/* One line on stderr per kind of answer that is not a value (empty,
 * overflow): how many, and which (the first few). */
static void explain_answers(const batch_run *br)
{
    static const sb_status kinds[] = { SB_EMPTY, SB_OVERFLOW };
    const char *unit = unit_name(br->a);
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        char list[256] = "";
        size_t used = 0, found = 0;
        for (size_t b = 0; b < br->count; b++) {
            if (br->statuses[b] != kinds[k])
                continue;
            if (found < 8 && used < sizeof list)
                used += (size_t)snprintf(list + used, sizeof list - used,
                                         "%s%zu", found ? ", " : "", b);
            else if (found == 8 && used < sizeof list)
                used += (size_t)snprintf(list + used, sizeof list - used,
                                         ", ...");
            found++;
        }
        if (found == 0)
            continue;
        char detail[512];
        snprintf(detail, sizeof detail, "%zu of %zu %ss (%s%s %s, counted "
                 "from 0) %s", found, br->count, unit, unit,
                 found > 1 ? "s" : "", list,
                 kinds[k] == SB_EMPTY ? "have no element that takes part"
                                      : "overflow");
        reduce_explain(br->r, kinds[k], detail);
    }
}

/* The .npy dtype of one answer's value: the result type's, as numpy
 * writes it; NULL for bf16, which numpy does not have. */
static const char *value_descr(sb_reduction r)
{
    if (r.op == SB_ANY || r.op == SB_ALL)
        return "'|b1'";
    if (r.op == SB_COUNT)
        return "'<u8'";
    switch (r.accumulator ? r.accumulator : r.input) {
    case SB_I8:  return "'|i1'";
    case SB_U8:  return "'|u1'";
    case SB_I16: return "'<i2'";
    case SB_U16: return "'<u2'";
    case SB_I32: return "'<i4'";
    case SB_U32: return "'<u4'";
    case SB_I64: return "'<i8'";
    case SB_U64: return "'<u8'";
    case SB_F32: return "'<f4'";
    case SB_F64: return "'<f8'";
    case SB_F16: return "'<f2'";
    default:     return NULL;
    }
}

/* --out FILE.npy: the answers, count of them; argmin/argmax as records
 * of the value and its index (numpy packs the fields, as written here). */
static int write_out(const batch_run *br)
{
    const reduce_batched_args *a = br->a;
    const sb_reduction r = br->r;
    const char *vd = value_descr(r);
    const int arg = r.op == SB_ARGMIN || r.op == SB_ARGMAX;
    const size_t rs = sb_result_size(r);
    const size_t vs = r.op == SB_ANY || r.op == SB_ALL ? 1
                    : r.op == SB_COUNT ? 8
                    : sb_type_size(r.accumulator ? r.accumulator : r.input);
    char descr[96];
    if (arg)
        snprintf(descr, sizeof descr, "[('value', %s), ('index', '<i8')]",
                 vd);
    else
        snprintf(descr, sizeof descr, "%s", vd);
    const size_t item = arg ? vs + 8 : vs;
    unsigned char *items = malloc(br->count > 0 ? br->count * item : 1);
    if (items == NULL) {
        cli_error("reduce", "out of memory for %zu answers", br->count);
        return CLI_EXIT_INPUT;
    }
    for (size_t b = 0; b < br->count; b++) {
        memcpy(items + b * item, br->results + b * rs, vs);
        if (arg)                          /* sb_arg_result: index at 8 */
            memcpy(items + b * item + vs, br->results + b * rs + 8, 8);
    }
    char err[512] = "";
    const int w = cli_npy_write(a->out_file, descr, br->count, items, item,
                                err, sizeof err);
    free(items);
    if (w != 0) {
        cli_error("reduce", "--out %s", err);
        return CLI_EXIT_INPUT;
    }
    return CLI_EXIT_OK;
}

/* ---- the command -------------------------------------------------------------- */

int reduce_batched(const reduce_batched_args *a, const cli_device *dev,
                   const char *target)
{
    batch_run br;
    memset(&br, 0, sizeof br);
    br.a = a;
    br.target = target;
    br.r = a->r;
    cli_data x, mask;
    memset(&x, 0, sizeof x);
    memset(&mask, 0, sizeof mask);
    sb_status lib = SB_OK;
    int rc;
    if (br.r.input != 0 && (rc = reduce_check_reduction(br.r)) != CLI_EXIT_OK)
        goto done;
    if ((rc = load_input(&br, &x)) != CLI_EXIT_OK)
        goto done;
    br.r.input = x.type;
    if ((rc = reduce_check_reduction(br.r)) != CLI_EXIT_OK)
        goto done;
    if (a->out_file != NULL && value_descr(br.r) == NULL) {
        cli_error("reduce", "--out: numpy has no bf16 dtype for %s's "
                  "answers; --acc f32 gives them exactly, or leave out "
                  "--out for text", sb_op_name(br.r.op));
        rc = CLI_EXIT_USAGE;
        goto done;
    }
    if (a->segments != NULL) {
        if ((rc = load_offsets(&br)) != CLI_EXIT_OK)
            goto done;
    } else {
        axis_strides(&br);
    }
    if (a->mask_file != NULL && (rc = load_mask(&br, &mask)) != CLI_EXIT_OK)
        goto done;
    const size_t rs = sb_result_size(br.r);
    br.results = calloc(br.count > 0 ? br.count : 1, rs);
    br.statuses = calloc(br.count > 0 ? br.count : 1, sizeof *br.statuses);
    if (br.results == NULL || br.statuses == NULL) {
        cli_error("reduce", "out of memory for %zu answers", br.count);
        rc = CLI_EXIT_INPUT;
        goto done;
    }
    char why[1024] = "";
    if (dev == NULL) {
        lib = a->segments != NULL
            ? sb_reduce_segments_host(br.r, x.data, br.mask, br.offsets,
                                      br.count, br.results, br.statuses)
            : sb_reduce_batched_host(br.r, x.data, br.mask, br.n,
                                     br.elem_stride, br.count,
                                     br.batch_stride, br.results,
                                     br.statuses);
        snprintf(why, sizeof why, "%s", sb_error_detail());
    } else {
        lib = run_device(&br, dev, x.data, why, sizeof why);
    }
    if (lib != SB_OK) {
        rc = reduce_exit_status(lib, dev != NULL);
        reduce_explain(br.r, lib, why);
        goto done;
    }
    br.ran = 1;
    rc = CLI_EXIT_OK;
    for (size_t b = 0; b < br.count; b++)
        if (br.statuses[b] != SB_OK)
            rc = CLI_EXIT_NO_VALUE;
    if (a->out_file == NULL && !a->json)
        print_text(&br);
    if (rc != CLI_EXIT_OK)
        explain_answers(&br);
    if (a->out_file != NULL && rc != CLI_EXIT_OK)
        cli_error("reduce", "--out %s not written: some answers have no "
                  "value (above)", a->out_file);
    else if (a->out_file != NULL)
        rc = write_out(&br);
done:
    if (a->json)
        print_json(&br, lib, rc);
    free(br.results);
    free(br.statuses);
    free(br.offsets);
    free(br.mask_copy);
    cli_data_free(&mask);
    cli_data_free(&x);
    return rc;
}
