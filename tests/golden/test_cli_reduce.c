/* tests/golden/test_cli_reduce.c: `samebits reduce` on files this test
 * writes: text, .npy, .npz and raw inputs give exactly the bits of
 * sb_reduce_host() on the same numbers; what --format auto cannot tell
 * apart is refused, never guessed; every bad input (wrong dtype, Fortran
 * order, corrupt header or archive, truncated data, malformed text, a
 * number out of range, a mask of the wrong length, a missing file...)
 * gives one line on stderr and the exit status of cli.h, never a crash.
 * `samebits check --dump` prints a command that reduces what it dumped
 * to the golden result.
 *
 * usage: test_cli_reduce SAMEBITS WORKDIR GOLDEN-FILE */
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
#include <sys/stat.h>
#include <sys/wait.h>

#ifdef SB_TEST_HAVE_ZLIB
#  include <zlib.h>
#endif

#include "samebits.h"

/* The exit statuses of tools/cli.h. */
enum { EXIT_NO_VALUE = 1, EXIT_USAGE = 2, EXIT_INPUT = 3, EXIT_DEVICE = 4 };

static const char *samebits;     /* the command under test */
static const char *workdir;
static const char *golden;       /* tests/golden/corpus.golden */

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

static void write_text(const char *name, const char *text)
{
    write_bytes(name, text, strlen(text));
}

/* The bytes of a .npy file: magic, version, header padded to 64 bytes,
 * then `data`; returns their length (at most `cap`). */
static size_t npy_bytes(unsigned char *out, size_t cap, int major,
                        const char *dict, const void *data, size_t size)
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
    assert_true(prefix + len + size <= cap);
    memcpy(out, start, prefix);
    memcpy(out + prefix, header, len);
    memcpy(out + prefix + len, data, size);
    return prefix + len + size;
}

static void write_npy(const char *name, int major, const char *dict,
                      const void *data, size_t size)
{
    static unsigned char buf[1 << 16];
    write_bytes(name, buf, npy_bytes(buf, sizeof buf, major, dict, data, size));
}

/* ---- zip archives, as np.savez and np.savez_compressed write them -------- */

/* CRC-32 of zip (reflected 0xEDB88320), bit by bit: independent of the
 * command's. */
static uint32_t crc32_bits(const unsigned char *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xFFFFFFFFu;
}

/* Raw deflate of src into out; returns the compressed size. With zlib, a
 * real compressed stream; without, one stored deflate block (still
 * method 8, which a command built without zlib must refuse). */
static size_t deflate_bytes(const unsigned char *src, size_t n,
                            unsigned char *out, size_t cap)
{
#ifdef SB_TEST_HAVE_ZLIB
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, -MAX_WBITS, 8,
                                  Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = (unsigned char *)(uintptr_t)src;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    const size_t size = z.total_out;
    deflateEnd(&z);
    return size;
#else
    assert_true(n <= 65535 && n + 5 <= cap);
    out[0] = 1;                                  /* final block, stored */
    out[1] = (unsigned char)n;
    out[2] = (unsigned char)(n >> 8);
    out[3] = (unsigned char)~n;
    out[4] = (unsigned char)(~n >> 8);
    memcpy(out + 5, src, n);
    return n + 5;
#endif
}

typedef struct {
    const char          *name;     /* "x.npy" */
    const unsigned char *data;     /* the member's bytes, uncompressed */
    size_t               size;
    int                  deflate;  /* method 8, else stored (0) */
} zip_member;

static void put16(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
    put16(p, v & 0xFFFF);
    put16(p + 2, v >> 16);
}

