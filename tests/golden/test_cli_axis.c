/* tests/golden/test_cli_axis.c: `samebits reduce --axis 0|1` and
 * `--segments` on .npy files this test writes (C and Fortran order): every
 * answer has exactly the bits and status of sb_reduce_host() over that
 * row's, column's or segment's elements, gathered here into an array of
 * their own (the test's own indexing, not the command's strides). Rows
 * with no value (empty, a checked overflow) print their status word and
 * make the exit status 1; bad shapes and offsets give one line on stderr
 * and the exit status of cli.h, never a crash. On POCL the same bits
 * (count, argmin and argmax included).
 *
 * usage: test_cli_axis SAMEBITS WORKDIR */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "samebits.h"

/* The exit statuses of tools/cli.h. */
enum { EXIT_NO_VALUE = 1, EXIT_USAGE = 2, EXIT_INPUT = 3, EXIT_DEVICE = 4 };

static const char *samebits;     /* the command under test */
static const char *workdir;

/* ---- files ------------------------------------------------------------------ */

static const char *path_of(const char *name)
{
    static char paths[4][512];
    static int next;
    char *p = paths[next++ % 4];
    snprintf(p, sizeof paths[0], "%s/%s", workdir, name);
    return p;
}

static void write_bytes(const char *name, const void *data, size_t size)
{
    FILE *f = fopen(path_of(name), "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

/* A .npy (version 1.0) of `descr`, `shape` ("(3, 4)") and order, holding
 * `size` bytes of `data` as they are. */
static void write_npy(const char *name, const char *descr, int fortran,
                      const char *shape, const void *data, size_t size)
{
    char header[256];
    size_t len = (size_t)snprintf(header, sizeof header,
                                  "{'descr': '%s', 'fortran_order': %s, "
                                  "'shape': %s, }", descr,
                                  fortran ? "True" : "False", shape);
    while ((10 + len + 1) % 64 != 0)
        header[len++] = ' ';
    header[len++] = '\n';
    unsigned char *buf = malloc(10 + len + size + 1);
    assert_non_null(buf);
    const unsigned char start[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                      (unsigned char)len,
                                      (unsigned char)(len >> 8) };
    memcpy(buf, start, 10);
    memcpy(buf + 10, header, len);
    if (size > 0)
        memcpy(buf + 10 + len, data, size);
    write_bytes(name, buf, 10 + len + size);
    free(buf);
}

/* ---- running the command ------------------------------------------------------ */

typedef struct {
    int  status;          /* exit status; -1 if it did not exit normally */
    char out[1 << 16];
    char err[8192];
} run_result;

static void slurp(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "rb");
    size_t got = 0;
    if (f != NULL) {
        got = fread(buf, 1, size - 1, f);
        fclose(f);
    }
    buf[got] = '\0';
}

static void run(run_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Runs `samebits <args>` through the shell in the work directory. */
static void run(run_result *r, const char *fmt, ...)
{
    char args[2048], cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s >out.txt 2>err.txt",
             workdir, samebits, args);
    const int w = system(cmd);
    r->status = WIFEXITED(w) ? WEXITSTATUS(w) : -1;
    slurp(path_of("out.txt"), r->out, sizeof r->out);
    slurp(path_of("err.txt"), r->err, sizeof r->err);
    printf("$ samebits %s\n-> %d, stderr: %s", args, r->status,
           r->err[0] ? r->err : "\n");
}

/* A failure: exit status `status`, nothing on stdout, exactly one line on
 * stderr that contains `reason`. */
static void assert_fails_with(const run_result *r, int status,
                              const char *reason)
{
    assert_int_equal(r->status, status);
    assert_string_equal(r->out, "");
    const size_t len = strlen(r->err);
    assert_true(len > 0 && r->err[len - 1] == '\n');
    assert_null(memchr(r->err, '\n', len - 1));   /* one line */
    if (strstr(r->err, reason) == NULL)
        fail_msg("stderr lacks \"%s\": %s", reason, r->err);
}

/* ---- the answers, computed here ---------------------------------------------- */

/* What `reduce --bits` prints for one answer: "<bits>" at the end of the
 * line ("<value> <bits>", "<value> at index I <bits>"), or the status
 * word alone. */
static void expected_answer(char *buf, size_t size, sb_reduction r,
                            sb_status s, const unsigned char *res)
{
    if (s != SB_OK) {
        snprintf(buf, size, "%s", s == SB_EMPTY ? "empty" : "overflow");
        return;
    }
    const sb_type acc = r.accumulator ? r.accumulator : r.input;
    const size_t bytes = r.op == SB_ANY || r.op == SB_ALL ? 1
                       : r.op == SB_COUNT ? 8 : sb_type_size(acc);
    uint64_t bits = 0;
    memcpy(&bits, res, bytes);                   /* little-endian */
    if (r.op == SB_ARGMIN || r.op == SB_ARGMAX) {
        uint64_t index;
        memcpy(&index, res + 8, 8);
        snprintf(buf, size, "at index %" PRIu64 " 0x%0*" PRIx64, index,
                 (int)(2 * bytes), bits);
    } else {
        snprintf(buf, size, "0x%0*" PRIx64, (int)(2 * bytes), bits);
    }
}

/* Checks the lines of `out` against the `count` answers of `r` over the
 * elements of `x` (of `elem` bytes each) that `pick(b, i)` names for
 * answer b, i < len(b): each gathered into an array of its own and
 * reduced by sb_reduce_host(). Returns how many answers had no value. */
typedef size_t (*pick_fn)(const void *ctx, size_t b, size_t i);
typedef size_t (*len_fn)(const void *ctx, size_t b);

static size_t assert_answers(const char *out, sb_reduction r, const void *x,
                             const unsigned char *mask, size_t elem,
                             size_t count, const void *ctx, len_fn len,
                             pick_fn pick)
{
    size_t no_value = 0;
    const char *line = out;
    for (size_t b = 0; b < count; b++) {
        const size_t n = len(ctx, b);
        unsigned char *row = malloc((n + 1) * elem);
        unsigned char *rmask = malloc(n + 1);
        assert_non_null(row);
        assert_non_null(rmask);
        for (size_t i = 0; i < n; i++) {
            const size_t from = pick(ctx, b, i);
            memcpy(row + i * elem, (const unsigned char *)x + from * elem,
                   elem);
            rmask[i] = mask != NULL ? mask[from] : 1;
        }
        unsigned char res[16];
        const sb_status s = sb_reduce_host(r, row, mask ? rmask : NULL, n,
                                           res);
        free(row);
        free(rmask);
        assert_true(s == SB_OK || s == SB_EMPTY || s == SB_OVERFLOW);
        no_value += s != SB_OK;
        char want[96];
        expected_answer(want, sizeof want, r, s, res);
        const char *end = strchr(line, '\n');
        assert_non_null(end);
        const size_t ll = (size_t)(end - line), wl = strlen(want);
        /* The line ends with the answer's bits (or is the status word). */
        if (ll < wl || memcmp(end - wl, want, wl) != 0
                || (s != SB_OK && ll != wl))
            fail_msg("answer %zu: \"%.*s\", want \"...%s\"", b, (int)ll,
                     line, want);
        line = end + 1;
    }
    assert_string_equal(line, "");                /* nothing more */
    return no_value;
}

/* A rows x cols matrix: element (i, j) at i * cols + j (C) or
 * i + j * rows (Fortran). */
typedef struct { size_t rows, cols; int fortran, axis; } matrix;

static size_t at(const matrix *m, size_t i, size_t j)
{
    return m->fortran ? i + j * m->rows : i * m->cols + j;
}

static size_t matrix_len(const void *ctx, size_t b)
{
    const matrix *m = ctx;
    (void)b;
    return m->axis == 1 ? m->cols : m->rows;
}

static size_t matrix_pick(const void *ctx, size_t b, size_t i)
{
    const matrix *m = ctx;
    return m->axis == 1 ? at(m, b, i) : at(m, i, b);
}

typedef struct { const uint64_t *offsets; } cuts;

static size_t cuts_len(const void *ctx, size_t b)
{
    const cuts *c = ctx;
    return (size_t)(c->offsets[b + 1] - c->offsets[b]);
}

static size_t cuts_pick(const void *ctx, size_t b, size_t i)
{
    const cuts *c = ctx;
    return (size_t)c->offsets[b] + i;
}

/* Runs `reduce --bits <opts> --axis A FILE` for both axes and checks
 * every answer; `device` is "" or " --device pocl". */
static void assert_both_axes(const char *file, const char *opts,
                             sb_reduction r, const void *x, size_t elem,
                             size_t rows, size_t cols, int fortran,
                             const char *device)
{
    for (int axis = 0; axis <= 1; axis++) {
        run_result *res = malloc(sizeof *res);
        assert_non_null(res);
        run(res, "reduce --bits %s --axis %d%s %s", opts, axis, device,
            file);
        const matrix m = { rows, cols, fortran, axis };
        const size_t none = assert_answers(res->out, r, x, NULL, elem,
                                           axis ? rows : cols, &m,
                                           matrix_len, matrix_pick);
        assert_int_equal(res->status, none ? EXIT_NO_VALUE : 0);
        free(res);
    }
}

/* f32 with NaN, infinities, -0.0, subnormals and cancelling magnitudes. */
static void special_f32(float *x, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        const uint32_t u = (uint32_t)(seed >> 32);
        const double v = ((double)(u & 0xFFFFFF) / 0x1p24 - 0.5)
                       * ldexp(1.0, (int)(u >> 24) % 40 - 10);
        x[i] = (float)v;
    }
    if (n > 40) {
        x[3] = -0.0f;
        x[17] = NAN;
        x[29] = INFINITY;
        x[31] = -INFINITY;
        x[38] = 1e-45f;
    }
}

