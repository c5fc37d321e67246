/* tests/test_host_isa.c: the host path's instruction sets (sb_host_options
 * .isa, SAMEBITS_ISA, sb_host_isa_check(), sb_host_isa()).
 *
 * Every set this CPU runs is compared with tests/oracle.c, bit for bit, in
 * the same process: sizes around leaves, blocks and the vector widths
 * (a W-lane fold works on 16 or 2W leaves at a time), every mask kind and
 * data family per op, on 1 and 2 threads. A set the CPU cannot run is a
 * fact about the machine: it is printed, and what is tested for it is
 * that the library refuses it (SB_UNSUPPORTED, result untouched, a
 * detail) instead of executing an illegal instruction. The whole suite
 * of test_host_reduce also runs once per set (tests/CMakeLists.txt:
 * test_host_reduce_<set>, through SAMEBITS_ISA). */
#define _POSIX_C_SOURCE 200809L   /* setenv, unsetenv */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "samebits.h"
#include "support.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))
enum { MAX_MISMATCHES = 20 };

static uint64_t seed;
static const unsigned every_isa[] = { SB_ISA_BASELINE, SB_ISA_AVX2,
                                      SB_ISA_AVX512 };

static bool runnable(unsigned isa)
{
    return sb_host_isa_check(isa) == SB_OK;
}

static void the_machine_is_described(void **state)
{
    (void)state;
    printf("host path on this CPU: %s (sb_host_isa(NULL))\n",
           sb_isa_name(sb_host_isa(NULL)));
    for (size_t i = 0; i < COUNT(every_isa); i++) {
        const sb_status s = sb_host_isa_check(every_isa[i]);
        printf("  %-8s %s%s\n", sb_isa_name(every_isa[i]),
               s == SB_OK ? "runs here" : "cannot run here: ",
               s == SB_OK ? "" : sb_error_detail());
        if (s != SB_OK) {
            assert_int_equal(s, SB_UNSUPPORTED);
            assert_true(strlen(sb_error_detail()) > 0);
        }
    }
    /* The baseline runs on every machine the library runs on. */
    assert_int_equal(sb_host_isa_check(SB_ISA_BASELINE), SB_OK);
    assert_int_equal(sb_host_isa_check(SB_ISA_AUTO), SB_OK);
}

/* Names read back as the same set; anything else is refused. */
static void names_and_parsing(void **state)
{
    (void)state;
    for (unsigned isa = SB_ISA_AUTO; isa <= SB_ISA_AVX512; isa++) {
        unsigned back = 99;
        assert_int_equal(sb_isa_parse(sb_isa_name(isa), &back), SB_OK);
        assert_int_equal(back, isa);
    }
    unsigned back = 99;
    assert_int_equal(sb_isa_parse("baseline", &back), SB_OK);
    assert_int_equal(back, SB_ISA_BASELINE);
    static const char *bad[] = { "", "AVX2", "avx-512", "avx2 ", "sse4",
                                 "unknown", "4" };
    for (size_t i = 0; i < COUNT(bad); i++) {
        back = 99;
        assert_int_equal(sb_isa_parse(bad[i], &back), SB_INVALID_ARGUMENT);
        assert_int_equal(back, 99);
        assert_non_null(strstr(sb_error_detail(), "instruction set"));
    }
    assert_int_equal(sb_isa_parse(NULL, &back), SB_INVALID_ARGUMENT);
    assert_int_equal(sb_isa_parse("avx2", NULL), SB_INVALID_ARGUMENT);
    assert_string_equal(sb_isa_name(4), "unknown");
    assert_string_equal(sb_isa_name(0xFFFFFFFFu), "unknown");
}

/* An opts->isa that is no set, or one this CPU cannot run: a status and a
 * detail, the result untouched, for every op (any/all too). */