static void put64(unsigned char *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

/* A zip archive of `count` members: local header and data of each, the
 * central directory, the end record. With `zip64`, as an archive past
 * 4 GiB has them: the directory's sizes and offsets are 0xFFFFFFFF and
 * the real ones in a ZIP64 extra field, and a ZIP64 end record and its
 * locator come before the end record, whose fields are all 0xFF...
 * Returns its size. */
static size_t zip_bytes_64(unsigned char *out, size_t cap, const zip_member *m,
                           size_t count, int zip64)
{
    size_t at = 0, offsets[8];
    size_t csizes[8];
    static unsigned char packed[1 << 16];
    assert_true(count <= 8);
    for (size_t i = 0; i < count; i++) {
        const size_t nlen = strlen(m[i].name);
        const unsigned char *body = m[i].data;
        size_t csize = m[i].size;
        if (m[i].deflate) {
            csize = deflate_bytes(m[i].data, m[i].size, packed, sizeof packed);
            body = packed;
        }
        assert_true(at + 30 + nlen + csize <= cap);
        unsigned char *h = out + at;
        memset(h, 0, 30);
        put32(h, 0x04034b50u);
        put16(h + 4, 20);
        put16(h + 8, m[i].deflate ? 8 : 0);
        put32(h + 14, crc32_bits(m[i].data, m[i].size));
        put32(h + 18, (uint32_t)csize);
        put32(h + 22, (uint32_t)m[i].size);
        put16(h + 26, (unsigned)nlen);
        memcpy(h + 30, m[i].name, nlen);
        memcpy(h + 30 + nlen, body, csize);
        offsets[i] = at;
        csizes[i] = csize;
        at += 30 + nlen + csize;
    }
    const size_t dir = at, extra = zip64 ? 4 + 24 : 0;
    for (size_t i = 0; i < count; i++) {
        const size_t nlen = strlen(m[i].name);
        assert_true(at + 46 + nlen + extra <= cap);
        unsigned char *h = out + at;
        memset(h, 0, 46);
        put32(h, 0x02014b50u);
        put16(h + 4, zip64 ? 45 : 20);
        put16(h + 6, zip64 ? 45 : 20);
        put16(h + 10, m[i].deflate ? 8 : 0);
        put32(h + 16, crc32_bits(m[i].data, m[i].size));
        put32(h + 20, zip64 ? 0xFFFFFFFFu : (uint32_t)csizes[i]);
        put32(h + 24, zip64 ? 0xFFFFFFFFu : (uint32_t)m[i].size);
        put16(h + 28, (unsigned)nlen);
        put16(h + 30, (unsigned)extra);
        put32(h + 42, zip64 ? 0xFFFFFFFFu : (uint32_t)offsets[i]);
        memcpy(h + 46, m[i].name, nlen);
        if (zip64) {
            unsigned char *x = h + 46 + nlen;
            put16(x, 1);
            put16(x + 2, 24);
            put64(x + 4, m[i].size);      /* uncompressed, compressed, */
            put64(x + 12, csizes[i]);     /* local header offset */
            put64(x + 20, offsets[i]);
        }
        at += 46 + nlen + extra;
    }
    const size_t dir_size = at - dir;
    if (zip64) {
        assert_true(at + 56 + 20 <= cap);
        unsigned char *z = out + at;
        memset(z, 0, 56);
        put32(z, 0x06064b50u);
        put64(z + 4, 56 - 12);
        put16(z + 12, 45);
        put16(z + 14, 45);
        put64(z + 24, count);
        put64(z + 32, count);
        put64(z + 40, dir_size);
        put64(z + 48, dir);
        unsigned char *l = z + 56;
        memset(l, 0, 20);
        put32(l, 0x07064b50u);
        put64(l + 8, at);
        put32(l + 16, 1);
        at += 56 + 20;
    }
    assert_true(at + 22 <= cap);
    unsigned char *e = out + at;
    memset(e, 0, 22);
    put32(e, 0x06054b50u);
    put16(e + 8, zip64 ? 0xFFFF : (unsigned)count);
    put16(e + 10, zip64 ? 0xFFFF : (unsigned)count);
    put32(e + 12, zip64 ? 0xFFFFFFFFu : (uint32_t)dir_size);
    put32(e + 16, zip64 ? 0xFFFFFFFFu : (uint32_t)dir);
    return at + 22;
}

static size_t zip_bytes(unsigned char *out, size_t cap, const zip_member *m,
                        size_t count)
{
    return zip_bytes_64(out, cap, m, count, 0);
}

static const char *const f8_dict_4 =
    "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }";

/* ---- random data ---------------------------------------------------------------- */

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

/* Runs `samebits <args>` through the shell in the work directory; with
 * `input`, its bytes come through a pipe on standard input (not a file:
 * a pipe cannot be mapped, nor its size known in advance). */
static void vrun(run_result *r, const void *input, size_t input_size,
                 const char *fmt, va_list ap)
{
    char args[2048], cmd[4096];
    vsnprintf(args, sizeof args, fmt, ap);
    const char *pipe_in = "";
    if (input != NULL) {
        write_bytes("stdin.bin", input, input_size);
        pipe_in = "cat stdin.bin | ";
    }
    snprintf(cmd, sizeof cmd, "cd '%s' && %s'%s' %s >out.txt 2>err.txt",
             workdir, pipe_in, samebits, args);
    const int w = system(cmd);
    r->status = WIFEXITED(w) ? WEXITSTATUS(w) : -1;
    slurp(path_of("out.txt"), r->out, sizeof r->out);
    slurp(path_of("err.txt"), r->err, sizeof r->err);
    printf("$ %ssamebits %s\n-> %d, stdout: %s, stderr: %s", pipe_in, args,
           r->status, r->out, r->err[0] ? r->err : "\n");
}

static void run(run_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void run(run_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vrun(r, NULL, 0, fmt, ap);
    va_end(ap);
}

static void run_piped(run_result *r, const void *input, size_t size,
                      const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void run_piped(run_result *r, const void *input, size_t size,
                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vrun(r, input, size, fmt, ap);
    va_end(ap);
}

/* Runs the command and asserts it succeeded and printed exactly `want`. */
static void assert_run_prints(run_result *res, const char *want,
                              const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void assert_run_prints(run_result *res, const char *want,
                              const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vrun(res, NULL, 0, fmt, ap);
    va_end(ap);
    assert_int_equal(res->status, 0);
    assert_string_equal(res->out, want);
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

/* ---- expected output -------------------------------------------------------------- */

/* "<value> <bits>\n" as `reduce --bits` prints the result `want` of `r`. */
static void expected_line(char *buf, size_t size, sb_reduction r,
                          const void *want)
{
    const sb_type acc = r.accumulator ? r.accumulator : r.input;
    char value[64];
    uint64_t bits = 0;
    size_t bytes;
    if (r.op == SB_ANY || r.op == SB_ALL) {
        bytes = 1;
        memcpy(&bits, want, 1);
        snprintf(value, sizeof value, "%u", (unsigned)bits);
    } else {
        bytes = sb_type_size(acc);
        memcpy(&bits, want, bytes);              /* little-endian */
        switch (acc) {
        case SB_F32: {
            float v;
            memcpy(&v, want, 4);
            snprintf(value, sizeof value, "%.9g", (double)v);
            break;
        }
        case SB_F64: {
            double v;
            memcpy(&v, want, 8);
            snprintf(value, sizeof value, "%.17g", v);
            break;
        }
        case SB_F16: case SB_BF16: {
            /* sign, exponent field (5 bits, bias 15 / 8 bits, bias 127),
             * fraction (10 / 7 bits): IEEE 754's reading of the bits. */
            const int fb = acc == SB_F16 ? 10 : 7;
            const int bias = acc == SB_F16 ? 15 : 127;
            const unsigned top = acc == SB_F16 ? 31u : 255u;
            const unsigned e = (unsigned)(bits >> fb) & top;
            const unsigned f = (unsigned)bits & ((1u << fb) - 1);
            double v = e == top ? (f ? NAN : INFINITY)
                     : e == 0 ? ldexp(f, 1 - bias - fb)
                     : ldexp((double)((1u << fb) + f), (int)e - bias - fb);
            if (bits & 0x8000u)
                v = -v;
            snprintf(value, sizeof value, "%.9g", v);
            break;
        }
        case SB_I8: case SB_I16: case SB_I32: case SB_I64: {
            /* Sign-extend from the top bit of the accumulator. */
            const unsigned shift = 64 - 8 * (unsigned)bytes;
            const int64_t v = (int64_t)(bits << shift) >> shift;
            snprintf(value, sizeof value, "%" PRId64, v);
            break;
        }
        default:
            snprintf(value, sizeof value, "%" PRIu64, bits);
            break;
        }
    }
    snprintf(buf, size, "%s 0x%0*" PRIx64 "\n", value, (int)(2 * bytes), bits);
}

/* Checks that a run printed exactly the value and bits that
 * sb_reduce_host() gives for the same input. */
static void assert_has_host_bits(const run_result *res, sb_reduction r,
                                 const void *x, const unsigned char *mask,
                                 size_t n)
{
    unsigned char want[8];
    assert_int_equal(sb_reduce_host(r, x, mask, n, want), SB_OK);
    char line[128];
    expected_line(line, sizeof line, r, want);
    assert_int_equal(res->status, 0);
    assert_string_equal(res->out, line);
}

/* Runs `samebits <args>` (with --bits) and checks its result as above. */
static void assert_prints_host_bits(const char *args, sb_reduction r,
                                    const void *x, const unsigned char *mask,
                                    size_t n)
{
    run_result res;
    run(&res, "%s", args);
    assert_has_host_bits(&res, r, x, mask, n);
}

/* ---- good inputs: the bits of sb_reduce_host ----------------------------------- */

static void raw_f64_sum_has_the_host_bits(void **state)
{
    (void)state;
    double x[1000], want;
    random_f64(x, 1000, 1);
    write_bytes("x.f64", x, sizeof x);
    const sb_reduction r = { .op = SB_SUM, .input = SB_F64 };
    assert_prints_host_bits("reduce --op sum --type f64 --format raw --bits "
                            "x.f64", r, x, NULL, 1000);
    /* The printed value reads back to the same bits. */
    run_result res;
    run(&res, "reduce --op sum --type f64 --format raw x.f64");
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
    assert_prints_host_bits("reduce --op max --type f64 --format raw --bits - "
                            "< stdin.f64", r, x, NULL, 300);
    run_result res;
    run_piped(&res, x, sizeof x, "reduce --op max --type f64 --format raw "
              "--bits");
    assert_has_host_bits(&res, r, x, NULL, 300);
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

/* f16 from a .npy ('<f2') and bf16 from raw bytes, into the type itself,
 * f32 and f64: the bits of sb_reduce_host(); text is refused for them. */
static void half_inputs_from_npy_and_raw_have_the_host_bits(void **state)
{
    (void)state;
    uint16_t h[1000], b[1000];
    uint64_t seed = 11;
    for (size_t i = 0; i < 1000; i++) {
        /* random sign, exponent near 0, random fraction; a few NaNs */
        const uint64_t r = next_random(&seed);
        h[i] = (uint16_t)(((r >> 20) & 0x8000u) | ((12u + (r % 6)) << 10) |
                          ((r >> 8) & 0x3FFu));
        b[i] = (uint16_t)(((r >> 21) & 0x8000u) | ((124u + (r % 6)) << 7) |
                          ((r >> 30) & 0x7Fu));
        if (i % 97 == 5)
            b[i] = 0x7FC1;
    }
    write_npy("h.npy", 1, "{'descr': '<f2', 'fortran_order': False, "
              "'shape': (1000,), }", h, sizeof h);
    write_bytes("b.bf16", b, sizeof b);
    const sb_reduction f16_sum = { .op = SB_SUM, .input = SB_F16 };
    const sb_reduction f16_f32 = { .op = SB_SUM, .input = SB_F16,
                                   .accumulator = SB_F32 };
    const sb_reduction f16_sq = { .op = SB_SUM, .input = SB_F16,
                                  .map = SB_MAP_SQUARE };
    assert_prints_host_bits("reduce --op sum --bits h.npy", f16_sum, h, NULL,
                            1000);
    assert_prints_host_bits("reduce --op sum --acc f32 --bits h.npy", f16_f32,
                            h, NULL, 1000);
    assert_prints_host_bits("reduce --op sum --map square --bits h.npy",
                            f16_sq, h, NULL, 1000);
    const sb_reduction bf16_max = { .op = SB_MAX, .input = SB_BF16 };
    const sb_reduction bf16_nansum = { .op = SB_SUM, .input = SB_BF16,
                                       .accumulator = SB_F64,
                                       .flags = SB_SKIP_NAN };
    const sb_reduction bf16_nanprod = { .op = SB_PROD, .input = SB_BF16,
                                        .flags = SB_SKIP_NAN };
    assert_prints_host_bits("reduce --op max --type bf16 --format raw --bits "
                            "b.bf16", bf16_max, b, NULL, 1000);
    assert_prints_host_bits("reduce --op sum --type bf16 --acc f64 --skip-nan "
                            "--format raw --bits b.bf16", bf16_nansum, b, NULL,
                            1000);
    assert_prints_host_bits("reduce --op prod --type bf16 --skip-nan --format "
                            "raw --bits b.bf16", bf16_nanprod, b, NULL, 1000);
    run_result res;
    write_text("h.txt", "1.5\n2.25\n");
    run(&res, "reduce --op sum --type f16 h.txt");
    assert_fails_with(&res, EXIT_INPUT, "rounded twice");
    run(&res, "reduce --op sum --type f16 --acc i32 --format raw b.bf16");
    assert_fails_with(&res, EXIT_USAGE, "f16 -> i32");
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
    assert_prints_host_bits("reduce --op sum --acc i64 --mask i.mask "
                            "--mask-format raw --bits i.npy", r, x, mask, 777);
}

static void one_dimensional_fortran_order_is_accepted(void **state)
{
    (void)state;
    const float x[5] = { 1.5f, -2.0f, 0.25f, 8.0f, -0.125f };
    write_npy("f1.npy", 1, "{'descr': '<f4', 'fortran_order': True, "
              "'shape': (5,), }", x, sizeof x);
    run_result res;
    assert_run_prints(&res, "-2\n", "reduce --op min f1.npy");
}

static void json_is_one_line_with_status_value_and_bits(void **state)
{
    (void)state;
    const int32_t x[4] = { 1, 2, 3, 4 };
    write_bytes("j.i32", x, sizeof x);
    run_result res;
    run(&res, "reduce --op prod --type i32 --format raw --json j.i32");
    assert_int_equal(res.status, 0);
    assert_string_equal(res.out,
        "{\"op\":\"prod\",\"type\":\"i32\",\"acc\":\"i32\",\"wrap\":false,"
        "\"map\":\"none\",\"skip_nan\":false,\"dot\":false,\"n\":4,\"masked\":false,\"device\":\"host\",\"status\":\"ok\","
        "\"exit\":0,\"value\":\"24\",\"bits\":\"0x00000018\"}\n");
}

/* A count is a uint64_t whatever the input: its bits are 8 bytes, not
 * the input type's (300 i8 elements once printed 0x2c). */
static void count_bits_are_eight_bytes(void **state)
{
    (void)state;
    static const unsigned char zeros[300];
    write_bytes("z300.i8", zeros, sizeof zeros);
    run_result res;
    assert_run_prints(&res, "300 0x000000000000012c\n",
                      "reduce --op count --bits --type i8 --format raw "
                      "z300.i8");
}

/* --json: one record on stdout for every outcome, its status word and
 * exit status agreeing with the command's, the error line in it. */
static void assert_json_outcome(const run_result *res, int status,
                                const char *word, const char *error)
{
    assert_int_equal(res->status, status);
    const size_t len = strlen(res->out);
    assert_true(len > 2 && res->out[0] == '{' && res->out[len - 1] == '\n'
                && res->out[len - 2] == '}');
    assert_null(memchr(res->out, '\n', len - 1));          /* one line */
    char want[128];
    snprintf(want, sizeof want, "\"status\":\"%s\",\"exit\":%d,\"error\":\"",
             word, status);
    if (strstr(res->out, want) == NULL)
        fail_msg("the record lacks %s: %s", want, res->out);
    if (strstr(res->out, error) == NULL)
        fail_msg("the record's error lacks \"%s\": %s", error, res->out);
    if (strstr(res->err, error) == NULL)      /* and the same on stderr */
        fail_msg("stderr lacks \"%s\": %s", error, res->err);
}

static void json_records_every_outcome(void **state)
{
    (void)state;
    run_result res;
    const int8_t over[3] = { 100, 100, 100 };
    write_bytes("jo.i8", over, sizeof over);
    run(&res, "reduce --op sum --type i8 --format raw --json jo.i8");
    assert_json_outcome(&res, EXIT_NO_VALUE, "overflow",
                        "overflows at position 1");
    run(&res, "reduce --op max --type f32 --format raw --json /dev/null");
    assert_json_outcome(&res, EXIT_NO_VALUE, "empty", "max over no element");
    run(&res, "reduce --op median --json");
    assert_json_outcome(&res, EXIT_USAGE, "usage-error", "--op wants");
    run(&res, "reduce --op sum --type f32 --json no-such-file");
    assert_json_outcome(&res, EXIT_INPUT, "input-error", "no-such-file");
    run(&res, "reduce --op sum --type f32 --device no-such-device --json "
        "/dev/null");
    assert_json_outcome(&res, EXIT_DEVICE, "device-error",
                        "'no-such-device' matches no device");
    /* Text without --type: the command line lacks it. */
    run_piped(&res, "1\n", sizeof "1\n" - 1, "reduce --op sum --json");
    assert_json_outcome(&res, EXIT_USAGE, "usage-error", "needs --type");
    /* With --type, a refused --acc is found before the file is read. */
    run(&res, "reduce --op sum --type f32 --acc i32 --json no-such-file");
    assert_json_outcome(&res, EXIT_USAGE, "usage-error",
                        "f32 -> i32 is not an exact widening");
    /* any/all take no accumulator: said so, not "inexact widening". */
    run_piped(&res, "1\n0\n", sizeof "1\n0\n" - 1, "reduce --op any --type f32 --acc f64 --json");
    assert_json_outcome(&res, EXIT_USAGE, "usage-error", "takes no --acc");
    assert_null(strstr(res.err, "exact conversions"));
}

static void overflow_hints_name_only_accumulators_that_exist(void **state)
{
    (void)state;
    run_result res;
    run_piped(&res, "2147483647\n1\n", sizeof "2147483647\n1\n" - 1, "reduce --op sum --type i32");
    assert_fails_with(&res, EXIT_NO_VALUE, "--acc i64");
    run_piped(&res, "18446744073709551615\n1\n", sizeof "18446744073709551615\n1\n" - 1, "reduce --op sum --type u64");
    assert_fails_with(&res, EXIT_NO_VALUE, "u64 is the widest accumulator "
                      "for u64 input");
    assert_null(strstr(res.err, "--acc"));
    run_piped(&res, "2147483647\n2147483647\n", sizeof "2147483647\n2147483647\n" - 1,
              "reduce --op prod --type i32 --acc i64 --wrap");
    assert_int_equal(res.status, 0);
    run_piped(&res, "9223372036854775807\n1\n", sizeof "9223372036854775807\n1\n" - 1,
              "reduce --op sum --type i64");
    assert_fails_with(&res, EXIT_NO_VALUE, "i64 is the widest accumulator "
                      "for i64 input");
    run_piped(&res, "9223372036854775807\n1\n", sizeof "9223372036854775807\n1\n" - 1,
              "reduce --op sum --type i32 --acc i64");
    assert_fails_with(&res, EXIT_INPUT, "out of range for i32");
}

static void an_empty_input_is_answered_with_a_note(void **state)
{
    (void)state;
    run_result res;
    run(&res, "reduce --op sum --type f64 --format raw /dev/null");
    assert_int_equal(res.status, 0);
    assert_string_equal(res.out, "0\n");
    assert_non_null(strstr(res.err, "note: /dev/null holds no element; the "
                           "sum of nothing is 0"));
}

static void input_beyond_the_largest_device_buffer_streams_in_pieces(void **state)
{
    (void)state;
    /* POCL_MEMORY_LIMIT=1 (GiB) gives POCL a largest buffer of 256 MiB; a
     * sparse 300 MiB file costs no disk. It is reduced in pieces of at
     * most 256 MiB (several launches) to the host's bits. */
    const long at[] = { 0, (1L << 24) - 1, 1L << 24, 300L << 20 };
    FILE *f = fopen(path_of("big.u8"), "wb");
    assert_non_null(f);
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        assert_int_equal(fseek(f, at[i], SEEK_SET), 0);
        assert_int_equal(fputc(200 + (int)i, f), 200 + (int)i);
    }
    assert_int_equal(fclose(f), 0);
    setenv("POCL_MEMORY_LIMIT", "1", 1);
    run_result res;
    run(&res, "reduce --op sum --type u8 --acc u64 --format raw --device pocl "
        "--bits big.u8");
    unsetenv("POCL_MEMORY_LIMIT");
    char want[64];
    const uint64_t sum = 200 + 201 + 202 + 203;
    snprintf(want, sizeof want, "%" PRIu64 " 0x%016" PRIx64 "\n", sum, sum);
    assert_int_equal(res.status, 0);
    assert_string_equal(res.out, want);
    remove(path_of("big.u8"));
}

/* f32 data that cancel, with a huge range, as raw and .npy. */
static void write_cancelling_f32(float *x, size_t n)
{
    uint64_t seed = 77;
    for (size_t i = 0; i < n; i++) {
        const double u = (double)(next_random(&seed) >> 11) * 0x1p-53 - 0.5;
        const int e = (int)(next_random(&seed) % 60) - 30;
        x[i] = (float)ldexp(u, e) * (i % 2 ? 1.0f : -1.0f);
    }
    write_bytes("c.f32", x, n * sizeof *x);
    char dict[96];
    snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, "
             "'shape': (%zu,), }", n);
    write_npy("c.npy", 1, dict, x, n * sizeof *x);
}

static void pieces_give_the_bits_of_one_call(void **state)
{
    (void)state;
    enum { N = 10007 };
    static float x[N];
    static unsigned char mask[N];
    write_cancelling_f32(x, N);
    for (size_t i = 0; i < N; i++)      /* whole leaves masked out too */
        mask[i] = (i / 16) % 5 != 2 && i % 3 != 0;
    write_bytes("c.mask", mask, N);
    const sb_reduction sum = { .op = SB_SUM, .input = SB_F32 };
    const sb_reduction max = { .op = SB_MAX, .input = SB_F32 };
    const sb_reduction sum64 = { .op = SB_SUM, .input = SB_F32,
                                 .accumulator = SB_F64 };
    const unsigned chunks[] = { 1, 7, 16, 17, 1000, 4096, 10006 };
    static unsigned char npy[1 << 16];
    const size_t npy_size = npy_bytes(npy, sizeof npy, 1,
                                      "{'descr': '<f4', 'fortran_order': "
                                      "False, 'shape': (10007,), }", x,
                                      sizeof x);
    run_result res;
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        const unsigned k = chunks[c];
        char args[256];
        snprintf(args, sizeof args, "reduce --op sum --bits --chunk %u c.npy", k);
        assert_prints_host_bits(args, sum, x, NULL, N);
        snprintf(args, sizeof args, "reduce --op sum --acc f64 --bits --chunk "
                 "%u --format raw --type f32 c.f32", k);
        assert_prints_host_bits(args, sum64, x, NULL, N);
        snprintf(args, sizeof args, "reduce --op max --bits --chunk %u --mask "
                 "c.mask --mask-format raw c.npy", k);
        assert_prints_host_bits(args, max, x, mask, N);
        /* From a pipe: a .npy and raw data, read one piece at a time. */
        run_piped(&res, x, sizeof x, "reduce --op sum --bits --chunk %u "
                  "--format raw --type f32", k);
        assert_has_host_bits(&res, sum, x, NULL, N);
        run_piped(&res, npy, npy_size, "reduce --op max --bits --chunk %u "
                  "--mask c.mask --mask-format raw -", k);
        assert_has_host_bits(&res, max, x, mask, N);
        if (k < 7)
            continue;               /* a launch per 7 elements is enough */
        run(&res, "reduce --op sum --bits --chunk %u --device pocl c.npy", k);
        assert_has_host_bits(&res, sum, x, NULL, N);
        run_piped(&res, x, sizeof x, "reduce --op max --bits --chunk %u "
                  "--device pocl --format raw --type f32 --mask c.mask "
                  "--mask-format raw", k);
        assert_has_host_bits(&res, max, x, mask, N);
    }
    /* A checked overflow through pieces: the status of one call. */
    const int64_t big[4] = { INT64_MAX, 1, -1, -1 };
    write_bytes("o.i64", big, sizeof big);
    run(&res, "reduce --op sum --type i64 --format raw --chunk 1 o.i64");
    assert_fails_with(&res, EXIT_NO_VALUE, "overflow");
    run(&res, "reduce --op sum --type i64 --format raw --chunk 3 --device "
        "pocl o.i64");
    assert_fails_with(&res, EXIT_NO_VALUE, "overflow");
}

/* As assert_has_host_bits(), for the dot product of x and y. */
static void assert_has_dot_bits(const run_result *res, sb_reduction r,
                                const void *x, const void *y,
                                const unsigned char *mask, size_t n)
{
    unsigned char want[8];
    assert_int_equal(sb_dot_host(r, x, y, mask, n, want), SB_OK);
    char line[128];
    expected_line(line, sizeof line, r, want);
    assert_int_equal(res->status, 0);
    assert_string_equal(res->out, line);
}

/* --map, --skip-nan and --dot give the bits of sb_reduce_host() and
 * sb_dot_host(), in one call and in pieces, from files and pipes. */
static void maps_skip_nan_and_dot_have_the_host_bits(void **state)
{
    (void)state;
    enum { N = 1003 };
    static float x[N], y[N];
    static unsigned char mask[N];
    write_cancelling_f32(x, N);
    for (size_t i = 0; i < N; i++) {
        y[i] = x[(i * 7) % N] * 0.75f - (float)(i % 5);
        mask[i] = (i / 16) % 4 != 1 && i % 5 != 0;
    }
    const uint32_t nan_bits = 0xFFC00001u;          /* a negative NaN */
    for (size_t i = 0; i < N; i += 37)
        memcpy(&x[i], &nan_bits, 4);
    for (size_t i = 16; i < 32; i++)                /* a whole leaf of NaN */
        memcpy(&y[i], &nan_bits, 4);
    write_bytes("m.f32", x, sizeof x);
    write_bytes("m2.f32", y, sizeof y);
    write_bytes("m.mask", mask, N);
    const sb_reduction asum = { .op = SB_SUM, .input = SB_F32,
                                .map = SB_MAP_ABS };
    const sb_reduction nrm2 = { .op = SB_SUM, .input = SB_F32,
                                .accumulator = SB_F64,
                                .flags = SB_SKIP_NAN, .map = SB_MAP_SQUARE };
    const sb_reduction amax = { .op = SB_MAX, .input = SB_F32,
                                .flags = SB_SKIP_NAN, .map = SB_MAP_ABS };
    const sb_reduction nanmin = { .op = SB_MIN, .input = SB_F32,
                                  .flags = SB_SKIP_NAN };
    const sb_reduction dot = { .op = SB_SUM, .input = SB_F32 };
    const sb_reduction nandot = { .op = SB_SUM, .input = SB_F32,
                                  .accumulator = SB_F64,
                                  .flags = SB_SKIP_NAN };
    const unsigned chunks[] = { 0, 1, 17, 256, 1000 };
    run_result res;
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        char chunk[32] = "";
        if (chunks[c] > 0)
            snprintf(chunk, sizeof chunk, "--chunk %u", chunks[c]);
        run(&res, "reduce --op sum --map abs --type f32 --format raw --bits "
            "%s m.f32", chunk);
        assert_has_host_bits(&res, asum, x, NULL, N);
        run(&res, "reduce --op sum --acc f64 --map square --skip-nan --type "
            "f32 --format raw --bits %s --mask m.mask --mask-format raw "
            "m.f32", chunk);
        assert_has_host_bits(&res, nrm2, x, mask, N);
        run(&res, "reduce --op max --map abs --skip-nan --type f32 --format "
            "raw --bits %s m.f32", chunk);
        assert_has_host_bits(&res, amax, x, NULL, N);
        run_piped(&res, x, sizeof x, "reduce --op min --skip-nan --type f32 "
                  "--format raw --bits %s", chunk);
        assert_has_host_bits(&res, nanmin, x, NULL, N);
        run(&res, "reduce --op sum --dot m2.f32 --type f32 --format raw "
            "--bits %s m.f32", chunk);
        assert_has_dot_bits(&res, dot, x, y, NULL, N);
        run_piped(&res, x, sizeof x, "reduce --op sum --acc f64 --skip-nan "
                  "--dot m2.f32 --type f32 --format raw --bits %s --mask "
                  "m.mask --mask-format raw", chunk);
        assert_has_dot_bits(&res, nandot, x, y, mask, N);
    }
    /* Combinations the library refuses, in the command's words. */
    run(&res, "reduce --op min --dot m2.f32 --type f32 --format raw m.f32");
    assert_fails_with(&res, EXIT_USAGE, "--dot is a sum of products");
    run(&res, "reduce --op sum --map abs --dot m2.f32 --type f32 --format "
        "raw m.f32");
    assert_fails_with(&res, EXIT_USAGE, "--dot takes no --map");
    run(&res, "reduce --op any --map square --type f32 --format raw m.f32");
    assert_fails_with(&res, EXIT_USAGE, "--map square is for sum, prod, min "
                      "and max, not any");
    run(&res, "reduce --op sum --skip-nan --type i32 --format raw m.f32");
    assert_fails_with(&res, EXIT_USAGE, "--skip-nan is for float input");
    run(&res, "reduce --op sum --map cube --type f32 --format raw m.f32");
    assert_fails_with(&res, EXIT_USAGE, "--map wants abs or square");
    run(&res, "reduce --op sum --dot-array y --type f32 --format raw m.f32");
    assert_fails_with(&res, EXIT_USAGE, "--dot-array is for the --dot file");
    /* The second factors must have the data's length and type. */
    write_bytes("short.f32", y, sizeof y - 4);
    run(&res, "reduce --op sum --dot short.f32 --type f32 --format raw "
        "m.f32");
    assert_fails_with(&res, EXIT_INPUT, "has 1002 elements, the data 1003");
    run_piped(&res, y, sizeof y - 4, "reduce --op sum --dot m.f32 --chunk "
              "100 --type f32 --format raw");
    assert_fails_with(&res, EXIT_INPUT, "has more elements than the data");
    const double d[2] = { 1.0, 2.0 };
    write_npy("d.npy", 1, "{'descr': '<f8', 'fortran_order': False, "
              "'shape': (2,), }", d, sizeof d);
    write_npy("m.npy", 1, "{'descr': '<f4', 'fortran_order': False, "
              "'shape': (1003,), }", x, sizeof x);
    run(&res, "reduce --op sum --dot d.npy m.npy");
    assert_fails_with(&res, EXIT_INPUT, "d.npy: the file holds f64");
}

/* On a terminal (script(1) gives the command one) a long input shows a
 * progress line on stderr, rewritten in place and cleared at the end;
 * SAMEBITS_PROGRESS_SECONDS=0 shows it from the first piece. Without a
 * terminal there is none (every other test checks stderr). */
static void a_terminal_shows_a_progress_line(void **state)
{
    (void)state;
    enum { N = 1 << 20 };
    static unsigned char x[N];
    uint64_t seed = 3;
    for (size_t i = 0; i < N; i++)
        x[i] = (unsigned char)next_random(&seed);
    write_bytes("p.u8", x, sizeof x);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && SAMEBITS_PROGRESS_SECONDS=0 script "
             "-qec \"'%s' reduce --op sum --type u8 --acc u64 --format raw "
             "--chunk 4096 p.u8\" /dev/null > tty.txt 2>&1", workdir,
             samebits);
    const int w = system(cmd);
    assert_true(WIFEXITED(w) && WEXITSTATUS(w) == 0);
    static char tty[1 << 16];
    slurp(path_of("tty.txt"), tty, sizeof tty);
    uint64_t sum = 0;
    for (size_t i = 0; i < N; i++)
        sum += x[i];
    char value[32];
    snprintf(value, sizeof value, "%" PRIu64, sum);
    printf("terminal output: %zu bytes, ends with %s", strlen(tty),
           tty + (strlen(tty) > 40 ? strlen(tty) - 40 : 0));
    assert_non_null(strstr(tty, "\rsamebits reduce: "));
    assert_non_null(strstr(tty, " of 0.00 GB ("));        /* 1 MB in all */
    assert_non_null(strstr(tty, "\r\033[K"));            /* cleared */
    assert_non_null(strstr(tty, value));
}

static void piped_inputs_that_do_not_add_up_are_refused(void **state)
{
    (void)state;
    enum { N = 3000 };
    static float x[N];
    write_cancelling_f32(x, N);
    unsigned char npy[1 << 15];
    const size_t size = npy_bytes(npy, sizeof npy, 1,
                                  "{'descr': '<f4', 'fortran_order': False, "
                                  "'shape': (3000,), }", x, sizeof x);
    run_result res;
    run_piped(&res, npy, size - 5, "reduce --op sum --chunk 100");
    assert_fails_with(&res, EXIT_INPUT, "truncated");
    unsigned char longer[sizeof npy + 4];
    memcpy(longer, npy, size);
    memcpy(longer + size, "\0\0\0\0", 4);
    run_piped(&res, longer, size + 4, "reduce --op sum --chunk 100");
    assert_fails_with(&res, EXIT_INPUT, "extra bytes at the end");
    run_piped(&res, x, sizeof x - 1, "reduce --op sum --chunk 100 --format "
              "raw --type f32");
    assert_fails_with(&res, EXIT_INPUT, "not a whole number of f32 elements");
    /* A mask that ends before the piped data, or goes on after them. */
    static unsigned char mask[N + 1];
    memset(mask, 1, sizeof mask);
    write_bytes("short.mask", mask, N - 1);
    write_bytes("long.mask", mask, N + 1);
    run_piped(&res, x, sizeof x, "reduce --op sum --chunk 100 --format raw "
              "--type f32 --mask short.mask --mask-format raw");
    assert_fails_with(&res, EXIT_INPUT, "fewer values than the data");
    run_piped(&res, x, sizeof x, "reduce --op sum --chunk 100 --format raw "
              "--type f32 --mask long.mask --mask-format raw");
    assert_fails_with(&res, EXIT_INPUT, "more values than the data");
    run(&res, "reduce --op sum --chunk 0 c.npy");
    assert_fails_with(&res, EXIT_USAGE, "--chunk wants");
}

static void a_device_gives_the_host_bits(void **state)
{
    (void)state;
    double x[5000];
    random_f64(x, 5000, 6);
    write_bytes("d.f64", x, sizeof x);
    const sb_reduction r = { .op = SB_SUM, .input = SB_F64 };
    assert_prints_host_bits("reduce --op sum --type f64 --format raw "
                            "--device pocl --bits d.f64", r, x, NULL, 5000);
}

/* ---- answers that are not values ---------------------------------------------- */

static void checked_overflow_is_one_line_and_status_1(void **state)
{
    (void)state;
    const int8_t x[3] = { 100, 100, 100 };
    write_bytes("o.i8", x, sizeof x);
    run_result res;
    run(&res, "reduce --op sum --type i8 --format raw o.i8");
    assert_fails_with(&res, EXIT_NO_VALUE, "overflow");
    assert_run_prints(&res, "44\n", "reduce --op sum --type i8 --format raw --wrap o.i8");
}

static void min_over_an_all_zero_mask_is_empty(void **state)
{
    (void)state;
    const double x[3] = { 1, 2, 3 };
    const unsigned char mask[3] = { 0, 0, 0 };
    write_bytes("e.f64", x, sizeof x);
    write_bytes("e.mask", mask, sizeof mask);
    run_result res;
    run(&res, "reduce --op min --type f64 --format raw --mask e.mask e.f64");
    assert_fails_with(&res, EXIT_NO_VALUE, "empty");
}

/* ---- bad inputs: one line, status 3, no crash ----------------------------------- */

static void unsupported_dtype_is_refused(void **state)
{
    (void)state;
    /* complex64: 8 bytes a number, no sb_type ('<f2' is f16 now). */
    const float pairs[8] = { 1, 0, 1, 0, 1, 0, 1, 0 };
    write_npy("c8.npy", 1, "{'descr': '<c8', 'fortran_order': False, "
              "'shape': (4,), }", pairs, sizeof pairs);
    run_result res;
    run(&res, "reduce --op sum c8.npy");
    assert_fails_with(&res, EXIT_INPUT, "dtype '<c8' is not supported");
}

static void big_endian_dtype_is_refused(void **state)
{
    (void)state;
    const double x[2] = { 1, 2 };
    write_npy("be.npy", 1, "{'descr': '>f8', 'fortran_order': False, "
              "'shape': (2,), }", x, sizeof x);
    run_result res;
    run(&res, "reduce --op sum be.npy");
    assert_fails_with(&res, EXIT_INPUT, "big-endian");
}

static void fortran_order_matrix_is_refused(void **state)
{
    (void)state;
    const double x[6] = { 1, 2, 3, 4, 5, 6 };
    write_npy("fo.npy", 1, "{'descr': '<f8', 'fortran_order': True, "
              "'shape': (2, 3), }", x, sizeof x);
    run_result res;
    run(&res, "reduce --op sum fo.npy");
    assert_fails_with(&res, EXIT_INPUT, "Fortran order");
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
    assert_fails_with(&res, EXIT_INPUT, "corrupt .npy header");
    /* No 'descr'. */
    write_npy("nodescr.npy", 1, "{'fortran_order': False, 'shape': (2,), }",
              x, sizeof x);
    run(&res, "reduce --op sum nodescr.npy");
    assert_fails_with(&res, EXIT_INPUT, "corrupt .npy header");
    /* A shape that is not a tuple of numbers. */
    write_npy("shape.npy", 1, "{'descr': '<f8', 'fortran_order': False, "
              "'shape': (two,), }", x, sizeof x);
    run(&res, "reduce --op sum shape.npy");
    assert_fails_with(&res, EXIT_INPUT, "bad 'shape'");
    /* Not a .npy at all, read as one. */
    write_bytes("fake.npy", "hello", 5);
    run(&res, "reduce --op sum --format npy fake.npy");
    assert_fails_with(&res, EXIT_INPUT, "not a .npy file");
    /* Data shorter than the shape says. */
    write_npy("short.npy", 1, "{'descr': '<f8', 'fortran_order': False, "
              "'shape': (3,), }", x, sizeof x);
    run(&res, "reduce --op sum short.npy");
    assert_fails_with(&res, EXIT_INPUT, "truncated");
}

static void npy_type_must_agree_with_the_type_option(void **state)
{
    (void)state;
    const double x[2] = { 1, 2 };
    write_npy("t.npy", 1, "{'descr': '<f8', 'fortran_order': False, "
              "'shape': (2,), }", x, sizeof x);
    run_result res;
    run(&res, "reduce --op sum --type f32 t.npy");
    assert_fails_with(&res, EXIT_INPUT, "not f32 as --type says");
}

static void truncated_raw_file_is_refused(void **state)
{
    (void)state;
    const unsigned char bytes[10] = { 0 };
    write_bytes("t.f64", bytes, sizeof bytes);
    run_result res;
    run(&res, "reduce --op sum --type f64 --format raw t.f64");
    assert_fails_with(&res, EXIT_INPUT,
                      "10 bytes is not a whole number of f64 elements");
}

static void malformed_text_names_its_line(void **state)
{
    (void)state;
    write_text("bad.txt", "1.5\n2.5\n\nthree\n4\n");
    run_result res;
    run(&res, "reduce --op sum --type f64 bad.txt");
    assert_fails_with(&res, EXIT_INPUT, "line 4: 'three' is not a number");
    write_text("range.txt", "1\n-129\n");
    run(&res, "reduce --op sum --type i8 range.txt");
    assert_fails_with(&res, EXIT_INPUT, "line 2: -129 is out of range for i8");
    write_text("neg.txt", "5\n-1\n");
    run(&res, "reduce --op sum --type u32 neg.txt");
    assert_fails_with(&res, EXIT_INPUT, "line 2: -1 is out of range for u32");
}

static void mask_of_the_wrong_length_is_refused(void **state)
{
    (void)state;
    const double x[4] = { 1, 2, 3, 4 };
    const unsigned char mask[3] = { 1, 1, 1 };
    write_bytes("m.f64", x, sizeof x);
    write_bytes("m.mask", mask, sizeof mask);
    run_result res;
    run(&res, "reduce --op sum --type f64 --format raw --mask m.mask m.f64");
    assert_fails_with(&res, EXIT_INPUT,
                      "the mask m.mask has 3 bytes, the data 4 elements");
}

static void npy_masks_are_bytes(void **state)
{
    (void)state;
    const double x[4] = { 1, 2, 4, 8 };
    const unsigned char keep[4] = { 1, 0, 1, 0 };
    const double wide[4] = { 1, 0, 1, 0 };
    write_npy("nm.npy", 1, f8_dict_4, x, sizeof x);
    write_npy("bool.npy", 1, "{'descr': '|b1', 'fortran_order': False, "
              "'shape': (4,), }", keep, sizeof keep);
    write_npy("f8mask.npy", 1, f8_dict_4, wide, sizeof wide);
    run_result res;
    assert_run_prints(&res, "5\n", "reduce --op sum --mask bool.npy nm.npy");
    run(&res, "reduce --op sum --mask f8mask.npy nm.npy");
    assert_fails_with(&res, EXIT_INPUT, "a mask is u1, i1 or b1");
}

static void missing_file_is_refused(void **state)
{
    (void)state;
    const double x[2] = { 1, 2 };
    write_bytes("x.f64", x, sizeof x);
    run_result res;
    run(&res, "reduce --op sum --type f64 no-such-file.f64");
    assert_fails_with(&res, EXIT_INPUT,
                      "no-such-file.f64: No such file or directory");
    run(&res, "reduce --op sum --type f64 --format raw --mask no-such-mask "
        "x.f64");
    assert_fails_with(&res, EXIT_INPUT, "no-such-mask: No such file or directory");
}

static void refused_accumulator_is_refused(void **state)
{
    (void)state;
    write_text("acc.txt", "1\n2\n");
    run_result res;
    run(&res, "reduce --op sum --type i32 --acc f32 acc.txt");
    assert_fails_with(&res, EXIT_USAGE, "i32 -> f32 is not an exact widening");
}

static void bad_command_lines_are_usage_errors(void **state)
{
    (void)state;
    run_result res;
    run(&res, "reduce --type f64 x.f64");
    assert_int_equal(res.status, EXIT_USAGE);
    run(&res, "reduce --op average --type f64 x.f64");
    assert_int_equal(res.status, EXIT_USAGE);
    run(&res, "reduce --op sum --type f128 x.f64");
    assert_int_equal(res.status, EXIT_USAGE);
    run(&res, "reduce --op sum --type f64 --format csv x.f64");
    assert_fails_with(&res, EXIT_USAGE, "--format wants auto, text, npy, npz "
                      "or raw");
    run(&res, "reduce --op sum --type f64 --mask-format raw x.f64");
    assert_fails_with(&res, EXIT_USAGE, "--mask-format is for the mask");
    run(&res, "reduce --op sum --type f64 --mask-array m x.f64");
    assert_fails_with(&res, EXIT_USAGE, "--mask-array is for the mask");
    run(&res, "reduce --op sum --type f64 --format raw --array x x.f64");
    assert_fails_with(&res, EXIT_USAGE, "--array picks an array of a .npz");
    run(&res, "reduce --op sum --type f64 --array '' x.f64");
    assert_fails_with(&res, EXIT_USAGE, "--array wants the name");
    run(&res, "reduce --op sum --type f64 --mask - < x.f64");
    assert_fails_with(&res, EXIT_USAGE, "cannot both come from standard input");
}

/* ---- --format auto: by content, never a guess ------------------------------------ */

static void text_on_standard_input_is_read_as_text(void **state)
{
    (void)state;
    run_result res;
    /* printf '1.5\n2.5\n' | samebits reduce --op sum --type f64 */
    run_piped(&res, "1.5\n2.5\n", 8, "reduce --op sum --type f64 --bits");
    assert_int_equal(res.status, 0);
    assert_string_equal(res.out, "4 0x4010000000000000\n");
    /* seq 1 4 | samebits reduce --op sum --type i32 */
    run_piped(&res, "1\n2\n3\n4\n", 8, "reduce --op sum --type i32 --bits -");
    assert_int_equal(res.status, 0);
    assert_string_equal(res.out, "10 0x0000000a\n");
    /* The same text redirected from a file (mapped, not piped). */
    write_text("seq.in", "1\n2\n3\n4\n");
    assert_run_prints(&res, "10\n", "reduce --op sum --type i32 - < seq.in");
}

static void text_file_without_extension_is_text(void **state)
{
    (void)state;
    double x[100];
    random_f64(x, 100, 7);
    FILE *f = fopen(path_of("numbers"), "w");
    assert_non_null(f);
    for (size_t i = 0; i < 100; i++)
        fprintf(f, "%.17g\n", x[i]);
    fclose(f);
    const sb_reduction r = { .op = SB_SUM, .input = SB_F64 };
    assert_prints_host_bits("reduce --op sum --type f64 --bits numbers", r, x,
                            NULL, 100);
}

static void commas_blanks_and_csv_columns_are_separators(void **state)
{
    (void)state;
    const double x[8] = { 1.5, -2, 0.25, 1e3, 7, -0.125, 3, 4 };
    const sb_reduction r = { .op = SB_SUM, .input = SB_F64 };
    run_result res;
    /* One comma-separated line. */
    write_text("line", "1.5,-2,0.25,1e3,7,-0.125,3,4\n");
    run(&res, "reduce --op sum --type f64 --bits line");
    assert_has_host_bits(&res, r, x, NULL, 8);
    /* Any mix of blanks and commas, a UTF-8 BOM, comments, no final newline. */
    write_text("mixed", "\xef\xbb\xbf# r\xc3\xa9sultats\n1.5 , -2\t0.25,\r\n\n"
               "  1e3 7 # sept\n-0.125,3,\t4");
    run(&res, "reduce --op sum --type f64 --bits mixed");
    assert_fails_with(&res, EXIT_INPUT, "mixed, line 2: a comma with no "
                      "number after it");
    write_text("mixed", "\xef\xbb\xbf# r\xc3\xa9sultats\n1.5 , -2\t0.25\r\n\n"
               "  1e3 7 # sept\n-0.125,3,\t4");
    run(&res, "reduce --op sum --type f64 --bits mixed");
    assert_has_host_bits(&res, r, x, NULL, 8);
    /* A CSV column, CRLF, with its header commented out. */
    write_text("col.csv", "# value\r\n1.5\r\n-2\r\n0.25\r\n1e3\r\n7\r\n"
               "-0.125\r\n3\r\n4\r\n");
    run(&res, "reduce --op sum --type f64 --bits col.csv");
    assert_has_host_bits(&res, r, x, NULL, 8);
    /* A header left in: the first line is no number, and says why. */
    write_text("head.csv", "value\n1.5\n");
    run(&res, "reduce --op sum --type f64 head.csv");
    assert_fails_with(&res, EXIT_INPUT, "line 1: 'value' is not a number "
                      "(a header line? start it with #)");
    /* Empty fields are errors, with their line. */
    write_text("empty.csv", "1,2\n3,,4\n");
    run(&res, "reduce --op sum --type f64 empty.csv");
    assert_fails_with(&res, EXIT_INPUT, "line 2: an empty field");
    write_text("lead.csv", "1\n2\n,3\n");
    run(&res, "reduce --op sum --type i64 lead.csv");
    assert_fails_with(&res, EXIT_INPUT, "line 3: a comma with no number "
                      "before it");
}

static void integers_in_text_are_whole_decimal_numbers(void **state)
{
    (void)state;
    run_result res;
    write_text("ints", "1.0\n");
    run(&res, "reduce --op sum --type i32 ints");
    assert_fails_with(&res, EXIT_INPUT, "line 1: '1.0' is not an integer");
    write_text("ints", "5\n1e3\n");
    run(&res, "reduce --op sum --type u16 ints");
    assert_fails_with(&res, EXIT_INPUT, "line 2: '1e3' is not an integer");
    write_text("ints", "0x10\n");
    run(&res, "reduce --op sum --type i64 ints");
    assert_fails_with(&res, EXIT_INPUT, "'0x10' is not an integer");
    write_text("ints", "-0 +7 007\n18446744073709551615\n");
    assert_run_prints(&res, "18446744073709551615\n", "reduce --op max --type u64 ints");
    write_text("ints", "18446744073709551616\n");
    run(&res, "reduce --op max --type u64 ints");
    assert_fails_with(&res, EXIT_INPUT, "line 1: 18446744073709551616 is out "
                      "of range for u64");
    write_text("ints", "-9223372036854775808 -7\n");
    assert_run_prints(&res, "-9223372036854775808\n", "reduce --op min --type i64 ints");
}

static void floats_beyond_the_largest_finite_are_refused(void **state)
{
    (void)state;
    run_result res;
    write_text("big64", "1\n2\n1e400\n");
    run(&res, "reduce --op sum --type f64 big64");
    assert_fails_with(&res, EXIT_INPUT, "big64, line 3: 1e400 is out of range "
                      "for f64 (largest finite 1.7976931348623157e+308)");
    write_text("big64", "-1e309\n");
    run(&res, "reduce --op sum --type f64 big64");
    assert_fails_with(&res, EXIT_INPUT, "line 1: -1e309 is out of range for f64");
    write_text("big32", "1.5\n3.4e39\n");
    run(&res, "reduce --op sum --type f32 big32");
    assert_fails_with(&res, EXIT_INPUT, "big32, line 2: 3.4e39 is out of range "
                      "for f32 (largest finite 3.40282347e+38)");
    /* The largest finite values themselves, and inf, are values. */
    write_text("max32", "3.40282347e38\n");
    assert_run_prints(&res, "3.40282347e+38 0x7f7fffff\n", "reduce --op max --type f32 --bits max32");
    write_text("inf", "1\ninf\n-inf\n");
    assert_run_prints(&res, "inf 0x7ff0000000000000\n", "reduce --op max --type f64 --bits inf");
    assert_run_prints(&res, "-inf 0xff800000\n", "reduce --op min --type f32 --bits inf");
}

/* Reduces the one number `literal` (max of one element: the element) and
 * checks that it reads as exactly `want`, a value written as a hex-float
 * literal: the expected bits do not come from strtod. */
static void assert_f64_literal(const char *literal, double want)
{
    write_text("literal", literal);
    const sb_reduction r = { .op = SB_MAX, .input = SB_F64 };
    run_result res;
    run(&res, "reduce --op max --type f64 --bits literal");
    assert_has_host_bits(&res, r, &want, NULL, 1);
}

static void assert_f32_literal(const char *literal, float want)
{
    write_text("literal", literal);
    const sb_reduction r = { .op = SB_MAX, .input = SB_F32 };
    run_result res;
    run(&res, "reduce --op max --type f32 --bits literal");
    assert_has_host_bits(&res, r, &want, NULL, 1);
}

static void subnormal_literals_round_correctly(void **state)
{
    (void)state;
    /* The expected values are round(x / 2^-1074) and round(x / 2^-149),
     * computed in exact integer arithmetic. */
    assert_f64_literal("1e-310", 0x12688b70e62bp-1074);
    assert_f64_literal("4.9e-324", 0x1p-1074);      /* the smallest */
    assert_f64_literal("2.5e-324", 0x1p-1074);      /* above half of it */
    assert_f64_literal("2.4e-324", 0.0);            /* below half */
    assert_f64_literal("-4.9e-324", -0x1p-1074);
    assert_f64_literal("1e-400", 0.0);
    assert_f64_literal("2.2250738585072009e-308", 0xfffffffffffffp-1074);
    assert_f32_literal("1e-45", 0x1p-149f);          /* the smallest */
    assert_f32_literal("7.1e-46", 0x1p-149f);        /* above half of it */
    assert_f32_literal("7e-46", 0.0f);               /* below 2^-150 */
    assert_f32_literal("2e-46", 0.0f);
    assert_f32_literal("1e-40", 0x116c2p-149f);
    assert_f32_literal("1.1754942e-38", 0x7fffffp-149f);  /* the largest */
    assert_f32_literal("1e-310", 0.0f);
    /* Exactly 2^-150, half the smallest f32: the tie goes to even, 0; a
     * hair above it rounds up. strtod then a cast would give 2^-150 for
     * both, then 0: rounding twice. */
    assert_f32_literal("7.00649232162408535461864791644958065640130970938257885"
                       "878534141944895541342930300743319094181060791015625e-46",
                       0.0f);
    assert_f32_literal("7.00649232162408535461864791644958065640130970938257885"
                       "8785341419448955413429303007433190941810607910156250001"
                       "e-46", 0x1p-149f);
    /* The same in the normal range: 1 + 2^-24 (a tie) plus a hair. */
    assert_f32_literal("1.0000000596046447753906250000000001", 0x1.000002p0f);
    assert_f32_literal("0x1.000001p0", 1.0f);        /* a hex tie: even */
}

static void raw_binary_is_refused_unless_format_raw(void **state)
{
    (void)state;
    double x[64];
    random_f64(x, 64, 8);
    write_bytes("data", x, sizeof x);
    run_result res;
    run(&res, "reduce --op sum --type f64 data");
    assert_fails_with(&res, EXIT_INPUT, "binary data of unknown format");
    assert_non_null(strstr(res.err, "if it holds raw little-endian f64 "
                           "elements, give --format raw"));
    run_piped(&res, x, sizeof x, "reduce --op sum --type f64");
    assert_fails_with(&res, EXIT_INPUT, "standard input: binary data of "
                      "unknown format");
    run(&res, "reduce --op sum data");
    assert_fails_with(&res, EXIT_INPUT, "give --format raw and --type");
    const sb_reduction r = { .op = SB_SUM, .input = SB_F64 };
    assert_prints_host_bits("reduce --op sum --type f64 --format raw --bits "
                            "data", r, x, NULL, 64);
    /* Known binary formats are named. */
    const unsigned char gz[12] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
    write_bytes("data.gz", gz, sizeof gz);
    run(&res, "reduce --op sum --type f64 data.gz");
    assert_fails_with(&res, EXIT_INPUT, "looks like gzip-compressed data");
    const unsigned char h5[16] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };
    write_bytes("data.h5", h5, sizeof h5);
    run(&res, "reduce --op sum --type f64 data.h5");
    assert_fails_with(&res, EXIT_INPUT, "looks like an HDF5 file");
    /* A text file with one byte that is no text says where it is. */
    write_text("latin1", "1\n2\n\xe9t\xe9\n");
    run(&res, "reduce --op sum --type f64 latin1");
    assert_fails_with(&res, EXIT_INPUT, "byte 0xe9 at offset 4, line 3");
}