/* ---- good inputs ---------------------------------------------------------------- */

static void f32_rows_and_columns_in_both_orders(void **state)
{
    (void)state;
    /* 9 x 70 as C order and 70 x 9 as Fortran order, of the same bytes:
     * rows long enough for the order's tree, NaN and inf in some. */
    enum { R = 9, C = 70 };
    static float x[R * C];
    special_f32(x, R * C, 7);
    write_npy("m_c.npy", "<f4", 0, "(9, 70)", x, sizeof x);
    write_npy("m_f.npy", "<f4", 1, "(70, 9)", x, sizeof x);
    static const sb_op ops[] = { SB_SUM, SB_PROD, SB_MIN, SB_MAX, SB_ANY,
                                 SB_ALL, SB_ARGMIN, SB_ARGMAX, SB_COUNT };
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        const sb_reduction r = { .op = ops[k], .input = SB_F32 };
        char opts[64];
        snprintf(opts, sizeof opts, "--op %s", sb_op_name(ops[k]));
        assert_both_axes("m_c.npy", opts, r, x, 4, R, C, 0, "");
        assert_both_axes("m_f.npy", opts, r, x, 4, C, R, 1, "");
    }
    /* A wider accumulator and --skip-nan, --map abs. */
    const sb_reduction wide = { .op = SB_SUM, .input = SB_F32,
                                .accumulator = SB_F64 };
    assert_both_axes("m_f.npy", "--op sum --acc f64", wide, x, 4, C, R, 1,
                     "");
    const sb_reduction skip = { .op = SB_SUM, .input = SB_F32,
                                .flags = SB_SKIP_NAN, .map = SB_MAP_ABS };
    assert_both_axes("m_c.npy", "--op sum --skip-nan --map abs", skip, x, 4,
                     R, C, 0, "");
}

