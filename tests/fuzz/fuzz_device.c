/* tests/fuzz/fuzz_device.c: libFuzzer target comparing sb_reduce() (and,
 * on request, sb_reduce_enqueue()) on an OpenCL device with
 * sb_reduce_host(), bit for bit, on cases decoded by fuzz_case.c.
 *
 * The device is the library's default one (SAMEBITS_DEVICE selects
 * another; POCL where there is no GPU). On the first input one cl_context
 * and four sb_contexts are made and kept for the whole run:
 *   0: SB_OPT_NO_HOST, the device's own launch shape;
 *   1: SB_OPT_NO_HOST, work-groups of 16 items of 1 leaf and node passes of
 *      16 x 1: many groups and several node passes even for small n;
 *   2: SB_OPT_NO_HOST, 32 x 2 leaves, node passes 8 x 4, sub-groups of 8
 *      emulated through local memory;
 *   3: host_max_n 64 (small inputs read back and reduced on the host), else
 *      as 0. It adds no kernels to compile: POCL compiles each kernel once
 *      per work-group size (a second or two each, cached in
 *      POCL_CACHE_DIR), which is what makes a cold run slow.
 * Byte 8 of the input (fuzz_case.h) picks one: bits 4-5 the context, bit 6
 * also sb_reduce_enqueue() into a record at a non-zero offset, bit 7 the
 * context's own queue (a NULL queue) instead of the fuzzer's.
 *
 * Each case's data are uploaded into a buffer with `offset` elements of
 * padding in front and a few behind, all 0x7F bytes, so a read outside the
 * range changes the result; the mask likewise, with 0xFF padding. The
 * statuses and whole result buffers must equal the host path's; a type the
 * device refuses (sb_device_report()) must give SB_UNSUPPORTED. Any
 * disagreement prints the case and calls abort(). FUZZ_PERTURB=1 (a -D
 * define) flips a bit of the host's f32 sum results with n > 100, to show
 * the target can fail. SAMEBITS_FUZZ_VERBOSE=1 prints every decoded case.
 *
 * n stays moderate (at most 130000 elements): a launch costs ~100 us on
 * POCL. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_case.h"
#include <CL/cl.h>
#include "samebits.h"
#include "support.h"

enum { CONTEXTS = 4 };

/* POCL and its LLVM keep C++ objects they never free; LeakSanitizer (in a
 * SAMEBITS_SANITIZE=address build) would report them at exit. samebits is
 * C and never calls operator new, so leaks through libstdc++ are theirs.
 * Mesa's rusticl keeps what its platform set-up allocates (72 bytes, in
 * clGetPlatformIDs, with or without RUSTICL_ENABLE): the fuzzer opens no
 * rusticl device, so no samebits object is behind it (as in
 * tests/sanitizers/lsan.supp). */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libstdc++.so\nleak:libpocl\nleak:libLLVM\n"
           "leak:libRusticlOpenCL.so\n";
}

static struct {
    bool             ready;
    cl_context       cl_ctx;
    cl_device_id     device;
    cl_command_queue queue;
    sb_context      *ctx[CONTEXTS];
    sb_device_caps   caps;
} dev;

static void die(const char *what, int code)
{
    fprintf(stderr, "fuzz_device: %s failed (%d)\n", what, code);
    abort();
}

static void open_device(void)
{
    sb_options opts[CONTEXTS];
    memset(opts, 0, sizeof opts);
    opts[0].flags = SB_OPT_NO_HOST;
    opts[1] = (sb_options){ .flags = SB_OPT_NO_HOST, .work_group_size = 16,
                            .leaves_per_item = 1,
                            .tree_work_group_size = 16, .nodes_per_item = 1 };
    opts[2] = (sb_options){ .flags = SB_OPT_NO_HOST, .work_group_size = 32,
                            .leaves_per_item = 2, .tree_work_group_size = 8,
                            .nodes_per_item = 4,
                            .subgroups = SB_SUBGROUPS_EMULATE,
                            .emulated_subgroup_size = 8 };
    opts[3] = (sb_options){ .host_max_n = 64 };
    sb_status s = sb_context_create_default(&opts[0], &dev.ctx[0]);
    if (s != SB_OK)
        die("sb_context_create_default", (int)s);
    dev.cl_ctx = sb_context_cl_context(dev.ctx[0]);
    dev.device = sb_context_device(dev.ctx[0]);
    for (int i = 1; i < CONTEXTS; i++) {
        s = sb_context_create(dev.cl_ctx, dev.device, &opts[i], &dev.ctx[i]);
        if (s != SB_OK)
            die("sb_context_create", (int)s);
    }
    s = sb_device_report(dev.device, &dev.caps);
    if (s != SB_OK)
        die("sb_device_report", (int)s);
    cl_int err = CL_SUCCESS;
    dev.queue = clCreateCommandQueue(dev.cl_ctx, dev.device, 0, &err);
    if (dev.queue == NULL)
        die("clCreateCommandQueue", err);
    fprintf(stderr, "fuzz_device: %s (%s)\n", dev.caps.name, dev.caps.version);
    dev.ready = true;
}

