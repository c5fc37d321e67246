/* bench_read.c: the bench's memory-read baseline, as fast as this CPU
 * reads: an XOR of the buffer in 64-bit words (what any x86-64 or other
 * CPU runs, vectorised by the compiler for its baseline), and on x86-64
 * the same with AVX2 and AVX-512 registers, four independent accumulators
 * each, without and with software prefetches 4 or 8 KiB ahead (as the
 * host path's folds ask for theirs). bench_read_pick() times every
 * variant this CPU runs on the buffer and keeps the fastest, so the host
 * path is held to the best read, not to a convenient one.
 * bench_read_threads() runs one on many threads.
 * The prefetches are there because they read faster: one thread, 2^27
 * 4-byte elements, medians of 9-11 calls in turns, AMD EPYC Zen 5 (2-vCPU
 * VM): AVX-512 XOR 24-27 GB/s, the same 8 KiB ahead 27-33; in cache
 * (2^20) 86 against 104. */
#define _XOPEN_SOURCE 700         /* pthreads */

#include "bench.h"

#include <pthread.h>
#include <string.h>

static uint64_t xor_words(const unsigned char *data, size_t begin, size_t end)
{
    uint64_t acc = 0;
    for (size_t off = begin; off < end; off += sizeof acc) {
        uint64_t w;
        memcpy(&w, data + off, sizeof w);   /* no aliasing questions */
        acc ^= w;
    }
    return acc;
}

#if (defined(__x86_64__) || defined(_M_X64)) && defined(__GNUC__)
#define BENCH_HAVE_WIDE_READS 1

/* Bytes [begin, end) in four accumulators of BYTES-wide registers, then
 * the tail in words; with AHEAD > 0, asking for the lines AHEAD bytes on
 * as it goes (a prefetch past the buffer's end is a hint, never a
 * fault). Slices are whole 64-byte lines (tools/bench_throughput.c), so
 * only the last slice has a tail. */
/* Each register loaded in address order (an empty volatile asm after each
 * load, which GCC 12 keeps in order), as the library's integer folds do
 * (src/host_kernels.c: SB_LOAD_IN_ORDER). In 4 KiB pages a read in GCC's
 * order ran at 0.91 of one in address order (one thread, 2^29 bytes, AMD
 * EPYC Zen 5); in 2 MiB pages, as the bench allocates, the same. */
#define READ_IN_ORDER(w) __asm__ volatile("" : "+v"(w))
#define DEFINE_WIDE_XOR(NAME, TARGET, BYTES, AHEAD)                         \
typedef uint64_t NAME##_v __attribute__((vector_size(BYTES)));              \
__attribute__((target(TARGET)))                                             \
static uint64_t NAME(const unsigned char *data, size_t begin, size_t end)   \
{                                                                           \
    NAME##_v a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 };                \
    size_t off = begin;                                                     \
    for (; off + 4 * (BYTES) <= end; off += 4 * (BYTES)) {                  \
        if ((AHEAD) > 0)   /* in integers: no pointer past the end */       \
            for (size_t line = 0; line < 4 * (BYTES); line += 64)           \
                __builtin_prefetch((const void *)((uintptr_t)data + off     \
                                                  + (AHEAD) + line));       \
        NAME##_v w0, w1, w2, w3;                                            \
        memcpy(&w0, data + off, BYTES);                                     \
        READ_IN_ORDER(w0);                                                  \
        memcpy(&w1, data + off + (BYTES), BYTES);                           \
        READ_IN_ORDER(w1);                                                  \
        memcpy(&w2, data + off + 2 * (BYTES), BYTES);                       \
        READ_IN_ORDER(w2);                                                  \
        memcpy(&w3, data + off + 3 * (BYTES), BYTES);                       \
        READ_IN_ORDER(w3);                                                  \
        a0 ^= w0; a1 ^= w1; a2 ^= w2; a3 ^= w3;                             \
    }                                                                       \
    const NAME##_v a = a0 ^ a1 ^ a2 ^ a3;                                   \
    uint64_t acc = 0;                                                       \
    for (size_t k = 0; k < (BYTES) / 8; k++)                                \
        acc ^= a[k];                                                        \
    return acc ^ xor_words(data, off, end);                                 \
}
DEFINE_WIDE_XOR(xor_avx2, "avx2", 32, 0)
DEFINE_WIDE_XOR(xor_avx512, "avx512f", 64, 0)
DEFINE_WIDE_XOR(xor_avx2_ahead4k, "avx2", 32, 4096)
DEFINE_WIDE_XOR(xor_avx2_ahead8k, "avx2", 32, 8192)
DEFINE_WIDE_XOR(xor_avx512_ahead4k, "avx512f", 64, 4096)
DEFINE_WIDE_XOR(xor_avx512_ahead8k, "avx512f", 64, 8192)
#else
#define BENCH_HAVE_WIDE_READS 0
#endif

/* What a variant needs of the CPU. */
enum { NEEDS_NOTHING, NEEDS_AVX2, NEEDS_AVX512 };
static const struct {
    bench_read_variant variant;
    int                needs;
} variants[] = {
    { { "words", xor_words }, NEEDS_NOTHING },
#if BENCH_HAVE_WIDE_READS
    { { "avx2", xor_avx2 }, NEEDS_AVX2 },
    { { "avx512", xor_avx512 }, NEEDS_AVX512 },
    { { "avx2+pf4k", xor_avx2_ahead4k }, NEEDS_AVX2 },
    { { "avx2+pf8k", xor_avx2_ahead8k }, NEEDS_AVX2 },
    { { "avx512+pf4k", xor_avx512_ahead4k }, NEEDS_AVX512 },
    { { "avx512+pf8k", xor_avx512_ahead8k }, NEEDS_AVX512 },
#endif
};

