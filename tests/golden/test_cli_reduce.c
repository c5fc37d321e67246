/* tests/golden/test_cli_reduce.c: `samebits reduce` on files this test
 * writes: raw, text and .npy inputs give exactly the bits of
 * sb_reduce_host() on the same numbers; every bad input (wrong dtype,
 * Fortran order, corrupt header, truncated data, malformed text, a mask of
 * the wrong length, a missing file...) gives one line on stderr and exit
 * status 1, never a crash.
 *
 * usage: test_cli_reduce SAMEBITS WORKDIR */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "samebits.h"

static const char *samebits;     /* the command under test */
static const char *workdir;

/* ---- files ------------------------------------------------------------------ */

static const char *path_of(const char *name)
{
    static char paths[8][512];
    static int next;
    char *p = paths[next++ % 8];
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

/* A .npy file: magic, version, header padded to 64 bytes, then `data`. */
static void write_npy(const char *name, int major, const char *dict,
                      const void *data, size_t size)
{
    const size_t prefix = major == 1 ? 10 : 12;
    char header[512];
    size_t len = (size_t)snprintf(header, sizeof header, "%s", dict);
    while ((prefix + len + 1) % 64 != 0)
        header[len++] = ' ';
    header[len++] = '\n';
    unsigned char start[12] = { 0x93, 'N', 'U', 'M', 'P', 'Y',
                                (unsigned char)major, 0 };
    start[8] = (unsigned char)len;
    start[9] = (unsigned char)(len >> 8);
    FILE *f = fopen(path_of(name), "wb");
    assert_non_null(f);
    fwrite(start, 1, prefix, f);
    fwrite(header, 1, len, f);
    fwrite(data, 1, size, f);
    assert_int_equal(fclose(f), 0);
}

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static void random_f64(double *x, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        x[i] = ((double)(next_random(&seed) >> 11) * 0x1p-53 - 0.5) * 1e3;
}

/* ---- running the command ------------------------------------------------------ */

typedef struct {
    int  status;          /* exit status; -1 if it did not exit normally */
    char out[8192];
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

/* Runs `samebits <args>` through the shell. */
static void run(run_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

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
    printf("$ samebits %s\n-> %d, stdout: %s, stderr: %s", args, r->status,
           r->out, r->err[0] ? r->err : "\n");
}

/* A failure: exit status 1, nothing on stdout, exactly one line on stderr
 * that contains `reason`. */
static void assert_fails_with(const run_result *r, const char *reason)
{
    assert_int_equal(r->status, 1);
    assert_string_equal(r->out, "");
    const size_t len = strlen(r->err);
    assert_true(len > 0 && r->err[len - 1] == '\n');
    assert_null(memchr(r->err, '\n', len - 1));   /* one line */
    if (strstr(r->err, reason) == NULL)
        fail_msg("stderr lacks \"%s\": %s", reason, r->err);
}

/* "<value> <bits>\n" as --bits prints it, for a result of `bytes` bytes. */
static void expected_line(char *buf, size_t size, const char *value,
                          const void *result, size_t bytes)
{
    uint64_t v = 0;
    if (bytes == 8)
        memcpy(&v, result, 8);
    else if (bytes == 4) {
        uint32_t w;
        memcpy(&w, result, 4);
        v = w;
    }
    snprintf(buf, size, "%s 0x%0*" PRIx64 "\n", value, (int)(2 * bytes), v);
}

/* Runs `samebits <args>` (with --bits) and checks that it prints exactly
 * the value and bits sb_reduce_host() gives for the same input (an f64 or
 * i64 result). */
static void assert_prints_host_bits(const char *args, sb_reduction r,
                                    const void *x, const unsigned char *mask,
                                    size_t n)
{
    unsigned char want[8];
    assert_int_equal(sb_reduce_host(r, x, mask, n, want), SB_OK);
    const sb_type acc = r.accumulator ? r.accumulator : r.input;
    assert_true(acc == SB_F64 || acc == SB_I64);
    char value[64], line[128];
    if (acc == SB_F64) {
        double v;
        memcpy(&v, want, 8);
        snprintf(value, sizeof value, "%.17g", v);
    } else {
        int64_t v;
        memcpy(&v, want, 8);
        snprintf(value, sizeof value, "%" PRId64, v);
    }
    expected_line(line, sizeof line, value, want, 8);
    run_result res;
    run(&res, "%s", args);
    assert_int_equal(res.status, 0);
    assert_string_equal(res.out, line);
}

/* ---- good inputs: the bits of sb_reduce_host ----------------------------------- */

static void raw_f64_sum_has_the_host_bits(void **state)
{
    (void)state;
    double x[1000], want;
    random_f64(x, 1000, 1);
    write_bytes("x.f64", x, sizeof x);
    const sb_reduction r = { .op = SB_SUM, .input = SB_F64 };
    assert_prints_host_bits("reduce --op sum --type f64 --bits x.f64", r, x,
                            NULL, 1000);
    /* The printed value reads back to the same bits. */
    run_result res;
    run(&res, "reduce --op sum --type f64 x.f64");
    assert_int_equal(sb_reduce_host(r, x, NULL, 1000, &want), SB_OK);
    const double back = strtod(res.out, NULL);
    assert_memory_equal(&back, &want, 8);
}

static void standard_input_reads_like_a_file(void **state)
{
    (void)state;
    double x[300];
    random_f64(x, 300, 2);
    write_bytes("stdin.f64", x, sizeof x);
    const sb_reduction r = { .op = SB_MAX, .input = SB_F64 };
    assert_prints_host_bits("reduce --op max --type f64 --bits - < stdin.f64",
                            r, x, NULL, 300);
}

static void text_f32_with_f64_accumulator_has_the_host_bits(void **state)
{
    (void)state;
    float x[500];
    uint64_t seed = 3;
    FILE *f = fopen(path_of("x.txt"), "w");
    assert_non_null(f);
    fprintf(f, "# a comment, then a blank line\n\n");
    for (size_t i = 0; i < 500; i++) {
        x[i] = (float)((double)(next_random(&seed) >> 40) * 0x1p-20 - 8.0);
        fprintf(f, "%s%.9g\r\n", i % 7 == 0 ? "  " : "", (double)x[i]);
    }
    fclose(f);
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32,
                             .accumulator = SB_F64 };
    assert_prints_host_bits("reduce --op sum --type f32 --acc f64 --bits x.txt",
                            r, x, NULL, 500);
}

static void npy_v1_two_dimensional_takes_its_type_from_the_header(void **state)
{
    (void)state;
    double x[10 * 20];
    random_f64(x, 200, 4);
    write_npy("x.npy", 1, "{'descr': '<f8', 'fortran_order': False, "
              "'shape': (10, 20), }", x, sizeof x);
    const sb_reduction r = { .op = SB_SUM, .input = SB_F64 };
    assert_prints_host_bits("reduce --op sum --bits x.npy", r, x, NULL, 200);
}

static void npy_v2_i32_with_mask_and_i64_accumulator(void **state)
{
    (void)state;
    int32_t x[777];
    unsigned char mask[777];
    uint64_t seed = 5;
    for (size_t i = 0; i < 777; i++) {
        x[i] = (int32_t)(uint32_t)next_random(&seed);
        mask[i] = (unsigned char)(next_random(&seed) % 3);
    }
    write_npy("i.npy", 2, "{'descr': '<i4', 'fortran_order': False, "
              "'shape': (777,), }", x, sizeof x);
    write_bytes("i.mask", mask, sizeof mask);
    const sb_reduction r = { .op = SB_SUM, .input = SB_I32,
                             .accumulator = SB_I64 };
    assert_prints_host_bits("reduce --op sum --acc i64 --mask i.mask --bits i.npy",
                            r, x, mask, 777);
}

static void one_dimensional_fortran_order_is_accepted(void **state)
{
    (void)state;
    const float x[5] = { 1.5f, -2.0f, 0.25f, 8.0f, -0.125f };
    write_npy("f1.npy", 1, "{'descr': '<f4', 'fortran_order': True, "
              "'shape': (5,), }", x, sizeof x);
    run_result res;
    run(&res, "reduce --op min f1.npy");
    assert_int_equal(res.status, 0);
    assert_string_equal(res.out, "-2\n");
}

static void json_is_one_line_with_status_value_and_bits(void **state)
{
    (void)state;
    const int32_t x[4] = { 1, 2, 3, 4 };
    write_bytes("j.i32", x, sizeof x);
    run_result res;
    run(&res, "reduce --op prod --type i32 --json j.i32");
    assert_int_equal(res.status, 0);
    assert_string_equal(res.out,
        "{\"op\":\"prod\",\"type\":\"i32\",\"acc\":\"i32\",\"wrap\":false,"
        "\"n\":4,\"masked\":false,\"device\":\"host\",\"status\":\"ok\","
        "\"value\":\"24\",\"bits\":\"0x00000018\"}\n");
}

static void a_device_gives_the_host_bits(void **state)
{
    (void)state;
    double x[5000];
    random_f64(x, 5000, 6);
    write_bytes("d.f64", x, sizeof x);
    const sb_reduction r = { .op = SB_SUM, .input = SB_F64 };
    assert_prints_host_bits("reduce --op sum --type f64 --device pocl --bits d.f64",
                            r, x, NULL, 5000);
}

/* ---- answers that are not values ---------------------------------------------- */

static void checked_overflow_is_one_line_and_status_1(void **state)
{
    (void)state;
    const int8_t x[3] = { 100, 100, 100 };
    write_bytes("o.i8", x, sizeof x);
    run_result res;
    run(&res, "reduce --op sum --type i8 o.i8");
    assert_fails_with(&res, "overflow");
    run(&res, "reduce --op sum --type i8 --wrap o.i8");
    assert_int_equal(res.status, 0);
    assert_string_equal(res.out, "44\n");
}

static void min_over_an_all_zero_mask_is_empty(void **state)
{
    (void)state;
    const double x[3] = { 1, 2, 3 };
    const unsigned char mask[3] = { 0, 0, 0 };
    write_bytes("e.f64", x, sizeof x);
    write_bytes("e.mask", mask, sizeof mask);
    run_result res;
    run(&res, "reduce --op min --type f64 --mask e.mask e.f64");
    assert_fails_with(&res, "empty");
}

/* ---- bad inputs: one line, status 1, no crash ----------------------------------- */

static void unsupported_dtype_is_refused(void **state)
{
    (void)state;
    const uint16_t halfs[4] = { 0x3c00, 0x3c00, 0x3c00, 0x3c00 };
    write_npy("f2.npy", 1, "{'descr': '<f2', 'fortran_order': False, "
              "'shape': (4,), }", halfs, sizeof halfs);
    run_result res;
    run(&res, "reduce --op sum f2.npy");
    assert_fails_with(&res, "dtype '<f2' is not supported");
}

static void big_endian_dtype_is_refused(void **state)
{
    (void)state;
    const double x[2] = { 1, 2 };
    write_npy("be.npy", 1, "{'descr': '>f8', 'fortran_order': False, "
              "'shape': (2,), }", x, sizeof x);
    run_result res;
    run(&res, "reduce --op sum be.npy");
    assert_fails_with(&res, "big-endian");
}

static void fortran_order_matrix_is_refused(void **state)
{
    (void)state;
    const double x[6] = { 1, 2, 3, 4, 5, 6 };
    write_npy("fo.npy", 1, "{'descr': '<f8', 'fortran_order': True, "
              "'shape': (2, 3), }", x, sizeof x);
    run_result res;
    run(&res, "reduce --op sum fo.npy");
    assert_fails_with(&res, "Fortran order");
}

static void corrupt_npy_headers_are_refused(void **state)
{
    (void)state;
    const double x[2] = { 1, 2 };
    run_result res;
    /* A header length beyond the end of the file. */
    const unsigned char cut[12] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                    0xff, 0x7f, '{', '}' };
    write_bytes("cut.npy", cut, sizeof cut);
    run(&res, "reduce --op sum cut.npy");
    assert_fails_with(&res, "corrupt .npy header");
    /* No 'descr'. */
    write_npy("nodescr.npy", 1, "{'fortran_order': False, 'shape': (2,), }",
              x, sizeof x);
    run(&res, "reduce --op sum nodescr.npy");
    assert_fails_with(&res, "corrupt .npy header");
    /* A shape that is not a tuple of numbers. */
    write_npy("shape.npy", 1, "{'descr': '<f8', 'fortran_order': False, "
              "'shape': (two,), }", x, sizeof x);
    run(&res, "reduce --op sum shape.npy");
    assert_fails_with(&res, "bad 'shape'");
    /* Not a .npy at all, under a .npy name. */
    write_bytes("fake.npy", "hello", 5);
    run(&res, "reduce --op sum fake.npy");
    assert_fails_with(&res, "not a .npy file");
    /* Data shorter than the shape says. */
    write_npy("short.npy", 1, "{'descr': '<f8', 'fortran_order': False, "
              "'shape': (3,), }", x, sizeof x);
    run(&res, "reduce --op sum short.npy");
    assert_fails_with(&res, "truncated");
}

