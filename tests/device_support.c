/* tests/device_support.c: devices, contexts, padded buffers and the
 * differential check of one case on an OpenCL device (see
 * device_support.h). Only public API is used: the tests see the library as
 * a user does. */
#include "device_support.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"

/* ------------------------------------------------------------------------
 * Devices
 * ---------------------------------------------------------------------- */

static bool contains_nocase(const char *hay, const char *needle)
{
    const size_t n = strlen(needle);
    for (; *hay != '\0'; hay++) {
        size_t i = 0;
        while (i < n && hay[i] != '\0' &&
               tolower((unsigned char)hay[i]) ==
               tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return true;
    }
    return n == 0;
}

static void platform_string(cl_platform_id p, cl_platform_info what,
                            char *buf, size_t size)
{
    buf[0] = '\0';
    if (clGetPlatformInfo(p, what, size - 1, buf, NULL) != CL_SUCCESS)
        buf[0] = '\0';
    buf[size - 1] = '\0';
}

/* The float modes every context of a run is opened with: the same suite,
 * through the guarded or software kernels, or on POCL as a device that
 * really flushes subnormals (tests/device_tests.cmake). */
static void apply_test_modes(sb_options *o)
{
    const char *mode = getenv("SAMEBITS_TEST_FLOAT_MODE");
    if (mode != NULL && strcmp(mode, "guarded") == 0)
        o->float_mode = SB_MODE_GUARDED;
    else if (mode != NULL && strcmp(mode, "software") == 0)
        o->float_mode = SB_MODE_SOFTWARE;
    else if (mode != NULL && *mode != '\0' && strcmp(mode, "auto") != 0) {
        fprintf(stderr, "SAMEBITS_TEST_FLOAT_MODE=%s: auto, guarded or "
                "software\n", mode);
        exit(2);
    }
    const char *flush = getenv("SAMEBITS_TEST_FLUSH_SUBNORMALS");
    if (flush != NULL && strcmp(flush, "1") == 0)
        o->flags |= SB_OPT_FLUSH_SUBNORMALS;
}

static bool open_one(test_device *t, cl_platform_id p, cl_device_id d,
                     unsigned pi, unsigned di)
{
    memset(t, 0, sizeof *t);
    t->platform = p;
    t->device = d;
    t->platform_index = pi;
    t->device_index = di;
    if (sb_device_report(d, &t->caps) != SB_OK) {
        fprintf(stderr, "sb_device_report failed on device %u:%u\n", pi, di);
        return false;
    }
    char platform[128];
    platform_string(p, CL_PLATFORM_NAME, platform, sizeof platform);
    snprintf(t->name, sizeof t->name, "%u:%u %s (%s)", pi, di, t->caps.name,
             platform);
    t->oclgrind = contains_nocase(t->caps.name, "oclgrind");
    /* tests/device_support.h: sparse when asked; the families of the
     * biggest matrices in turn unless asked for dense. */
    const char *sparse = getenv("SAMEBITS_TEST_SPARSE");
    t->sparse = !t->oclgrind && sparse != NULL && strcmp(sparse, "1") == 0;
    t->families_in_turn = !t->oclgrind &&
        !(sparse != NULL && strcmp(sparse, "0") == 0);
    cl_command_queue_properties props = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_QUEUE_PROPERTIES, sizeof props, &props,
                        NULL) == CL_SUCCESS)
        t->out_of_order =
            (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;

    const cl_context_properties cprops[] = {
        CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0 };
    cl_int err = CL_SUCCESS;
    t->cl_ctx = clCreateContext(cprops, 1, &d, NULL, NULL, &err);
    if (t->cl_ctx == NULL) {
        fprintf(stderr, "clCreateContext failed (%d) on %s\n", err, t->name);
        return false;
    }
    t->queue = clCreateCommandQueue(t->cl_ctx, d, 0, &err);
    if (t->queue == NULL) {
        fprintf(stderr, "clCreateCommandQueue failed (%d) on %s\n", err,
                t->name);
        clReleaseContext(t->cl_ctx);
        return false;
    }
    return true;
}