static void refused_sets_leave_the_result_untouched(void **state)
{
    (void)state;
    const float x[3] = { 1.0f, 2.0f, 3.0f };
    const sb_op ops[] = { SB_SUM, SB_PROD, SB_MIN, SB_MAX, SB_ANY, SB_ALL };
    unsigned refused[2 + COUNT(every_isa)];
    size_t n_refused = 0;
    refused[n_refused++] = 4;
    refused[n_refused++] = 0x80000001u;
    for (size_t i = 0; i < COUNT(every_isa); i++)
        if (!runnable(every_isa[i]))
            refused[n_refused++] = every_isa[i];
    for (size_t k = 0; k < n_refused; k++) {
        for (size_t o = 0; o < COUNT(ops); o++) {
            const sb_reduction r = { .op = ops[o], .input = SB_F32 };
            const sb_host_options opts = { .threads = 1, .isa = refused[k] };
            unsigned char got[RESULT_BUFFER];
            memset(got, RESULT_SENTINEL, sizeof got);
            const sb_status s = sb_reduce_host_opts(r, x, NULL, 3, got,
                                                    &opts);
            const sb_status want = refused[k] > SB_ISA_AVX512
                                 ? SB_INVALID_ARGUMENT : SB_UNSUPPORTED;
            assert_int_equal(s, want);
            assert_true(strlen(sb_error_detail()) > 0);
            for (size_t b = 0; b < sizeof got; b++)
                assert_int_equal(got[b], RESULT_SENTINEL);
        }
        assert_int_equal(sb_host_isa(&(sb_host_options){ .isa = refused[k] }),
                         SB_ISA_AUTO);
    }
    printf("%zu refused values tried (%zu sets this CPU cannot run)\n",
           n_refused, n_refused - 2);
}

/* SAMEBITS_ISA picks a set this CPU runs; any other value is ignored,
 * and an explicit opts->isa wins over it. */
static void the_environment_variable(void **state)
{
    (void)state;
    unsetenv("SAMEBITS_ISA");
    const unsigned widest = sb_host_isa(NULL);
    assert_true(runnable(widest));
    assert_int_not_equal(widest, SB_ISA_AUTO);
    for (size_t i = 0; i < COUNT(every_isa); i++) {
        const unsigned isa = every_isa[i];
        setenv("SAMEBITS_ISA", sb_isa_name(isa), 1);
        assert_int_equal(sb_host_isa(NULL), runnable(isa) ? isa : widest);
        /* An explicit choice is not overridden by the variable. */
        const sb_host_options base = { .isa = SB_ISA_BASELINE };
        assert_int_equal(sb_host_isa(&base), SB_ISA_BASELINE);
    }
    static const char *ignored[] = { "", "auto", "AVX512", "fast", "2" };
    for (size_t i = 0; i < COUNT(ignored); i++) {
        setenv("SAMEBITS_ISA", ignored[i], 1);
        assert_int_equal(sb_host_isa(NULL), widest);
    }
    unsetenv("SAMEBITS_ISA");
}

/* 0 .. 33, around 16 and 2W leaves for every W (2 .. 16 lanes), around a
 * block (256 leaves = 4096) and ragged multi-block sizes. */
static const size_t sizes[] = {
    0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65,
    16 * 16 - 1, 16 * 16, 16 * 16 + 1, 16 * 32 - 1, 16 * 32, 16 * 32 + 1,
    16 * 48 + 5, 4095, 4096, 4097, 2 * 4096 + 16 * 16, 3 * 4096 + 17,
    5 * 4096 - 1, 16 * 4096 + 1, 40001 };

static const mask_kind masks[] = { MASK_NONE, MASK_RANDOM, MASK_EMPTY_LEAVES,
                                   MASK_ALTERNATE_LEAVES, MASK_ALL_ZERO };

typedef struct {
    sb_reduction       r;
    const data_family *families;
    size_t             family_count;
} op_row;

static const data_family sum_families[] = { SUM_FAMILIES };
static const data_family prod_families[] = { PROD_FAMILIES };
static const data_family order_families[] = { ORDER_FAMILIES };

#define ROW(op, in, acc, flags, fam) \
    { { op, in, acc, flags, 0 }, fam, COUNT(fam) }
/* The reductions whose folds the instruction sets change: float sums and
 * products (explicit W-lane transposes), integer sums, products, min and
 * max (vectorised by the compiler per set), converted inputs. */
