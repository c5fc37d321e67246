/* bench.h: what the files of `samebits bench` share (private to them).
 *
 * tools/cmd_bench.c parses the options, opens the devices and runs the
 * report's three parts, one file each:
 *   1. tools/bench_throughput.c  GB/s of the host path, a plain loop, a
 *                                plain memory read and each device
 *   2. tools/bench_latency.c     microseconds per small call
 *   3. tools/bench_first_call.c  the first call, in a child process, with
 *                                a cold then a warm kernel cache
 *   4. tools/bench_stream.c      (--stream) one call against pieces
 *                                through sb_partial
 *   5. tools/bench_maps.c        (--maps) maps and dot products against
 *                                the plain sum
 *   6. tools/bench_batched.c     (--batched) many reductions in one call
 *      (and tools/bench_segments.c, its segments):
 *                                rows and columns against the read
 * tools/bench_common.c holds what more than one part needs: the devices as
 * the bench opens them, the data it measures and the sinks for results.
 * Each part prints its own text section or JSON lines to stdout and its
 * progress to stderr.
 *
 * Like everything in tools/, this uses only the public header samebits.h
 * (through cli.h). */
#ifndef SAMEBITS_BENCH_H
#define SAMEBITS_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "samebits.h"

#define BENCH_MAX_REPEAT     1000
#define BENCH_MAX_DEVICES    8

/* ---- shared by the parts (tools/bench_common.c) ------------------------------ */

/* A device as the bench uses it: its context, a context that computes
 * everything on the device, and a plain read kernel as its baseline. */
typedef struct {
    const cli_device *dev;
    char              label[16];   /* "dev1", or "dev1g" (guarded), "dev1s"
                                      (software f64), "dev1f" (flushing) */
    unsigned          mode_flags;  /* SB_OPT_FLUSH_SUBNORMALS or 0 */
    unsigned          float_mode;  /* sb_options.float_mode */
    cl_context        cl_ctx;
    cl_command_queue  queue;       /* for the read kernel */
    sb_context       *sb;          /* SB_OPT_NO_HOST */
    sb_context       *sb_default;  /* default options: small n on the host */
    cl_kernel         read_kernel;
    cl_kernel         empty_kernel;  /* the floor of a launch */
    cl_program        read_program;
    cl_mem            read_out;
    size_t            read_global;
    sb_device_caps    caps;        /* as the contexts compute: their modes */
} bench_device;

/* The float modes of --float-modes: one bench column per device and mode. */
typedef enum {
    BENCH_MODE_AUTO, BENCH_MODE_GUARDED, BENCH_MODE_SOFTWARE,
    BENCH_MODE_FLUSHING, BENCH_MODE_COUNT
} bench_mode;

/* Opens `d` for the bench in `mode`: both samebits contexts, a queue, the
 * read and empty kernels. Returns 0, or -1 after a message;
 * bench_device_close() releases what was made either way. */
int bench_device_open(bench_device *b, const cli_device *d, bench_mode mode);
void bench_device_close(bench_device *b);

/* One run of b's read kernel over the first `bytes` (a multiple of 8) of
 * `data`, waited for. Returns 0, or -1 if a call failed. */
int bench_device_read(bench_device *b, cl_mem data, size_t bytes);

/* Sample i of a timed bench_device_read(): sample 0 warms up and is not
 * counted, sample 1 sets *best, later ones lower it. 0, or -1 after a
 * message. */
int bench_device_read_sample(bench_device *b, cl_mem data, size_t bytes,
                             unsigned i, double *best);

/* A buffer of `bytes` for the data, as numpy gives a large array: on
 * Linux, 2 MiB-aligned and marked for transparent huge pages
 * (MADV_HUGEPAGE), so that neither the host path nor the read baseline
 * pays for TLB misses a numpy user would not see. NULL if out of memory;
 * freed with bench_free_data(). */
void *bench_alloc_data(size_t bytes);
void bench_free_data(void *data, size_t bytes);

/* Sum and min: floats in [1, 2), i32 and i64 in [-8, 7] (no overflow at any n).
 * Prod: +-1, so that products never overflow, underflow or go subnormal
 * (slow paths on some CPUs). Written before the clock starts. */
void bench_fill(void *data, sb_type type, sb_op op, size_t n);

/* Results are stored here so that no loop or read can be optimised away:
 * a volatile store must happen, so its value must be computed. */
extern volatile double   bench_sink_f64;
extern volatile float    bench_sink_f32;
extern volatile int64_t  bench_sink_i64;
extern volatile uint64_t bench_sink_u64;

/* ---- the read baseline (tools/bench_read.c) ----------------------------------- */

/* XOR of bytes [begin, end) of `data` (offsets multiples of 64, but the
 * end). */
typedef uint64_t (*bench_read_fn)(const unsigned char *data, size_t begin,
                                  size_t end);
typedef struct {
    const char   *name;     /* "words", "avx2", "avx512", "avx512+pf8k" (8
                               KiB ahead), ... */
    bench_read_fn fn;
} bench_read_variant;

/* The fastest read of `bytes` bytes of `data` on this CPU, by timing each
 * variant it runs on them. */