size_t open_devices(test_device **out)
{
    *out = NULL;
    /* The library's numbering and its one reading of SAMEBITS_DEVICE, so
     * that the tests select what a user's program would. */
    size_t all = 0;
    sb_status s = sb_device_list(NULL, 0, &all);
    if (s != SB_OK || all == 0) {
        fprintf(stderr, "no OpenCL device (sb_device_list: %s; %s): the "
                "device tests need at least POCL\n", sb_status_string(s),
                sb_error_detail());
        return 0;
    }
    sb_device_entry *entries = checked_malloc(all * sizeof *entries);
    s = sb_device_list(entries, all, &all);
    const char *sel = getenv("SAMEBITS_DEVICE");
    if (s == SB_OK && sel != NULL && sel[0] != '\0') {
        s = sb_device_select(sel, &entries[0]);
        all = 1;
    }
    if (s != SB_OK) {
        fprintf(stderr, "no OpenCL device%s%s: %s: the device tests need "
                "at least POCL\n", sel ? " for SAMEBITS_DEVICE=" : "",
                sel ? sel : "", sb_error_detail());
        free(entries);
        return 0;
    }
    /* The suites run on the simulator as tests of their own (label
     * simulator, tests/device_tests.cmake), which name it. */
    const char *no_sim = getenv("SAMEBITS_TEST_NO_SIMULATOR");
    const bool skip_simulator = no_sim != NULL && strcmp(no_sim, "1") == 0 &&
                                (sel == NULL || sel[0] == '\0');
    test_device *devices = checked_malloc(sizeof *devices * all);
    size_t count = 0, skipped = 0;
    for (size_t i = 0; i < all; i++) {
        const sb_device_entry *e = &entries[i];
        if (skip_simulator && e->is_simulator) {
            printf("device %u:%u: a simulator, left out "
                   "(SAMEBITS_TEST_NO_SIMULATOR=1)\n", e->platform_index,
                   e->device_index);
            skipped++;
            continue;
        }
        if (!open_one(&devices[count], e->platform, e->device,
                      e->platform_index, e->device_index)) {
            close_devices(devices, count);
            free(entries);
            return 0;
        }
        count++;
    }
    free(entries);
    if (count == 0) {
        fprintf(stderr, "no OpenCL device but the %zu simulator(s) "
                "SAMEBITS_TEST_NO_SIMULATOR=1 leaves out: the device tests "
                "need at least POCL\n", skipped);
        free(devices);
        return 0;
    }
    for (size_t i = 0; i < count; i++) {
        const test_device *t = &devices[i];
        printf("device %s: %s, fp64 %d, f32/f64 denormals %d/%d, "
               "max work-group %zu, local memory %zu, default shape %zu x %u,"
               " sub-group back-end %d, out-of-order %d%s%s\n",
               t->name, t->caps.version, t->caps.fp64,
               t->caps.f32_denormals, t->caps.f64_denormals,
               t->caps.max_work_group_size, t->caps.local_mem_size,
               t->caps.work_group_size, t->caps.leaves_per_item,
               t->caps.subgroup_backend, t->out_of_order,
               t->oclgrind ? " [simulator: small cases]" : "",
               t->sparse ? " [SAMEBITS_TEST_SPARSE: sparse]"
               : t->families_in_turn ? " [families in turn]"
                         : "");
        for (int ty = SB_I8; ty <= SB_F64; ty++)
            if (t->caps.type_status[ty] != SB_OK)
                printf("  refuses %s: %s\n", type_name((sb_type)ty),
                       t->caps.type_reason[ty]);
            else if (t->caps.type_mode[ty] != SB_MODE_NATIVE)
                printf("  %s in mode %u: %s\n", type_name((sb_type)ty),
                       t->caps.type_mode[ty], t->caps.type_reason[ty]);
        sb_options o;
        memset(&o, 0, sizeof o);
        apply_test_modes(&o);
        if (o.float_mode != 0 || o.flags != 0)
            printf("  every context: float_mode %u%s\n", o.float_mode,
                   (o.flags & SB_OPT_FLUSH_SUBNORMALS)
                   ? ", SB_OPT_FLUSH_SUBNORMALS (a flushing device)" : "");
    }
    fflush(stdout);
    *out = devices;
    return count;
}