static const op_row rows[] = {
    ROW(SB_SUM,  SB_F32, 0, 0, sum_families),
    ROW(SB_SUM,  SB_F64, 0, 0, sum_families),
    ROW(SB_SUM,  SB_F32, SB_F64, 0, sum_families),
    ROW(SB_PROD, SB_F32, 0, 0, prod_families),
    ROW(SB_PROD, SB_F64, 0, 0, prod_families),
    ROW(SB_MIN,  SB_F32, 0, 0, order_families),
    ROW(SB_MAX,  SB_F64, 0, 0, order_families),
    ROW(SB_SUM,  SB_I32, 0, 0, sum_families),
    ROW(SB_SUM,  SB_I64, 0, 0, sum_families),
    ROW(SB_SUM,  SB_U32, 0, 0, sum_families),
    ROW(SB_SUM,  SB_I32, SB_I64, 0, sum_families),
    ROW(SB_SUM,  SB_I32, 0, SB_WRAP, sum_families),
    ROW(SB_SUM,  SB_U64, 0, SB_WRAP, sum_families),
    ROW(SB_SUM,  SB_I8, 0, SB_WRAP, sum_families),
    ROW(SB_PROD, SB_I64, 0, 0, prod_families),
    ROW(SB_PROD, SB_U16, 0, SB_WRAP, prod_families),
    ROW(SB_MIN,  SB_I32, 0, 0, order_families),
    ROW(SB_MAX,  SB_I64, 0, 0, order_families),
    ROW(SB_MIN,  SB_U8, 0, 0, order_families),
    ROW(SB_MAX,  SB_I16, 0, 0, order_families),
};

/* Every row x size x mask x family on `isa` with `threads`. */
static unsigned long run_set(unsigned isa, unsigned threads,
                             unsigned long *cases)
{
    unsigned long wrong = 0;
    for (size_t k = 0; k < COUNT(rows); k++)
        for (size_t s = 0; s < COUNT(sizes); s++)
            for (size_t m = 0; m < COUNT(masks); m++)
                for (size_t f = 0; f < rows[k].family_count; f++) {
                    test_case c = make_case(seed, rows[k].r, sizes[s],
                                            masks[m], rows[k].families[f]);
                    c.isa = isa;
                    c.threads = threads;
                    if (!check_against_oracle(&c, NULL) &&
                        ++wrong >= MAX_MISMATCHES)
                        return wrong;
                    (*cases)++;
                }
    return wrong;
}

static void every_runnable_set_matches_the_oracle(void **state)
{
    (void)state;
    unsigned long wrong = 0;
    for (size_t i = 0; i < COUNT(every_isa); i++) {
        if (!runnable(every_isa[i])) {
            printf("%s: not run, this CPU cannot run it\n",
                   sb_isa_name(every_isa[i]));
            continue;
        }
        unsigned long cases = 0;
        const unsigned long w = run_set(every_isa[i], 1, &cases);
        printf("%s: %lu cases on 1 thread, %lu wrong\n",
               sb_isa_name(every_isa[i]), cases, w);
        wrong += w;
    }
    assert_int_equal(wrong, 0);
}

/* Threads take chunks of blocks in any order; each thread runs the same
 * set. Large ragged inputs, 2 threads, every runnable set. */
static void threads_and_sets_together(void **state)
{
    (void)state;
    static const size_t large[] = { ((size_t)1 << 18) + 4097, 1000003 };
    unsigned long wrong = 0, cases = 0;
    for (size_t i = 0; i < COUNT(every_isa); i++) {
        if (!runnable(every_isa[i]))
            continue;
        for (size_t k = 0; k < COUNT(rows); k++)
            for (size_t s = 0; s < COUNT(large); s++) {
                test_case c = make_case(seed, rows[k].r, large[s],
                                        MASK_NONE, FAMILY_UNIFORM);
                c.isa = every_isa[i];
                c.threads = 2;
                wrong += !check_against_oracle(&c, NULL);
                cases++;
            }
    }
    printf("%lu large cases on 2 threads, %lu wrong\n", cases, wrong);
    assert_int_equal(wrong, 0);
}

/* SAMEBITS_PREFETCH: how far ahead the folds prefetch, read per call.
 * (Measured when unset: tests/test_host_prefetch.c.)
 * Parsing, and the bits against the oracle with no prefetch, a short
 * and the longest distance (1 MiB past the end of every block: a
 * prefetch past the buffer must not fault), on every runnable set. */