static void text_that_is_not_numbers_suggests_format_raw(void **state)
{
    (void)state;
    /* Three i8 elements of 100: the bytes "ddd" are text, but no number. */
    const int8_t x[3] = { 100, 100, 100 };
    write_bytes("ddd", x, sizeof x);
    run_result res;
    run(&res, "reduce --op sum --type i8 --wrap ddd");
    assert_fails_with(&res, EXIT_INPUT, "line 1: 'ddd' is not an integer");
    assert_non_null(strstr(res.err, "if the file holds raw binary data, give "
                           "--format raw"));
    assert_run_prints(&res, "44\n", "reduce --op sum --type i8 --wrap --format raw ddd");
    /* Given --format text, no such hint. */
    run(&res, "reduce --op sum --type i8 --format text ddd");
    assert_fails_with(&res, EXIT_INPUT, "'ddd' is not an integer");
    assert_null(strstr(res.err, "--format raw"));
}

static void the_name_decides_nothing(void **state)
{
    (void)state;
    const double x[4] = { 1, 2, 4, 8 };
    run_result res;
    /* A .npy named .f64, and text named .f64: content decides. */
    write_npy("npy.f64", 1, f8_dict_4, x, sizeof x);
    assert_run_prints(&res, "15\n", "reduce --op sum npy.f64");
    write_text("text.f64", "1 2 4 8\n");
    assert_run_prints(&res, "15\n", "reduce --op sum --type f64 text.f64");
    /* But a .npy or .npz name on what is no NumPy file (an empty file left
     * by a failed save) is refused, not read as zero numbers. */
    write_bytes("empty.npy", "", 0);
    run(&res, "reduce --op sum --type f64 empty.npy");
    assert_fails_with(&res, EXIT_INPUT, "empty.npy: empty, but the name says "
                      ".npy");
    write_text("text.npz", "1 2\n");
    run(&res, "reduce --op sum --type f64 text.npz");
    assert_fails_with(&res, EXIT_INPUT, "but the name says .npz");
    /* An empty file otherwise is empty text: nothing to reduce. */
    write_bytes("empty", "", 0);
    run(&res, "reduce --op max --type f64 empty");
    assert_fails_with(&res, EXIT_NO_VALUE, "empty");
    /* The format given explicitly wins, and says what is wrong. */
    run(&res, "reduce --op sum --format npz npy.f64");
    assert_fails_with(&res, EXIT_INPUT, "npy.f64: not a .npz file (no zip "
                      "header): a .npy, so --format npy?");
    run(&res, "reduce --op sum --array x npy.f64");
    assert_fails_with(&res, EXIT_INPUT, "--array NAME picks an array of a .npz "
                      "archive, and this is a .npy file");
}

