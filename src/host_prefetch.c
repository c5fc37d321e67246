/* host_prefetch.c: how far ahead the host folds prefetch, chosen by
 * measurement on the CPU the library runs on, for each kind of fold.
 *
 * The best distance is a fact about a microarchitecture and a fold, not a
 * constant: 4096 bytes ahead took a 1-thread f32 sum from memory from
 * 0.55 to 0.97 of a plain read on AMD Zen 5 and was best on Zen 3 too,
 * while on Zen 4 the same prefetches cost a third (0.66 against 0.95
 * without), and on Zen 5 they cost NaN-skipping f32 sums a quarter
 * (README: Performance). So, unless SAMEBITS_PREFETCH fixes it, the first
 * large reductions of a process fold their spans of 64 blocks with each
 * candidate distance in turn, timing every span, and once each candidate
 * has folded enough the one with the faster median span is kept for the
 * rest of the process: for the plain float folds together on one thread
 * in the instruction set calls take by themselves (the default distance,
 * which POCL's launches take too), and for every other kind of fold on
 * its own (the plain float folds of a forced instruction set, or on
 * several threads, among them). Calls on several threads measure apart
 * from calls on one: they are other conditions (the memory shared), and
 * a default timed on 2 threads kept what one thread reads at 0.6 of the
 * other distance (host_reduce.c, prefetch_measurement()).
 * Taking turns span by span puts both candidates under the same memory
 * and the same neighbours, which on a shared VM move by tens of percent
 * within seconds; on several threads the turns are whole calls, so that
 * no span shares the memory with another at the other distance. The bits never depend on any of it: a prefetch is a
 * hint, and the fold is the same code at every distance. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "error_detail.h"
#include "host_engine.h"

/* The distances tried: none, and the one measured best on Zen 3 and 5. */
static const size_t candidates[SB_PREFETCH_CANDIDATES] = {
    0, SB_PREFETCH_DEFAULT
};

/* Enough to decide: each candidate has folded at least this much in at
 * least this many spans (a span is 64 blocks: 1 MiB of f32, 2 of f64,
 * about 0.05 ms each from memory), so one call of 2^25 f32 or two of 2^24
 * decide. At most MAX_SPANS spans each are kept. */
#define DECIDE_BYTES ((uint_least64_t)48 << 20)
#define DECIDE_SPANS 24
#define MAX_SPANS 128

/* One measurement: the default (index 0, the plain float folds' in the
 * instruction set calls take by themselves, whose distance every fold
 * takes until its own is kept, and POCL's launches for good), then one
 * per kind of fold that measures its own.
 * One distance does not suit every fold: on AMD Zen 5 at 2^27, 1 thread,
 * 4096 bytes ahead took a plain f32 sum from 21 to 32 GB/s and a bf16
 * sum from 11 to 23, but NaN-skipping f32 sums from 27 to 20 (README:
 * Performance). A fold is known by the code that folds its full blocks
 * and what else tells its calls apart (`code`, `variant`: a mask read
 * beside the blocks, and the map or second array of a block map's),
 * which the caller names (`name`, for the reports).
 * What the spans measured is under one lock (a span's record is one lock
 * per 0.05 ms or more), frozen once a candidate is kept, so a report
 * shows what decided. Each span's rate is kept, and the candidates
 * compared by their medians: a span during which the thread was
 * descheduled (more threads than cores, a neighbour on a shared VM)
 * reads as slow, and a mean would let a few of those decide. */
typedef struct {
    const void *code;
    unsigned variant;
    char name[SB_PREFETCH_FOLD_NAME];
    double span_rate[SB_PREFETCH_CANDIDATES][MAX_SPANS];   /* bytes/ns */
    unsigned span_count[SB_PREFETCH_CANDIDATES];
    uint_least64_t folded_bytes[SB_PREFETCH_CANDIDATES];
    atomic_uint calls;   /* the turns sb__prefetch_call_turn() gave */
    /* The kept candidate's index + 1; 0 while none is kept yet. Read
     * without the lock on every call; written once, under it. */
    atomic_uint chosen;
} measurement;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static measurement measurements[1 + SB_PREFETCH_FOLDS];

/* A fork() waits for the lock and the child starts with it free: else a
 * child forked while another thread held it (a report sorting its spans,
 * a span's record) would hang in its first report, and its folds could
 * never be measured (the lock's other users only try it). Taking it
 * around the fork also leaves the child a whole record, not half of one. */