static void the_prefetch_distance(void **state)
{
    (void)state;
    static const struct { const char *text; size_t bytes; } readings[] = {
        { "0", 0 }, { "64", 64 }, { "8192", 8192 }, { "1048576", 1048576 },
        { "99999999999999999999", 1048576 },   /* capped, not wrapped */
        { "", 0 }, { "-1", 0 }, { "4k", 0 }, { " 64", 0 } };
    /* Ignored readings (bytes 0 above) leave the measured distance. */
    unsetenv("SAMEBITS_PREFETCH");
    const size_t unset = sb_host_prefetch();
    for (size_t i = 0; i < COUNT(readings); i++) {
        setenv("SAMEBITS_PREFETCH", readings[i].text, 1);
        const bool ignored = readings[i].bytes == 0 &&
                             strcmp(readings[i].text, "0") != 0;
        if (sb_host_prefetch() != (ignored ? unset : readings[i].bytes))
            fail_msg("SAMEBITS_PREFETCH='%s': %zu bytes, expected %zu",
                     readings[i].text, sb_host_prefetch(),
                     ignored ? unset : readings[i].bytes);
    }
    static const char *const distances[] = { "0", "64", "1048576" };
    static const size_t sizes_here[] = { 4096, 3 * 4096 + 17, 40001,
                                         ((size_t)1 << 18) + 4097 };
    unsigned long wrong = 0, cases = 0;
    for (size_t d = 0; d < COUNT(distances); d++) {
        setenv("SAMEBITS_PREFETCH", distances[d], 1);
        for (size_t i = 0; i < COUNT(every_isa); i++) {
            if (!runnable(every_isa[i]))
                continue;
            for (size_t k = 0; k < COUNT(rows); k++)
                for (size_t s = 0; s < COUNT(sizes_here); s++) {
                    test_case c = make_case(seed, rows[k].r, sizes_here[s],
                                            MASK_NONE, FAMILY_UNIFORM);
                    c.isa = every_isa[i];
                    c.threads = 1 + (unsigned)(s % 2);
                    wrong += !check_against_oracle(&c, NULL);
                    cases++;
                }
        }
    }
    unsetenv("SAMEBITS_PREFETCH");
    printf("%lu cases over 3 prefetch distances, %lu wrong\n", cases, wrong);
    assert_int_equal(wrong, 0);
}

/* Element i of x, of type t (SB_F32 or SB_F64), set to v (rounded to
 * f32 for SB_F32). */
static void store_float(sb_type t, void *x, size_t i, double v)
{
    if (t == SB_F32)
        ((float *)x)[i] = (float)v;
    else
        ((double *)x)[i] = v;
}

/* min and max of whole blocks (the vector path) where the answer is a
 * signed zero: only +0.0 and -0.0 (and, in half the cases, NaNs and
 * larger values), so that which of two equal zeros a leaf keeps decides
 * the bits. A compare that is not strict (<=) fails here. */
static void min_and_max_keep_the_first_of_equal_zeros(void **state)
{
    (void)state;
    enum { N = 3 * 4096 + 77 };
    static const sb_op ops[] = { SB_MIN, SB_MAX };
    static const sb_type types[] = { SB_F32, SB_F64 };
    unsigned long wrong = 0, cases = 0;
    uint64_t rng = mix_seed(seed, 77);
    double *buffer = checked_malloc(N * sizeof(double));
    for (size_t i = 0; i < COUNT(every_isa); i++) {
        if (!runnable(every_isa[i]))
            continue;
        for (size_t o = 0; o < COUNT(ops); o++)
            for (size_t t = 0; t < COUNT(types); t++)
                for (int extra = 0; extra < 2; extra++) {
                    for (size_t k = 0; k < N; k++) {
                        const uint64_t u = splitmix64(&rng);
                        double v = (u & 1) ? -0.0 : 0.0;
                        if (extra && (u >> 1) % 97 == 0)
                            v = NAN;
                        else if (extra && (u >> 1) % 89 == 0)
                            v = ops[o] == SB_MIN ? 1.0 : -1.0;
                        store_float(types[t], buffer, k, v);
                    }
                    const sb_reduction r = { .op = ops[o], .input = types[t] };
                    test_case c = make_case(seed, r, N, MASK_NONE,
                                            FAMILY_SIGNED_ZEROS);
                    c.isa = every_isa[i];
                    c.threads = 1;
                    wrong += !check_data_against_oracle(&c, buffer, NULL, NULL);
                    cases++;
                }
    }
    free(buffer);
    printf("%lu cases of equal zeros, %lu wrong\n", cases, wrong);
    assert_int_equal(wrong, 0);
}

