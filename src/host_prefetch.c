/* host_prefetch.c: how far ahead the host folds prefetch, chosen by
 * measurement on the CPU the library runs on.
 *
 * The best distance is a fact about a microarchitecture, not a constant:
 * 4096 bytes ahead took a 1-thread f32 sum from memory from 0.55 to 0.97
 * of a plain read on AMD Zen 5 and was best on Zen 3 too, while on Zen 4
 * the same prefetches cost a third (0.66 against 0.95 without; README:
 * Performance). So, unless SAMEBITS_PREFETCH fixes it, the first large
 * float reductions of a process fold their spans of 64 blocks with each
 * candidate distance in turn, timing every span, and once each candidate
 * has folded enough the one with the faster median span is kept for the
 * rest of the process.
 * Taking turns span by span puts both candidates under the same memory
 * and the same neighbours, which on a shared VM move by tens of percent
 * within seconds. The bits never depend on any of it: a prefetch is a
 * hint, and the fold is the same code at every distance. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
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

/* What the spans measured, under one lock (a span's record is one lock
 * per 0.05 ms or more), frozen once a candidate is kept, so a report
 * shows what decided. Each span's rate is kept, and the candidates
 * compared by their medians: a span during which the thread was
 * descheduled (more threads than cores, a neighbour on a shared VM)
 * reads as slow, and a mean would let a few of those decide. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static double span_rate[SB_PREFETCH_CANDIDATES][MAX_SPANS];  /* bytes/ns */
static unsigned span_count[SB_PREFETCH_CANDIDATES];
static uint_least64_t folded_bytes[SB_PREFETCH_CANDIDATES];
/* The kept candidate's index + 1; 0 while none is kept yet. Read without
 * the lock on every call; written once, under it. */
static atomic_uint chosen;

/* The median span rate of candidate c (under the lock); 0 for none. An
 * insertion sort of at most MAX_SPANS rates: no allocation (glibc's qsort
 * may take one) while a reduction runs. */
static double median_rate(unsigned c)
{
    const unsigned n = span_count[c];
    if (n == 0)
        return 0.0;
    double sorted[MAX_SPANS];
    for (unsigned i = 0; i < n; i++) {
        const double v = span_rate[c][i];
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

size_t sb__host_prefetch_bytes(void)
{
    size_t bytes;
    if (distance_from_environment(&bytes))
        return bytes;
    const unsigned k = atomic_load_explicit(&chosen, memory_order_relaxed);
    return k != 0 ? candidates[k - 1] : SB_PREFETCH_DEFAULT;
}

bool sb__prefetch_measuring(void)
{
    size_t bytes;
    return atomic_load_explicit(&chosen, memory_order_relaxed) == 0 &&
           !distance_from_environment(&bytes);
}

size_t sb__prefetch_span_distance(size_t span)
{
    const unsigned k = atomic_load_explicit(&chosen, memory_order_relaxed);
    return k != 0 ? candidates[k - 1]
                  : candidates[span % SB_PREFETCH_CANDIDATES];
}

uint_least64_t sb__prefetch_clock_ns(void)
{
    struct timespec t = { 0, 0 };
    (void)clock_gettime(CLOCK_MONOTONIC, &t);   /* cannot fail on POSIX */
    return (uint_least64_t)t.tv_sec * 1000000000u + (uint_least64_t)t.tv_nsec;
}

void sb__prefetch_span_record(size_t span, uint_least64_t bytes,
                              uint_least64_t ns)
{
    /* A span is a sample, and samples are optional: one that finds the
     * lock taken is dropped, so no thread ever waits here (nor a child
     * forked while another thread held it). */
    if (pthread_mutex_trylock(&lock) != 0)
        return;
    if (atomic_load(&chosen) != 0) {   /* decided while this span ran */
        pthread_mutex_unlock(&lock);
        return;
    }
    const size_t k = span % SB_PREFETCH_CANDIDATES;
    if (span_count[k] < MAX_SPANS)
        span_rate[k][span_count[k]++] = (double)bytes / (double)(ns ? ns : 1);
    folded_bytes[k] += bytes;
    /* Decide once every candidate has enough: the fastest median. */
    unsigned best = 0;
    double best_rate = 0;
    for (unsigned c = 0; c < SB_PREFETCH_CANDIDATES; c++) {
        if (folded_bytes[c] < DECIDE_BYTES || span_count[c] < DECIDE_SPANS) {
            best = 0;
            break;
        }
        const double rate = median_rate(c);
        if (best == 0 || rate > best_rate) {
            best = c + 1;
            best_rate = rate;
        }
    }
    if (best != 0)
        atomic_store(&chosen, best);
    pthread_mutex_unlock(&lock);
}

void sb_host_prefetch_report(sb_prefetch_report *report)
{
    sb__detail_clear();
    if (report == NULL)
        return;
    size_t bytes;
    const bool set = distance_from_environment(&bytes);
    pthread_mutex_lock(&lock);
    const unsigned k = atomic_load(&chosen);
    report->bytes = set ? bytes
                  : k != 0 ? candidates[k - 1] : SB_PREFETCH_DEFAULT;
    report->source = set ? SB_PREFETCH_FROM_ENVIRONMENT
                   : k != 0 ? SB_PREFETCH_MEASURED : SB_PREFETCH_NOT_YET;
    for (unsigned c = 0; c < SB_PREFETCH_CANDIDATES; c++) {
        report->candidates[c] = candidates[c];
        report->gb_per_s[c] = median_rate(c);
    }
    pthread_mutex_unlock(&lock);
}

size_t sb_host_prefetch(void)
{
    sb__detail_clear();
    return sb__host_prefetch_bytes();
}