/* A buffer of `front` + `count` + `back` elements of `size` bytes: `data`
 * in the middle, `pad` bytes around it. */
static cl_mem upload(const void *data, size_t count, size_t size,
                     size_t front, size_t back, unsigned char pad)
{
    const size_t bytes = (front + count + back) * size;
    unsigned char *staging = checked_malloc(bytes);
    memset(staging, pad, bytes);
    if (count > 0)
        memcpy(staging + front * size, data, count * size);
    cl_int err = CL_SUCCESS;
    cl_mem buf = clCreateBuffer(dev.cl_ctx,
                                CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                bytes, staging, &err);
    free(staging);
    if (buf == NULL)
        die("clCreateBuffer", err);
    return buf;
}

static void report(const char *what, sb_reduction r, sb_status s,
                   const unsigned char *result)
{
    fprintf(stderr, "  %-10s %-20s ", what, status_name(s));
    fuzz_print_bytes(stderr, result, RESULT_BUFFER);
    if (s == SB_OK && sb_result_size(r) != 0) {
        fputs("  ", stderr);
        print_result(stderr, r, result);
    }
    fputc('\n', stderr);
}

static void fail(const fuzz_case *c, unsigned which, const char *why)
{
    fprintf(stderr, "\nfuzz_device MISMATCH: %s\ncontext %u on %s\n", why,
            which, dev.caps.name);
    fuzz_case_print(stderr, c);
    fuzz_write_input(stderr);
    abort();
}

static bool untouched(const unsigned char *p, size_t size)
{
    for (size_t i = 0; i < size; i++)
        if (p[i] != RESULT_SENTINEL)
            return false;
    return true;
}

/* A type as sb_device_report() lists it: its table ends at f64, and
 * f16 / bf16 are read as 16-bit integers and computed in binary32, so
 * they stand or fall with f32 (samebits.h, sb_device_caps). */
static sb_status type_status(sb_type t)
{
    return dev.caps.type_status[t == SB_F16 || t == SB_BF16 ? SB_F32 : t];
}

/* Whether the device refuses r (it must then say SB_UNSUPPORTED): its
 * types. A count accumulates in a u64 whatever its input. */
static bool refused(sb_reduction r)
{
    if (sb_reduction_check(r) != SB_OK)
        return false;
    const sb_type acc = r.op == SB_COUNT ? SB_U64
                      : r.accumulator == 0 ? r.input : r.accumulator;
    return type_status(r.input) != SB_OK || type_status(acc) != SB_OK;
}

/* sb_reduce_enqueue() into a record at byte `offset` of a sentinel-filled
 * buffer; checks the record against the host's answer. */