const bench_read_variant *bench_read_pick(const void *data, size_t bytes);

/* `fn` over `bytes` bytes of `data` on `threads` threads (0: 1), slices
 * of whole 64-byte lines: the calling thread reads one and starts a
 * thread for each of the others on every call, as the host path does,
 * so that the two pay the same start-up cost. 0, or -1 when a thread
 * could not be started. */
int bench_read_threads(const void *data, size_t bytes, bench_read_fn fn,
                       unsigned threads);

/* The best of `repeat` reads of `bytes` bytes of `data` (the fastest
 * variant) on `threads` threads (1: the calling one alone), in seconds,
 * or 0 (no ratio is printed) where a thread did not start. */
double bench_read_best(const void *data, size_t bytes, unsigned threads,
                       unsigned repeat);

/* The best of `repeat` reads of `bytes` bytes of x and of y together (in
 * turns of 1, 4 or 16 KiB of each), with each variant this CPU runs, in
 * seconds: the baseline of a 1-thread dot product, which reads two
 * streams, not one. */
double bench_read_pair_best(const void *x, const void *y, size_t bytes,
                            unsigned repeat);

/* SAMEBITS_THREADS for the host calls that follow: "1" (one != 0), or as
 * it was when saved. */
typedef struct {
    char saved[32];
    int  had;
} bench_threads_env;
void bench_threads_save(bench_threads_env *e);
void bench_threads_set(const bench_threads_env *e, int one);

/* ---- 1. throughput (tools/bench_throughput.c) --------------------------------- */

/* What the command line asks part 1 to measure. */
typedef struct {
    const int *types;         /* sb_type values */
    size_t     type_count;
    const int *sizes;         /* log2 of n */
    size_t     size_count;
    const int *ops;           /* sb_op values */
    size_t     op_count;
    unsigned   repeat;        /* timed samples of each method */
    unsigned   threads;       /* host-all's threads (cli_default_threads) */
    unsigned   isa;           /* the host methods' sb_host_options.isa */
    int        json;
} bench_throughput_plan;

/* Every type, size and op of `plan` on the host methods and on each
 * device: in text, the part's title and column header (then, when
 * `no_platform`, a note that only the host is measured), then one row
 * each; in JSON, the measurement and ratio lines. Returns 0, or -1 after
 * a message. */
int bench_throughput(const bench_throughput_plan *plan, bench_device *devs,
                     size_t dev_count, int no_platform);

/* ---- 2. small calls (tools/bench_latency.c) ----------------------------------- */

/* Microseconds per f32 sum call at n = 1, 1000, 10^5 on the host path and
 * on each device, next to the device's floors. Returns 0, or -1 after a
 * message. */
int bench_latency(int json, bench_device *devs, size_t dev_count);

/* ---- 3. the first call (tools/bench_first_call.c) ------------------------------ */

/* For each device, a child process times context creation, the first and
 * the second call, with a cold then a warm kernel cache. Returns 0, or -1
 * after a message. */
int bench_first_call(int json, const bench_device *devs, size_t dev_count);

/* The child's side: `samebits bench --first-call-child N`. Returns its
 * exit status. */
int bench_first_call_child(const char *index);

/* ---- 4. in pieces (tools/bench_stream.c) ---------------------------------------- */

/* An f32 sum of 2^log2_n elements in one call and in pieces through
 * sb_partial, on the host and each device (default float mode); then the
 * partial's size and a merge's cost. Returns 0, or -1 after a message
 * (pieces that gave other bits than the one call included). */
int bench_stream(int json, int log2_n, unsigned repeat, bench_device *devs,
                 size_t dev_count);

/* ---- 5. maps and dot products (tools/bench_maps.c) ---------------------------- */

/* f32 and f64 at 2^log2_n: the plain sum, SB_MAP_ABS, SB_MAP_SQUARE and
 * a dot product, on the host (1 and every thread, next to the 1-thread
 * read) and each device (default float mode). Returns 0, or -1 after a
 * message. */
int bench_maps(int json, int log2_n, unsigned repeat, bench_device *devs,
               size_t dev_count);

/* ---- 6. many reductions in one call (tools/bench_batched.c) ---------------------- */

/* Row and column f32 sums of a matrix of about 2^log2_n elements on the
 * host, then 1000 reductions of 16; then on each device, the matrix in a
 * cl_mem, next to the device's read kernel on the same buffer. Returns 0,
 * or -1 after a message. */
int bench_batched(int json, int log2_n, unsigned repeat, bench_device *devs,
                  size_t dev_count);

/* Segment sums (sb_reduce_segments_host, and sb_reduce_segments on each
 * device) of the n f32 of x: segments of 1000, and skewed ones (10^5 of
 * 10 around one long one), on the host (1 and every thread) next to the
 * read on as many threads, and on each device next to its read kernel
 * (tools/bench_segments.c). Returns 0, or -1 after a message. */
int bench_segments(int json, const float *x, size_t n, unsigned repeat,
                   const bench_threads_env *env, bench_device *devs,
                   size_t dev_count);

#endif /* SAMEBITS_BENCH_H */
