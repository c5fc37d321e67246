/* device_scratch.c: the context's pool of scratch buffers, for the
 * partials between passes and the record of blocking calls. A buffer is
 * reused once the commands that used it have completed, which an event
 * says without waiting; the pool never blocks. */
#include <stdlib.h>
#include "device.h"

static int scratch_free(sb__scratch *s, cl_uint num_wait,
                        const cl_event *wait)
{
    if (s->busy)
        return 0;
    if (s->last_use == NULL)
        return 1;
    /* Idle before the taker's commands start, but maybe not yet: the
     * event stays its last use until the taker gives the buffer back with
     * a later one (sb__scratch_give()), so that a taker that fails before
     * enqueueing anything does not leave it free for others too early. */
    for (cl_uint i = 0; i < num_wait; i++)
        if (wait[i] == s->last_use)
            return 1;
    cl_int status = CL_QUEUED;
    if (SB_CL(clGetEventInfo)(s->last_use, CL_EVENT_COMMAND_EXECUTION_STATUS,
                              sizeof status, &status, NULL) != CL_SUCCESS)
        return 0;
    if (status != CL_COMPLETE && status >= 0)
        return 0;
    SB_CL(clReleaseEvent)(s->last_use);
    s->last_use = NULL;
    return 1;
}

sb_status sb__scratch_take(sb_context *ctx, size_t size, cl_uint num_wait,
                           const cl_event *wait, int *slot)
{
    int empty = -1;
    for (int i = 0; i < SB_SCRATCH_SLOTS; i++) {
        sb__scratch *s = &ctx->scratch[i];
        if (s->buf == NULL) {
            if (empty < 0)
                empty = i;
            continue;
        }
        if (s->size >= size && scratch_free(s, num_wait, wait)) {
            s->busy = 1;
            *slot = i;
            return SB_OK;
        }
    }
    if (empty < 0) {   /* all slots hold buffers: replace a free, small one */
        for (int i = 0; i < SB_SCRATCH_SLOTS && empty < 0; i++)
            if (scratch_free(&ctx->scratch[i], num_wait, wait)) {
                /* OpenCL frees the buffer once its commands are done. */
                SB_CL(clReleaseMemObject)(ctx->scratch[i].buf);
                if (ctx->scratch[i].last_use != NULL)
                    SB_CL(clReleaseEvent)(ctx->scratch[i].last_use);
                ctx->scratch[i].last_use = NULL;
                ctx->scratch[i].buf = NULL;
                empty = i;
            }
        SB_FAIL_IF(empty < 0, SB_OUT_OF_MEMORY, "all %d scratch buffers of "
                   "the context are in use by reductions still running",
                   SB_SCRATCH_SLOTS);
    }
    const size_t bytes = size < 4096 ? 4096 : size;
    cl_int err = CL_SUCCESS;
    cl_mem buf = SB_CL(clCreateBuffer)(ctx->cl_ctx, CL_MEM_READ_WRITE, bytes,
                                       NULL, &err);
    SB_RETURN_IF(buf == NULL, sb__cl_fail(ctx, err, "clCreateBuffer (scratch)"));
    ctx->scratch[empty] = (sb__scratch){ .buf = buf, .size = bytes, .busy = 1 };
    *slot = empty;
    return SB_OK;
}

void sb__scratch_give(sb_context *ctx, int slot, cl_event last_use)
{
    sb__scratch *s = &ctx->scratch[slot];
    if (last_use == NULL) {   /* nothing enqueued: as it was when taken */
        s->busy = 0;
        return;
    }
    /* Without a reference to its last use, the buffer cannot be known to be
     * idle: it then stays taken until the context is released. */
    if (SB_CL(clRetainEvent)(last_use) != CL_SUCCESS)
        return;
    /* A buffer taken through a wait list still holds the event it waited
     * for, which completes before this later one. */
    if (s->last_use != NULL)
        SB_CL(clReleaseEvent)(s->last_use);
    s->last_use = last_use;
    s->busy = 0;
}

void sb__scratch_pass_on(sb_context *ctx, cl_event from, cl_event to)
{
    pthread_mutex_lock(&ctx->lock);
    for (int i = 0; i < SB_SCRATCH_SLOTS; i++) {
        sb__scratch *s = &ctx->scratch[i];
        if (s->buf == NULL || s->busy || s->last_use != from)
            continue;
        /* Without a reference to `to` the old last use stays: the buffer
         * is then only free once `from` completes, as before. */
        if (SB_CL(clRetainEvent)(to) != CL_SUCCESS)
            break;
        SB_CL(clReleaseEvent)(from);
        s->last_use = to;
    }
    pthread_mutex_unlock(&ctx->lock);
}