static void a_checked_overflow_in_one_row_only(void **state)
{
    (void)state;
    /* 4 x 3 i32: row 1 overflows, the others do not; column 0 overflows
     * (INT32_MAX + 1), column 2 does not. */
    const int32_t x[12] = { 1, 2, 3,
                            INT32_MAX, 1, -5,
                            7, INT32_MIN, 9,
                            4, 5, 6 };
    write_npy("ov.npy", "<i4", 0, "(4, 3)", x, sizeof x);
    const sb_reduction r = { .op = SB_SUM, .input = SB_I32 };
    assert_both_axes("ov.npy", "--op sum", r, x, 4, 4, 3, 0, "");
    run_result *res = malloc(sizeof *res);
    assert_non_null(res);
    run(res, "reduce --op sum --axis 1 ov.npy");
    assert_int_equal(res->status, EXIT_NO_VALUE);
    assert_string_equal(res->out, "6\noverflow\n-2147483632\n15\n");
    if (strstr(res->err, "1 of 4 rows (row 1") == NULL
            || strstr(res->err, "--acc i64") == NULL)
        fail_msg("stderr does not name row 1 and --acc i64: %s", res->err);
    /* --acc i64 and --wrap: every row has a value. */
    const sb_reduction wide = { .op = SB_SUM, .input = SB_I32,
                                .accumulator = SB_I64 };
    assert_both_axes("ov.npy", "--op sum --acc i64", wide, x, 4, 4, 3, 0, "");
    const sb_reduction wrap = { .op = SB_SUM, .input = SB_I32,
                                .flags = SB_WRAP };
    assert_both_axes("ov.npy", "--op sum --wrap", wrap, x, 4, 4, 3, 0, "");
    /* JSON: one record, a status per row, the exit status and the error. */
    run(res, "reduce --op sum --axis 1 --json ov.npy");
    assert_int_equal(res->status, EXIT_NO_VALUE);
    if (strstr(res->out, "\"axis\":1,\"shape\":[4,3],\"order\":\"C\","
                         "\"device\":\"host\",\"status\":\"overflow\","
                         "\"exit\":1,\"count\":4,\"results\":["
                         "{\"status\":\"ok\",\"value\":\"6\",\"bits\":"
                         "\"0x00000006\"},{\"status\":\"overflow\"},")
            == NULL || strstr(res->out, "\"error\":\"overflow: 1 of 4 rows")
            == NULL)
        fail_msg("unexpected record: %s", res->out);
    free(res);
}

static void empty_rows_and_columns(void **state)
{
    (void)state;
    const double none[1] = { 0 };
    write_npy("e30.npy", "<f8", 0, "(3, 0)", none, 0);
    write_npy("e04.npy", "<f8", 1, "(0, 4)", none, 0);
    run_result *res = malloc(sizeof *res);
    assert_non_null(res);
    /* Three rows of nothing: the empty answers. */
    run(res, "reduce --op sum --axis 1 e30.npy");
    assert_int_equal(res->status, 0);
    assert_string_equal(res->out, "0\n0\n0\n");
    run(res, "reduce --op prod --axis 0 e04.npy");
    assert_int_equal(res->status, 0);
    assert_string_equal(res->out, "1\n1\n1\n1\n");
    run(res, "reduce --op max --axis 1 e30.npy");
    assert_int_equal(res->status, EXIT_NO_VALUE);
    assert_string_equal(res->out, "empty\nempty\nempty\n");
    assert_non_null(strstr(res->err, "empty: 3 of 3 rows"));
    /* No rows at all: no answer, nothing wrong. */
    run(res, "reduce --op max --axis 0 e30.npy");
    assert_int_equal(res->status, 0);
    assert_string_equal(res->out, "");
    run(res, "reduce --op max --axis 0 --json e30.npy");
    assert_int_equal(res->status, 0);
    assert_non_null(strstr(res->out, "\"count\":0,\"results\":[]}"));
    free(res);
}

