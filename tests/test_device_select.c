/* tests/test_device_select.c: one numbering and one grammar for devices.
 *
 * The test lists the devices itself (clGetPlatformIDs, clGetDeviceIDs)
 * and checks that the library numbers them the same way, and that "N",
 * "P:D", a name, SAMEBITS_DEVICE and sb_context_create_select() all name
 * the same device; that a name matching several devices (or none), a
 * number past the end or a bad "P:D" is refused with a detail listing the
 * devices, never a silent choice; that the automatic choice skips the
 * simulator; and that sb_context_queue() is the queue a NULL queue means. */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "device_support.h"

enum { MAX = 64 };

typedef struct {
    cl_platform_id platform;
    cl_device_id   device;
    unsigned       p, d;
    char           texts[4][256];   /* device name, platform name, vendor, version */
    bool           gpu, cpu, simulator;
} known_device;

static known_device known[MAX];
static size_t known_count;

static void list_independently(void)
{
    cl_platform_id platforms[MAX];
    cl_uint np = 0;
    known_count = 0;
    if (clGetPlatformIDs(MAX, platforms, &np) != CL_SUCCESS)
        return;
    for (cl_uint p = 0; p < np && p < MAX; p++) {
        cl_device_id ids[MAX];
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, MAX, ids, &nd)
            != CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < nd && d < MAX && known_count < MAX; d++) {
            known_device *k = &known[known_count++];
            memset(k, 0, sizeof *k);
            k->platform = platforms[p];
            k->device = ids[d];
            k->p = p;
            k->d = d;
            clGetDeviceInfo(ids[d], CL_DEVICE_NAME, 255, k->texts[0], NULL);
            clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, 255, k->texts[1], NULL);
            clGetPlatformInfo(platforms[p], CL_PLATFORM_VENDOR, 255, k->texts[2], NULL);
            clGetPlatformInfo(platforms[p], CL_PLATFORM_VERSION, 255, k->texts[3], NULL);
            cl_device_type type = 0;
            clGetDeviceInfo(ids[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
            k->gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
            k->cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
            k->simulator = strstr(k->texts[0], "Oclgrind") != NULL;
        }
    }
}

static bool has_nocase(const char *hay, const char *needle)
{
    const size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) ==
                                  tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return true;
    }
    return false;
}

static size_t matches(const char *name, size_t *which)
{
    size_t count = 0;
    for (size_t i = 0; i < known_count; i++) {
        bool hit = false;
        for (int t = 0; t < 4; t++)
            hit |= has_nocase(known[i].texts[t], name);
        if (hit) {
            count++;
            *which = i;
        }
    }
    return count;
}

static void assert_detail_has(const char *part)
{
    const char *d = sb_error_detail();
    if (strstr(d, part) == NULL)
        fail_msg("detail \"%s\" does not say \"%s\"", d, part);
}

static void the_library_numbers_devices_as_listed(void **state)
{
    (void)state;
    list_independently();
    assert_true(known_count > 0);                      /* POCL at least */
    sb_device_entry entries[MAX];
    size_t count = 0;
    assert_int_equal(sb_device_list(entries, MAX, &count), SB_OK);
    assert_int_equal(count, known_count);
    size_t only = 99;
    assert_int_equal(sb_device_list(NULL, 0, &only), SB_OK);
    assert_int_equal(only, known_count);
    assert_int_equal(sb_device_list(NULL, 1, &only), SB_INVALID_ARGUMENT);
    assert_int_equal(sb_device_list(entries, MAX, NULL), SB_INVALID_ARGUMENT);
    for (size_t i = 0; i < count; i++) {
        assert_int_equal(entries[i].index, i);
        assert_ptr_equal(entries[i].device, known[i].device);
        assert_ptr_equal(entries[i].platform, known[i].platform);
        assert_int_equal(entries[i].platform_index, known[i].p);
        assert_int_equal(entries[i].device_index, known[i].d);
        assert_int_equal(entries[i].is_simulator, known[i].simulator);
    }
}

