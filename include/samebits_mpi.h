/* samebits_mpi.h: samebits over the ranks of an MPI communicator.
 *
 * One logical array is spread over the ranks in rank order: rank k holds
 * the k-th piece, of any length (0 included). Each rank reduces its piece
 * into an sb_partial (samebits.h) at its global position; the partials are
 * merged in rank order by MPI itself, with a non-commutative operator, so
 * every rank gets the bits and the status of one sb_reduce_host() over
 * the whole array, for every number of ranks and every way of cutting.
 *
 * Library libsamebits_mpi (CMake samebits::samebits_mpi, pkg-config
 * samebits-mpi), on top of libsamebits; built where CMake finds MPI. */
#ifndef SAMEBITS_MPI_H
#define SAMEBITS_MPI_H

#include <mpi.h>
#include "samebits.h"

#ifdef __cplusplus
extern "C" {
#endif

/*! sb_mpi_allreduce_host() :
 *  Collective over `comm`: every rank calls it, with its own piece
 *  x[0..n_local) (mask as sb_reduce_host(); x may be NULL when n_local is
 *  0). Every rank receives in `result` the value of sb_reduce_host() over
 *  the concatenation of the pieces in rank order, and returns its status.
 *  Every rank enters the same collectives whatever its arguments: a
 *  failure on any rank (a bad argument, another reduction than rank 0's,
 *  out of memory) makes every rank return the same failure, that of the
 *  lowest-numbered failing rank, with an sb_error_detail() that names the
 *  rank ("rank 3: x is NULL while n = 10"); no rank hangs. `result` is
 *  written only on SB_OK. Three MPI collectives: an MPI_Exscan of the
 *  lengths, an MPI_Bcast of rank 0's reduction and one MPI_Allreduce of
 *  4 KB partials. */
SB_API SB_NODISCARD sb_status sb_mpi_allreduce_host(MPI_Comm comm,
        sb_reduction r, const void *x, const unsigned char *mask,
        size_t n_local, void *result);

#if SAMEBITS_OPENCL
/*! sb_mpi_allreduce() :
 *  The same with each rank's piece in a cl_mem of its own context,
 *  elements [x_offset, x_offset + n_local), reduced on that rank's device
 *  (sb_partial_add()). An OpenCL error on one rank fails every rank. */
SB_API SB_NODISCARD sb_status sb_mpi_allreduce(MPI_Comm comm,
        sb_context *ctx, struct _cl_command_queue *queue, sb_reduction r,
        struct _cl_mem *x, size_t x_offset, struct _cl_mem *mask,
        size_t mask_offset, size_t n_local, void *result);
#endif

/*! sb_mpi_partial_type(), sb_mpi_partial_op() :
 *  For collectives of the caller's own: an MPI datatype of one sb_partial
 *  (SB_PARTIAL_BYTES bytes), and an MPI operator that merges partials
 *  (sb_partial_merge(); not commutative, so MPI applies it in rank
 *  order). A merge that fails (a gap, another reduction) gives a failed
 *  partial (sb_partial_fail()), which absorbs the rest. Made once per
 *  process on first use, owned by the library and freed when MPI is
 *  finalized: do not free them. Safe to call from several threads.
 *  @return SB_OK; SB_INVALID_ARGUMENT for NULL; SB_OUT_OF_MEMORY if MPI
 *  could not make them. */
SB_API SB_NODISCARD sb_status sb_mpi_partial_type(MPI_Datatype *type);
SB_API SB_NODISCARD sb_status sb_mpi_partial_op(MPI_Op *op);

#ifdef __cplusplus
}
#endif

#endif /* SAMEBITS_MPI_H */