static void segments_of_int64_and_uint64_offsets(void **state)
{
    (void)state;
    enum { N = 300 };
    static float x[N];
    special_f32(x, N, 11);
    write_npy("s.npy", "<f4", 0, "(300,)", x, sizeof x);
    /* Empty segments first, in the middle and last; a long one. */
    const uint64_t a[] = { 0, 0, 5, 5, 40, 41, 290, 300, 300 };
    write_npy("sa.npy", "<i8", 0, "(9,)", a, sizeof a);
    /* Starting past 0 (the elements before are not read); uint64. */
    const uint64_t b[] = { 17, 18, 150, 299 };
    write_npy("sb.npy", "<u8", 0, "(4,)", b, sizeof b);
    static const sb_op ops[] = { SB_SUM, SB_MIN, SB_MAX, SB_ALL, SB_ARGMIN,
                                 SB_ARGMAX, SB_COUNT };
    run_result *res = malloc(sizeof *res);
    assert_non_null(res);
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        const sb_reduction r = { .op = ops[k], .input = SB_F32 };
        const cuts ca = { a }, cb = { b };
        run(res, "reduce --bits --op %s --segments sa.npy s.npy",
            sb_op_name(ops[k]));
        const size_t none = assert_answers(res->out, r, x, NULL, 4, 8, &ca,
                                           cuts_len, cuts_pick);
        assert_int_equal(res->status, none ? EXIT_NO_VALUE : 0);
        assert_int_equal(none != 0, ops[k] == SB_MIN || ops[k] == SB_MAX
                                    || ops[k] == SB_ARGMIN
                                    || ops[k] == SB_ARGMAX);
        run(res, "reduce --bits --op %s --segments sb.npy s.npy",
            sb_op_name(ops[k]));
        assert_int_equal(assert_answers(res->out, r, x, NULL, 4, 3, &cb,
                                        cuts_len, cuts_pick), 0);
        assert_int_equal(res->status, 0);
    }
    /* A text input is one flat array too. */
    write_bytes("s.txt", "1\n2\n3\n4\n", 8);
    const uint64_t c[] = { 0, 1, 4 };
    write_npy("sc.npy", "<i8", 0, "(3,)", c, sizeof c);
    run(res, "reduce --op sum --type i32 --segments sc.npy s.txt");
    assert_int_equal(res->status, 0);
    assert_string_equal(res->out, "1\n9\n");
    /* One offset: no segment. */
    write_npy("s1.npy", "<i8", 0, "(1,)", c, 8);
    run(res, "reduce --op sum --segments s1.npy s.npy");
    assert_int_equal(res->status, 0);
    assert_string_equal(res->out, "");
    free(res);
}


/* A mask of the input's shape, written in C and in Fortran order, on an
 * input in either order: the library reads the mask through the input's
 * strides, so the command must hand it over in the input's order. Row 2
 * and column 5 take no part at all (min, argmax: empty; sum: 0). */
static void masks_in_either_order(void **state)
{
    (void)state;
    enum { R = 9, C = 70 };
    static float xc[R * C], xf[R * C];
    static unsigned char mc[R * C], mf[R * C];
    special_f32(xc, R * C, 13);
    uint64_t seed = 99;
    for (size_t i = 0; i < R; i++)
        for (size_t j = 0; j < C; j++) {
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            const unsigned char take = i != 2 && j != 5 && (seed >> 61) != 0;
            mc[i * C + j] = take;
            mf[i + j * R] = take;
            xf[i + j * R] = xc[i * C + j];
        }
    write_npy("mx_c.npy", "<f4", 0, "(9, 70)", xc, sizeof xc);
    write_npy("mx_f.npy", "<f4", 1, "(9, 70)", xf, sizeof xf);
    write_npy("mm_c.npy", "|b1", 0, "(9, 70)", mc, sizeof mc);
    write_npy("mm_f.npy", "|u1", 1, "(9, 70)", mf, sizeof mf);
    static const char *const ops[] = { "sum", "min", "argmax", "count" };
    static const sb_op op_of[] = { SB_SUM, SB_MIN, SB_ARGMAX, SB_COUNT };
    run_result *res = malloc(sizeof *res);
    assert_non_null(res);
    for (size_t k = 0; k < 4; k++)
        for (int fortran = 0; fortran <= 1; fortran++)
            for (int mask_fortran = 0; mask_fortran <= 1; mask_fortran++)
                for (int axis = 0; axis <= 1; axis++) {
                    const sb_reduction r = { .op = op_of[k],
                                             .input = SB_F32,
                                             .flags = SB_SKIP_NAN };
                    run(res, "reduce --bits --op %s --skip-nan --axis %d "
                        "--mask mm_%c.npy mx_%c.npy", ops[k], axis,
                        mask_fortran ? 'f' : 'c', fortran ? 'f' : 'c');
                    const matrix m = { R, C, fortran, axis };
                    const size_t none = assert_answers(
                        res->out, r, fortran ? xf : xc, fortran ? mf : mc, 4,
                        axis ? R : C, &m, matrix_len, matrix_pick);
                    /* the empty row or column, for min and argmax only */
                    assert_int_equal(none, k == 1 || k == 2 ? 1 : 0);
                    assert_int_equal(res->status, none ? EXIT_NO_VALUE : 0);
                }
    /* --segments: a mask of the input's length; whole segments masked. */
    const uint64_t off[] = { 0, 16, 16, 200, 630 };
    write_npy("mo.npy", "<u8", 0, "(5,)", off, sizeof off);
    write_npy("mv.npy", "<f4", 0, "(630,)", xc, sizeof xc);
    write_npy("mvm.npy", "|u1", 0, "(630,)", mc, sizeof mc);
    const sb_reduction rs = { .op = SB_SUM, .input = SB_F32 };
    const cuts c = { off };
    run(res, "reduce --bits --op sum --segments mo.npy --mask mvm.npy "
        "mv.npy");
    assert_int_equal(assert_answers(res->out, rs, xc, mc, 4, 4, &c,
                                    cuts_len, cuts_pick), 0);
    assert_int_equal(res->status, 0);
    run(res, "reduce --bits --op sum --segments mo.npy --mask mvm.npy "
        "--device pocl mv.npy");
    assert_int_equal(assert_answers(res->out, rs, xc, mc, 4, 4, &c,
                                    cuts_len, cuts_pick), 0);
    assert_int_equal(res->status, 0);
    /* The same on POCL for rows of a Fortran matrix with a C mask. */
    const sb_reduction rr = { .op = SB_MAX, .input = SB_F32 };
    run(res, "reduce --bits --op max --axis 1 --mask mm_c.npy "
        "--device pocl mx_f.npy");
    const matrix mr = { R, C, 1, 1 };
    assert_int_equal(assert_answers(res->out, rr, xf, mf, 4, R, &mr,
                                    matrix_len, matrix_pick), 1);
    assert_int_equal(res->status, EXIT_NO_VALUE);
    /* Masks of another shape: one line, input error. */
    run(res, "reduce --op sum --axis 1 --mask mvm.npy mx_c.npy");
    assert_fails_with(res, EXIT_INPUT, "2-D .npy of the input's shape");
    write_npy("mm_t.npy", "|u1", 0, "(70, 9)", mc, sizeof mc);
    run(res, "reduce --op sum --axis 0 --mask mm_t.npy mx_c.npy");
    assert_fails_with(res, EXIT_INPUT, "(9, 70)");
    write_npy("mm_short.npy", "|u1", 0, "(629,)", mc, 629);
    run(res, "reduce --op sum --segments mo.npy --mask mm_short.npy mv.npy");
    assert_fails_with(res, EXIT_INPUT, "must match");
    free(res);
}