static void lock_before_fork(void) { pthread_mutex_lock(&lock); }
static void unlock_after_fork(void) { pthread_mutex_unlock(&lock); }
static void register_fork_handlers(void)
{
    /* Fails only without memory for the handlers: the lock then stays as
     * it was, unguarded at a fork. */
    (void)pthread_atfork(lock_before_fork, unlock_after_fork,
                         unlock_after_fork);
}
static pthread_once_t fork_handlers_once = PTHREAD_ONCE_INIT;
static void take_lock(void)
{
    (void)pthread_once(&fork_handlers_once, register_fork_handlers);
    pthread_mutex_lock(&lock);
}
static bool try_lock(void)
{
    (void)pthread_once(&fork_handlers_once, register_fork_handlers);
    return pthread_mutex_trylock(&lock) == 0;
}
/* How many of measurements[] are in use, the default included: a slot's
 * key is written before the count that publishes it (release), so a
 * reader that sees the count (acquire) sees the key. */
static atomic_uint used = 1;

/* The median span rate of candidate c of m (under the lock); 0 for none.
 * An insertion sort of at most MAX_SPANS rates: no allocation (glibc's
 * qsort may take one) while a reduction runs. */
static double median_rate(const measurement *m, unsigned c)
{
    const unsigned n = m->span_count[c];
    if (n == 0)
        return 0.0;
    double sorted[MAX_SPANS];
    for (unsigned i = 0; i < n; i++) {
        const double v = m->span_rate[c][i];
        unsigned k = i;
        for (; k > 0 && sorted[k - 1] > v; k--)
            sorted[k] = sorted[k - 1];
        sorted[k] = v;
    }
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

/* SAMEBITS_PREFETCH as a distance, when it is one: decimal digits only,
 * capped at 1 MiB. */
static bool distance_from_environment(size_t *bytes)
{
    const char *env = getenv("SAMEBITS_PREFETCH");
    if (env == NULL || *env == '\0')
        return false;
    size_t b = 0;
    for (const char *p = env; *p != '\0'; p++) {
        if (*p < '0' || *p > '9')
            return false;                  /* not a number: ignored */
        if (b < (size_t)1 << 20)
            b = b * 10 + (size_t)(*p - '0');
    }
    *bytes = b < (size_t)1 << 20 ? b : (size_t)1 << 20;
    return true;
}

/* The slot of a measurement index the caller got from
 * sb__prefetch_fold() (or 0); out of range: the default's. */
static measurement *slot(int fold)
{
    const unsigned n = atomic_load_explicit(&used, memory_order_acquire);
    return &measurements[fold > 0 && (unsigned)fold < n ? fold : 0];
}

/* The distance a fold with nothing kept yet takes: the default's. */
static size_t default_distance(void)
{
    const unsigned k = atomic_load_explicit(&measurements[0].chosen,
                                            memory_order_relaxed);
    return k != 0 ? candidates[k - 1] : SB_PREFETCH_DEFAULT;
}

size_t sb__host_prefetch_bytes(void)
{
    return sb__prefetch_distance(0);
}

size_t sb__prefetch_distance(int fold)
{
    size_t bytes;
    if (distance_from_environment(&bytes))
        return bytes;
    const unsigned k = atomic_load_explicit(&slot(fold)->chosen,
                                            memory_order_relaxed);
    return k != 0 ? candidates[k - 1] : default_distance();
}

int sb__prefetch_fold(const void *code, unsigned variant, const char *name)
{
    size_t bytes;
    if (distance_from_environment(&bytes))
        return -1;                         /* nothing to measure */
    unsigned n = atomic_load_explicit(&used, memory_order_acquire);
    for (unsigned i = 1; i < n; i++)
        if (measurements[i].code == code &&
            measurements[i].variant == variant)
            return (int)i;
    if (name == NULL)
        return -1;                         /* looked up, not added */
    /* A new kind of fold: under the lock, which another thread may hold
     * to add the same one. Never waited for, as in
     * sb__prefetch_span_record(): a lock held by another thread leaves
     * this call unmeasured (the default distance), and a later one adds
     * it. */
    if (!try_lock())
        return -1;
    n = atomic_load_explicit(&used, memory_order_relaxed);
    int found = -1;
    for (unsigned i = 1; i < n && found < 0; i++)
        if (measurements[i].code == code &&
            measurements[i].variant == variant)
            found = (int)i;
    if (found < 0 && n < 1 + SB_PREFETCH_FOLDS) {
        measurement *m = &measurements[n];
        m->code = code;
        m->variant = variant;
        snprintf(m->name, sizeof m->name, "%s", name);
        atomic_store_explicit(&used, n + 1, memory_order_release);
        found = (int)n;
    }
    pthread_mutex_unlock(&lock);
    return found;   /* -1: every slot taken, this fold measures nothing */
}

bool sb__prefetch_measuring(int fold)
{
    size_t bytes;
    return fold >= 0 &&
           atomic_load_explicit(&slot(fold)->chosen,
                                memory_order_relaxed) == 0 &&
           !distance_from_environment(&bytes);
}

size_t sb__prefetch_call_turn(int fold)
{
    return atomic_fetch_add_explicit(&slot(fold)->calls, 1,
                                     memory_order_relaxed);
}

size_t sb__prefetch_span_distance(int fold, size_t turn)
{
    const unsigned k = atomic_load_explicit(&slot(fold)->chosen,
                                            memory_order_relaxed);
    return k != 0 ? candidates[k - 1]
                  : candidates[turn % SB_PREFETCH_CANDIDATES];
}

uint_least64_t sb__prefetch_clock_ns(void)
{
    struct timespec t = { 0, 0 };
    (void)clock_gettime(CLOCK_MONOTONIC, &t);   /* cannot fail on POSIX */
    return (uint_least64_t)t.tv_sec * 1000000000u + (uint_least64_t)t.tv_nsec;
}

void sb__prefetch_span_record(int fold, size_t turn, uint_least64_t bytes,
                              uint_least64_t ns)
{
    /* A span is a sample, and samples are optional: one that finds the
     * lock taken is dropped, so no thread folding ever waits here. */
    if (fold < 0 || !try_lock())
        return;
    measurement *m = slot(fold);
    if (atomic_load(&m->chosen) != 0) {   /* decided while this span ran */
        pthread_mutex_unlock(&lock);
        return;
    }
    const size_t k = turn % SB_PREFETCH_CANDIDATES;
    if (m->span_count[k] < MAX_SPANS)
        m->span_rate[k][m->span_count[k]++] =
            (double)bytes / (double)(ns ? ns : 1);
    m->folded_bytes[k] += bytes;
    /* Decide once every candidate has enough: the fastest median. */
    unsigned best = 0;
    double best_rate = 0;
    for (unsigned c = 0; c < SB_PREFETCH_CANDIDATES; c++) {
        if (m->folded_bytes[c] < DECIDE_BYTES ||
            m->span_count[c] < DECIDE_SPANS) {
            best = 0;
            break;
        }
        const double rate = median_rate(m, c);
        if (best == 0 || rate > best_rate) {
            best = c + 1;
            best_rate = rate;
        }
    }
    if (best != 0)
        atomic_store(&m->chosen, best);
    pthread_mutex_unlock(&lock);
}

/* m's report (under the lock). */
static void report_of(const measurement *m, sb_prefetch_report *report)
{
    size_t bytes;
    const bool set = distance_from_environment(&bytes);
    const unsigned k = atomic_load(&m->chosen);
    report->bytes = set ? bytes
                  : k != 0 ? candidates[k - 1] : default_distance();
    report->source = set ? SB_PREFETCH_FROM_ENVIRONMENT
                   : k != 0 ? SB_PREFETCH_MEASURED : SB_PREFETCH_NOT_YET;
    for (unsigned c = 0; c < SB_PREFETCH_CANDIDATES; c++) {
        report->candidates[c] = candidates[c];
        report->gb_per_s[c] = median_rate(m, c);
    }
}

size_t sb_host_prefetch_folds(sb_prefetch_fold *folds, size_t capacity)
{
    sb__detail_clear();
    take_lock();
    const unsigned n = atomic_load(&used);
    for (unsigned i = 1; i < n && i - 1 < capacity && folds != NULL; i++) {
        snprintf(folds[i - 1].fold, sizeof folds[i - 1].fold, "%s",
                 measurements[i].name);
        report_of(&measurements[i], &folds[i - 1].report);
    }
    pthread_mutex_unlock(&lock);
    return n - 1;
}

void sb_host_prefetch_report(sb_prefetch_report *report)
{
    sb__detail_clear();
    if (report == NULL)
        return;
    take_lock();
    report_of(&measurements[0], report);
    pthread_mutex_unlock(&lock);
}

size_t sb_host_prefetch(void)
{
    sb__detail_clear();
    return sb__host_prefetch_bytes();
}