static void n_pd_and_names_name_one_device_everywhere(void **state)
{
    (void)state;
    list_independently();
    for (size_t i = 0; i < known_count; i++) {
        char sel[32];
        sb_device_entry e;
        snprintf(sel, sizeof sel, "%zu", i);
        assert_int_equal(sb_device_select(sel, &e), SB_OK);
        assert_ptr_equal(e.device, known[i].device);
        assert_string_equal(sb_error_detail(), "");
        snprintf(sel, sizeof sel, "%u:%u", known[i].p, known[i].d);
        assert_int_equal(sb_device_select(sel, &e), SB_OK);
        assert_ptr_equal(e.device, known[i].device);

        /* SAMEBITS_DEVICE=N and sb_context_create_select("N"). */
        snprintf(sel, sizeof sel, "%zu", i);
        setenv("SAMEBITS_DEVICE", sel, 1);
        sb_context *ctx = NULL;
        assert_int_equal(sb_context_create_default(NULL, &ctx), SB_OK);
        assert_ptr_equal(sb_context_device(ctx), known[i].device);
        sb_context_release(ctx);
        unsetenv("SAMEBITS_DEVICE");
        assert_int_equal(sb_context_create_select(sel, NULL, &ctx), SB_OK);
        assert_ptr_equal(sb_context_device(ctx), known[i].device);
        sb_context_release(ctx);

        /* Its name: chosen if only it matches, refused otherwise. */
        size_t which = 0;
        const size_t m = matches(known[i].texts[0], &which);
        const sb_status s = sb_device_select(known[i].texts[0], &e);
        if (m == 1) {
            assert_int_equal(s, SB_OK);
            assert_ptr_equal(e.device, known[i].device);
        } else {
            assert_int_equal(s, SB_UNSUPPORTED);
            assert_detail_has("matches");
        }
    }
}

static void ambiguous_and_unknown_selectors_are_refused(void **state)
{
    (void)state;
    list_independently();
    sb_device_entry e;
    memset(&e, 0x5b, sizeof e);
    const sb_device_entry before = e;
    /* Every platform version starts with "OpenCL " (OpenCL 1.2, 4.4.4). */
    size_t which = 0;
    const size_t all = matches("opencl", &which);
    assert_int_equal(all, known_count);
    char want[64];
    if (known_count >= 2) {
        assert_int_equal(sb_device_select("opencl", &e), SB_UNSUPPORTED);
        snprintf(want, sizeof want, "'opencl' matches %zu devices", known_count);
        assert_detail_has(want);
        assert_memory_equal(&e, &before, sizeof e);
        setenv("SAMEBITS_DEVICE", "OpenCL", 1);
        sb_context *const sentinel = (sb_context *)(uintptr_t)0x5b5b5b5b;
        sb_context *ctx = sentinel;
        assert_int_equal(sb_context_create_default(NULL, &ctx), SB_UNSUPPORTED);
        assert_detail_has("SAMEBITS_DEVICE='OpenCL' matches");
        assert_ptr_equal(ctx, sentinel);
        unsetenv("SAMEBITS_DEVICE");
    } else {
        assert_int_equal(sb_device_select("opencl", &e), SB_OK);
        assert_ptr_equal(e.device, known[0].device);
    }
    memset(&e, 0x5b, sizeof e);
    snprintf(want, sizeof want, "%zu", known_count);
    assert_int_equal(sb_device_select(want, &e), SB_UNSUPPORTED);
    assert_detail_has("numbered 0..");
    assert_int_equal(sb_device_select("99999999999999999999999", &e),
                     SB_UNSUPPORTED);
    assert_int_equal(sb_device_select("no-such-device-anywhere", &e),
                     SB_UNSUPPORTED);
    assert_detail_has("'no-such-device-anywhere' matches no device");
    assert_int_equal(sb_device_select("63:63", &e), SB_UNSUPPORTED);
    assert_detail_has("'63:63'");
    assert_int_equal(sb_device_select("1:", &e), SB_UNSUPPORTED);
    /* Numbers too large for size_t do not wrap around to a device. */
    assert_int_equal(sb_device_select("18446744073709551616:0", &e),
                     SB_UNSUPPORTED);
    assert_int_equal(sb_device_select("0:18446744073709551616", &e),
                     SB_UNSUPPORTED);
    assert_int_equal(sb_device_select("18446744073709551616", &e),
                     SB_UNSUPPORTED);
    /* The command's keyword is no device here, and says so. */
    assert_int_equal(sb_device_select("host", &e), SB_UNSUPPORTED);
    assert_detail_has("'host' is not a device");
    assert_memory_equal(&e, &before, sizeof e);
    assert_int_equal(sb_device_select(NULL, NULL), SB_INVALID_ARGUMENT);
    assert_detail_has("out is NULL");
}