/* Reads a 1-D .npy written by --out: its descr and shape as written, and
 * the data bytes (returned, malloc()ed; *size their count). */
static unsigned char *read_npy(const char *name, char *header, size_t hsize,
                               size_t *size)
{
    FILE *f = fopen(path_of(name), "rb");
    assert_non_null(f);
    unsigned char start[10];
    assert_int_equal(fread(start, 1, 10, f), 10);
    assert_memory_equal(start, "\x93NUMPY\x01\x00", 8);
    const size_t hl = start[8] | (size_t)start[9] << 8;
    assert_int_equal((10 + hl) % 64, 0);        /* numpy's alignment */
    assert_true(hl < hsize);
    assert_int_equal(fread(header, 1, hl, f), hl);
    header[hl] = '\0';
    assert_int_equal(header[hl - 1], '\n');
    unsigned char *data = malloc(1 << 16);
    assert_non_null(data);
    *size = fread(data, 1, 1 << 16, f);
    fclose(f);
    return data;
}

/* --out FILE.npy: the answers in the result's dtype, each the bits of
 * sb_reduce_host() over the gathered elements; argmin/argmax as records
 * of value and index. Written whole or not at all. */
static void answers_as_npy(void **state)
{
    (void)state;
    enum { R = 5, C = 40 };
    static float x[R * C];
    special_f32(x, R * C, 21);
    write_npy("o_c.npy", "<f4", 0, "(5, 40)", x, sizeof x);
    static const struct {
        sb_op op;
        const char *name, *descr;
        size_t item;
    } outs[] = {
        { SB_SUM, "sum", "'<f4'", 4 },
        { SB_COUNT, "count", "'<u8'", 8 },
        { SB_ANY, "any", "'|b1'", 1 },
        { SB_ARGMIN, "argmin", "[('value', '<f4'), ('index', '<i8')]", 12 },
    };
    run_result *res = malloc(sizeof *res);
    assert_non_null(res);
    for (size_t k = 0; k < sizeof outs / sizeof outs[0]; k++) {
        remove(path_of("answers.npy"));
        run(res, "reduce --op %s --axis 1 --out answers.npy o_c.npy",
            outs[k].name);
        assert_int_equal(res->status, 0);
        assert_string_equal(res->out, "");        /* the file has them */
        char header[256], want_header[160];
        size_t size;
        unsigned char *data = read_npy("answers.npy", header, sizeof header,
                                       &size);
        snprintf(want_header, sizeof want_header,
                 "{'descr': %s, 'fortran_order': False, 'shape': (5,), }",
                 outs[k].descr);
        assert_memory_equal(header, want_header, strlen(want_header));
        assert_int_equal(size, R * outs[k].item);
        const sb_reduction r = { .op = outs[k].op, .input = SB_F32 };
        for (size_t b = 0; b < R; b++) {
            unsigned char want[16];
            assert_int_equal(sb_reduce_host(r, x + b * C, NULL, C, want),
                             SB_OK);
            const size_t vs = outs[k].op == SB_ARGMIN ? 4 : outs[k].item;
            assert_memory_equal(data + b * outs[k].item, want, vs);
            if (outs[k].op == SB_ARGMIN)        /* the index, as int64 */
                assert_memory_equal(data + b * outs[k].item + 4, want + 8,
                                    8);
        }
        free(data);
    }
    /* An answer without a value: no file, exit 1, stderr says so. */
    const int32_t ov[6] = { INT32_MAX, 1, 2, 3, 4, 5 };
    write_npy("o_ov.npy", "<i4", 0, "(3, 2)", ov, sizeof ov);
    remove(path_of("ov.npy"));
    run(res, "reduce --op sum --axis 1 --out ov.npy o_ov.npy");
    assert_int_equal(res->status, EXIT_NO_VALUE);
    assert_string_equal(res->out, "");
    assert_non_null(strstr(res->err, "not written"));
    FILE *f = fopen(path_of("ov.npy"), "rb");
    assert_null(f);
    /* bf16 has no numpy dtype; --out needs --axis or --segments; a
     * directory that does not exist. */
    const uint16_t h[4] = { 0x3F80, 0x4000, 0x4040, 0x4080 };
    write_bytes("o_h.raw", h, sizeof h);
    const uint64_t ho[3] = { 0, 1, 4 };
    write_npy("o_ho.npy", "<u8", 0, "(3,)", ho, sizeof ho);
    run(res, "reduce --op sum --segments o_ho.npy --format raw --type bf16 "
        "--out h.npy o_h.raw");
    assert_fails_with(res, EXIT_USAGE, "no bf16 dtype");
    run(res, "reduce --op sum --acc f32 --segments o_ho.npy --format raw "
        "--type bf16 --out h.npy o_h.raw");
    assert_int_equal(res->status, 0);
    {
        char header[256];
        size_t size;
        unsigned char *data = read_npy("h.npy", header, sizeof header,
                                       &size);
        const float want[2] = { 1.0f, 9.0f };     /* 1; 2 + 3 + 4 */
        assert_int_equal(size, sizeof want);
        assert_memory_equal(data, want, sizeof want);
        free(data);
    }
    run(res, "reduce --op sum --out s.npy o_c.npy");
    assert_fails_with(res, EXIT_USAGE, "--out writes the answers");
    run(res, "reduce --op sum --axis 0 --out no/such/dir/a.npy o_c.npy");
    assert_fails_with(res, EXIT_INPUT, "no/such/dir/a.npy");
    /* --json says the command failed, though every answer had a value. */
    run(res, "reduce --json --op sum --axis 0 --out no/such/dir/a.npy "
        "o_c.npy");
    assert_int_equal(res->status, EXIT_INPUT);
    assert_non_null(strstr(res->out, "\"status\":\"input-error\""));
    /* Nothing of the writes stays beside the files. */
    DIR *d = opendir(workdir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strstr(e->d_name, ".part") != NULL)
            fail_msg("%s was left behind", e->d_name);
    closedir(d);
    free(res);
}

