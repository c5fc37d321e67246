/* cmd_check.c: `samebits check`: runs the conformance corpus (corpus.c) on
 * the host path and on OpenCL devices, each over several launch shapes,
 * and compares every result, bit for bit and status for status, with the
 * golden file: the expected results the oracle computed (tests/golden/
 * corpus.golden, embedded in the command at build time).
 *
 * Each case's input is generated once and run on every target. A device
 * reduces everything itself (SB_OPT_NO_HOST), from a cl_mem; a batch of
 * rows, columns or segments is one batched call per shape, each of its
 * reductions compared with its own golden line. A type the
 * device refuses (sb_device_report()) is reported as refused: the
 * documented behaviour, not a difference. */
#define _POSIX_C_SOURCE 200809L   /* fnmatch, strtok_r, isatty, fileno */

#include "cli.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corpus.h"
#include "samebits.h"

/* The golden file, embedded by cmake/embed.cmake. */
extern const char samebits_golden[];
extern const size_t samebits_golden_size;

#define CHECK_MAX_SHAPES 6
#define CHECK_MAX_TARGETS (CLI_MAX_DEVICES + 1)

typedef struct {
    char         name[32];
    unsigned     threads;     /* host: sb_host_options.threads */
    sb_context  *ctx;         /* device: one context per shape */
} check_shape;

typedef struct {
    size_t run, differ, refused, error;
} check_count;

typedef struct {
    char              column[12];   /* "host", "dev1" */
    char              title[320];
    const cli_device *dev;          /* NULL: the host path */
    int               quick;
    cl_context        cl_ctx;
    sb_device_caps    caps;
    check_shape       shapes[CHECK_MAX_SHAPES];
    size_t            shape_count;
    check_count       family[CORPUS_FAMILY_COUNT];
    check_count       total;
    char              first[400];   /* the first difference, or "" */
    char            (*digest)[CORPUS_RESULT_MAX];  /* one per answer */
} check_target;

static void print_usage(FILE *out)
{
    size_t count = 0;
    corpus_cases(&count);
    char cases[32];   /* "1,049", as the README writes it */
    if (count >= 1000)
        snprintf(cases, sizeof cases, "%zu,%03zu", count / 1000, count % 1000);
    else
        snprintf(cases, sizeof cases, "%zu", count);
    fprintf(out,
            "usage: samebits check [--device SEL]... [--quick] [--digest]\n"
            "                      [--filter GLOB,...] [--golden FILE]\n"
            "                      [--float-mode M] [--flush-subnormals]\n"
            "       samebits check --list | --dump CASE-ID\n"
            "\n"
            "Runs the conformance corpus (docs/corpus.md: %s cases,\n"
            "every op, type, accumulator and mask, sizes up to 2^20 + 1, batches\n"
            "of rows, columns and segments, data families from uniform to\n"
            "NaN-sprinkled) on the host path and on every\n"
            "OpenCL device, each over several launch shapes, and compares every\n"
            "result bit for bit with the golden file computed by the reference\n"
            "oracle. Prints a table device x data family -> identical / DIFFERS,\n"
            "with the first differing case.\n"
            "\n"
            "  --device SEL     host, all, a device number of `samebits info`, P:D,\n"
            "                   or a part of a device or platform name (pocl,\n"
            "                   nvidia); repeat or separate with commas. Default:\n"
            "                   host and every device (a simulator such as Oclgrind\n"
            "                   runs the --quick subset)\n"
            "  --float-mode M   auto (default: what each device needs), guarded\n"
            "                   (f32 and f64 guarded on every device) or software\n"
            "                   (f64 in software, f32 guarded): the same bits,\n"
            "                   through other kernels\n"
            "  --flush-subnormals  the devices as ones that flush subnormals: the\n"
            "                   kernels are built with -cl-denorms-are-zero (POCL\n"
            "                   then really flushes) and run guarded\n"
            "  --quick          only the cases of up to 4097 elements (every\n"
            "                   reduction once at a small size, docs/corpus.md)\n"
            "  --digest         print one line per case (per reduction of a batch),\n"
            "                   `case-id result-bits status`, for each target (the\n"
            "                   table goes to stderr):\n"
            "                   the golden file's format, so two machines compare\n"
            "                   with diff\n"
            "  --filter GLOBS   only the cases whose id matches one of the\n"
            "                   comma-separated shell patterns (e.g. 'sum.f32.*')\n"
            "  --golden FILE    compare with FILE instead of the embedded golden\n"
            "                   file\n"
            "  --list           list the cases and exit\n"
            "  --dump CASE-ID   write the case's input to CASE-ID.raw (and its\n"
            "                   mask to CASE-ID.mask), print the `samebits reduce`\n"
            "                   command that reduces it, and exit\n"
            "\n"
            "Exit status: 0 every result identical; 5 a result differs (a bug:\n"
            "please report it); 4 no such device, or a device could not run a\n"
            "case; 3 a golden file that cannot be read or is not this corpus's;\n"
            "2 a bad command line (or nothing selected to run).\n",
            cases);
}

/* ---- the golden file -------------------------------------------------------- */

/* The id of answer b of case c: the case's own, or "<id>/<b>" for a
 * batch. */
static void answer_id(const corpus_case *c, size_t b, char *buf, size_t size)
{
    if (c->layout == CORPUS_ONE)
        snprintf(buf, size, "%s", c->id);
    else
        snprintf(buf, size, "%s/%zu", c->id, b);
}