static void npy_type_must_agree_with_the_type_option(void **state)
{
    (void)state;
    const double x[2] = { 1, 2 };
    write_npy("t.npy", 1, "{'descr': '<f8', 'fortran_order': False, "
              "'shape': (2,), }", x, sizeof x);
    run_result res;
    run(&res, "reduce --op sum --type f32 t.npy");
    assert_fails_with(&res, "not f32 as --type says");
}

static void truncated_raw_file_is_refused(void **state)
{
    (void)state;
    const unsigned char bytes[10] = { 0 };
    write_bytes("t.f64", bytes, sizeof bytes);
    run_result res;
    run(&res, "reduce --op sum --type f64 t.f64");
    assert_fails_with(&res, "10 bytes is not a whole number of f64 elements");
}

static void malformed_text_names_its_line(void **state)
{
    (void)state;
    write_bytes("bad.txt", "1.5\n2.5\n\nthree\n4\n", 18);
    run_result res;
    run(&res, "reduce --op sum --type f64 bad.txt");
    assert_fails_with(&res, "line 4: 'three' is not a number");
    write_bytes("range.txt", "1\n-129\n", 7);
    run(&res, "reduce --op sum --type i8 range.txt");
    assert_fails_with(&res, "line 2: -129 is out of range for i8");
    write_bytes("neg.txt", "5\n-1\n", 5);
    run(&res, "reduce --op sum --type u32 neg.txt");
    assert_fails_with(&res, "line 2: -1 is out of range for u32");
}