static void npy_and_npz_on_standard_input(void **state)
{
    (void)state;
    double x[4] = { 1, 2, 4, 8.5 };
    unsigned char npy[256], zip[1024];
    const size_t n = npy_bytes(npy, sizeof npy, 1, f8_dict_4, x, sizeof x);
    const zip_member m[1] = { { "arr_0.npy", npy, n, 0 } };
    const size_t z = zip_bytes(zip, sizeof zip, m, 1);
    run_result res;
    run_piped(&res, npy, n, "reduce --op sum");
    assert_int_equal(res.status, 0);
    assert_string_equal(res.out, "15.5\n");
    run_piped(&res, zip, z, "reduce --op sum -");
    assert_int_equal(res.status, 0);
    assert_string_equal(res.out, "15.5\n");
}

/* ---- .npz --------------------------------------------------------------------- */

static void npz_with_one_stored_array(void **state)
{
    (void)state;
    double x[500];
    random_f64(x, 500, 9);
    static unsigned char npy[8192], zip[16384];
    const size_t n = npy_bytes(npy, sizeof npy, 1, "{'descr': '<f8', "
                               "'fortran_order': False, 'shape': (500,), }",
                               x, sizeof x);
    /* "arr_0.npy": np.savez(f, x); the member's data starts at an odd
     * offset of the file, so it is copied to be aligned. */
    const zip_member m[1] = { { "arr_0.npy", npy, n, 0 } };
    write_bytes("one.npz", zip, zip_bytes(zip, sizeof zip, m, 1));
    const sb_reduction r = { .op = SB_SUM, .input = SB_F64 };
    assert_prints_host_bits("reduce --op sum --bits one.npz", r, x, NULL, 500);
    assert_prints_host_bits("reduce --op sum --array arr_0 --bits one.npz", r,
                            x, NULL, 500);
    /* Content decides: a .npz under any name. */
    write_bytes("one.zip", zip, zip_bytes(zip, sizeof zip, m, 1));
    assert_prints_host_bits("reduce --op sum --type f64 --bits one.zip", r, x,
                            NULL, 500);
}

