/* host_pool.c: helper threads the host path keeps between calls.
 *
 * Starting a thread costs tens of microseconds (a stack to map, a clone),
 * as much as reducing a few megabytes: with a thread per helper per call,
 * two threads at 2^20 f32 were slower than one, and a stream of pieces
 * paid it per piece. So helpers are started once and wait for work.
 *
 * One job at a time: a call that finds the pool busy (another thread's
 * reduction) returns 0 and the caller starts its own threads as before.
 * The job's function must tolerate any number of helpers, none included:
 * the host path's run_chunks() takes chunks from an atomic counter, and
 * the calling thread runs it too. Once the caller has finished its own
 * share it closes the job, so a helper that wakes late never touches it,
 * and waits only for the helpers that joined. */
#include <pthread.h>
#include <stdbool.h>
#include "host_engine.h"

static struct {
    pthread_mutex_t lock;
    pthread_cond_t  work, done;
    bool            busy, atfork_set;
    unsigned        threads;            /* helpers started so far */
    unsigned long   generation;         /* one per job */
    unsigned        wanted, joined, running;
    sb__pool_fn     fn;
    void           *arg;
} pool = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
           PTHREAD_COND_INITIALIZER, false, false, 0, 0, 0, 0, 0, NULL, NULL };

static void *helper(void *unused)
{
    (void)unused;
    unsigned long seen = 0;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        while (pool.generation == seen || pool.joined >= pool.wanted)
            pthread_cond_wait(&pool.work, &pool.lock);
        seen = pool.generation;
        pool.joined++;
        pool.running++;
        const sb__pool_fn fn = pool.fn;
        void *arg = pool.arg;
        pthread_mutex_unlock(&pool.lock);
        fn(arg);
        pthread_mutex_lock(&pool.lock);
        if (--pool.running == 0)
            pthread_cond_broadcast(&pool.done);
    }
    return NULL;
}

/* A forked child has none of the helpers, and the lock may have been
 * held by a thread that is not there: start afresh. */
static void after_fork_in_child(void)
{
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.work, NULL);
    pthread_cond_init(&pool.done, NULL);
    pool.busy = false;
    pool.threads = 0;
    pool.wanted = pool.joined = pool.running = 0;
}

bool sb__pool_run(sb__pool_fn fn, void *arg, unsigned helpers)
{
    pthread_mutex_lock(&pool.lock);
    if (pool.busy) {
        pthread_mutex_unlock(&pool.lock);
        return false;
    }
    pool.busy = true;
    if (!pool.atfork_set) {
        pool.atfork_set = pthread_atfork(NULL, NULL, after_fork_in_child) == 0;
    }
    while (pool.threads < helpers && pool.threads < SB_MAX_THREADS - 1) {
        pthread_t tid;
        pthread_attr_t attr;
        bool started = false;
        if (pthread_attr_init(&attr) == 0) {
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            started = pthread_create(&tid, &attr, helper, NULL) == 0;
            pthread_attr_destroy(&attr);
        }
        if (!started)
            break;          /* fewer helpers: the others take their chunks */
        pool.threads++;
    }
    pool.generation++;
    pool.fn = fn;
    pool.arg = arg;
    pool.wanted = helpers;
    pool.joined = 0;
    pthread_cond_broadcast(&pool.work);
    pthread_mutex_unlock(&pool.lock);

    fn(arg);

    pthread_mutex_lock(&pool.lock);
    pool.wanted = pool.joined;          /* closed: no one joins late */
    while (pool.running > 0)
        pthread_cond_wait(&pool.done, &pool.lock);
    pool.busy = false;
    pthread_mutex_unlock(&pool.lock);
    return true;
}

typedef struct {
    sb__pool_fn fn;
    void       *arg;
} own_thread;

static void *own_thread_main(void *p)
{
    const own_thread *o = p;
    o->fn(o->arg);
    return NULL;
}

void sb__run_on_threads(sb__pool_fn fn, void *arg, size_t threads)
{
    if (threads > 1 && sb__pool_run(fn, arg, (unsigned)threads - 1))
        return;
    own_thread o = { fn, arg };
    pthread_t tid[SB_MAX_THREADS];
    unsigned started = 0;
    for (size_t t = 1; t < threads && t < SB_MAX_THREADS; t++) {
        if (pthread_create(&tid[started], NULL, own_thread_main, &o) != 0)
            break;
        started++;
    }
    fn(arg);
    for (unsigned t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
}