/* --out in the other dtypes: f16 values, i8 values, and f64 argmax records
 * of 16 bytes (value, then index). */
static void answers_as_npy_of_every_width(void **state)
{
    (void)state;
    enum { R = 4, C = 33 };
    static uint16_t h[R * C];
    static int8_t b[R * C];
    static double d[R * C];
    float f[R * C];
    special_f32(f, R * C, 41);
    for (size_t i = 0; i < R * C; i++) {
        h[i] = (uint16_t)(0x3C00u + (i * 37u) % 0x400u);   /* 1 .. 2 */
        b[i] = (int8_t)(i * 11u);
        d[i] = f[i];
    }
    write_npy("w_h.npy", "<f2", 0, "(4, 33)", h, sizeof h);
    write_npy("w_b.npy", "|i1", 0, "(4, 33)", b, sizeof b);
    write_npy("w_d.npy", "<f8", 1, "(33, 4)", d, sizeof d);
    static const struct {
        const char *args, *descr;
        sb_reduction r;
        const void *x;
        size_t elem, item, vs;
    } outs[] = {
        { "--op sum --axis 1 w_h.npy", "'<f2'",
          { SB_SUM, SB_F16, 0, 0, 0 }, h, 2, 2, 2 },
        { "--op min --axis 1 w_b.npy", "'|i1'",
          { SB_MIN, SB_I8, 0, 0, 0 }, b, 1, 1, 1 },
        { "--op argmax --axis 0 w_d.npy",
          "[('value', '<f8'), ('index', '<i8')]",
          { SB_ARGMAX, SB_F64, 0, 0, 0 }, d, 8, 16, 8 },
    };
    run_result *res = malloc(sizeof *res);
    assert_non_null(res);
    for (size_t k = 0; k < sizeof outs / sizeof outs[0]; k++) {
        run(res, "reduce --out wide.npy %s", outs[k].args);
        assert_int_equal(res->status, 0);
        char header[256], want_header[160];
        size_t size;
        unsigned char *data = read_npy("wide.npy", header, sizeof header,
                                       &size);
        const size_t count = R;
        snprintf(want_header, sizeof want_header,
                 "{'descr': %s, 'fortran_order': False, 'shape': (%zu,), }",
                 outs[k].descr, count);
        assert_memory_equal(header, want_header, strlen(want_header));
        assert_int_equal(size, count * outs[k].item);
        /* Answer a over its C elements, consecutive in every file: the
         * rows of the C-order (4, 33) matrices, the columns of the
         * Fortran-order (33, 4) one. */
        const size_t n = C;
        for (size_t a = 0; a < count; a++) {
            unsigned char want[16];
            const unsigned char *row = (const unsigned char *)outs[k].x
                                       + a * n * outs[k].elem;
            assert_int_equal(sb_reduce_host(outs[k].r, row, NULL, n, want),
                             SB_OK);
            assert_memory_equal(data + a * outs[k].item, want, outs[k].vs);
            if (outs[k].item > outs[k].vs)
                assert_memory_equal(data + a * outs[k].item + outs[k].vs,
                                    want + 8, 8);
        }
        free(data);
    }
    free(res);
}