/* Splits the golden text into the expected "<bits> <status>" of each
 * answer (first[i] is case i's first; a batch has one per reduction),
 * checking that its ids are exactly the corpus's, in order. */
static int golden_parse(char *text, const corpus_case *cases, size_t count,
                        const size_t *first, const char **want,
                        const char *origin)
{
    size_t i = 0, b = 0, lineno = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *space = strchr(line, ' ');
        if (space == NULL || i >= count) {
            cli_error("check", "%s, line %zu: %s", origin, lineno,
                      space == NULL ? "not `case-id bits status`"
                                    : "more cases than the corpus has");
            return -1;
        }
        *space = '\0';
        char id[sizeof cases[i].id + 24];
        answer_id(&cases[i], b, id, sizeof id);
        if (strcmp(line, id) != 0) {
            cli_error("check", "%s, line %zu: case %s, but the corpus's case "
                      "%zu is %s: the golden file belongs to another corpus "
                      "version (rebuild samebits, or regenerate the golden "
                      "file: docs/corpus.md)", origin, lineno, line, i + 1,
                      id);
            return -1;
        }
        want[first[i] + b] = space + 1;
        if (++b == corpus_answers(&cases[i])) {
            b = 0;
            i++;
        }
    }
    if (i != count) {
        cli_error("check", "%s has %zu cases, the corpus %zu: the golden file "
                  "belongs to another corpus version", origin, i, count);
        return -1;
    }
    return 0;
}

static char *read_file_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t size = 0, cap = 1 << 16;
    char *text = malloc(cap);
    while (text != NULL) {
        size += fread(text + size, 1, cap - size - 1, f);
        if (size < cap - 1)
            break;
        char *grown = realloc(text, cap *= 2);
        if (grown == NULL)
            free(text);
        text = grown;
    }
    if (text != NULL)
        text[size] = '\0';
    fclose(f);
    return text;
}

/* ---- targets and launch shapes ---------------------------------------------- */

static void setup_host(check_target *t)
{
    static const unsigned threads[] = { 1, 3, 0 };
    snprintf(t->column, sizeof t->column, "host");
    snprintf(t->title, sizeof t->title, "the host path (sb_reduce_host), "
             "threads 1, 3 and the default (%u)", cli_default_threads());
    for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
        check_shape *s = &t->shapes[t->shape_count++];
        s->threads = threads[i];
        if (threads[i] == 0)
            snprintf(s->name, sizeof s->name, "threads=default");
        else
            snprintf(s->name, sizeof s->name, "threads=%u", threads[i]);
    }
}

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* The launch shapes of a device: its default, and variations of items per
 * work-group, leaves per item, nodes per item and sub-groups that move
 * every subtree boundary a kernel sees. The variations keep the default's
 * work-group sizes where they can, so that a device that compiles a kernel
 * per work-group size (POCL) builds nothing more for them. Each shape is
 * a context of its own, which builds its own programs: --quick, for
 * simulators, takes two shapes that between them still cover small
 * groups, several tree passes and the sub-group code path. */
static size_t device_shapes(const sb_device_caps *c, int quick, sb_options *o,
                            const char **names)
{
    const size_t wg = c->work_group_size;
    const size_t twg = min_size(wg, 64);      /* the library's default */
    const size_t small = min_size(wg, 16);
    size_t k = 0;
    memset(o, 0, CHECK_MAX_SHAPES * sizeof *o);
    for (size_t i = 0; i < CHECK_MAX_SHAPES; i++)
        o[i].flags = SB_OPT_NO_HOST;          /* the device computes */
    names[k++] = "default";

    if (quick) {
        o[k].work_group_size = small;
        o[k].tree_work_group_size = small;
        o[k].leaves_per_item = 1;
        o[k].nodes_per_item = 2;
        if (small >= 2) {
            o[k].subgroups = SB_SUBGROUPS_EMULATE;
            o[k].emulated_subgroup_size = (unsigned)min_size(8, small);
        }
        names[k++] = "wg<=16,lpi=1,npi=2,emulated-sg";
        return k;
    }

    o[k].work_group_size = small;
    o[k].tree_work_group_size = small;
    o[k].leaves_per_item = 1;
    o[k].nodes_per_item = 2;
    o[k].subgroups = SB_SUBGROUPS_OFF;
    names[k++] = "wg<=16,lpi=1,npi=2,local";

    if (twg >= 2) {
        o[k].work_group_size = wg;
        o[k].tree_work_group_size = twg;
        o[k].leaves_per_item = 2;
        o[k].nodes_per_item = 1;
        o[k].subgroups = SB_SUBGROUPS_EMULATE;
        o[k].emulated_subgroup_size = (unsigned)min_size(8, twg);
        names[k++] = "lpi=2,npi=1,emulated-sg";
    }

    o[k].leaves_per_item = 128;
    o[k].nodes_per_item = 128;
    names[k++] = "lpi=128,npi=128";
    return k;
}

/* The float modes and the test device of --float-mode and
 * --flush-subnormals, for every device context. */
static unsigned check_float_mode, check_flags;