static void mask_of_the_wrong_length_is_refused(void **state)
{
    (void)state;
    const double x[4] = { 1, 2, 3, 4 };
    const unsigned char mask[3] = { 1, 1, 1 };
    write_bytes("m.f64", x, sizeof x);
    write_bytes("m.mask", mask, sizeof mask);
    run_result res;
    run(&res, "reduce --op sum --type f64 --mask m.mask m.f64");
    assert_fails_with(&res, "the mask m.mask has 3 bytes, the data 4 elements");
}

static void npy_masks_are_bytes(void **state)
{
    (void)state;
    const double x[4] = { 1, 2, 4, 8 };
    const unsigned char keep[4] = { 1, 0, 1, 0 };
    const double wide[4] = { 1, 0, 1, 0 };
    write_bytes("nm.f64", x, sizeof x);
    write_npy("bool.npy", 1, "{'descr': '|b1', 'fortran_order': False, "
              "'shape': (4,), }", keep, sizeof keep);
    write_npy("f8mask.npy", 1, "{'descr': '<f8', 'fortran_order': False, "
              "'shape': (4,), }", wide, sizeof wide);
    run_result res;
    run(&res, "reduce --op sum --type f64 --mask bool.npy nm.f64");
    assert_int_equal(res.status, 0);
    assert_string_equal(res.out, "5\n");
    run(&res, "reduce --op sum --type f64 --mask f8mask.npy nm.f64");
    assert_fails_with(&res, "a mask is u1, i1 or b1");
}