/* min and max of whole masked blocks (the vector path substitutes each
 * masked-out element with +inf for min, -inf for max, and falls back to
 * the element-by-element loop for a block where a NaN takes part).
 * Every leaf starts with 1 to 16 masked-out positions; what follows
 * takes part (mask bytes 1 to 255) and is all the op's worst infinity
 * (which any finite substitute would beat), or a NaN first (in the
 * second variant only: blocks with NaNs), or zeros of both signs, 1,
 * -1 and huge values; in the third variant every leaf is the worst
 * infinity, so that the answer is one. */
static void masked_min_and_max_start_at_the_first_taking_part(void **state)
{
    (void)state;
    enum { N = 3 * 4096, LEAF = 16 };
    static const sb_op ops[] = { SB_MIN, SB_MAX };
    static const sb_type types[] = { SB_F32, SB_F64 };
    unsigned long wrong = 0, cases = 0;
    uint64_t rng = mix_seed(seed, 78);
    double *buffer = checked_malloc(N * sizeof(double));
    unsigned char *mask = checked_malloc(N);
    for (size_t i = 0; i < COUNT(every_isa); i++) {
        if (!runnable(every_isa[i]))
            continue;
        for (size_t o = 0; o < COUNT(ops); o++)
            for (size_t t = 0; t < COUNT(types); t++)
                for (int variant = 0; variant < 3; variant++) {
                    const bool nans = variant == 1;
                    const double worst = ops[o] == SB_MIN ? INFINITY
                                                          : -INFINITY;
                    for (size_t l = 0; l < N / LEAF; l++) {
                        const uint64_t u = splitmix64(&rng);
                        const size_t skip = 1 + u % LEAF;
                        const unsigned kind = variant == 2
                                            ? 0 : (unsigned)(u >> 8) % 3;
                        for (size_t k = 0; k < LEAF; k++) {
                            const size_t at = l * LEAF + k;
                            const uint64_t w = splitmix64(&rng);
                            static const double some[] = {
                                0.0, -0.0, 1.0, -1.0, 1e300, -1e300 };
                            double v = kind == 0 ? worst
                                     : some[w % COUNT(some)];
                            if (kind == 1 && nans && k == skip)
                                v = NAN;
                            mask[at] = k < skip ? 0
                                     : (unsigned char)(1 + (w >> 8) % 255);
                            store_float(types[t], buffer, at, v);
                        }
                    }
                    const sb_reduction r = { .op = ops[o], .input = types[t] };
                    test_case c = make_case(seed, r, N, MASK_RANDOM,
                                            FAMILY_SPECIALS);
                    c.isa = every_isa[i];
                    c.threads = 1;
                    wrong += !check_data_against_oracle(&c, buffer, mask,
                                                        NULL);
                    cases++;
                }
    }
    free(buffer);
    free(mask);
    printf("%lu masked cases, %lu wrong\n", cases, wrong);
    assert_int_equal(wrong, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_machine_is_described),
        cmocka_unit_test(names_and_parsing),
        cmocka_unit_test(refused_sets_leave_the_result_untouched),
        cmocka_unit_test(the_environment_variable),
        cmocka_unit_test(every_runnable_set_matches_the_oracle),
        cmocka_unit_test(threads_and_sets_together),
        cmocka_unit_test(the_prefetch_distance),
        cmocka_unit_test(min_and_max_keep_the_first_of_equal_zeros),
        cmocka_unit_test(masked_min_and_max_start_at_the_first_taking_part),
    };
    seed = test_seed(20261201u);
    return cmocka_run_group_tests_name("host_isa", tests, NULL, NULL);
}