static int setup_device(check_target *t, const cli_device *d)
{
    t->dev = d;
    snprintf(t->column, sizeof t->column, "dev%u", d->index);
    char title[300];
    cli_device_title(d, title, sizeof title);
    snprintf(t->title, sizeof t->title, "%s", title);
    sb_status s = sb_device_report(d->device, &t->caps);
    if (s != SB_OK) {
        cli_error("check", "device %u: cannot be queried: %s", d->index,
                  sb_status_string(s));
        return -1;
    }
    cl_int err = CL_SUCCESS;
    t->cl_ctx = cli_cl_context(d, &err);
    if (t->cl_ctx == NULL) {
        cli_error("check", "device %u: clCreateContext: %s", d->index,
                  cli_cl_error_name(err));
        return -1;
    }
    sb_options opts[CHECK_MAX_SHAPES];
    const char *names[CHECK_MAX_SHAPES];
    const size_t count = device_shapes(&t->caps, t->quick, opts, names);
    for (size_t i = 0; i < count; i++) {
        check_shape *sh = &t->shapes[t->shape_count];
        opts[i].flags |= check_flags;
        opts[i].float_mode = check_float_mode;
        s = sb_context_create(t->cl_ctx, d->device, &opts[i], &sh->ctx);
        if (s != SB_OK) {
            cli_error("check", "device %u, shape %s: %s", d->index, names[i],
                      sb_error_detail());
            return -1;
        }
        /* The device as the contexts compute on it: their modes. */
        if (i == 0 && sb_context_report(sh->ctx, &t->caps) != SB_OK)
            return -1;
        snprintf(sh->name, sizeof sh->name, "%s", names[i]);
        t->shape_count++;
    }
    return 0;
}

static void release_target(check_target *t)
{
    for (size_t i = 0; i < t->shape_count; i++)
        sb_context_release(t->shapes[i].ctx);
    if (t->cl_ctx != NULL)
        clReleaseContext(t->cl_ctx);
    free(t->digest);
}

/* ---- running one case -------------------------------------------------------- */

/* sb_device_caps lists the types up to f64: f16 and bf16 are computed as
 * f32 is (read as 16-bit integers, binary32 steps), so they share its
 * entry; accumulator 0 is "the input's". */
static sb_status type_status_on(const check_target *t, sb_type type)
{
    return t->caps.type_status[type == SB_F16 || type == SB_BF16 ? SB_F32
                                                                 : type];
}

/* What a device refuses, as documented: the types it has no exact way
 * for (sb_device_report()). */
static int refuses(const check_target *t, sb_reduction r)
{
    /* A count accumulates in a u64 whatever its input. */
    const sb_type acc = r.op == SB_COUNT ? SB_U64
                      : r.accumulator == 0 ? r.input : r.accumulator;
    return t->dev != NULL && (type_status_on(t, r.input) != SB_OK
                              || type_status_on(t, acc) != SB_OK);
}

static cl_mem device_buffer(check_target *t, const void *data, size_t bytes,
                            sb_status *s)
{
    cl_int err = CL_SUCCESS;
    cl_mem b = clCreateBuffer(t->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                              bytes, (void *)data, &err);
    if (b == NULL)
        *s = err == CL_OUT_OF_HOST_MEMORY || err == CL_MEM_OBJECT_ALLOCATION_FAILURE
           ? SB_OUT_OF_MEMORY : SB_OPENCL_ERROR;
    return b;
}

/* Counts a case's outcome on `t`, in its family's row and in all. */
static void record_outcome(check_target *t, corpus_family family,
                           int differs, int errors, int refused)
{
    check_count *counts[2] = { &t->family[family], &t->total };
    for (int i = 0; i < 2; i++) {
        check_count *n = counts[i];
        n->run++;
        if (differs)
            n->differ++;
        else if (errors)
            n->error++;
        else if (refused)
            n->refused++;
    }
}

/* A batch's answers on one shape of `t`: one sb_reduce_batched_host /
 * sb_reduce_segments_host call (the host's default threads: the batched
 * forms take no options), or one sb_reduce_batched / sb_reduce_segments
 * on the shape's context; a call that fails gives every answer its
 * status. */
static void run_batch_on(check_target *t, size_t k, const corpus_case *c,
                         const void *x, const unsigned char *mask,
                         const uint64_t *off, cl_mem xb, cl_mem mb,
                         cl_mem ob, sb_status setup, unsigned char *results,
                         sb_status *statuses)
{
    const size_t rs = sb_result_size(c->r);
    const size_t count = c->count, len = c->length;
    const int cols = c->layout == CORPUS_COLUMNS;
    const ptrdiff_t es = cols ? (ptrdiff_t)count : 1;
    const ptrdiff_t bs = cols ? 1 : (ptrdiff_t)len;
    memset(results, 0xAA, count * rs);
    sb_status s = setup;
    if (s != SB_OK) {
        /* the buffers could not be made */
    } else if (t->dev == NULL) {
        s = c->layout == CORPUS_SEGMENTS
          ? sb_reduce_segments_host(c->r, x, mask, off, count, results,
                                    statuses)
          : sb_reduce_batched_host(c->r, x, mask, len, es, count, bs,
                                   results, statuses);
    } else if (c->layout == CORPUS_SEGMENTS) {
        s = sb_reduce_segments(t->shapes[k].ctx, NULL, c->r, xb, 0, mb, 0,
                               ob, 0, count, results, statuses);
    } else {
        s = sb_reduce_batched(t->shapes[k].ctx, NULL, c->r, xb, 0, mb, 0,
                              len, es, count, bs, results, statuses);
    }
    if (s != SB_OK)
        for (size_t b = 0; b < count; b++)
            statuses[b] = s;
}

