/* bench_mpi.c: what samebits_mpi costs, under mpirun:
 *   mpirun -np 4 build/tools/bench_mpi [--repeat N]
 * 1. Latency: microseconds per sb_mpi_allreduce_host() of one f64 per
 *    rank, next to MPI_Allreduce of one double with MPI_SUM on the same
 *    ranks (median and best of N calls, after a barrier each).
 * 2. Throughput: an f32 sum of 2^27 elements in all, an equal piece per
 *    rank: GB/s of the whole array through sb_mpi_allreduce_host(), next
 *    to sb_reduce_host() of the whole array in one process (rank 0 alone,
 *    the other ranks waiting), best of N.
 * Rank 0 prints the CPU model, the ranks, and the figures with their
 * ratios. Built where samebits_mpi is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>
#include "samebits_mpi.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void cpu_model(char *out, size_t size)
{
    snprintf(out, size, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "model name", 10) == 0) {
            const char *v = strchr(line, ':');
            if (v != NULL) {
                snprintf(out, size, "%s", v + 2);
                out[strcspn(out, "\n")] = '\0';
            }
            break;
        }
    if (f != NULL)
        fclose(f);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks, repeat = 200;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--repeat") == 0)
            repeat = atoi(argv[i + 1]) > 0 ? atoi(argv[i + 1]) : repeat;
    double *t_sb = malloc((size_t)repeat * sizeof *t_sb);
    double *t_mpi = malloc((size_t)repeat * sizeof *t_mpi);
    const sb_reduction f64 = { .op = SB_SUM, .input = SB_F64 };
    const double one = 1.0 + rank;
    double out = 0, sum = 0;
    int bad = t_sb == NULL || t_mpi == NULL;
    for (int i = 0; !bad && i < repeat; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = now();
        bad |= sb_mpi_allreduce_host(MPI_COMM_WORLD, f64, &one, NULL, 1,
                                     &out) != SB_OK;
        t_sb[i] = now() - t;
        MPI_Barrier(MPI_COMM_WORLD);
        t = now();
        MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        t_mpi[i] = now() - t;
    }
    /* The slowest rank's time is the collective's. */
    MPI_Allreduce(MPI_IN_PLACE, t_sb, repeat, MPI_DOUBLE, MPI_MAX,
                  MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, t_mpi, repeat, MPI_DOUBLE, MPI_MAX,
                  MPI_COMM_WORLD);
    qsort(t_sb, (size_t)repeat, sizeof *t_sb, compare);
    qsort(t_mpi, (size_t)repeat, sizeof *t_mpi, compare);

    /* Throughput. */
    const size_t n = (size_t)1 << 27, per = n / (size_t)ranks;
    const size_t mine = rank == ranks - 1 ? n - per * (size_t)(ranks - 1) : per;
    float *x = malloc((rank == 0 ? n : mine) * sizeof *x);
    bad |= x == NULL;
    const size_t fill = rank == 0 ? n : mine;
    for (size_t i = 0; !bad && i < fill; i++)
        x[i] = 1.0f + (float)((i + (rank == 0 ? 0 : per * (size_t)rank)) % 1000) * 1e-3f;
    const sb_reduction f32 = { .op = SB_SUM, .input = SB_F32 };
    float all = 0, alone = 0;
    double best_all = 1e30, best_alone = 1e30;
    const int rounds = repeat < 5 ? repeat : 5;
    for (int i = 0; !bad && i < rounds; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = now();
        bad |= sb_mpi_allreduce_host(MPI_COMM_WORLD, f32, x, NULL, mine,
                                     &all) != SB_OK;
        t = now() - t;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        best_all = t < best_all ? t : best_all;
        if (rank == 0) {
            t = now();
            bad |= sb_reduce_host(f32, x, NULL, n, &alone) != SB_OK;
            t = now() - t;
            best_alone = t < best_alone ? t : best_alone;
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
        char cpu[256];
        cpu_model(cpu, sizeof cpu);
        printf("cpu: %s; %d ranks; %d calls\n", cpu, ranks, repeat);
        if (any_bad) {
            printf("bench_mpi: a call failed: %s\n", sb_error_detail());
        } else {
            printf("latency, one f64 per rank (us): sb_mpi_allreduce_host "
                   "median %.1f best %.1f; MPI_Allreduce(MPI_DOUBLE, MPI_SUM) "
                   "median %.1f best %.1f; ratio of medians %.1f\n",
                   1e6 * t_sb[repeat / 2], 1e6 * t_sb[0],
                   1e6 * t_mpi[repeat / 2], 1e6 * t_mpi[0],
                   t_sb[repeat / 2] / t_mpi[repeat / 2]);
            printf("throughput, f32 sum of 2^27 in all: %d ranks %.2f GB/s, "
                   "one process %.2f GB/s, ratio %.2f; bits %s\n", ranks,
                   4.0 * (double)n / best_all * 1e-9,
                   4.0 * (double)n / best_alone * 1e-9,
                   best_alone / best_all,
                   memcmp(&all, &alone, sizeof all) == 0 ? "identical"
                                                         : "DIFFERENT (a bug)");
        }
    }
    free(x);
    free(t_mpi);
    free(t_sb);
    MPI_Finalize();
    return any_bad;
}