/* ---- bad inputs: one line, the status of cli.h ---------------------------------- */

static void axis_needs_a_two_dimensional_npy(void **state)
{
    (void)state;
    const double x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    write_npy("v8.npy", "<f8", 0, "(8,)", x, sizeof x);
    write_npy("cube.npy", "<f8", 0, "(2, 2, 2)", x, sizeof x);
    write_bytes("v.txt", "1 2 3\n", 6);
    run_result *res = malloc(sizeof *res);
    assert_non_null(res);
    run(res, "reduce --op sum --axis 1 v8.npy");
    assert_fails_with(res, EXIT_INPUT, "v8.npy is 1-D");
    run(res, "reduce --op sum --axis 0 cube.npy");
    assert_fails_with(res, EXIT_INPUT, "cube.npy is 3-D");
    run(res, "reduce --op sum --type f64 --axis 0 v.txt");
    assert_fails_with(res, EXIT_INPUT, "--axis needs a 2-D .npy");
    run(res, "reduce --op sum --axis 0 v.txt");
    assert_fails_with(res, EXIT_INPUT, "--axis needs a 2-D .npy");
    run(res, "reduce --op sum --axis 0 --format raw --type f64 v8.npy");
    assert_fails_with(res, EXIT_INPUT, "--axis needs a 2-D .npy");
    run(res, "reduce --op sum --axis 2 v8.npy");
    assert_fails_with(res, EXIT_USAGE, "--axis wants 0");
    run(res, "reduce --op sum --axis 1 --dot v8.npy v8.npy");
    assert_fails_with(res, EXIT_USAGE, "--axis does not go with --dot");
    const uint64_t o[2] = { 0, 8 };
    write_npy("o2.npy", "<i8", 0, "(2,)", o, sizeof o);
    run(res, "reduce --op sum --axis 1 --segments o2.npy v8.npy");
    assert_fails_with(res, EXIT_USAGE, "give one");
    /* Without --axis a Fortran-order matrix is still refused whole. */
    write_npy("f24.npy", "<f8", 1, "(2, 4)", x, sizeof x);
    run(res, "reduce --op sum f24.npy");
    assert_fails_with(res, EXIT_INPUT, "Fortran order");
    free(res);
}

static void bad_offsets_are_refused(void **state)
{
    (void)state;
    const double x[6] = { 1, 2, 3, 4, 5, 6 };
    write_npy("d6.npy", "<f8", 0, "(6,)", x, sizeof x);
    write_npy("d23.npy", "<f8", 0, "(2, 3)", x, sizeof x);
    const int64_t down[] = { 0, 4, 2, 6 }, past[] = { 0, 3, 7 },
                  neg[] = { -1, 3 }, ok[] = { 0, 3, 6 };
    const float f4[] = { 0, 6 };
    const int32_t i4[] = { 0, 6 };
    write_npy("down.npy", "<i8", 0, "(4,)", down, sizeof down);
    write_npy("past.npy", "<i8", 0, "(3,)", past, sizeof past);
    write_npy("neg.npy", "<i8", 0, "(2,)", neg, sizeof neg);
    write_npy("f4.npy", "<f4", 0, "(2,)", f4, sizeof f4);
    write_npy("i4.npy", "<i4", 0, "(2,)", i4, sizeof i4);
    write_npy("none.npy", "<i8", 0, "(0,)", ok, 0);
    write_npy("two.npy", "<i8", 0, "(1, 3)", ok, sizeof ok);
    write_npy("ok.npy", "<i8", 0, "(3,)", ok, sizeof ok);
    write_bytes("ok.txt", "0 3 6\n", 6);
    run_result *res = malloc(sizeof *res);
    assert_non_null(res);
    run(res, "reduce --op sum --segments down.npy d6.npy");
    assert_fails_with(res, EXIT_INPUT, "the offsets decrease at 2");
    run(res, "reduce --op sum --segments past.npy d6.npy");
    assert_fails_with(res, EXIT_INPUT, "past the end of d6.npy (6 elements)");
    run(res, "reduce --op sum --segments neg.npy d6.npy");
    assert_fails_with(res, EXIT_INPUT, "is negative (-1)");
    run(res, "reduce --op sum --segments f4.npy d6.npy");
    assert_fails_with(res, EXIT_INPUT, "int64 or uint64, not f32");
    run(res, "reduce --op sum --segments i4.npy d6.npy");
    assert_fails_with(res, EXIT_INPUT, "int64 or uint64, not i32");
    run(res, "reduce --op sum --segments none.npy d6.npy");
    assert_fails_with(res, EXIT_INPUT, "at least one");
    run(res, "reduce --op sum --segments two.npy d6.npy");
    assert_fails_with(res, EXIT_INPUT, "must be 1-D");
    run(res, "reduce --op sum --segments ok.txt d6.npy");
    assert_fails_with(res, EXIT_INPUT, "not text or raw");
    run(res, "reduce --op sum --segments no-such.npy d6.npy");
    assert_fails_with(res, EXIT_INPUT, "no-such.npy");
    run(res, "reduce --op sum --segments ok.npy d23.npy");
    assert_fails_with(res, EXIT_INPUT, "--segments cuts a 1-D array");
    run(res, "reduce --op sum --segments");
    assert_fails_with(res, EXIT_USAGE, "--segments wants");
    /* --json: the failure as one record. */
    run(res, "reduce --op sum --json --segments down.npy d6.npy");
    assert_int_equal(res->status, EXIT_INPUT);
    assert_non_null(strstr(res->out, "\"status\":\"input-error\",\"exit\":3,"
                                     "\"error\":\"--segments down.npy"));
    free(res);
}