static void check_enqueue(const fuzz_case *c, unsigned which,
                          cl_command_queue queue, cl_mem x, size_t x_offset,
                          cl_mem mask, size_t mask_offset,
                          sb_status host, const unsigned char *want)
{
    enum { RECORD_BYTES = 64 };
    const size_t offset = 8 * (1 + c->offset % 4);
    unsigned char init[RECORD_BYTES];
    memset(init, RESULT_SENTINEL, sizeof init);
    cl_int err = CL_SUCCESS;
    cl_mem out = clCreateBuffer(dev.cl_ctx, CL_MEM_READ_WRITE
                                | CL_MEM_COPY_HOST_PTR, sizeof init, init,
                                &err);
    if (out == NULL)
        die("clCreateBuffer", err);
    cl_event done = NULL;
    const sb_status s = sb_reduce_enqueue(dev.ctx[which], queue, c->r, x,
                                          x_offset, mask, mask_offset, c->n,
                                          out, offset, 0, NULL, &done);
    unsigned char back[RECORD_BYTES];
    cl_command_queue q = queue ? queue : dev.queue;
    if (s == SB_OK) {
        err = clWaitForEvents(1, &done);
        clReleaseEvent(done);
        if (err != CL_SUCCESS)
            die("clWaitForEvents", err);
    }
    err = clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof back, back, 0, NULL,
                              NULL);
    clReleaseMemObject(out);
    if (err != CL_SUCCESS)
        die("clEnqueueReadBuffer", err);

    /* The record: an sb_device_result, or for argmin / argmax an
     * sb_device_arg_result (the value's bytes, the index at 8, the status
     * 8 bytes before the end). */
    const bool arg = sb_reduction_check(c->r) == SB_OK
                     && (c->r.op == SB_ARGMIN || c->r.op == SB_ARGMAX);
    const size_t rec_size = arg ? sizeof(sb_device_arg_result)
                                : sizeof(sb_device_result);
    const unsigned char *record = back + offset;
    int32_t status;
    memcpy(&status, record + rec_size - 8, sizeof status);
    const bool answered = host == SB_OK || host == SB_EMPTY
                          || host == SB_OVERFLOW;
    bool agree;
    if (refused(c->r)) {
        agree = s == SB_UNSUPPORTED && memcmp(back, init, sizeof back) == 0;
    } else if (answered) {
        /* What the record's first rec_size - 8 bytes must be: written
         * only where SB_OK, and of `value` only the accumulator's bytes. */
        unsigned char value[16];
        memset(value, RESULT_SENTINEL, sizeof value);
        if (host == SB_OK && arg) {
            const sb_type acc = c->r.accumulator ? c->r.accumulator
                                                 : c->r.input;
            memcpy(value, want, sb_type_size(acc));
            memcpy(value + 8, want + 8, 8);           /* the index */
        } else if (host == SB_OK) {
            memcpy(value, want, sb_result_size(c->r));
        }
        agree = s == SB_OK && status == (int32_t)host
                && memcmp(record, value, rec_size - 8) == 0
                && memcmp(back, init, offset) == 0
                && memcmp(back + offset + rec_size, init + offset + rec_size,
                          sizeof back - offset - rec_size) == 0;
    } else {
        agree = s == host && memcmp(back, init, sizeof back) == 0;
    }
    if (!agree) {
        fprintf(stderr, "\nsb_reduce_enqueue() returned %s; record at %zu: "
                "status %d, bytes ", status_name(s), offset, (int)status);
        fuzz_print_bytes(stderr, record, rec_size - 8);
        fputc('\n', stderr);
        report("host", c->r, host, want);
        fail(c, which, "sb_reduce_enqueue() and the host path differ");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dev.ready)
        open_device();
    const fuzz_limits limits = { 40000u, 90001u, 65537u, 0u };
    fuzz_keep_input(data, size);
    fuzz_case c;
    if (!fuzz_decode(data, size, limits, &c))
        return 0;
    const unsigned which = c.target_bits & 3u;
    const bool enqueue = (c.target_bits & 4u) != 0;
    cl_command_queue queue = (c.target_bits & 8u) ? NULL : dev.queue;

    unsigned char want[RESULT_BUFFER];
    memset(want, RESULT_SENTINEL, sizeof want);
    const sb_status host = sb_reduce_host(c.r, c.null_x ? NULL : c.x,
                                          c.null_x ? NULL : c.mask, c.n,
                                          want);
    if (getenv("SAMEBITS_FUZZ_VERBOSE") != NULL) {
        fuzz_case_print(stderr, &c);
        fprintf(stderr, "      -> %s\n", status_name(host));
    }
#if defined(FUZZ_PERTURB) && FUZZ_PERTURB
    if (host == SB_OK && c.r.op == SB_SUM && c.r.input == SB_F32 && c.n > 100)
        want[0] ^= 1;
#endif

    cl_mem x = NULL, mask = NULL;
    const size_t x_offset = c.offset, mask_offset = (c.offset * 5u) % 8u;
    if (!c.null_x) {
        x = upload(c.x, c.n, c.elem_size, x_offset, 1 + c.offset % 3, 0x7F);
        if (c.mask != NULL)
            mask = upload(c.mask, c.n, 1, mask_offset, 2, 0xFF);
    }
    unsigned char got[RESULT_BUFFER];
    memset(got, RESULT_SENTINEL, sizeof got);
    const sb_status s = sb_reduce(dev.ctx[which], queue, c.r, x, x_offset,
                                  mask, mask_offset, c.n, got);
    const bool agree = refused(c.r)
        ? s == SB_UNSUPPORTED && untouched(got, sizeof got)
        : s == host && memcmp(got, want, sizeof got) == 0;
    if (!agree) {
        fprintf(stderr, "\nx_offset=%zu mask_offset=%zu queue=%s\n",
                x_offset, mask_offset, queue ? "fuzzer's" : "context's");
        report("host", c.r, host, want);
        report("device", c.r, s, got);
        if (s == SB_OPENCL_ERROR)
            fprintf(stderr, "  cl error %d\n",
                    (int)sb_context_last_cl_error(dev.ctx[which]));
        if (s == SB_BUILD_ERROR)
            fprintf(stderr, "  build log:\n%s\n",
                    sb_context_build_log(dev.ctx[which]));
        fail(&c, which, "sb_reduce() and the host path differ");
    }
    if (enqueue)
        check_enqueue(&c, which, queue, x, x_offset, mask, mask_offset, host,
                      want);
    if (x != NULL)
        clReleaseMemObject(x);
    if (mask != NULL)
        clReleaseMemObject(mask);
    fuzz_case_free(&c);
    return 0;
}