void close_devices(test_device *devices, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        clReleaseCommandQueue(devices[i].queue);
        clReleaseContext(devices[i].cl_ctx);
    }
    free(devices);
}

void *device_suite_new(size_t size)
{
    device_list *list = checked_malloc(size);
    memset(list, 0, size);
    list->count = open_devices(&list->devices);
    if (list->count == 0) {
        free(list);
        return NULL;
    }
    return list;
}

void device_suite_free(void *suite)
{
    device_list *list = suite;
    if (list == NULL)
        return;
    close_devices(list->devices, list->count);
    free(list);
}

int device_list_setup(void **state)
{
    *state = device_suite_new(sizeof(device_list));
    return *state != NULL ? 0 : -1;
}

int device_list_teardown(void **state)
{
    device_suite_free(*state);
    return 0;
}

size_t device_max_work_group_size(const test_device *d, size_t cap)
{
    size_t p = 1;
    while (p * 2 <= d->caps.max_work_group_size && p * 2 <= cap)
        p *= 2;
    return p;
}

bool type_is_exact_on(const test_device *d, sb_type t)
{
    if (t == SB_F16 || t == SB_BF16)   /* integer reads, binary32 steps */
        return true;
    return (int)t >= (int)SB_I8 && (int)t <= (int)SB_F64 &&
           d->caps.type_status[t] == SB_OK;
}

cl_mem make_buffer(const test_device *d, size_t bytes, const void *data)
{
    cl_int err = CL_SUCCESS;
    cl_mem b = clCreateBuffer(d->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL,
                              &err);
    if (b == NULL) {
        fprintf(stderr, "clCreateBuffer(%zu) failed (%d) on %s\n", bytes,
                err, d->name);
        exit(2);
    }
    if (data != NULL) {
        err = clEnqueueWriteBuffer(d->queue, b, CL_TRUE, 0, bytes, data, 0,
                                   NULL, NULL);
        if (err != CL_SUCCESS) {
            fprintf(stderr, "clEnqueueWriteBuffer(%zu) failed (%d) on %s\n",
                    bytes, err, d->name);
            exit(2);
        }
    }
    return b;
}

void read_buffer(const test_device *d, cl_mem buffer, size_t offset,
                 size_t bytes, void *data)
{
    const cl_int err = clEnqueueReadBuffer(d->queue, buffer, CL_TRUE, offset,
                                           bytes, data, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clEnqueueReadBuffer(%zu) failed (%d) on %s\n",
                bytes, err, d->name);
        exit(2);
    }
}

/* Buffers held back by keep_buffers(). */
static struct {
    bool    on;
    cl_mem *held;
    size_t  count, capacity;
} kept;

void keep_buffers(void)
{
    kept.on = true;
}

void release_kept_buffers(void)
{
    for (size_t i = 0; i < kept.count; i++)
        clReleaseMemObject(kept.held[i]);
    free(kept.held);
    kept.held = NULL;
    kept.count = kept.capacity = 0;
    kept.on = false;
}

/* clReleaseMemObject(), or later if keep_buffers() was called. */
static void release_buffer(cl_mem b)
{
    if (!kept.on) {
        clReleaseMemObject(b);
        return;
    }
    if (kept.count == kept.capacity) {
        kept.capacity = kept.capacity ? 2 * kept.capacity : 64;
        cl_mem *grown = realloc(kept.held, kept.capacity * sizeof *grown);
        if (grown == NULL) {
            fprintf(stderr, "out of memory keeping buffers\n");
            exit(2);
        }
        kept.held = grown;
    }
    kept.held[kept.count++] = b;
}