/* Runs batch `c` (its answers from want[first]) on every shape of `t`
 * and records the outcome, as run_case() does for one reduction. */
static void run_batch(check_target *t, size_t first, const corpus_case *c,
                      const void *x, const unsigned char *mask,
                      const char *const *want)
{
    const size_t elem = sb_type_size(c->r.input), rs = sb_result_size(c->r);
    const size_t count = c->count;
    unsigned char *results = malloc(count * rs);
    sb_status *statuses = malloc(count * sizeof *statuses);
    uint64_t *off = malloc((count + 1) * sizeof *off);
    sb_status setup = results && statuses && off ? SB_OK : SB_OUT_OF_MEMORY;
    if (off != NULL && c->layout == CORPUS_SEGMENTS)
        corpus_offsets(c, off);
    cl_mem xb = NULL, mb = NULL, ob = NULL;
    if (setup == SB_OK && t->dev != NULL) {
        /* A buffer of at least one element: an empty batch's too. */
        xb = device_buffer(t, x, (c->n ? c->n : 1) * elem, &setup);
        if (xb != NULL && mask != NULL)
            mb = device_buffer(t, mask, c->n ? c->n : 1, &setup);
        if (xb != NULL && (mb != NULL || mask == NULL)
            && c->layout == CORPUS_SEGMENTS)
            ob = device_buffer(t, off, (count + 1) * sizeof *off, &setup);
    }
    int differs = 0, errors = 0, refused = 0;
    int shown = 0;
    for (size_t k = 0; k < t->shape_count; k++) {
        if (results != NULL && statuses != NULL)
            run_batch_on(t, k, c, x, mask, off, xb, mb, ob, setup, results,
                         statuses);
        for (size_t b = 0; b < count; b++) {
            char got[CORPUS_RESULT_MAX];
            const sb_status s = results != NULL && statuses != NULL
                              ? statuses[b] : setup;
            corpus_format_answer(got, sizeof got, c->r, s,
                                 results != NULL ? results + b * rs : NULL);
            if (k == 0 && t->digest != NULL)
                snprintf(t->digest[first + b], CORPUS_RESULT_MAX, "%s", got);
            if (s == SB_UNSUPPORTED && refuses(t, c->r)) {
                refused = 1;
                continue;
            }
            if (strcmp(got, want[first + b]) == 0)
                continue;
            if (s != SB_OK && s != SB_EMPTY && s != SB_OVERFLOW)
                errors = 1;
            else
                differs = 1;
            /* The digest shows the first shape that differs. */
            if (t->digest != NULL
                && strcmp(t->digest[first + b], want[first + b]) == 0)
                snprintf(t->digest[first + b], CORPUS_RESULT_MAX, "%s", got);
            if (!shown) {
                shown = 1;
                if (t->first[0] == '\0')
                    snprintf(t->first, sizeof t->first,
                             "case %s/%zu, shape %s:\n    expected %s\n"
                             "    got      %s", c->id, b, t->shapes[k].name,
                             want[first + b], got);
            }
        }
    }
    if (ob != NULL)
        clReleaseMemObject(ob);
    if (mb != NULL)
        clReleaseMemObject(mb);
    if (xb != NULL)
        clReleaseMemObject(xb);
    free(results);
    free(statuses);
    free(off);
    record_outcome(t, c->family, differs, errors, refused);
}

/* Runs case `c` on every shape of `t` and records the outcome. */
static void run_case(check_target *t, size_t index, const corpus_case *c,
                     const void *x, const void *y, const unsigned char *mask,
                     const char *want)
{
    const size_t elem = sb_type_size(c->r.input);
    sb_status setup = SB_OK;
    cl_mem xb = NULL, yb = NULL, mb = NULL;
    if (t->dev != NULL && c->n > 0) {
        xb = device_buffer(t, x, c->n * elem, &setup);
        if (xb != NULL && c->dot)
            yb = device_buffer(t, y, c->n * elem, &setup);
        if (xb != NULL && (yb != NULL || !c->dot) && mask != NULL)
            mb = device_buffer(t, mask, c->n, &setup);
    }
    int differs = 0, errors = 0, refused = 0;
    const char *shown = NULL;
    char got[CHECK_MAX_SHAPES][CORPUS_RESULT_MAX];
    for (size_t k = 0; k < t->shape_count; k++) {
        unsigned char result[16];
        memset(result, 0xAA, sizeof result);
        sb_status s = setup;
        if (s != SB_OK) {
            /* the buffers could not be made */
        } else if (t->dev == NULL) {
            const sb_host_options o = { .threads = t->shapes[k].threads };
            s = c->dot ? sb_dot_host_opts(c->r, x, y, mask, c->n, result, &o)
                       : sb_reduce_host_opts(c->r, x, mask, c->n, result, &o);
        } else if (c->dot) {
            s = sb_dot(t->shapes[k].ctx, NULL, c->r, xb, 0, yb, 0, mb, 0,
                       c->n, result);
        } else {
            s = sb_reduce(t->shapes[k].ctx, NULL, c->r, xb, 0, mb, 0, c->n,
                          result);
        }
        corpus_format_answer(got[k], sizeof got[k], c->r, s, result);
        if (s == SB_UNSUPPORTED && refuses(t, c->r)) {
            refused = 1;
            continue;
        }
        if (strcmp(got[k], want) == 0)
            continue;
        if (s != SB_OK && s != SB_EMPTY && s != SB_OVERFLOW)
            errors = 1;
        else
            differs = 1;
        if (shown == NULL) {
            shown = got[k];
            if (t->first[0] == '\0')
                snprintf(t->first, sizeof t->first,
                         "case %s, shape %s:\n    expected %s\n    got      %s",
                         c->id, t->shapes[k].name, want, got[k]);
        }
    }
    if (mb != NULL)
        clReleaseMemObject(mb);
    if (yb != NULL)
        clReleaseMemObject(yb);
    if (xb != NULL)
        clReleaseMemObject(xb);
    if (t->digest != NULL)
        snprintf(t->digest[index], CORPUS_RESULT_MAX, "%s",
                 shown != NULL ? shown : got[0]);
    record_outcome(t, c->family, differs, errors, refused);
}