static int runs_here(size_t i)
{
#if BENCH_HAVE_WIDE_READS
    /* __builtin_cpu_supports takes only a literal. */
    if (variants[i].needs == NEEDS_AVX2)
        return __builtin_cpu_supports("avx2");
    if (variants[i].needs == NEEDS_AVX512)
        return __builtin_cpu_supports("avx512f");
#endif
    return variants[i].needs == NEEDS_NOTHING;
}

const bench_read_variant *bench_read_pick(const void *data, size_t bytes)
{
    enum { count = sizeof variants / sizeof *variants, rounds = 3 };
    /* Each variant's best of three calls, the variants taking turns call
     * by call: the memory's speed drifts by tens of percent within
     * seconds on a shared machine, and a variant timed in one stretch
     * would be judged by its stretch. */
    double fastest[count] = { 0 };
    for (int k = 0; k < rounds; k++)
        for (size_t i = 0; i < count; i++) {
            if (!runs_here(i))
                continue;
            const double t0 = cli_now();
            bench_sink_u64 = variants[i].variant.fn(data, 0, bytes);
            const double s = cli_now() - t0;
            if (fastest[i] == 0.0 || s < fastest[i])
                fastest[i] = s;
        }
    const bench_read_variant *best = &variants[0].variant;
    double best_s = 0.0;
    for (size_t i = 0; i < count; i++)
        if (fastest[i] > 0.0 && (best_s == 0.0 || fastest[i] < best_s)) {
            best = &variants[i].variant;
            best_s = fastest[i];
        }
    return best;
}

/* x and y read in turns of `chunk` bytes, as a dot product reads them a
 * few leaves at a time. The turn matters: on AMD EPYC Zen 4 with both
 * buffers in 2 MiB pages at the same offset, turns of a line or two read
 * at 21 GB/s, turns of 1-4 KiB at 34-35 (one buffer alone: 32-34). */
static uint64_t read_pair(bench_read_fn fn, const unsigned char *x,
                          const unsigned char *y, size_t bytes, size_t chunk)
{
    uint64_t acc = 0;
    for (size_t off = 0; off < bytes; off += chunk) {
        const size_t end = bytes - off < chunk ? bytes : off + chunk;
        acc ^= fn(x, off, end) ^ fn(y, off, end);
    }
    return acc;
}

double bench_read_pair_best(const void *x, const void *y, size_t bytes,
                            unsigned repeat)
{
    static const size_t chunks[] = { 1024, 4096, 16384 };
    double best = 0;
    /* Every variant and turn once a round, as bench_read_pick() times. */
    for (unsigned k = 0; k < repeat; k++)
        for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
            if (!runs_here(i))
                continue;
            for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
                const double t0 = cli_now();
                bench_sink_u64 = read_pair(variants[i].variant.fn, x, y, bytes,
                                           chunks[c]);
                const double t = cli_now() - t0;
                if (best == 0 || t < best)
                    best = t;
            }
        }
    return best;
}

typedef struct {
    const unsigned char *data;
    size_t begin, end;
    bench_read_fn read;
    uint64_t result;
} read_slice;

static void *read_slice_run(void *arg)
{
    read_slice *s = arg;
    s->result = s->read(s->data, s->begin, s->end);
    return NULL;
}

int bench_read_threads(const void *data, size_t bytes, bench_read_fn fn,
                       unsigned threads)
{
    enum { max_threads = 256 };
    read_slice slices[max_threads];
    pthread_t tid[max_threads];
    const unsigned t_count = threads == 0 ? 1u
                           : threads > max_threads ? max_threads : threads;
    const size_t lines = bytes / 64;
    for (unsigned t = 0; t < t_count; t++) {
        slices[t].data = data;
        slices[t].read = fn;
        slices[t].begin = lines * t / t_count * 64;
        slices[t].end = t + 1 == t_count ? bytes
                                         : lines * (t + 1) / t_count * 64;
    }
    unsigned started = 0;
    for (unsigned t = 1; t < t_count; t++) {
        if (pthread_create(&tid[t], NULL, read_slice_run, &slices[t]) != 0) {
            cli_error("bench", "pthread_create failed");
            break;
        }
        started = t;
    }
    read_slice_run(&slices[0]);
    uint64_t acc = slices[0].result;
    for (unsigned t = 1; t <= started; t++) {
        pthread_join(tid[t], NULL);
        acc ^= slices[t].result;
    }
    bench_sink_u64 = acc;
    return started + 1 == t_count ? 0 : -1;
}

double bench_read_best(const void *data, size_t bytes, unsigned threads,
                       unsigned repeat)
{
    const bench_read_variant *v = bench_read_pick(data, bytes);
    double best = 0;
    for (unsigned i = 0; i < repeat; i++) {
        const double t0 = cli_now();
        if (bench_read_threads(data, bytes, v->fn, threads) != 0)
            return 0;   /* part of it unread: no figure */
        const double t = cli_now() - t0;
        if (i == 0 || t < best)
            best = t;
    }
    return best;
}