static void missing_file_is_refused(void **state)
{
    (void)state;
    const double x[2] = { 1, 2 };
    write_bytes("x.f64", x, sizeof x);
    run_result res;
    run(&res, "reduce --op sum --type f64 no-such-file.f64");
    assert_fails_with(&res, "no-such-file.f64: No such file or directory");
    run(&res, "reduce --op sum --type f64 --mask no-such-mask x.f64");
    assert_fails_with(&res, "no-such-mask: No such file or directory");
}

static void refused_accumulator_is_refused(void **state)
{
    (void)state;
    const int32_t x[2] = { 1, 2 };
    write_bytes("acc.i32", x, sizeof x);
    run_result res;
    run(&res, "reduce --op sum --type i32 --acc f32 acc.i32");
    assert_fails_with(&res, "i32 input cannot use a f32 accumulator");
}

static void bad_command_lines_are_usage_errors(void **state)
{
    (void)state;
    run_result res;
    run(&res, "reduce --type f64 x.f64");
    assert_int_equal(res.status, 2);
    run(&res, "reduce --op average --type f64 x.f64");
    assert_int_equal(res.status, 2);
    run(&res, "reduce --op sum --type f16 x.f64");
    assert_int_equal(res.status, 2);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_cli_reduce SAMEBITS WORKDIR\n");
        return 2;
    }
    samebits = argv[1];
    workdir = argv[2];
    mkdir(workdir, 0777);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(raw_f64_sum_has_the_host_bits),
        cmocka_unit_test(standard_input_reads_like_a_file),
        cmocka_unit_test(text_f32_with_f64_accumulator_has_the_host_bits),
        cmocka_unit_test(npy_v1_two_dimensional_takes_its_type_from_the_header),
        cmocka_unit_test(npy_v2_i32_with_mask_and_i64_accumulator),
        cmocka_unit_test(one_dimensional_fortran_order_is_accepted),
        cmocka_unit_test(json_is_one_line_with_status_value_and_bits),
        cmocka_unit_test(a_device_gives_the_host_bits),
        cmocka_unit_test(checked_overflow_is_one_line_and_status_1),
        cmocka_unit_test(min_over_an_all_zero_mask_is_empty),
        cmocka_unit_test(unsupported_dtype_is_refused),
        cmocka_unit_test(big_endian_dtype_is_refused),
        cmocka_unit_test(fortran_order_matrix_is_refused),
        cmocka_unit_test(corrupt_npy_headers_are_refused),
        cmocka_unit_test(npy_type_must_agree_with_the_type_option),
        cmocka_unit_test(truncated_raw_file_is_refused),
        cmocka_unit_test(malformed_text_names_its_line),
        cmocka_unit_test(mask_of_the_wrong_length_is_refused),
        cmocka_unit_test(npy_masks_are_bytes),
        cmocka_unit_test(missing_file_is_refused),
        cmocka_unit_test(refused_accumulator_is_refused),
        cmocka_unit_test(bad_command_lines_are_usage_errors),
    };
    return cmocka_run_group_tests_name("cli_reduce", tests, NULL, NULL);
}