/* ---- output ------------------------------------------------------------------- */

static void cell_text(const check_count *c, char *buf, size_t size)
{
    if (c->run == 0)
        snprintf(buf, size, "-");
    else if (c->differ > 0)
        snprintf(buf, size, "DIFFERS %zu/%zu", c->differ, c->run);
    else if (c->error > 0)
        snprintf(buf, size, "ERROR %zu/%zu", c->error, c->run);
    else if (c->refused == c->run)
        snprintf(buf, size, "refused %zu", c->run);
    else if (c->refused > 0)
        snprintf(buf, size, "identical %zu+%zu ref", c->run - c->refused,
                 c->refused);
    else
        snprintf(buf, size, "identical %zu", c->run);
}

static void print_table(FILE *out, check_target *targets, size_t count,
                        const size_t *family_cases, size_t total_cases)
{
    fprintf(out, "targets:\n");
    for (size_t i = 0; i < count; i++) {
        const check_target *t = &targets[i];
        fprintf(out, "  %-6s %s\n         %zu launch shape%s:", t->column,
                t->title, t->shape_count, t->shape_count == 1 ? "" : "s");
        for (size_t k = 0; k < t->shape_count; k++)
            fprintf(out, "%s %s", k ? ";" : "", t->shapes[k].name);
        fprintf(out, "%s\n", t->quick ? "; --quick subset" : "");
        for (int ty = SB_I8; t->dev != NULL && ty <= SB_F64; ty++)
            if (t->caps.type_status[ty] != SB_OK)
                fprintf(out, "         refuses %s: %s\n",
                        sb_type_name((sb_type)ty), t->caps.type_reason[ty]);
            else if (t->caps.type_mode[ty] != SB_MODE_NATIVE)
                fprintf(out, "         %s %s: %s\n", sb_type_name((sb_type)ty),
                        cli_mode_name(t->caps.type_mode[ty]),
                        t->caps.type_reason[ty]);
    }
    fprintf(out, "\n%-12s %6s", "family", "cases");
    for (size_t i = 0; i < count; i++)
        fprintf(out, "  %-*s", i + 1 < count ? 19 : 0, targets[i].column);
    fprintf(out, "\n");
    for (int f = 0; f <= CORPUS_FAMILY_COUNT; f++) {
        if (f < CORPUS_FAMILY_COUNT && family_cases[f] == 0)
            continue;
        fprintf(out, "%-12s %6zu",
                f < CORPUS_FAMILY_COUNT ? corpus_family_name((corpus_family)f)
                                        : "all",
                f < CORPUS_FAMILY_COUNT ? family_cases[f] : total_cases);
        for (size_t i = 0; i < count; i++) {
            char cell[64];
            cell_text(f < CORPUS_FAMILY_COUNT ? &targets[i].family[f]
                                              : &targets[i].total,
                      cell, sizeof cell);
            fprintf(out, "  %-*s", i + 1 < count ? 19 : 0, cell);
        }
        fprintf(out, "\n");
    }
    for (size_t i = 0; i < count; i++)
        if (targets[i].first[0] != '\0')
            fprintf(out, "\nfirst difference on %s (%s): %s\n",
                    targets[i].column, targets[i].title, targets[i].first);
}

/* ---- the command --------------------------------------------------------------- */

/* Does `id` match one of the comma-separated shell patterns? */
static int matches(const char *id, const char *globs)
{
    if (globs == NULL)
        return 1;
    for (const char *g = globs; *g != '\0';) {
        const size_t len = strcspn(g, ",");
        char pattern[128];
        if (len < sizeof pattern) {
            memcpy(pattern, g, len);
            pattern[len] = '\0';
            if (fnmatch(pattern, id, 0) == 0)
                return 1;
        }
        g += len + (g[len] == ',');
    }
    return 0;
}

static int write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(data, 1, size, f) != size) {
        if (f != NULL)
            fclose(f);
        cli_error("check", "%s: cannot write it", path);
        return -1;
    }
    if (fclose(f) != 0) {
        cli_error("check", "%s: cannot write it", path);
        return -1;
    }
    return 0;
}

/* The `samebits reduce` command that replays case c from the files
 * --dump wrote: its input (x_path), and where not NULL its mask, a dot
 * product's second factors and a batch's offsets (--segments: one answer
 * per reduction). The files are raw: reduce detects text, .npy and .npz
 * but never guesses raw, so the command says it (a corpus mask's bytes
 * are any non-zero value, not only 1). */