static void the_automatic_choice_skips_the_simulator(void **state)
{
    (void)state;
    list_independently();
    /* The first GPU, else the first CPU, else the first other device, the
     * simulator last. */
    size_t want = 0;
    int best = 9;
    for (size_t i = 0; i < known_count; i++) {
        const int rank = known[i].simulator ? 3 : known[i].gpu ? 0
                       : known[i].cpu ? 1 : 2;
        if (rank < best) {
            best = rank;
            want = i;
        }
    }
    sb_device_entry e;
    assert_int_equal(sb_device_select(NULL, &e), SB_OK);
    assert_ptr_equal(e.device, known[want].device);
    assert_int_equal(sb_device_select("", &e), SB_OK);
    assert_ptr_equal(e.device, known[want].device);
    unsetenv("SAMEBITS_DEVICE");
    sb_context *ctx;
    assert_int_equal(sb_context_create_default(NULL, &ctx), SB_OK);
    assert_ptr_equal(sb_context_device(ctx), known[want].device);
    sb_context_release(ctx);
}

static void the_context_queue_is_what_null_means(void **state)
{
    (void)state;
    assert_null(sb_context_queue(NULL));
    sb_context *ctx;
    assert_int_equal(sb_context_create_select(NULL, NULL, &ctx), SB_OK);
    cl_command_queue q = sb_context_queue(ctx);
    assert_non_null(q);
    cl_context qctx = NULL;
    cl_device_id qdev = NULL;
    assert_int_equal(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof qctx,
                                           &qctx, NULL), CL_SUCCESS);
    assert_int_equal(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof qdev,
                                           &qdev, NULL), CL_SUCCESS);
    assert_ptr_equal(qctx, sb_context_cl_context(ctx));
    assert_ptr_equal(qdev, sb_context_device(ctx));
    float x[100];
    for (int i = 0; i < 100; i++)
        x[i] = (float)i / 7.0f;
    cl_int err;
    cl_mem buf = clCreateBuffer(sb_context_cl_context(ctx),
                                CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                sizeof x, x, &err);
    assert_non_null(buf);
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    float a, b, h;
    assert_int_equal(sb_reduce(ctx, q, r, buf, 0, NULL, 0, 100, &a), SB_OK);
    assert_int_equal(sb_reduce(ctx, NULL, r, buf, 0, NULL, 0, 100, &b), SB_OK);
    assert_int_equal(sb_reduce_host(r, x, NULL, 100, &h), SB_OK);
    assert_memory_equal(&a, &h, sizeof h);
    assert_memory_equal(&b, &h, sizeof h);
    clReleaseMemObject(buf);
    sb_context_release(ctx);
    assert_string_equal(sb_cl_error_name(CL_OUT_OF_RESOURCES),
                        "CL_OUT_OF_RESOURCES");
    assert_string_equal(sb_cl_error_name(-12345), "OpenCL error -12345");
}

int main(void)
{
    test_seed(0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_library_numbers_devices_as_listed),
        cmocka_unit_test(n_pd_and_names_name_one_device_everywhere),
        cmocka_unit_test(ambiguous_and_unknown_selectors_are_refused),
        cmocka_unit_test(the_automatic_choice_skips_the_simulator),
        cmocka_unit_test(the_context_queue_is_what_null_means),
    };
    return cmocka_run_group_tests_name("device_select", tests, NULL, NULL);
}
