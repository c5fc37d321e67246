/* bench_latency.c: part 2 of `samebits bench`: what a small call costs.
 * Microseconds per f32 sum call at n = 1, 1000, 10^5, through
 * sb_reduce_host(), through sb_reduce() with its defaults (small n are
 * reduced on the host) and with SB_OPT_NO_HOST (the device computes);
 * next to each device's floors, the least any such call can cost there:
 * one blocking command round trip and one empty kernel launch.
 *
 * Unlike part 1, a figure here is a time per call, not a speed, and each
 * path is measured on its own (no turns): the best of 5 samples of at
 * least 10 ms each, after one warm-up call.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

#include "corpus.h"
#include "samebits.h"

/* Microseconds per call of `fn`: the best of 5 samples of >= 10 ms each. */
typedef sb_status (*latency_fn)(void *arg);

static double micros_per_call(latency_fn fn, void *arg, sb_status *status)
{
    double best = 0.0;
    *status = fn(arg);                  /* warm-up (and the build, if any) */
    if (*status != SB_OK)
        return 0.0;
    for (int sample = 0; sample < 5; sample++) {
        unsigned calls = 0;
        const double t0 = cli_now();
        double t = t0;
        do {
            fn(arg);
            calls++;
            t = cli_now();
        } while (t - t0 < 0.01);
        const double us = (t - t0) / calls * 1e6;
        if (sample == 0 || us < best)
            best = us;
    }
    return best;
}

typedef struct {
    const float  *x;
    cl_mem        buf;
    size_t        n;
    sb_context   *ctx;
    bench_device *device;      /* for the floors */
} latency_arg;

static sb_status latency_host(void *p)
{
    latency_arg *a = p;
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    float result;
    const sb_status s = sb_reduce_host(r, a->x, NULL, a->n, &result);
    bench_sink_f32 = result;
    return s;
}

static sb_status latency_device(void *p)
{
    latency_arg *a = p;
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    float result;
    const sb_status s = sb_reduce(a->ctx, NULL, r, a->buf, 0, NULL, 0, a->n,
                                  &result);
    bench_sink_f32 = result;
    return s;
}

/* The floor of anything sb_reduce() does with a cl_mem: one blocking
 * command, the cheapest there is. */
static sb_status latency_round_trip(void *p)
{
    latency_arg *a = p;
    float value;
    const cl_int err = clEnqueueReadBuffer(a->device->queue, a->buf, CL_TRUE,
                                           0, sizeof value, &value, 0, NULL,
                                           NULL);
    bench_sink_f32 = value;
    return err == CL_SUCCESS ? SB_OK : SB_OPENCL_ERROR;
}

/* The floor of a device computation: one launch of a kernel that does
 * nothing, and waiting for it. */
static sb_status latency_empty_launch(void *p)
{
    latency_arg *a = p;
    size_t one = 1;
    cl_int err = clEnqueueNDRangeKernel(a->device->queue,
                                        a->device->empty_kernel, 1, NULL,
                                        &one, &one, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clFinish(a->device->queue);
    return err == CL_SUCCESS ? SB_OK : SB_OPENCL_ERROR;
}

/* n == 0: a floor (no n). floor_us > 0: also the call's cost in command
 * round trips of the same device. */
static void print_latency(int json, const char *target, const char *path,
                          size_t n, double us, sb_status s, double floor_us)
{
    char size[24] = "-", ratio[32] = "";
    if (n != 0)
        snprintf(size, sizeof size, "%zu", n);
    if (json) {
        printf("{\"kind\":\"latency\",\"target\":\"%s\",\"path\":\"%s\","
               "\"op\":\"sum\",\"type\":\"f32\",\"n\":%s,\"status\":\"%s\","
               "\"microseconds_best\":%.3f", target, path,
               n != 0 ? size : "null", corpus_status_word(s), us);
        if (floor_us > 0.0 && s == SB_OK)
            printf(",\"round_trips\":%.3f", us / floor_us);
        printf("}\n");
    } else if (s != SB_OK) {
        printf("  %-6s %-30s %8s  %s\n", target, path, size,
               sb_status_string(s));
    } else {
        if (floor_us > 0.0)
            snprintf(ratio, sizeof ratio, "  %11.2f", us / floor_us);
        printf("  %-6s %-30s %8s  %10.1f%s\n", target, path, size, us, ratio);
    }
}

int bench_latency(int json, bench_device *devs, size_t dev_count)
{
    static const size_t sizes[] = { 1, 1000, 100000 };
    const size_t max_n = 100000;
    float *x = malloc(max_n * sizeof *x);
    if (x == NULL) {
        cli_error("bench", "out of memory");
        return -1;
    }
    bench_fill(x, SB_F32, SB_SUM, max_n);
    if (!json)
        printf("\n2. Microseconds per f32 sum call (best of 5 samples of "
               ">= 10 ms), and on a device\n   the same in round trips (the "
               "first floor: one blocking command):\n"
               "  %-6s %-30s %8s  %10s  %11s\n", "target", "path", "n",
               "us/call", "round trips");
    for (size_t k = 0; k < 3; k++) {
        fprintf(stderr, "bench: small calls, n = %zu\n", sizes[k]);
        latency_arg a = { .x = x, .n = sizes[k] };
        sb_status s;
        const double us = micros_per_call(latency_host, &a, &s);
        print_latency(json, "host", "sb_reduce_host", sizes[k], us, s, 0.0);
    }
    for (size_t i = 0; i < dev_count; i++) {
        bench_device *b = &devs[i];
        char target[16];
        snprintf(target, sizeof target, "%s", b->label);
        cl_int err = CL_SUCCESS;
        cl_mem buf = clCreateBuffer(b->cl_ctx,
                                    CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                    max_n * sizeof *x, x, &err);
        if (buf == NULL) {
            cli_error("bench", "%s: %s", target, cli_cl_error_name(err));
            free(x);
            return -1;
        }
        fprintf(stderr, "bench: small calls, %s, floors\n", target);
        latency_arg floor = { .buf = buf, .device = b };
        sb_status fs;
        const double trip = micros_per_call(latency_round_trip, &floor, &fs);
        print_latency(json, target, "floor: blocking 4-byte read", 0, trip,
                      fs, 0.0);
        const double per_trip = fs == SB_OK ? trip : 0.0;
        const double launch = micros_per_call(latency_empty_launch, &floor,
                                              &fs);
        print_latency(json, target, "floor: empty kernel + finish", 0, launch,
                      fs, per_trip);
        for (size_t k = 0; k < 3; k++) {
            fprintf(stderr, "bench: small calls, %s, n = %zu\n", target, sizes[k]);
            latency_arg a = { .buf = buf, .n = sizes[k], .ctx = b->sb_default };
            sb_status s;
            double us = micros_per_call(latency_device, &a, &s);
            print_latency(json, target, "sb_reduce (defaults)", sizes[k], us, s,
                          per_trip);
            a.ctx = b->sb;
            us = micros_per_call(latency_device, &a, &s);
            print_latency(json, target, "sb_reduce (SB_OPT_NO_HOST)", sizes[k],
                          us, s, per_trip);
        }
        clReleaseMemObject(buf);
    }
    free(x);
    return 0;
}