/* ------------------------------------------------------------------------
 * Contexts
 * ---------------------------------------------------------------------- */

sb_status device_context_open(device_context *dc, const test_device *dev,
                              const sb_options *opts)
{
    memset(dc, 0, sizeof *dc);
    dc->dev = dev;
    if (opts != NULL)
        dc->opts = *opts;
    apply_test_modes(&dc->opts);
    return sb_context_create(dev->cl_ctx, dev->device, &dc->opts, &dc->ctx);
}

void device_context_close(device_context *dc)
{
    sb_context_release(dc->ctx);
    dc->ctx = NULL;
}

void print_options(FILE *out, const sb_options *o)
{
    static const char *const modes[] = { "auto", "off", "emulate" };
    fprintf(out, "options: flags=%s%s%s%s host_max_n=%zu host.threads=%u "
            "work_group_size=%zu leaves_per_item=%u tree_work_group_size=%zu"
            " nodes_per_item=%u subgroups=%s emulated_subgroup_size=%u "
            "float_mode=%u (0: default)",
            o->flags & SB_OPT_NO_HOST ? "NO_HOST|" : "",
            o->flags & SB_OPT_ALLOW_INEXACT ? "ALLOW_INEXACT|" : "",
            o->flags & SB_OPT_FLUSH_SUBNORMALS ? "FLUSH_SUBNORMALS|" : "",
            o->flags == 0 ? "0" : "", o->host_max_n, o->host.threads,
            o->work_group_size, o->leaves_per_item, o->tree_work_group_size,
            o->nodes_per_item, o->subgroups <= 2 ? modes[o->subgroups] : "?",
            o->emulated_subgroup_size, o->float_mode);
}

/* ------------------------------------------------------------------------
 * Layout
 * ---------------------------------------------------------------------- */

/* Mostly small paddings, sometimes none, sometimes a larger one. */
static size_t random_padding(uint64_t *state)
{
    switch (random_below(state, 4)) {
    case 0:  return 0;
    case 1:  return 1 + (size_t)random_below(state, 7);
    case 2:  return 8 + (size_t)random_below(state, 57);
    default: return (size_t)random_below(state, 4);
    }
}

device_layout layout_for(const test_case *c)
{
    uint64_t state = mix_seed(c->case_seed, 2);
    device_layout l;
    l.x_offset = random_padding(&state);
    /* No tail half the time, so that a read past the end is an error the
     * device (or Oclgrind) can see, not a read of padding. */
    l.x_tail = random_below(&state, 2) ? 0 : random_padding(&state);
    l.mask_offset = random_padding(&state);
    l.mask_tail = random_below(&state, 2) ? 0 : random_padding(&state);
    l.result_offset = 8 * (size_t)random_below(&state, 8);
    l.null_buffers = c->n == 0 && random_below(&state, 2) == 0;
    l.own_queue = random_below(&state, 4) == 0;
    return l;
}

static void print_layout(FILE *out, const device_layout *l)
{
    fprintf(out, "layout: x_offset=%zu x_tail=%zu mask_offset=%zu "
            "mask_tail=%zu result_offset=%zu null_buffers=%d queue=%s\n",
            l->x_offset, l->x_tail, l->mask_offset, l->mask_tail,
            l->result_offset, l->null_buffers,
            l->own_queue ? "NULL (the context's own)" : "the test's");
}

/* Random bytes, so that an element read from the padding changes the
 * result (and a mask byte there is usually non-zero). */
static void fill_random_bytes(unsigned char *p, size_t size,
                              uint64_t *state)
{
    for (size_t i = 0; i < size; i++)
        p[i] = (unsigned char)splitmix64(state);
}