/* ---- a device ----------------------------------------------------------------- */

static void pocl_gives_the_host_bits(void **state)
{
    (void)state;
    enum { R = 6, C = 45 };
    static float x[R * C];
    special_f32(x, R * C, 5);
    write_npy("p_c.npy", "<f4", 0, "(6, 45)", x, sizeof x);
    write_npy("p_f.npy", "<f4", 1, "(45, 6)", x, sizeof x);
    static const sb_op ops[] = { SB_SUM, SB_MAX, SB_ANY };
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        const sb_reduction r = { .op = ops[k], .input = SB_F32 };
        char opts[64];
        snprintf(opts, sizeof opts, "--op %s", sb_op_name(ops[k]));
        assert_both_axes("p_c.npy", opts, r, x, 4, R, C, 0, " --device pocl");
        assert_both_axes("p_f.npy", opts, r, x, 4, C, R, 1, " --device pocl");
    }
    const int32_t ov[6] = { INT32_MAX, 1, 2, 3, 4, 5 };
    write_npy("p_ov.npy", "<i4", 0, "(3, 2)", ov, sizeof ov);
    const sb_reduction ri = { .op = SB_SUM, .input = SB_I32 };
    assert_both_axes("p_ov.npy", "--op sum", ri, ov, 4, 3, 2, 0,
                     " --device pocl");
    const uint64_t off[] = { 0, 0, 100, 270 };
    write_npy("p_off.npy", "<u8", 0, "(4,)", off, sizeof off);
    write_npy("p_v.npy", "<f4", 0, "(270,)", x, sizeof x);
    run_result *res = malloc(sizeof *res);
    assert_non_null(res);
    const sb_reduction rm = { .op = SB_MIN, .input = SB_F32 };
    const cuts c = { off };
    run(res, "reduce --bits --op min --device pocl --segments p_off.npy "
        "p_v.npy");
    assert_int_equal(assert_answers(res->out, rm, x, NULL, 4, 3, &c,
                                    cuts_len, cuts_pick), 1);
    assert_int_equal(res->status, EXIT_NO_VALUE);
    /* argmin and argmax: the host's positions and bits too. */
    static const sb_op args[] = { SB_ARGMIN, SB_ARGMAX };
    for (size_t k = 0; k < 2; k++) {
        const sb_reduction ra = { .op = args[k], .input = SB_F32 };
        char opts[64];
        snprintf(opts, sizeof opts, "--op %s", sb_op_name(args[k]));
        assert_both_axes("p_c.npy", opts, ra, x, 4, R, C, 0, " --device pocl");
        assert_both_axes("p_f.npy", opts, ra, x, 4, C, R, 1, " --device pocl");
    }
    /* count they compute: the host's bits. */
    const sb_reduction rc = { .op = SB_COUNT, .input = SB_F32 };
    run(res, "reduce --bits --op count --device pocl --segments p_off.npy "
        "p_v.npy");
    assert_int_equal(assert_answers(res->out, rc, x, NULL, 4, 3, &c,
                                    cuts_len, cuts_pick), 0);
    assert_int_equal(res->status, 0);
    free(res);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_cli_axis SAMEBITS WORKDIR\n");
        return 2;
    }
    samebits = argv[1];
    workdir = argv[2];
    mkdir(workdir, 0777);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(f32_rows_and_columns_in_both_orders),
        cmocka_unit_test(a_checked_overflow_in_one_row_only),
        cmocka_unit_test(empty_rows_and_columns),
        cmocka_unit_test(segments_of_int64_and_uint64_offsets),
        cmocka_unit_test(masks_in_either_order),
        cmocka_unit_test(answers_as_npy),
        cmocka_unit_test(answers_as_npy_of_every_width),
        cmocka_unit_test(axis_needs_a_two_dimensional_npy),
        cmocka_unit_test(bad_offsets_are_refused),
        cmocka_unit_test(pocl_gives_the_host_bits),
    };
    return cmocka_run_group_tests_name("cli_reduce_axis", tests, NULL, NULL);
}
