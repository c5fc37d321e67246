/* mpi_collectives.c: samebits_mpi.h, one array over the ranks of a
 * communicator.
 *
 * Each rank turns its piece into an sb_partial at its global position
 * (an MPI_Exscan of the lengths), or, if it cannot, into a failed partial
 * (sb_partial_fail(): status, rank, detail). One MPI_Allreduce with the
 * merge operator (not commutative: MPI combines in rank order) gives every
 * rank the partial of the whole array, which each finishes. A failed
 * partial absorbs the rest, the lower rank's failure first, so every rank
 * returns the same failure and no rank waits for one that gave up.
 *
 * Uses only the public API of libsamebits. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "samebits_mpi.h"
#if SAMEBITS_OPENCL
#  include <CL/cl.h>
#endif

/* sb_partial_fail() cannot fail here (p and status are valid), but its
 * result must be looked at. */
static void mark_failed(sb_partial *p, sb_status s, int origin,
                        const char *detail)
{
    if (sb_partial_fail(p, s, origin, detail) != SB_OK)
        memset(p, 0, sizeof *p);       /* not reached; an invalid partial */
}

/* ---- the datatype and the operator ---------------------------------------- */

static pthread_mutex_t handles_lock = PTHREAD_MUTEX_INITIALIZER;
static MPI_Datatype partial_type = MPI_DATATYPE_NULL;
static MPI_Op partial_op = MPI_OP_NULL;
static int finalize_hook_set;
static int finalize_keyval = MPI_KEYVAL_INVALID;

/* Runs inside MPI_Finalize (an attribute of MPI_COMM_SELF is deleted
 * first there): the handles go with MPI. */
static int free_handles(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm; (void)keyval; (void)value; (void)extra;
    pthread_mutex_lock(&handles_lock);
    if (partial_type != MPI_DATATYPE_NULL)
        MPI_Type_free(&partial_type);
    if (partial_op != MPI_OP_NULL)
        MPI_Op_free(&partial_op);
    finalize_hook_set = 0;
    if (finalize_keyval != MPI_KEYVAL_INVALID)
        MPI_Comm_free_keyval(&finalize_keyval);
    pthread_mutex_unlock(&handles_lock);
    return MPI_SUCCESS;
}

static void set_finalize_hook(void)
{
    if (finalize_hook_set)
        return;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_handles,
                               &finalize_keyval, NULL) == MPI_SUCCESS
            && MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, NULL)
               == MPI_SUCCESS)
        finalize_hook_set = 1;
}

/* inout[i] = merge(in[i], inout[i]): `in` holds the lower ranks. */
static void merge_partials(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    sb_partial *left = in, *right = inout;
    for (int i = 0; i < *len; i++) {
        sb_partial merged;
        memcpy(&merged, &left[i], sizeof merged);
        const sb_status s = sb_partial_merge(&merged, &right[i]);
        if (s != SB_OK) {
            char detail[200];
            snprintf(detail, sizeof detail, "%s", sb_error_detail());
            mark_failed(&merged, s, -1, detail);
        }
        memcpy(&right[i], &merged, sizeof merged);
    }
}

sb_status sb_mpi_partial_type(MPI_Datatype *type)
{
    if (type == NULL)
        return SB_INVALID_ARGUMENT;
    sb_status s = SB_OK;
    pthread_mutex_lock(&handles_lock);
    if (partial_type == MPI_DATATYPE_NULL) {
        MPI_Datatype t;
        if (MPI_Type_contiguous((int)sizeof(sb_partial), MPI_BYTE, &t)
                    != MPI_SUCCESS || MPI_Type_commit(&t) != MPI_SUCCESS)
            s = SB_OUT_OF_MEMORY;
        else
            partial_type = t;
        set_finalize_hook();
    }
    *type = partial_type;
    pthread_mutex_unlock(&handles_lock);
    return s;
}

sb_status sb_mpi_partial_op(MPI_Op *op)
{
    if (op == NULL)
        return SB_INVALID_ARGUMENT;
    sb_status s = SB_OK;
    pthread_mutex_lock(&handles_lock);
    if (partial_op == MPI_OP_NULL) {
        MPI_Op o;
        if (MPI_Op_create(merge_partials, 0 /* not commutative */, &o)
                != MPI_SUCCESS)
            s = SB_OUT_OF_MEMORY;
        else
            partial_op = o;
        set_finalize_hook();
    }
    *op = partial_op;
    pthread_mutex_unlock(&handles_lock);
    return s;
}

/* ---- the collective ----------------------------------------------------------- */