cl_mem padded_copy(const test_device *d, const void *data, size_t bytes,
                   size_t pad)
{
    unsigned char *b = checked_malloc(bytes + pad);
    memset(b, 0x5A, pad);
    if (bytes)
        memcpy(b + pad, data, bytes);
    cl_mem m = make_buffer(d, bytes + pad, b);
    free(b);
    return m;
}

/* A buffer holding `size` bytes of `data` after `front` random bytes and
 * before `tail` random bytes; at least one byte. */
static cl_mem padded_buffer(const test_device *d, const void *data,
                            size_t size, size_t front, size_t tail,
                            uint64_t *state)
{
    size_t total = front + size + tail;
    if (total == 0)
        total = 1;
    unsigned char *bytes = checked_malloc(total);
    fill_random_bytes(bytes, total, state);
    if (size > 0)
        memcpy(bytes + front, data, size);
    cl_mem b = make_buffer(d, total, bytes);
    free(bytes);
    return b;
}

/* ------------------------------------------------------------------------
 * The check
 * ---------------------------------------------------------------------- */

static bool untouched(const unsigned char *p, size_t size)
{
    for (size_t i = 0; i < size; i++)
        if (p[i] != RESULT_SENTINEL)
            return false;
    return true;
}

/* The record sb_reduce_enqueue() writes: status word 8 bytes before its
 * end (after the value, or the value and the index). */
static size_t record_size(sb_reduction r)
{
    return r.op == SB_ARGMIN || r.op == SB_ARGMAX
           ? sizeof(sb_device_arg_result) : sizeof(sb_device_result);
}

/* A record's value against the oracle's result. An argmin / argmax
 * record has the value's bytes, then the bytes after them in `value`
 * untouched (the oracle's are zero), then the index, where the oracle's
 * sb_arg_result has it. */
static bool record_value_equal(sb_reduction r, const unsigned char *record,
                               const unsigned char *want)
{
    if (r.op != SB_ARGMIN && r.op != SB_ARGMAX)
        return bits_equal(record, want, oracle_result_size(r));
    const size_t v = type_size(r.accumulator ? r.accumulator : r.input);
    return bits_equal(record, want, v) && untouched(record + v, 8 - v) &&
           bits_equal(record + 8, want + 8, 8);
}

/* The enqueue run: the record at layout->result_offset of a buffer whose
 * other bytes are sentinels. @return true if it agrees with the oracle
 * (`expected`, `want`), or, where `refused`, if the call returned
 * SB_UNSUPPORTED and touched nothing. Fills `got` (the record's bytes, up
 * to sizeof(sb_device_arg_result)) for the report. */
