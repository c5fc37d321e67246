/* docs/examples/mpi_sum.c: one array over the ranks of MPI_COMM_WORLD.
 *
 * Rank k holds the k-th piece of a cancelling f64 series (rank k about
 * k + 1 shares of it, the last rank what is left); sb_mpi_allreduce_host()
 * gives every rank the bits of one sb_reduce_host() over the whole array,
 * whatever the number of ranks. Rank 0 checks that against its own call
 * over the whole array and prints both.
 *
 *   mpirun -np 3 build/docs/examples/mpi_sum */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <samebits_mpi.h>

enum { N = 100003 };

static double term(size_t i)
{
    return (i % 2 ? 1.0 : -1.0) / (1.0 + (double)i * 1e-3);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    /* Uneven pieces: rank k gets (k + 1) shares of 2N / (R (R + 1)). */
    const size_t share = 2 * (size_t)N / ((size_t)ranks * (size_t)(ranks + 1));
    size_t begin = share * (size_t)rank * (size_t)(rank + 1) / 2;
    size_t end = rank == ranks - 1 ? N : begin + share * (size_t)(rank + 1);
    if (begin > N) begin = N;
    if (end > N) end = N;
    double *mine = malloc((end - begin + 1) * sizeof *mine);
    for (size_t i = begin; i < end; i++)
        mine[i - begin] = term(i);

    const sb_reduction r = { .op = SB_SUM, .input = SB_F64 };
    double sum = 0;
    const sb_status s = sb_mpi_allreduce_host(MPI_COMM_WORLD, r, mine, NULL,
                                              end - begin, &sum);
    int rc = s != SB_OK;
    if (s != SB_OK)
        fprintf(stderr, "rank %d: %s: %s\n", rank, sb_status_string(s),
                sb_error_detail());
    if (rank == 0 && s == SB_OK) {
        double *x = malloc(N * sizeof *x), one_call = 0;
        for (size_t i = 0; i < N; i++)
            x[i] = term(i);
        rc = sb_reduce_host(r, x, NULL, N, &one_call) != SB_OK
             || memcmp(&sum, &one_call, sizeof sum) != 0;
        printf("%d ranks: %a; one call: %a: %s\n", ranks, sum, one_call,
               rc ? "DIFFERENT BITS: a bug, please report it"
                  : "the same bits");
        free(x);
    }
    free(mine);
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return rc;
}