static void print_replay(const corpus_case *c, const char *x_path,
                         const char *mask_path, const char *dot_path,
                         const char *segments_path)
{
    printf("samebits reduce --op %s --type %s --acc %s%s%s%s%s%s%s --format "
           "raw%s%s%s%s%s --bits %s\n",
           sb_op_name(c->r.op), sb_type_name(c->r.input),
           sb_type_name(c->r.accumulator),
           (c->r.flags & SB_WRAP) ? " --wrap" : "",
           c->r.map != SB_MAP_NONE ? " --map " : "",
           c->r.map != SB_MAP_NONE ? sb_map_name(c->r.map) : "",
           (c->r.flags & SB_SKIP_NAN) ? " --skip-nan" : "",
           dot_path != NULL ? " --dot " : "", dot_path ? dot_path : "",
           mask_path != NULL ? " --mask " : "", mask_path ? mask_path : "",
           mask_path != NULL ? " --mask-format raw" : "",
           segments_path != NULL ? " --segments " : "",
           segments_path ? segments_path : "", x_path);
}

/* --dump of a batch, after its input (xpath) and mask (mpath) were
 * written as they are: the offsets of its reductions as a .npy
 * (CASE.offsets.npy) and the `samebits reduce --segments` command that
 * gives one answer per reduction. Columns are not contiguous, so their
 * elements are also written column after column (CASE.columns.raw, and
 * CASE.columns.mask), each column a segment of that file: the same
 * answers, since each is the reduction of its own elements alone. */
static int dump_batch(const corpus_case *c, const void *x,
                      const unsigned char *mask, const char *xpath,
                      const char *mpath)
{
    const size_t size = sb_type_size(c->r.input);
    char opath[128], cxpath[128], cmpath[128];
    snprintf(opath, sizeof opath, "%s.offsets.npy", c->id);
    snprintf(cxpath, sizeof cxpath, "%s.columns.raw", c->id);
    snprintf(cmpath, sizeof cmpath, "%s.columns.mask", c->id);
    uint64_t *off = malloc((c->count + 1) * sizeof *off);
    unsigned char *cx = malloc(c->n * size + 1);
    unsigned char *cm = malloc(c->n + 1);
    int rc = CLI_EXIT_INPUT;
    if (off == NULL || cx == NULL || cm == NULL) {
        cli_error("check", "out of memory");
        goto done;
    }
    const int cols = c->layout == CORPUS_COLUMNS;
    if (cols) {
        off[0] = 0;
        for (size_t b = 0; b < c->count; b++) {
            const size_t len = corpus_gather(c, b, x, mask,
                                             cx + off[b] * size,
                                             cm + off[b]);
            off[b + 1] = off[b] + len;
        }
        if (write_file(cxpath, cx, c->n * size) != 0
                || (mask != NULL && write_file(cmpath, cm, c->n) != 0))
            goto done;
    } else {
        corpus_offsets(c, off);
    }
    char err[256];
    if (cli_npy_write(opath, "'<u8'", c->count + 1, off, sizeof *off, err,
                      sizeof err) != 0) {
        cli_error("check", "%s: %s", opath, err);
        goto done;
    }
    print_replay(c, cols ? cxpath : xpath,
                 mask != NULL ? (cols ? cmpath : mpath) : NULL, NULL, opath);
    rc = CLI_EXIT_OK;
done:
    free(off);
    free(cx);
    free(cm);
    return rc;
}

/* --dump: the input of one case as files for `samebits reduce`. */
static int dump_case(const corpus_case *cases, size_t count, const char *id)
{
    const corpus_case *c = NULL;
    for (size_t i = 0; i < count && c == NULL; i++)
        if (strcmp(cases[i].id, id) == 0)
            c = &cases[i];
    if (c == NULL) {
        cli_error("check", "--dump %s: no such case (see --list)", id);
        return CLI_EXIT_USAGE;
    }
    const size_t bytes = c->n * sb_type_size(c->r.input);
    void *x = malloc(bytes + 1), *y = malloc(bytes + 1);
    unsigned char *mask = malloc(c->n + 1);
    int rc = CLI_EXIT_INPUT;      /* out of memory, or a file not written */
    char xpath[128], ypath[128], mpath[128];
    snprintf(xpath, sizeof xpath, "%s.raw", c->id);
    snprintf(ypath, sizeof ypath, "%s.y.raw", c->id);
    snprintf(mpath, sizeof mpath, "%s.mask", c->id);
    if (x == NULL || y == NULL || mask == NULL) {
        cli_error("check", "out of memory");
        goto done;
    }
    corpus_fill(c, x);
    corpus_fill_mask(c, mask);
    if (c->dot)
        corpus_fill_y(c, y);
    if (write_file(xpath, x, bytes) != 0
            || (c->dot && write_file(ypath, y, bytes) != 0)
            || (c->mask != CORPUS_MASK_NONE && write_file(mpath, mask, c->n) != 0))
        goto done;
    if (c->layout != CORPUS_ONE) {
        rc = dump_batch(c, x, c->mask != CORPUS_MASK_NONE ? mask : NULL,
                        xpath, mpath);
        goto done;
    }
    print_replay(c, xpath, c->mask != CORPUS_MASK_NONE ? mpath : NULL,
                 c->dot ? ypath : NULL, NULL);
    rc = CLI_EXIT_OK;
done:
    free(x);
    free(y);
    free(mask);
    return rc;
}