static void npz_with_several_arrays_needs_array(void **state)
{
    (void)state;
    const double x[4] = { 1, 2, 4, 8 };
    const int32_t y[4] = { -1, 5, 7, 100 };
    const unsigned char keep[4] = { 1, 0, 0, 1 };
    static unsigned char npy[3][256], zip[4096];
    const size_t nx = npy_bytes(npy[0], 256, 1, f8_dict_4, x, sizeof x);
    const size_t ny = npy_bytes(npy[1], 256, 1, "{'descr': '<i4', "
                                "'fortran_order': False, 'shape': (4,), }",
                                y, sizeof y);
    const size_t nm = npy_bytes(npy[2], 256, 1, "{'descr': '|b1', "
                                "'fortran_order': False, 'shape': (4,), }",
                                keep, sizeof keep);
    const zip_member m[3] = { { "x.npy", npy[0], nx, 0 },
                              { "y.npy", npy[1], ny, 0 },
                              { "mask.npy", npy[2], nm, 0 } };
    write_bytes("three.npz", zip, zip_bytes(zip, sizeof zip, m, 3));
    run_result res;
    run(&res, "reduce --op sum three.npz");
    assert_fails_with(&res, EXIT_INPUT, "three.npz holds 3 arrays (x, y, mask): "
                      "give --array NAME");
    assert_run_prints(&res, "111\n", "reduce --op sum --array y three.npz");
    assert_run_prints(&res, "15\n", "reduce --op sum --array x.npy three.npz");
    run(&res, "reduce --op sum --array z three.npz");
    assert_fails_with(&res, EXIT_INPUT, "three.npz has no array 'z' (it holds "
                      "x, y, mask)");
    /* The mask from the same archive, and the mask's own errors. */
    assert_run_prints(&res, "9\n", "reduce --op sum --array x --mask three.npz --mask-array mask "
        "three.npz");
    run(&res, "reduce --op sum --array x --mask three.npz three.npz");
    assert_fails_with(&res, EXIT_INPUT, "mask three.npz holds 3 arrays (x, y, "
                      "mask): give --mask-array NAME");
    run(&res, "reduce --op sum --array x --mask three.npz --mask-array x "
        "three.npz");
    assert_fails_with(&res, EXIT_INPUT, "three.npz[x]: dtype '<f8' is not "
                      "supported (a mask is u1, i1 or b1)");
    /* An archive of no .npy at all is no .npz. */
    const zip_member other[1] = { { "notes.txt", (const unsigned char *)"hi",
                                    2, 0 } };
    write_bytes("other.zip", zip, zip_bytes(zip, sizeof zip, other, 1));
    run(&res, "reduce --op sum other.zip");
    assert_fails_with(&res, EXIT_INPUT, "a zip archive, but not a .npz: none "
                      "of its 1 member (notes.txt) is a .npy file");
    write_bytes("nothing.npz", zip, zip_bytes(zip, sizeof zip, other, 0));
    run(&res, "reduce --op sum nothing.npz");
    assert_fails_with(&res, EXIT_INPUT, "an empty zip archive");
}