static bool enqueue_run(const device_context *dc, const test_case *c,
                        const device_layout *l, cl_mem x, size_t x_offset,
                        cl_mem mask, size_t mask_offset, bool refused,
                        sb_status expected, const unsigned char *want,
                        sb_status *call_status, unsigned char *got,
                        const char **why)
{
    const test_device *d = dc->dev;
    const size_t tail = 24;
    const size_t rec_size = record_size(c->r);
    const size_t total = l->result_offset + rec_size + tail;
    unsigned char *before = checked_malloc(total);
    unsigned char *after = checked_malloc(total);
    memset(before, RESULT_SENTINEL, total);
    cl_mem result = make_buffer(d, total, before);

    cl_event done = (cl_event)(uintptr_t)0x5a5a;   /* must stay if refused */
    const cl_event sentinel_event = done;
    *call_status = sb_reduce_enqueue(dc->ctx, l->own_queue ? NULL : d->queue,
                                     c->r, x, x_offset, mask, mask_offset,
                                     c->n, result,
                                     l->result_offset, 0, NULL, &done);
    bool ok = true;
    *why = "";
    if (*call_status == SB_OK && done != sentinel_event) {
        clWaitForEvents(1, &done);
        cl_int exec = CL_QUEUED;
        clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec,
                       &exec, NULL);
        if (exec != CL_COMPLETE) {
            ok = false;
            *why = "the `done` event did not complete";
        }
        clReleaseEvent(done);
    }
    read_buffer(d, result, 0, total, after);
    release_buffer(result);

    const unsigned char *record = after + l->result_offset;
    memset(got, RESULT_SENTINEL, sizeof(sb_device_arg_result));
    memcpy(got, record, rec_size);
    int32_t status;
    memcpy(&status, record + rec_size - 8, sizeof status);
    /* An sb_device_arg_result's value and index are where an
     * sb_arg_result has them: the oracle's bytes compare as they are. */
    const size_t rsize = oracle_result_size(c->r);

    if (refused) {
        if (*call_status != SB_UNSUPPORTED) {
            ok = false;
            *why = "a type the device refuses was not refused";
        } else if (done != sentinel_event) {
            ok = false;
            *why = "*done was written on a refusal";
        } else if (memcmp(before, after, total) != 0) {
            ok = false;
            *why = "the result buffer was written on a refusal";
        }
    } else if (*call_status != SB_OK) {
        ok = false;
        *why = "sb_reduce_enqueue did not return SB_OK";
    } else if (done == sentinel_event) {
        ok = false;
        *why = "*done was not set";
    } else if (!untouched(after, l->result_offset) ||
               !untouched(record + rec_size, tail)) {
        ok = false;
        *why = "bytes outside the record were written";
    } else if (status != (int32_t)expected) {
        ok = false;
        *why = "the status word differs from the oracle's status";
    } else if (expected == SB_OK ? !record_value_equal(c->r, record, want)
                                 : !untouched(record, rsize)) {
        ok = false;
        *why = expected == SB_OK ? "the value differs from the oracle's"
                                 : "the value bytes were written although "
                                   "the status is not SB_OK";
    }
    free(before);
    free(after);
    return ok;
}

