/* bench_first_call.c: part 3 of `samebits bench`: what the first call on
 * a device costs. A fresh child process (this command again, as
 * `samebits bench --first-call-child N`) times context creation, the
 * first reduction (which builds the program and compiles its kernels) and
 * the second; it runs first with an empty kernel cache (POCL_CACHE_DIR
 * and CUDA_CACHE_PATH pointed at a new empty directory), then again with
 * the cache that run filled.
 *
 * A child, because by then this process has built every device's kernels,
 * and because an OpenCL runtime reads its cache variables when it starts.
 */
#define _XOPEN_SOURCE 700         /* posix_spawn, mkdtemp, nftw */

#include "bench.h"

#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corpus.h"
#include "samebits.h"

extern char **environ;

/* The child: `samebits bench --first-call-child N` times context creation,
 * the first f32 sum on device N (program build, kernel compilation) and
 * the second, and prints one line for the parent. */
int bench_first_call_child(const char *index)
{
    cli_device_list list;
    cli_devices_load(&list);
    unsigned long i;
    if (cli_parse_uint(index, 0, list.count ? list.count - 1 : 0, &i) != 0
            || list.count == 0) {
        cli_devices_free(&list);
        return CLI_EXIT_DEVICE;
    }
    const double t0 = cli_now();
    cl_int err = CL_SUCCESS;
    const sb_options opts = { .flags = SB_OPT_NO_HOST };
    sb_context *ctx = NULL;
    cl_context clctx = cli_cl_context(&list.devices[i], &err);
    sb_status s = clctx == NULL ? SB_OPENCL_ERROR
                : sb_context_create(clctx, list.devices[i].device, &opts, &ctx);
    const double t1 = cli_now();
    float x[4096], result;
    bench_fill(x, SB_F32, SB_SUM, 4096);
    cl_mem buf = s != SB_OK ? NULL
               : clCreateBuffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                sizeof x, x, &err);
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    const double t2 = cli_now();
    if (s == SB_OK)
        s = buf == NULL ? SB_OPENCL_ERROR
                        : sb_reduce(ctx, NULL, r, buf, 0, NULL, 0, 4096, &result);
    const double t3 = cli_now();
    if (s == SB_OK)
        s = sb_reduce(ctx, NULL, r, buf, 0, NULL, 0, 4096, &result);
    const double t4 = cli_now();
    printf("first-call %s %.6f %.6f %.6f\n", corpus_status_word(s), t1 - t0,
           t3 - t2, t4 - t3);
    if (buf != NULL)
        clReleaseMemObject(buf);
    sb_context_release(ctx);
    if (clctx != NULL)
        clReleaseContext(clctx);
    cli_devices_free(&list);
    return s == SB_OK ? CLI_EXIT_OK : CLI_EXIT_DEVICE;
}

/* For nftw(): removes each entry of the cache directory, depth first. */
static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Runs the child with the kernel caches at `cache_dir`; parses its line. */
static int run_child(unsigned index, const char *cache_dir, double *times,
                     char *status, size_t status_size)
{
    char pocl[600], cuda[600], idx[16], out_path[600];
    snprintf(pocl, sizeof pocl, "POCL_CACHE_DIR=%s", cache_dir);
    snprintf(cuda, sizeof cuda, "CUDA_CACHE_PATH=%s", cache_dir);
    snprintf(idx, sizeof idx, "%u", index);
    snprintf(out_path, sizeof out_path, "%s/child-output.txt", cache_dir);

    /* The environment: ours, with the two cache variables replaced. */
    size_t count = 0;
    while (environ[count] != NULL)
        count++;
    char **env = calloc(count + 3, sizeof *env);
    if (env == NULL)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < count; i++)
        if (strncmp(environ[i], "POCL_CACHE_DIR=", 15) != 0
                && strncmp(environ[i], "CUDA_CACHE_PATH=", 16) != 0)
            env[k++] = environ[i];
    env[k++] = pocl;
    env[k++] = cuda;

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path,
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    char self[] = "/proc/self/exe", name[] = "samebits", cmd[] = "bench",
         opt[] = "--first-call-child";
    char *argv[] = { name, cmd, opt, idx, NULL };
    pid_t pid;
    const int rc = posix_spawn(&pid, self, &actions, NULL, argv, env);
    posix_spawn_file_actions_destroy(&actions);
    free(env);
    int wstatus = 0;
    if (rc != 0 || waitpid(pid, &wstatus, 0) < 0)
        return -1;
    FILE *f = fopen(out_path, "r");
    char word[32] = "";
    const int got = f == NULL ? 0
                  : fscanf(f, "first-call %31s %lf %lf %lf", word, &times[0],
                           &times[1], &times[2]);
    if (f != NULL)
        fclose(f);
    remove(out_path);
    snprintf(status, status_size, "%s", word);
    return got == 4 ? 0 : -1;
}

int bench_first_call(int json, const bench_device *devs, size_t dev_count)
{
    if (dev_count == 0)
        return 0;
    if (!json)
        printf("\n3. The first call on a device, in a new process (f32 sum, "
               "n = 4096): seconds\n   (cold: an empty kernel cache, "
               "POCL_CACHE_DIR and CUDA_CACHE_PATH; warm: the cache\n   the "
               "cold run filled)\n  %-6s %-6s %10s %12s %12s\n", "target",
               "cache", "context", "first call", "second call");
    for (size_t i = 0; i < dev_count; i++) {
        /* The first call in the device's own mode; the child process opens
         * the device as a program would. */
        if (devs[i].mode_flags != 0 || devs[i].float_mode != 0)
            continue;
        char dir[] = "/tmp/samebits-bench-cache-XXXXXX";
        if (mkdtemp(dir) == NULL) {
            cli_error("bench", "mkdtemp: cannot make a cache directory");
            return -1;
        }
        for (int warm = 0; warm <= 1; warm++) {
            fprintf(stderr, "bench: first call, dev%u, %s cache\n",
                    devs[i].dev->index, warm ? "warm" : "cold");
            double t[3] = { 0, 0, 0 };
            char status[32] = "";
            const int rc = run_child(devs[i].dev->index, dir, t, status,
                                     sizeof status);
            const char *cache = warm ? "warm" : "cold";
            if (json)
                printf("{\"kind\":\"first_call\",\"target\":\"dev%u\","
                       "\"cache\":\"%s\",\"status\":\"%s\",\"context_s\":%.6f,"
                       "\"first_call_s\":%.6f,\"second_call_s\":%.6f}\n",
                       devs[i].dev->index, cache, rc == 0 ? status : "failed",
                       t[0], t[1], t[2]);
            else if (rc != 0 || strcmp(status, "ok") != 0)
                printf("  dev%-3u %-6s %s\n", devs[i].dev->index, cache,
                       rc == 0 ? status : "the child process failed");
            else
                printf("  dev%-3u %-6s %10.3f %12.3f %12.6f\n",
                       devs[i].dev->index, cache, t[0], t[1], t[2]);
        }
        nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
    }
    return 0;
}