static void npz_with_a_deflated_array(void **state)
{
    (void)state;
    double x[1000];
    for (size_t i = 0; i < 1000; i++)      /* compressible: few distinct */
        x[i] = (double)(i % 10) * 0.1;
    static unsigned char npy[16384], zip[32768];
    const size_t n = npy_bytes(npy, sizeof npy, 1, "{'descr': '<f8', "
                               "'fortran_order': False, 'shape': (1000,), }",
                               x, sizeof x);
    const zip_member m[2] = { { "x.npy", npy, n, 1 },
                              { "y.npy", npy, n, 0 } };
    const size_t size = zip_bytes(zip, sizeof zip, m, 2);
    write_bytes("deflated.npz", zip, size);
    const sb_reduction r = { .op = SB_SUM, .input = SB_F64 };
#ifdef SB_TEST_HAVE_ZLIB
    assert_true(size < n + 2000);          /* x really is compressed */
    assert_prints_host_bits("reduce --op sum --array x --bits deflated.npz", r,
                            x, NULL, 1000);
    run_result res;
    run_piped(&res, zip, size, "reduce --op sum --array x --bits");
    assert_has_host_bits(&res, r, x, NULL, 1000);
#else
    run_result res;
    run(&res, "reduce --op sum --array x deflated.npz");
    assert_fails_with(&res, EXIT_INPUT, "compressed .npz members need zlib");
#endif
    assert_prints_host_bits("reduce --op sum --array y --bits deflated.npz", r,
                            x, NULL, 1000);
}