/* A failed partial for this rank: the status and the detail, named. */
static void fail_here(sb_partial *p, sb_status s, int rank)
{
    char detail[240];
    snprintf(detail, sizeof detail, "rank %d: %s", rank, sb_error_detail());
    mark_failed(p, s, rank, detail);
}

/* How a piece gets into a partial: from host memory or from a cl_mem. */
typedef struct {
    const void          *x;
    const unsigned char *mask;
#if SAMEBITS_OPENCL
    sb_context          *ctx;
    cl_command_queue     queue;
    cl_mem               buf, mask_buf;
    size_t               x_offset, mask_offset;
#endif
    int                  on_device;
} piece;

static sb_status allreduce(MPI_Comm comm, sb_reduction r, const piece *in,
                           size_t n_local, void *result)
{
    int rank = 0;
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
        return SB_INVALID_ARGUMENT;
    MPI_Datatype type;
    MPI_Op op;
    if (sb_mpi_partial_type(&type) != SB_OK || sb_mpi_partial_op(&op) != SB_OK)
        return SB_OUT_OF_MEMORY;       /* the same on every rank */

    /* Rank 0's reduction, which every rank must pass, and where this
     * rank's piece begins. */
    int first[5] = { (int)r.op, (int)r.input, (int)r.accumulator,
                     (int)r.flags, (int)r.map };
    MPI_Bcast(first, 5, MPI_INT, 0, comm);
    uint64_t length = n_local, begin = 0;
    MPI_Exscan(&length, &begin, 1, MPI_UINT64_T, MPI_SUM, comm);
    if (rank == 0)
        begin = 0;                     /* MPI_Exscan leaves it undefined */

    sb_partial mine, all;
    sb_status s = SB_OK;
    char detail[240];
    if (first[0] != (int)r.op || first[1] != (int)r.input
            || first[2] != (int)r.accumulator || first[3] != (int)r.flags
            || first[4] != (int)r.map) {
        snprintf(detail, sizeof detail, "rank %d: its sb_reduction (op %d, "
                 "input %d, accumulator %d, flags %d, map %d) is not rank "
                 "0's (op %d, input %d, accumulator %d, flags %d, map %d)",
                 rank, (int)r.op, (int)r.input, (int)r.accumulator,
                 (int)r.flags, (int)r.map, first[0], first[1], first[2],
                 first[3], first[4]);
        mark_failed(&mine, SB_INVALID_ARGUMENT, rank, detail);
    } else if (result == NULL) {
        snprintf(detail, sizeof detail, "rank %d: result is NULL", rank);
        mark_failed(&mine, SB_INVALID_ARGUMENT, rank, detail);
    } else {
        s = sb_partial_init(&mine, r, begin);
        if (s == SB_OK) {
#if SAMEBITS_OPENCL
            if (in->on_device)
                s = sb_partial_add(in->ctx, in->queue, &mine, in->buf,
                                   in->x_offset, in->mask_buf,
                                   in->mask_offset, n_local);
            else
#endif
                s = sb_partial_add_host(&mine, in->x, in->mask, n_local);
        }
        if (s != SB_OK)
            fail_here(&mine, s, rank);
    }
    /* Every rank gets here, failed or not. With MPI's default error
     * handler a failure of MPI itself aborts the job; with
     * MPI_ERRORS_RETURN on comm it is reported below. */
    if (MPI_Allreduce(&mine, &all, 1, type, op, comm) != MPI_SUCCESS) {
        snprintf(detail, sizeof detail, "rank %d: MPI_Allreduce failed",
                 rank);
        mark_failed(&all, SB_INVALID_ARGUMENT, rank, detail);
    }
    return sb_partial_finish(&all, result);
}

sb_status sb_mpi_allreduce_host(MPI_Comm comm, sb_reduction r, const void *x,
                                const unsigned char *mask, size_t n_local,
                                void *result)
{
    const piece in = { .x = x, .mask = mask };
    return allreduce(comm, r, &in, n_local, result);
}

#if SAMEBITS_OPENCL
sb_status sb_mpi_allreduce(MPI_Comm comm, sb_context *ctx,
                           cl_command_queue queue, sb_reduction r, cl_mem x,
                           size_t x_offset, cl_mem mask, size_t mask_offset,
                           size_t n_local, void *result)
{
    const piece in = { .ctx = ctx, .queue = queue, .buf = x,
                       .mask_buf = mask, .x_offset = x_offset,
                       .mask_offset = mask_offset, .on_device = 1 };
    return allreduce(comm, r, &in, n_local, result);
}
#endif