static void print_list(const corpus_case *cases, size_t count)
{
    printf("# %zu cases, corpus version %d (docs/corpus.md)\n"
           "# case-id                                            n     family"
           "       mask          quick\n", count, CORPUS_VERSION);
    for (size_t i = 0; i < count; i++)
        printf("%-50s %8zu  %-12s %-13s %s\n", cases[i].id, cases[i].n,
               corpus_family_name(cases[i].family),
               corpus_mask_name(cases[i].mask), cases[i].quick ? "yes" : "no");
}

typedef struct {
    int         quick, digest, list;
    const char *dump;
    const char *filter;
    const char *golden;
    char        devices[1024];   /* the --device items, comma-joined */
} check_args;

static int parse_args(int argc, char **argv, check_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *v;
        int missing = 0;
        if (cli_is_help(argv[i])) {
            print_usage(stdout);
            return CLI_EXIT_OK;
        } else if (strcmp(argv[i], "--quick") == 0) {
            a->quick = 1;
        } else if (strcmp(argv[i], "--digest") == 0) {
            a->digest = 1;
        } else if (strcmp(argv[i], "--list") == 0) {
            a->list = 1;
        } else if (strcmp(argv[i], "--flush-subnormals") == 0) {
            check_flags |= SB_OPT_FLUSH_SUBNORMALS;
        } else if ((v = cli_option_value(argc, argv, &i, "--float-mode",
                                         &missing)) != NULL || missing) {
            const int m = missing ? -1 : cli_parse_float_mode(v);
            if (m < 0) {
                cli_error("check", "--float-mode wants auto, guarded or "
                          "software");
                return CLI_EXIT_USAGE;
            }
            check_float_mode = (unsigned)m;
        } else if ((v = cli_option_value(argc, argv, &i, "--device",
                                         &missing)) != NULL || missing) {
            if (missing || strlen(a->devices) + strlen(v) + 2 > sizeof a->devices) {
                cli_error("check", "--device wants host, all, N, P:D or a name");
                return CLI_EXIT_USAGE;
            }
            if (a->devices[0] != '\0')
                strcat(a->devices, ",");
            strcat(a->devices, v);
        } else if ((v = cli_option_value(argc, argv, &i, "--filter",
                                         &missing)) != NULL || missing) {
            if (missing) {
                cli_error("check", "--filter wants patterns, e.g. 'sum.f32.*'");
                return CLI_EXIT_USAGE;
            }
            a->filter = v;
        } else if ((v = cli_option_value(argc, argv, &i, "--dump",
                                         &missing)) != NULL || missing) {
            if (missing) {
                cli_error("check", "--dump wants a case id (see --list)");
                return CLI_EXIT_USAGE;
            }
            a->dump = v;
        } else if ((v = cli_option_value(argc, argv, &i, "--golden",
                                         &missing)) != NULL || missing) {
            if (missing) {
                cli_error("check", "--golden wants a file");
                return CLI_EXIT_USAGE;
            }
            a->golden = v;
        } else {
            cli_error("check", "unknown option '%s'", argv[i]);
            print_usage(stderr);
            return CLI_EXIT_USAGE;
        }
    }
    return -1;
}