static void corrupt_or_truncated_npz_is_refused(void **state)
{
    (void)state;
    const double x[4] = { 1, 2, 4, 8 };
    unsigned char npy[256], zip[1024], bad[1024];
    const size_t n = npy_bytes(npy, sizeof npy, 1, f8_dict_4, x, sizeof x);
    const zip_member m[2] = { { "x.npy", npy, n, 0 }, { "y.npy", npy, n, 1 } };
    const size_t size = zip_bytes(zip, sizeof zip, m, 2);
    run_result res;
    /* Every prefix of the archive: an error, never a crash or a value. */
    for (size_t cut = 4; cut < size; cut += cut < 40 || cut > size - 40 ? 1 : 13) {
        write_bytes("cut.npz", zip, cut);
        run(&res, "reduce --op sum --array x cut.npz");
        assert_fails_with(&res, EXIT_INPUT, "cut.npz");
    }
    write_bytes("cut.npz", zip, size - 1);
    run(&res, "reduce --op sum --array x cut.npz");
    assert_fails_with(&res, EXIT_INPUT, "without its end-of-central-directory "
                      "record: truncated?");
    /* Offsets and sizes that point outside the file. */
    const size_t eocd = size - 22, dir = eocd - (46 + 5) * 2;
    memcpy(bad, zip, size);
    put32(bad + eocd + 16, 0x7fffffff);            /* directory offset */
    write_bytes("bad.npz", bad, size);
    run(&res, "reduce --op sum --array x bad.npz");
    assert_fails_with(&res, EXIT_INPUT, "its central directory");
    memcpy(bad, zip, size);
    put32(bad + dir + 42, 0xfffffff0u);            /* x's local header */
    write_bytes("bad.npz", bad, size);
    run(&res, "reduce --op sum --array x bad.npz");
    assert_fails_with(&res, EXIT_INPUT, "no local header");
    memcpy(bad, zip, size);
    put32(bad + dir + 20, 0x7ffffff0u);            /* x's compressed size */
    put32(bad + dir + 24, 0x7ffffff0u);
    write_bytes("bad.npz", bad, size);
    run(&res, "reduce --op sum --array x bad.npz");
    assert_fails_with(&res, EXIT_INPUT, "run past the end of the file");
    memcpy(bad, zip, size);
    put16(bad + dir + 28, 0xffff);                 /* x's name length */
    write_bytes("bad.npz", bad, size);
    run(&res, "reduce --op sum --array x bad.npz");
    assert_fails_with(&res, EXIT_INPUT, "corrupt zip archive");
    memcpy(bad, zip, size);
    put32(bad + eocd + 16, 0xffffffffu);           /* ZIP64, but no locator */
    write_bytes("bad.npz", bad, size);
    run(&res, "reduce --op sum --array x bad.npz");
    assert_fails_with(&res, EXIT_INPUT, "ZIP64 end-of-central-directory locator");
    /* What the reader does not do is said plainly. */
    memcpy(bad, zip, size);
    put16(bad + dir + 8, 1);                       /* encrypted */
    write_bytes("bad.npz", bad, size);
    run(&res, "reduce --op sum --array x bad.npz");
    assert_fails_with(&res, EXIT_INPUT, "bad.npz[x]: the member is encrypted");
    memcpy(bad, zip, size);
    put16(bad + dir + 10, 12);                     /* bzip2 */
    write_bytes("bad.npz", bad, size);
    run(&res, "reduce --op sum --array x bad.npz");
    assert_fails_with(&res, EXIT_INPUT, "compression method 12 (bzip2) is not "
                      "supported");
#ifdef SB_TEST_HAVE_ZLIB
    /* A deflated member whose stream is cut in the middle. */
    memcpy(bad, zip, size);
    const size_t y_dir = dir + 46 + 5;
    const uint32_t y_csize = (uint32_t)bad[y_dir + 20] | (uint32_t)bad[y_dir + 21] << 8;
    put32(bad + y_dir + 20, y_csize / 2);
    write_bytes("bad.npz", bad, size);
    run(&res, "reduce --op sum --array y bad.npz");
    assert_fails_with(&res, EXIT_INPUT, "bad.npz[y]: corrupt zip archive");
#endif
}

static void npz_crc_mismatch_is_refused(void **state)
{
    (void)state;
    const double x[4] = { 1, 2, 4, 8 };
    unsigned char npy[256], zip[1024];
    const size_t n = npy_bytes(npy, sizeof npy, 1, f8_dict_4, x, sizeof x);
    const zip_member m[2] = { { "x.npy", npy, n, 0 }, { "y.npy", npy, n, 1 } };
    const size_t size = zip_bytes(zip, sizeof zip, m, 2);
    /* One bit of x's last element flipped: still a valid .npy. */
    const size_t x_last = 30 + 5 + n - 1;
    zip[x_last] ^= 0x01;
    write_bytes("crc.npz", zip, size);
    run_result res;
    run(&res, "reduce --op sum --array x crc.npz");
    assert_fails_with(&res, EXIT_INPUT, "crc.npz[x]: CRC-32 mismatch");
    zip[x_last] ^= 0x01;
#ifdef SB_TEST_HAVE_ZLIB
    /* The CRC of the deflated member is of its inflated bytes. */
    const size_t y_dir = size - 22 - (46 + 5);
    zip[y_dir + 16] ^= 0x80;
    write_bytes("crc.npz", zip, size);
    run(&res, "reduce --op sum --array y crc.npz");
    assert_fails_with(&res, EXIT_INPUT, "crc.npz[y]: CRC-32 mismatch");
#endif
}

static void npz_zip64_records_are_read(void **state)
{
    (void)state;
    const double x[4] = { 1, 2, 4, 8.5 };
    const int32_t y[4] = { -1, 5, 7, 100 };
    unsigned char npy[2][256], zip[2048];
    const size_t nx = npy_bytes(npy[0], 256, 1, f8_dict_4, x, sizeof x);
    const size_t ny = npy_bytes(npy[1], 256, 1, "{'descr': '<i4', "
                                "'fortran_order': False, 'shape': (4,), }",
                                y, sizeof y);
    const zip_member m[2] = { { "x.npy", npy[0], nx, 0 },
                              { "y.npy", npy[1], ny, 1 } };
    const size_t size = zip_bytes_64(zip, sizeof zip, m, 2, 1);
    write_bytes("zip64.npz", zip, size);
    run_result res;
    assert_run_prints(&res, "15.5\n", "reduce --op sum --array x zip64.npz");
    run(&res, "reduce --op sum --array y zip64.npz");
#ifdef SB_TEST_HAVE_ZLIB
    assert_int_equal(res.status, 0);
    assert_string_equal(res.out, "111\n");
#else
    assert_fails_with(&res, EXIT_INPUT, "compressed .npz members need zlib");
#endif
    run(&res, "reduce --op sum zip64.npz");
    assert_fails_with(&res, EXIT_INPUT, "zip64.npz holds 2 arrays (x, y)");
    /* A ZIP64 end record that points outside the file, and an extra field
     * cut short. */
    unsigned char bad[2048];
    const size_t locator = size - 22 - 20;
    memcpy(bad, zip, size);
    put64(bad + locator + 8, UINT64_C(0xFFFFFFFFFFFFFF00));
    write_bytes("bad64.npz", bad, size);
    run(&res, "reduce --op sum --array x bad64.npz");
    assert_fails_with(&res, EXIT_INPUT, "bad ZIP64 end-of-central-directory "
                      "record");
    memcpy(bad, zip, size);
    const size_t dir = locator - 56 - 2 * (46 + 5 + 28);
    put16(bad + dir + 46 + 5 + 2, 8);       /* x's ZIP64 field: 8 bytes */
    write_bytes("bad64.npz", bad, size);
    run(&res, "reduce --op sum --array x bad64.npz");
    assert_fails_with(&res, EXIT_INPUT, "ZIP64 sizes are missing");
}

/* ---- masks in every format --------------------------------------------------- */

static void text_masks_are_integers(void **state)
{
    (void)state;
    const double x[6] = { 1, 2, 4, 8, 16, 32 };
    write_npy("six.npy", 1, "{'descr': '<f8', 'fortran_order': False, "
              "'shape': (6,), }", x, sizeof x);
    run_result res;
    write_text("keep.txt", "1\n0\n1\n0\n0\n1\n");
    assert_run_prints(&res, "37\n", "reduce --op sum --mask keep.txt six.npy");
    write_text("keep", "0, 1, 1, 0, 255, 0\n");         /* any non-zero */
    assert_run_prints(&res, "22\n", "reduce --op sum --mask keep six.npy");
    write_text("keep", "0\n1\n256\n");
    run(&res, "reduce --op sum --mask keep six.npy");
    assert_fails_with(&res, EXIT_INPUT, "mask keep, line 3: 256 is out of range");
    write_text("keep", "1\n0\n1\n");
    run(&res, "reduce --op sum --mask keep six.npy");
    assert_fails_with(&res, EXIT_INPUT, "the mask keep has 3 values, the data 6 "
                      "elements");
    /* Text given as raw is its bytes: the length tells. */
    write_text("keep", "1\n0\n1\n");
    assert_run_prints(&res, "63\n", "reduce --op sum --mask keep --mask-format raw six.npy");
}

static void bool_npy_data_for_any_and_all(void **state)
{
    (void)state;
    const unsigned char flags[5] = { 0, 1, 1, 0, 1 };
    const unsigned char none[3] = { 0, 0, 0 };
    const char *dict5 = "{'descr': '|b1', 'fortran_order': False, "
                        "'shape': (5,), }";
    write_npy("flags.npy", 1, dict5, flags, sizeof flags);
    write_npy("none.npy", 1, "{'descr': '|b1', 'fortran_order': False, "
              "'shape': (3,), }", none, sizeof none);
    run_result res;
    assert_run_prints(&res, "1 0x01\n", "reduce --op any --bits flags.npy");
    assert_run_prints(&res, "0\n", "reduce --op all flags.npy");
    assert_run_prints(&res, "0\n", "reduce --op any none.npy");
    run(&res, "reduce --op sum --acc u32 flags.npy");   /* a count */
    assert_int_equal(res.status, 0);
    assert_string_equal(res.out, "3\n");
    run(&res, "reduce --op sum --type i8 flags.npy");
    assert_fails_with(&res, EXIT_INPUT, "holds u8 (dtype '|b1'), not i8");
    /* all over the elements a bool .npy mask keeps. */
    const unsigned char keep[5] = { 0, 1, 1, 0, 1 };
    write_npy("keep5.npy", 1, dict5, keep, sizeof keep);
    assert_run_prints(&res, "1\n", "reduce --op all --mask keep5.npy flags.npy");
}