bool check_data_on_device(const device_context *dc, const test_case *c,
                          const void *x, const unsigned char *mask,
                          unsigned runs, sb_status *oracle_status)
{
    const test_device *d = dc->dev;
    const device_layout l = layout_for(c);
    /* A count accumulates in a u64 on the device, whatever the input. */
    const sb_type acc = c->r.op == SB_COUNT ? SB_U64
                      : c->r.accumulator == 0 ? c->r.input
                                              : c->r.accumulator;
    const bool refused = !(dc->opts.flags & SB_OPT_ALLOW_INEXACT) &&
                         (!type_is_exact_on(d, c->r.input) ||
                          !type_is_exact_on(d, acc));

    unsigned char want[RESULT_BUFFER], host[RESULT_BUFFER];
    memset(want, RESULT_SENTINEL, sizeof want);
    memset(host, RESULT_SENTINEL, sizeof host);
    const sb_status expected = oracle_reduce(c->r, x, mask, c->n, want);
    const sb_status host_status = sb_reduce_host(c->r, x, mask, c->n, host);
    if (oracle_status != NULL)
        *oracle_status = expected;
    bool agree = host_status == expected && bits_equal(host, want,
                                                       sizeof want);
    const char *why = agree ? "" : "the host path differs from the oracle";

    uint64_t state = mix_seed(c->case_seed, 3);
    const size_t size = type_size(c->r.input);
    cl_mem xb = NULL, mb = NULL;
    if (!l.null_buffers) {
        xb = padded_buffer(d, x, c->n * size, l.x_offset * size,
                           l.x_tail * size, &state);
        if (mask != NULL)
            mb = padded_buffer(d, mask, c->n, l.mask_offset, l.mask_tail,
                               &state);
    }
    const size_t x_offset = l.null_buffers ? 0 : l.x_offset;
    const size_t mask_offset = l.null_buffers ? 0 : l.mask_offset;

    unsigned char got[2][RESULT_BUFFER];
    sb_status got_status[2] = { SB_OK, SB_OK };
    const int reduce_runs = runs & RUN_REDUCE ? 2 : 0;
    for (int k = 0; k < reduce_runs; k++) {
        memset(got[k], RESULT_SENTINEL, RESULT_BUFFER);
        got_status[k] = sb_reduce(dc->ctx, l.own_queue ? NULL : d->queue,
                                  c->r, xb, x_offset, mb, mask_offset, c->n,
                                  got[k]);
        if (!agree)
            continue;
        if (refused) {
            if (got_status[k] != SB_UNSUPPORTED || !untouched(got[k],
                                                              RESULT_BUFFER)) {
                agree = false;
                why = "a type the device refuses was not refused by "
                      "sb_reduce (or the result was written)";
            }
        } else if (got_status[k] != expected ||
                   !bits_equal(got[k], want, sizeof want)) {
            agree = false;
            why = k == 0 ? "sb_reduce differs from the oracle"
                         : "the second sb_reduce differs from the oracle";
        }
    }

    unsigned char record[sizeof(sb_device_arg_result)];
    sb_status enqueue_status = SB_OK;
    if (runs & RUN_ENQUEUE) {
        const char *enqueue_why = "";
        const bool ok = enqueue_run(dc, c, &l, xb, x_offset, mb,
                                    mask_offset, refused, expected, want,
                                    &enqueue_status, record, &enqueue_why);
        if (agree && !ok) {
            agree = false;
            why = enqueue_why;
        }
    }
    if (xb != NULL)
        release_buffer(xb);
    if (mb != NULL)
        release_buffer(mb);

    if (!agree) {
        fprintf(stderr, "MISMATCH on device %s: %s\n  ", d->name, why);
        print_options(stderr, &dc->opts);
        fprintf(stderr, "\n  ");
        print_case(stderr, c);
        fprintf(stderr, "  ");
        print_layout(stderr, &l);
        print_run("oracle", c->r, expected, want);
        print_run("host", c->r, host_status, host);
        for (int k = 0; k < reduce_runs; k++)
            print_run(k == 0 ? "device#1" : "device#2", c->r,
                      got_status[k], got[k]);
        if (runs & RUN_ENQUEUE) {
            int32_t status;
            memcpy(&status, record + record_size(c->r) - 8, sizeof status);
            fprintf(stderr, "  %-10s %-22s record status %d, value ",
                    "enqueue", status_name(enqueue_status), (int)status);
            print_result(stderr, c->r, record);
            fprintf(stderr, "\n");
        }
        if (refused)
            fprintf(stderr, "  (the device refuses %s or %s: SB_UNSUPPORTED "
                    "expected)\n", type_name(c->r.input), type_name(acc));
    }
    return agree;
}

bool check_on_device(const device_context *dc, const test_case *c,
                     unsigned runs, sb_status *oracle_status)
{
    const size_t size = type_size(c->r.input);
    void *x = checked_malloc(c->n * size);
    fill_data(c->family, c->r.input, c->r.accumulator, x, c->n,
              c->case_seed);
    unsigned char *mask = make_mask(c->mask, c->n, mix_seed(c->case_seed, 1));
    const bool agree = check_data_on_device(dc, c, x, mask, runs,
                                            oracle_status);
    free(mask);
    free(x);
    return agree;
}

void tally_add(tally *t, sb_status oracle_status, bool agreed)
{
    t->cases++;
    t->ok += oracle_status == SB_OK;
    t->empty += oracle_status == SB_EMPTY;
    t->overflow += oracle_status == SB_OVERFLOW;
    t->wrong += !agreed;
}

void print_tally(const char *what, const tally *t)
{
    printf("%s: %lu cases (%lu ok, %lu empty, %lu overflow), %lu wrong\n",
           what, t->cases, t->ok, t->empty, t->overflow, t->wrong);
    fflush(stdout);
}