int cmd_check(int argc, char **argv)
{
    check_args a;
    check_float_mode = 0;
    check_flags = 0;
    const int parsed = parse_args(argc, argv, &a);
    if (parsed >= 0)
        return parsed;

    size_t count = 0;
    const corpus_case *cases = corpus_cases(&count);
    if (cases == NULL) {
        cli_error("check", "out of memory");
        return CLI_EXIT_INPUT;
    }
    if (a.list) {
        print_list(cases, count);
        return CLI_EXIT_OK;
    }
    if (a.dump != NULL)
        return dump_case(cases, count, a.dump);

    /* The expected results: one per answer (a batch has one per
     * reduction), case i's from first[i]. */
    size_t *first = malloc((count + 1) * sizeof *first);
    if (first != NULL) {
        first[0] = 0;
        for (size_t i = 0; i < count; i++)
            first[i + 1] = first[i] + corpus_answers(&cases[i]);
    }
    const size_t answers = first != NULL ? first[count] : 0;
    char *golden = a.golden != NULL ? read_file_text(a.golden)
                                    : malloc(samebits_golden_size + 1);
    const char **want = malloc((answers + 1) * sizeof *want);
    if (golden == NULL || want == NULL || first == NULL) {
        if (a.golden != NULL && golden == NULL)
            cli_error("check", "%s: cannot read it", a.golden);
        else
            cli_error("check", "out of memory");
        free(golden);
        free(want);
        free(first);
        return CLI_EXIT_INPUT;
    }
    if (a.golden == NULL)
        memcpy(golden, samebits_golden, samebits_golden_size + 1);
    if (golden_parse(golden, cases, count, first, want,
                     a.golden != NULL ? a.golden : "the embedded golden file")
            != 0) {
        free(golden);
        free(want);
        free(first);
        return CLI_EXIT_INPUT;
    }

    /* The targets: those named, or the host and every device. */
    const char *spec = a.devices[0] != '\0' ? a.devices : NULL;
    cli_device_list list;
    cli_selection sel;
    if (cli_select_or_all("check", spec, 1, &list, &sel) != 0) {
        free(golden);
        free(want);
        free(first);
        return CLI_EXIT_DEVICE;
    }
    int rc = CLI_EXIT_DEVICE;   /* a device that cannot be set up */
    check_target *targets = calloc(CHECK_MAX_TARGETS, sizeof *targets);
    size_t target_count = 0;
    FILE *report = a.digest ? stderr : stdout;
    if (targets == NULL) {
        cli_error("check", "out of memory");
        goto done;
    }
    if (spec == NULL) {
        sel.host = 1;
        if (list.platform_count == 0) {
            fprintf(report, "OpenCL: ");
            cli_print_no_platform(report, &list);
            fprintf(report, "\n");
        }
    }
    if (sel.host)
        setup_host(&targets[target_count++]);
    for (size_t i = 0; i < sel.count; i++) {
        check_target *t = &targets[target_count++];
        t->quick = a.quick || (spec == NULL && sel.devices[i]->simulator);
        if (setup_device(t, sel.devices[i]) != 0)
            goto done;
    }
    for (size_t i = 0; i < target_count; i++) {
        targets[i].quick |= a.quick;
        if (a.digest && (targets[i].digest = calloc(answers,
                                sizeof *targets[i].digest)) == NULL) {
            cli_error("check", "out of memory");
            goto done;
        }
    }

    /* The cases: each input made once, run on every target. */
    size_t family_cases[CORPUS_FAMILY_COUNT] = { 0 }, selected = 0;
    const int progress = isatty(fileno(stderr));
    double last = cli_now();
    for (size_t i = 0; i < count; i++) {
        const corpus_case *c = &cases[i];
        if (!matches(c->id, a.filter))
            continue;
        int wanted = 0;
        for (size_t k = 0; k < target_count; k++)
            wanted |= c->quick || !targets[k].quick;
        if (!wanted)
            continue;
        family_cases[c->family]++;
        selected++;
        const size_t elem = sb_type_size(c->r.input);
        void *x = malloc(c->n * elem + 1);
        void *y = c->dot ? malloc(c->n * elem + 1) : NULL;
        unsigned char *mask = c->mask != CORPUS_MASK_NONE ? malloc(c->n + 1) : NULL;
        if (x == NULL || (c->dot && y == NULL)
                || (c->mask != CORPUS_MASK_NONE && mask == NULL)) {
            free(x);
            free(y);
            free(mask);
            cli_error("check", "out of memory for case %s", c->id);
            goto done;
        }
        corpus_fill(c, x);
        if (y != NULL)
            corpus_fill_y(c, y);
        if (mask != NULL)
            corpus_fill_mask(c, mask);
        for (size_t k = 0; k < target_count; k++) {
            if (!c->quick && targets[k].quick)
                continue;
            if (c->layout == CORPUS_ONE)
                run_case(&targets[k], first[i], c, x, y, mask,
                         want[first[i]]);
            else
                run_batch(&targets[k], first[i], c, x, mask, want);
        }
        free(x);
        free(y);
        free(mask);
        if (progress && cli_now() - last > 0.5) {
            last = cli_now();
            fprintf(stderr, "\rcheck: case %zu of %zu ", i + 1, count);
        }
    }
    if (progress)
        fprintf(stderr, "\r%40s\r", "");

    if (a.digest)
        for (size_t k = 0; k < target_count; k++) {
            if (target_count > 1)
                printf("# %s: %s\n", targets[k].column, targets[k].title);
            for (size_t i = 0; i < count; i++)
                for (size_t b = 0; b < corpus_answers(&cases[i]); b++) {
                    const char *d = targets[k].digest[first[i] + b];
                    char id[sizeof cases[i].id + 24];
                    answer_id(&cases[i], b, id, sizeof id);
                    if (d[0] != '\0')
                        printf("%s %s\n", id, d);
                }
        }
    print_table(report, targets, target_count, family_cases, selected);

    size_t bad = 0, differ = 0;
    for (size_t k = 0; k < target_count; k++) {
        bad += targets[k].total.differ + targets[k].total.error;
        differ += targets[k].total.differ;
    }
    if (target_count == 0 || selected == 0) {
        cli_error("check", "nothing was run: no case matches --filter%s",
                  a.quick ? " and --quick" : "");
        rc = CLI_EXIT_USAGE;
    } else if (bad == 0) {
        fprintf(report, "\ncheck: PASS: every result is identical to the "
                "golden file, bit for bit\n");
        rc = CLI_EXIT_OK;
    } else {
        fprintf(report, "\ncheck: FAIL: %zu case result%s differ%s from the "
                "golden file. Please report it with the\noutput of `samebits "
                "info` and of `samebits check --digest --device ...`.\n",
                bad, bad == 1 ? "" : "s", bad == 1 ? "s" : "");
        /* A different result breaks the promise; a case that could not
         * run at all is the device's failure. */
        rc = differ > 0 ? CLI_EXIT_DIFFERS : CLI_EXIT_DEVICE;
    }
done:
    for (size_t k = 0; targets != NULL && k < target_count; k++)
        release_target(&targets[k]);
    free(targets);
    cli_devices_free(&list);
    free(golden);
    free(want);
    free(first);
    return rc;
}