static void raw_masks_of_zeros_and_ones_are_detected(void **state)
{
    (void)state;
    const double x[4] = { 1, 2, 4, 8 };
    write_npy("four.npy", 1, f8_dict_4, x, sizeof x);
    /* Bytes 0 and 1 are no text, .npy or zip: raw, whatever the name. */
    const unsigned char keep[4] = { 1, 0, 1, 1 };
    write_bytes("keep01.txt", keep, sizeof keep);
    run_result res;
    assert_run_prints(&res, "13\n", "reduce --op sum --mask keep01.txt four.npy");
    run_piped(&res, keep, sizeof keep, "reduce --op sum --mask - four.npy");
    assert_int_equal(res.status, 0);
    assert_string_equal(res.out, "13\n");
}

static void other_binary_masks_need_mask_format_raw(void **state)
{
    (void)state;
    const double x[4] = { 1, 2, 4, 8 };
    write_npy("four.npy", 1, f8_dict_4, x, sizeof x);
    const unsigned char keep[4] = { 0, 2, 1, 0x80 };
    write_bytes("keep.bin", keep, sizeof keep);
    run_result res;
    run(&res, "reduce --op sum --mask keep.bin four.npy");
    assert_fails_with(&res, EXIT_INPUT, "mask keep.bin: binary data of unknown "
                      "format");
    assert_non_null(strstr(res.err, "give --mask-format raw"));
    assert_run_prints(&res, "14\n", "reduce --op sum --mask keep.bin --mask-format raw four.npy");
}

/* ---- samebits check --dump ------------------------------------------------------ */

/* The golden "<bits> <status>" of case `id`. */
static void golden_result(const char *id, char *bits, size_t bits_size,
                          char *status, size_t status_size)
{
    FILE *f = fopen(golden, "r");
    assert_non_null(f);
    char line[256];
    int found = 0;
    while (!found && fgets(line, sizeof line, f) != NULL) {
        char case_id[160], b[64], s[64];
        if (line[0] != '#' && sscanf(line, "%159s %63s %63s", case_id, b, s) == 3
                && strcmp(case_id, id) == 0) {
            snprintf(bits, bits_size, "%s", b);
            snprintf(status, status_size, "%s", s);
            found = 1;
        }
    }
    fclose(f);
    if (!found)
        fail_msg("no golden line for %s in %s", id, golden);
}

/* Dumps case `id`, runs the command that --dump prints (with this
 * samebits), and compares with the golden result. */
static void assert_dump_replays(const char *id)
{
    run_result res;
    run(&res, "check --dump %s", id);
    assert_int_equal(res.status, 0);
    const char *prefix = "samebits reduce ";
    assert_memory_equal(res.out, prefix, strlen(prefix));
    assert_non_null(strstr(res.out, " --format raw"));
    char command[sizeof res.out];
    memcpy(command, res.out + strlen("samebits "),
           strlen(res.out) - strlen("samebits ") + 1);
    command[strcspn(command, "\n")] = '\0';
    char bits[64], status[64];
    golden_result(id, bits, sizeof bits, status, sizeof status);
    run(&res, "%s", command);
    if (strcmp(status, "ok") == 0) {
        assert_int_equal(res.status, 0);
        const char *got = strchr(res.out, ' ');     /* "<value> <bits>" */
        assert_non_null(got);
        char want[80];
        snprintf(want, sizeof want, " %s\n", bits);
        assert_string_equal(got, want);
    } else {
        assert_fails_with(&res, EXIT_NO_VALUE, status);
    }
}

/* A batch (corpus part 7): its dump's `reduce --segments` command prints
 * one line per reduction, each the golden line <id>/<b>'s answer: its
 * bits (an argmin/argmax's value bits and "at index" its position), or
 * its status word. */
static void assert_batch_dump_replays(const char *id, size_t count)
{
    run_result res;
    run(&res, "check --dump %s", id);
    assert_int_equal(res.status, 0);
    assert_non_null(strstr(res.out, " --segments "));
    const char *prefix = "samebits reduce ";
    assert_memory_equal(res.out, prefix, strlen(prefix));
    char command[sizeof res.out];
    memcpy(command, res.out + strlen("samebits "),
           strlen(res.out) - strlen("samebits ") + 1);
    command[strcspn(command, "\n")] = '\0';
    run(&res, "%s", command);
    const char *line = res.out;
    size_t none = 0;
    for (size_t b = 0; b < count; b++) {
        char answer[200], bits[64], status[64];
        snprintf(answer, sizeof answer, "%s/%zu", id, b);
        golden_result(answer, bits, sizeof bits, status, sizeof status);
        const char *end = strchr(line, '\n');
        assert_non_null(end);
        char got[200];
        snprintf(got, sizeof got, "%.*s", (int)(end - line), line);
        char *at = strchr(bits, '@');
        if (strcmp(status, "ok") != 0) {
            none++;
            assert_string_equal(got, status);
        } else if (at != NULL) {
            *at = '\0';
            char index[48];
            snprintf(index, sizeof index, " at index %s ", at + 1);
            assert_non_null(strstr(got, index));
            assert_string_equal(got + strlen(got) - strlen(bits), bits);
        } else {
            const char *space = strchr(got, ' ');   /* "<value> <bits>" */
            assert_non_null(space);
            assert_string_equal(space + 1, bits);
        }
        line = end + 1;
    }
    assert_string_equal(line, "");
    assert_int_equal(res.status, none > 0 ? EXIT_NO_VALUE : 0);
}

static void dump_prints_a_command_that_replays_the_case(void **state)
{
    (void)state;
    /* A mask of bytes 1..255 (not only 0/1: it needs --mask-format raw),
     * a float case, one with no mask, one that overflows. */
    assert_dump_replays("sum.i8.i64.huge_range.dense.n4096");
    run_result res;
    run(&res, "check --dump sum.i8.i64.huge_range.dense.n4096");
    assert_non_null(strstr(res.out, " --mask-format raw"));
    assert_dump_replays("sum.i8.i8.wrap.limits.half.n17");
    assert_dump_replays("sum.i8.i64.uniform.nomask.n32");
    assert_dump_replays("sum.i8.i8.huge_range.half.n4095");
    /* The first f32 and f64 cases with a mask, whatever their ids. */
    FILE *f = fopen(golden, "r");
    assert_non_null(f);
    char line[256], f32_id[160] = "", f64_id[160] = "";
    while (fgets(line, sizeof line, f) != NULL) {
        char id[160], b[64], s[64];
        if (line[0] == '#' || sscanf(line, "%159s %63s %63s", id, b, s) != 3
                || strcmp(s, "ok") != 0 || strstr(id, ".nomask.") != NULL
                || strchr(id, '/') != NULL       /* a batch's reduction */
                || atol(strrchr(id, 'n') + 1) > 100000)
            continue;
        if (f32_id[0] == '\0' && strncmp(id, "sum.f32.f32.", 12) == 0)
            snprintf(f32_id, sizeof f32_id, "%s", id);
        if (f64_id[0] == '\0' && strncmp(id, "sum.f64.f64.", 12) == 0)
            snprintf(f64_id, sizeof f64_id, "%s", id);
    }
    fclose(f);
    assert_true(f32_id[0] != '\0' && f64_id[0] != '\0');
    assert_dump_replays(f32_id);
    assert_dump_replays(f64_id);
    /* Batches: masked rows, masked columns (dumped column after column),
     * segments with empty ones and empty answers, argmax positions. */
    assert_batch_dump_replays("sum.f32.f32.specials.empty_leaves.rows37x33",
                              37);
    assert_batch_dump_replays("argmax.i32.i32.small.half.cols16x100", 16);
    assert_batch_dump_replays("min.f64.f64.specials.empty_leaves.segs40x120",
                              40);
    assert_batch_dump_replays("argmax.f32.f32.abs.specials.nomask.segs50x64",
                              50);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: test_cli_reduce SAMEBITS WORKDIR GOLDEN-FILE\n");
        return 2;
    }
    samebits = argv[1];
    workdir = argv[2];
    golden = argv[3];
    mkdir(workdir, 0777);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(raw_f64_sum_has_the_host_bits),
        cmocka_unit_test(standard_input_reads_like_a_file),
        cmocka_unit_test(text_f32_with_f64_accumulator_has_the_host_bits),
        cmocka_unit_test(npy_v1_two_dimensional_takes_its_type_from_the_header),
        cmocka_unit_test(half_inputs_from_npy_and_raw_have_the_host_bits),
        cmocka_unit_test(npy_v2_i32_with_mask_and_i64_accumulator),
        cmocka_unit_test(one_dimensional_fortran_order_is_accepted),
        cmocka_unit_test(json_is_one_line_with_status_value_and_bits),
        cmocka_unit_test(json_records_every_outcome),
        cmocka_unit_test(count_bits_are_eight_bytes),
        cmocka_unit_test(overflow_hints_name_only_accumulators_that_exist),
        cmocka_unit_test(an_empty_input_is_answered_with_a_note),
        cmocka_unit_test(input_beyond_the_largest_device_buffer_streams_in_pieces),
        cmocka_unit_test(pieces_give_the_bits_of_one_call),
        cmocka_unit_test(maps_skip_nan_and_dot_have_the_host_bits),
        cmocka_unit_test(piped_inputs_that_do_not_add_up_are_refused),
        cmocka_unit_test(a_terminal_shows_a_progress_line),
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
        cmocka_unit_test(text_on_standard_input_is_read_as_text),
        cmocka_unit_test(text_file_without_extension_is_text),
        cmocka_unit_test(commas_blanks_and_csv_columns_are_separators),
        cmocka_unit_test(integers_in_text_are_whole_decimal_numbers),
        cmocka_unit_test(floats_beyond_the_largest_finite_are_refused),
        cmocka_unit_test(subnormal_literals_round_correctly),
        cmocka_unit_test(raw_binary_is_refused_unless_format_raw),
        cmocka_unit_test(text_that_is_not_numbers_suggests_format_raw),
        cmocka_unit_test(the_name_decides_nothing),
        cmocka_unit_test(npy_and_npz_on_standard_input),
        cmocka_unit_test(npz_with_one_stored_array),
        cmocka_unit_test(npz_with_several_arrays_needs_array),
        cmocka_unit_test(npz_with_a_deflated_array),
        cmocka_unit_test(corrupt_or_truncated_npz_is_refused),
        cmocka_unit_test(npz_crc_mismatch_is_refused),
        cmocka_unit_test(npz_zip64_records_are_read),
        cmocka_unit_test(text_masks_are_integers),
        cmocka_unit_test(bool_npy_data_for_any_and_all),
        cmocka_unit_test(raw_masks_of_zeros_and_ones_are_detected),
        cmocka_unit_test(other_binary_masks_need_mask_format_raw),
        cmocka_unit_test(dump_prints_a_command_that_replays_the_case),
    };
    return cmocka_run_group_tests_name("cli_reduce", tests, NULL, NULL);
}
