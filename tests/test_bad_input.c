/* tests/test_bad_input.c: every bad input gets its documented status, and
 * leaves every output as it was.
 *
 * One table, one row per input: a NULL or foreign handle, an unknown op,
 * type or flag, a refused type pair, a range past the end of a buffer
 * (offsets chosen so that offset * element size overflows size_t), a
 * misplaced result record, a malformed wait list, invalid sb_options, a
 * NULL out pointer; and the inputs that look odd but are valid: a NULL
 * queue (the context's own), NULL buffers with n = 0, ranges that end
 * exactly at the end of a buffer, n = 0 for each op (sum 0, prod 1, any 0,
 * all 1; min and max SB_EMPTY). The valid rows use three (input,
 * accumulator) pairs only (f32, f64, i16 -> i64): each pair is a program
 * to build, and Oclgrind builds slowly, under valgrind more so (the types
 * themselves are test_device_reduce's business). Each row names the calls
 * it applies to
 * (sb_reduce_host, sb_reduce on a default context and on an
 * SB_OPT_NO_HOST one, sb_reduce_enqueue, the context and report calls) and
 * runs on every device present; the rows are small, so Oclgrind runs them
 * all too. Every argument that sb_reduce_enqueue() must refuse (and
 * sb_reduce() too, where it is not the record's) is a row here, including
 * the ones tests/test_device_enqueue.c used to check one call at a time:
 * the rows whose names say "f64" or "i32 max" (or "f64 with a mask") make
 * those calls with that file's reduction and buffers (a record buffer of
 * 16 or 64 bytes: result_bytes), ranges at the same distance from the end
 * of their buffer.
 *
 * Outputs start filled with a sentinel: the host result (RESULT_BUFFER
 * bytes), the whole result cl_mem of sb_reduce_enqueue() (read back), its
 * `done` event, the `out` pointer of sb_context_create() and the caps of
 * sb_device_report(). On an error they must be untouched; on success the
 * result must equal sb_reduce_host()'s bits (and for n = 0 the start value,
 * written out here) with the bytes after it untouched.
 *
 * Each row that fails also names a part of the sentence sb_error_detail()
 * must give (which argument, which condition), and every call that returns
 * SB_OK must leave the detail empty. */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "device_support.h"
#include "samebits.h"
#include "support.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))

enum {
    X_BYTES    = 1024,   /* the x buffer: X_BYTES / size(type) elements */
    MASK_BYTES = 256,    /* the mask buffer */
    RES_BYTES  = 32,     /* the record buffer: room for two records */
    RES_MAX_BYTES = 64,  /* the largest record buffer a row may ask for */
    EXPECT_HOST = -1     /* status and bits of sb_reduce_host() */
};

#define CAP(type_size) ((size_t)X_BYTES / (type_size))

/* The calls a row applies to. */
enum {
    API_HOST           = 1u << 0,  /* sb_reduce_host() */
    API_REDUCE         = 1u << 1,  /* sb_reduce(), default options */
    API_REDUCE_NO_HOST = 1u << 2,  /* sb_reduce(), SB_OPT_NO_HOST */
    API_ENQUEUE        = 1u << 3,  /* sb_reduce_enqueue() */
    API_CREATE         = 1u << 4,  /* sb_context_create() */
    API_CREATE_DEFAULT = 1u << 5,  /* sb_context_create_default() */
    API_REPORT         = 1u << 6,  /* sb_device_report() */
    API_DEVICE = API_REDUCE | API_REDUCE_NO_HOST | API_ENQUEUE,
    API_ALL    = API_HOST | API_DEVICE,
    API_COUNT  = 7
};

static const char *const api_names[API_COUNT] = {
    "sb_reduce_host", "sb_reduce(default options)",
    "sb_reduce(SB_OPT_NO_HOST)", "sb_reduce_enqueue", "sb_context_create",
    "sb_context_create_default", "sb_device_report",
};

/* What a row passes; 0 is always the ordinary choice. */
typedef enum { X_VALID, X_NULL, X_OTHER_CONTEXT } x_choice;
typedef enum { MASK_NO, MASK_VALID, MASK_OTHER_CONTEXT } mask_choice;
typedef enum { RES_VALID, RES_NULL, RES_OTHER_CONTEXT } result_choice;
typedef enum { QUEUE_TEST, QUEUE_NULL, QUEUE_OTHER_CONTEXT } queue_choice;
typedef enum { WAIT_NONE, WAIT_COMPLETE_EVENT, WAIT_COUNT_NULL_LIST,
               WAIT_LIST_ZERO_COUNT } wait_choice;
typedef enum { HANDLES_VALID, HANDLES_NULL_CL_CONTEXT, HANDLES_NULL_DEVICE,
               HANDLES_NULL_OUT } handle_choice;

/* One row. The table gives name, apis, r and n by position, every other
 * field by name (0 when not named): a new field goes after n. */
typedef struct {
    const char        *name;
    unsigned           apis;
    sb_reduction       r;
    size_t             n;
    x_choice           x;
    size_t             x_offset;       /* elements */
    mask_choice        mask;
    size_t             mask_offset;
    result_choice      result;
    size_t             result_offset;  /* bytes, sb_reduce_enqueue() */
    size_t             result_bytes;   /* its buffer; 0: RES_BYTES */
    queue_choice       queue;
    wait_choice        wait;
    bool               null_context;   /* the sb_context passed is NULL */
    bool               null_done;      /* sb_reduce_enqueue(done = NULL) */
    handle_choice      handles;        /* create, create_default, report */
    const sb_options  *options;        /* create, create_default */
    const char        *detail;         /* part of sb_error_detail() when the
                                          call returns `expect` */
    int                expect;         /* an sb_status or EXPECT_HOST */
} bad_input;

#define R(o, i, a, f) { .op = (o), .input = (i), .accumulator = (a), .flags = (f) }
#define RM(o, i, a, f, m) { .op = (o), .input = (i), .accumulator = (a), \
                            .flags = (f), .map = (sb_map)(m) }
#define F32_SUM R(SB_SUM, SB_F32, 0, 0)
#define F64_SUM R(SB_SUM, SB_F64, 0, 0)
#define INVALID SB_INVALID_ARGUMENT

static const sb_options opt_bad_flags       = { .flags = 1u << 7 };
static const sb_options opt_wg_not_pow2     = { .work_group_size = 24 };
static const sb_options opt_wg_too_large    = { .work_group_size = (size_t)1 << 24 };
static const sb_options opt_tree_not_pow2   = { .tree_work_group_size = 6 };
static const sb_options opt_tree_too_large  = { .tree_work_group_size = (size_t)1 << 24 };
static const sb_options opt_lpi_not_pow2    = { .leaves_per_item = 3 };
static const sb_options opt_lpi_too_large   = { .leaves_per_item = 256 };
static const sb_options opt_npi_not_pow2    = { .nodes_per_item = 12 };
static const sb_options opt_npi_too_large   = { .nodes_per_item = 256 };
static const sb_options opt_subgroups_mode  = { .subgroups = 3 };
static const sb_options opt_emulate_size_1  = { .subgroups = SB_SUBGROUPS_EMULATE,
                                                .emulated_subgroup_size = 1 };
static const sb_options opt_emulate_size_3  = { .subgroups = SB_SUBGROUPS_EMULATE,
                                                .emulated_subgroup_size = 3 };
static const sb_options opt_emulate_size_128 = { .subgroups = SB_SUBGROUPS_EMULATE,
                                                 .emulated_subgroup_size = 128 };
static const sb_options opt_emulate_above_wg = { .subgroups = SB_SUBGROUPS_EMULATE,
                                                 .work_group_size = 4,
                                                 .tree_work_group_size = 4,
                                                 .emulated_subgroup_size = 8 };
static const sb_options opt_zero            = { 0 };

static const bad_input rows[] = {
    /* handles */
    { "NULL context", API_DEVICE, F32_SUM, 16, .null_context = true,
      .detail = "ctx is NULL",
      .expect = INVALID },
    { "NULL queue: the context's own queue", API_DEVICE, F64_SUM, 40,
      .mask = MASK_VALID, .queue = QUEUE_NULL, .expect = EXPECT_HOST },
    { "queue of another context", API_DEVICE, F32_SUM, 16,
      .queue = QUEUE_OTHER_CONTEXT, .detail = "queue belongs to another cl_context",
      .expect = INVALID },
    { "NULL x with n > 0", API_ALL, F32_SUM, 1, .x = X_NULL,
      .detail = "x is NULL while n = 1",
      .expect = INVALID },
    { "NULL x with n > 0 and a mask", API_ALL, F32_SUM, 16, .x = X_NULL,
      .mask = MASK_VALID, .detail = "x is NULL while n = 16",
      .expect = INVALID },
    { "NULL result", API_ALL, F32_SUM, 16, .result = RES_NULL,
      .detail = "result is NULL",
      .expect = INVALID },
    { "NULL result with n = 0", API_ALL, F32_SUM, 0, .result = RES_NULL,
      .detail = "result is NULL",
      .expect = INVALID },
    { "x of another context", API_DEVICE, F32_SUM, 16,
      .x = X_OTHER_CONTEXT, .detail = "x belongs to another cl_context",
      .expect = INVALID },
    { "mask of another context", API_DEVICE, F32_SUM, 16,
      .mask = MASK_OTHER_CONTEXT, .detail = "mask belongs to another cl_context",
      .expect = INVALID },
    { "result of another context", API_ENQUEUE, F32_SUM, 16,
      .result = RES_OTHER_CONTEXT, .detail = "result belongs to another cl_context",
      .expect = INVALID },
    { "done may be NULL", API_ENQUEUE, F32_SUM, 16, .null_done = true,
      .expect = EXPECT_HOST },
    { "x of another context, f64 with a mask", API_DEVICE, F64_SUM, 64,
      .x = X_OTHER_CONTEXT, .mask = MASK_VALID, .result_bytes = 16,
      .detail = "x belongs to another cl_context",
      .expect = INVALID },
    { "mask of another context, f64", API_DEVICE, F64_SUM, 64,
      .mask = MASK_OTHER_CONTEXT, .result_bytes = 16, .detail = "mask belongs to another cl_context",
      .expect = INVALID },
    { "queue of another context, f64 with a mask", API_DEVICE, F64_SUM, 64,
      .mask = MASK_VALID, .queue = QUEUE_OTHER_CONTEXT, .result_bytes = 16,
      .detail = "queue belongs to another cl_context",
      .expect = INVALID },
    { "result of another context, f64 with a mask", API_ENQUEUE, F64_SUM,
      64, .mask = MASK_VALID, .result = RES_OTHER_CONTEXT,
      .detail = "result belongs to another cl_context",
      .expect = INVALID },
    { "NULL result, f64 with a mask", API_ENQUEUE, F64_SUM, 64,
      .mask = MASK_VALID, .result = RES_NULL, .detail = "result is NULL",
      .expect = INVALID },
    { "NULL x with n > 0, f64 with a mask", API_DEVICE, F64_SUM, 64,
      .x = X_NULL, .mask = MASK_VALID, .result_bytes = 16,
      .detail = "x is NULL while n = 64",
      .expect = INVALID },

    /* the reduction */
    { "unknown op 99", API_ALL, R((sb_op)99, SB_F32, 0, 0), 16,
      .detail = "r.op = 99 is not an sb_op",
      .expect = INVALID },
    { "unknown op -1", API_ALL, R((sb_op)-1, SB_I32, 0, 0), 16,
      .detail = "r.op = -1 is not an sb_op",
      .expect = INVALID },
    { "input type 0", API_ALL, R(SB_SUM, (sb_type)0, 0, 0), 16,
      .detail = "r.input = 0 is not an element type",
      .expect = INVALID },
    { "input type 13", API_ALL, R(SB_MAX, (sb_type)13, 0, 0), 16,
      .detail = "r.input = 13 is not an element type",
      .expect = INVALID },
    { "input type -1", API_ALL, R(SB_MIN, (sb_type)-1, 0, 0), 16,
      .detail = "r.input = -1 is not an element type",
      .expect = INVALID },
    { "accumulator type 13", API_ALL, R(SB_SUM, SB_I32, (sb_type)13, 0), 16,
      .detail = "r.accumulator = 13 is not a type",
      .expect = INVALID },
    /* f16 and bf16 are computed on every device (no longer refused):
     * the host's bits, the record's 2-byte value for a half accumulator. */
    { "f16 sum on a device", API_DEVICE, R(SB_SUM, SB_F16, 0, 0), 16,
      .expect = EXPECT_HOST },
    { "bf16 -> f32 max with a mask on a device", API_DEVICE,
      R(SB_MAX, SB_BF16, SB_F32, 0), 16, .mask = MASK_VALID,
      .expect = EXPECT_HOST },
    { "f16 any of n = 0 on a device", API_DEVICE, R(SB_ANY, SB_F16, 0, 0), 0,
      .expect = EXPECT_HOST },
    /* argmin / argmax: the host's bits (tests/test_device_arg.c checks
     * the enqueue form's records); the enqueue form's record is an
     * sb_device_arg_result, 24 bytes. */
    { "f32 argmin on a device", API_REDUCE | API_REDUCE_NO_HOST,
      R(SB_ARGMIN, SB_F32, 0, 0), 16, .expect = EXPECT_HOST },
    { "i32 argmax with a mask on a device", API_REDUCE | API_REDUCE_NO_HOST,
      R(SB_ARGMAX, SB_I32, 0, 0), 16, .mask = MASK_VALID,
      .expect = EXPECT_HOST },
    { "f32 argmin enqueued into 16 bytes", API_ENQUEUE,
      R(SB_ARGMIN, SB_F32, 0, 0), 16, .result_bytes = 16,
      .detail = "an sb_device_arg_result is 3",
      .expect = SB_INVALID_ARGUMENT },
    { "i32 argmax with a mask enqueued at byte 16 of 32", API_ENQUEUE,
      R(SB_ARGMAX, SB_I32, 0, 0), 16, .mask = MASK_VALID,
      .result_offset = 16, .detail = "go past its end",
      .expect = SB_INVALID_ARGUMENT },
    /* count is computed on every device: the host's 8 bytes. */
    { "u8 count of n = 0 on a device", API_DEVICE,
      R(SB_COUNT, SB_U8, 0, 0), 0, .expect = EXPECT_HOST },
    { "i16 count with a mask on a device", API_DEVICE,
      R(SB_COUNT, SB_I16, 0, 0), 16, .mask = MASK_VALID,
      .expect = EXPECT_HOST },
    { "refused pair f16 -> i32", API_ALL, R(SB_SUM, SB_F16, SB_I32, 0), 16,
      .detail = "f16 -> i32 is not an exact widening", .expect = INVALID },
    { "refused pair bf16 -> f16", API_ALL, R(SB_MIN, SB_BF16, SB_F16, 0), 16,
      .detail = "bf16 -> f16 is not an exact widening", .expect = INVALID },
    { "SB_WRAP on an f16 sum", API_ALL, R(SB_SUM, SB_F16, 0, SB_WRAP), 16,
      .detail = "SB_WRAP is for integer", .expect = INVALID },
    { "refused pair i32 -> f32 (inexact)", API_ALL,
      R(SB_SUM, SB_I32, SB_F32, 0), 16, .detail = "i32 -> f32 is not an exact widening",
      .expect = INVALID },
    { "refused pair i64 -> f64 (inexact)", API_ALL,
      R(SB_SUM, SB_I64, SB_F64, 0), 16, .detail = "i64 -> f64 is not an exact widening",
      .expect = INVALID },
    { "refused pair f64 -> f32 (narrowing)", API_ALL,
      R(SB_MIN, SB_F64, SB_F32, 0), 16, .detail = "f64 -> f32 is not an exact widening",
      .expect = INVALID },
    { "refused pair i32 -> i16 (narrowing)", API_ALL,
      R(SB_SUM, SB_I32, SB_I16, 0), 16, .detail = "i32 -> i16 is not an exact widening",
      .expect = INVALID },
    { "refused pair i32 -> u32 (sign)", API_ALL,
      R(SB_MAX, SB_I32, SB_U32, 0), 16, .detail = "i32 -> u32 is not an exact widening",
      .expect = INVALID },
    { "refused pair u64 -> i64 (not wider)", API_ALL,
      R(SB_SUM, SB_U64, SB_I64, 0), 16, .detail = "u64 -> i64 is not an exact widening",
      .expect = INVALID },
    { "refused pair u32 -> i32 (not wider)", API_ALL,
      R(SB_PROD, SB_U32, SB_I32, 0), 16, .detail = "u32 -> i32 is not an exact widening",
      .expect = INVALID },
    { "any with an accumulator", API_ALL, R(SB_ANY, SB_U8, SB_U32, 0), 16,
      .detail = "any takes no accumulator",
      .expect = INVALID },
    { "all with an accumulator", API_ALL, R(SB_ALL, SB_F32, SB_F64, 0), 16,
      .detail = "all takes no accumulator",
      .expect = INVALID },
    { "unknown flag 4", API_ALL, R(SB_SUM, SB_I32, 0, 4u), 16,
      .detail = "r.flags = 0x4 has bits that are not flags",
      .expect = INVALID },
    { "SB_SKIP_NAN on an integer input", API_ALL,
      R(SB_SUM, SB_I32, 0, SB_SKIP_NAN), 16,
      .detail = "SB_SKIP_NAN is for float inputs; i32 has no NaN",
      .expect = INVALID },
    { "unknown map 3", API_ALL, RM(SB_SUM, SB_F32, 0, 0, 3), 16,
      .detail = "r.map = 3 is not an sb_map", .expect = INVALID },
    { "map with any", API_ALL, RM(SB_ANY, SB_F32, 0, 0, SB_MAP_ABS), 16,
      .detail = "any takes no map: r.map must be SB_MAP_NONE, not abs",
      .expect = INVALID },
    { "map with all", API_ALL, RM(SB_ALL, SB_I16, 0, 0, SB_MAP_SQUARE), 16,
      .detail = "all takes no map", .expect = INVALID },
    { "unknown flag 1 << 31", API_ALL, R(SB_SUM, SB_I32, 0, SB_WRAP | 1u << 31),
      16, .detail = "r.flags = 0x80000001 has bits that are not flags",
      .expect = INVALID },
    { "SB_WRAP on f32 sum", API_ALL, R(SB_SUM, SB_F32, 0, SB_WRAP), 16,
      .detail = "SB_WRAP is for integer accumulators; the accumulator is f32",
      .expect = INVALID },
    { "SB_WRAP on an i16 -> f32 sum", API_ALL,
      R(SB_SUM, SB_I16, SB_F32, SB_WRAP), 16, .detail = "SB_WRAP is for integer accumulators; the accumulator is f32",
      .expect = INVALID },
    { "SB_WRAP on f64 prod", API_ALL, R(SB_PROD, SB_F64, 0, SB_WRAP), 16,
      .detail = "SB_WRAP is for integer accumulators; the accumulator is f64",
      .expect = INVALID },
    { "SB_WRAP on f32 min", API_ALL, R(SB_MIN, SB_F32, 0, SB_WRAP), 16,
      .detail = "SB_WRAP is for integer accumulators; the accumulator is f32",
      .expect = INVALID },
    { "SB_WRAP on f64 any", API_ALL, R(SB_ANY, SB_F64, 0, SB_WRAP), 16,
      .detail = "SB_WRAP is for integer types; any of f64",
      .expect = INVALID },
    { "SB_WRAP on i16 -> i64 max: no effect", API_ALL,
      R(SB_MAX, SB_I16, SB_I64, SB_WRAP), 40, .expect = EXPECT_HOST },

    /* ranges: x */
    { "x range one past the end", API_DEVICE, F32_SUM, CAP(4), .x_offset = 1,
      .detail = "x holds",
      .expect = INVALID },
    { "x offset at the end, n = 1", API_DEVICE, F32_SUM, 1,
      .x_offset = CAP(4), .detail = "x holds",
      .expect = INVALID },
    { "x offset past the end, n = 0", API_DEVICE, F32_SUM, 0,
      .x_offset = CAP(4) + 1, .detail = "x holds",
      .expect = INVALID },
    { "x offset SIZE_MAX / 2 (offset * 8 overflows)", API_DEVICE, F64_SUM, 1,
      .x_offset = SIZE_MAX / 2, .detail = "x holds",
      .expect = INVALID },
    { "x offset SIZE_MAX / 8 + 1 (offset * 8 wraps to 8)", API_DEVICE,
      F64_SUM, 1, .x_offset = SIZE_MAX / 8 + 1, .detail = "x holds",
      .expect = INVALID },
    { "x offset SIZE_MAX", API_DEVICE, F32_SUM, 1, .x_offset = SIZE_MAX,
      .detail = "x holds",
      .expect = INVALID },
    { "n SIZE_MAX / 2", API_DEVICE, F64_SUM, SIZE_MAX / 2, .detail = "x holds",
      .expect = INVALID },
    { "n SIZE_MAX / 8 + 1 (n * 8 wraps to 8)", API_DEVICE, F64_SUM,
      SIZE_MAX / 8 + 1, .detail = "x holds",
      .expect = INVALID },
    { "x offset 1, n SIZE_MAX (offset + n wraps)", API_DEVICE, F32_SUM,
      SIZE_MAX, .x_offset = 1, .detail = "x holds",
      .expect = INVALID },
    { "x range ending at the end", API_DEVICE, F32_SUM, 24,
      .x_offset = CAP(4) - 24, .expect = EXPECT_HOST },
    { "x offset at the end, n = 0", API_DEVICE, F64_SUM, 0,
      .x_offset = CAP(8), .expect = EXPECT_HOST },
    { "f64: n one past the end", API_DEVICE, F64_SUM, CAP(8) + 1,
      .result_offset = 16, .detail = "x holds",
      .expect = INVALID },
    { "f64: x range one past the end", API_DEVICE, F64_SUM, CAP(8),
      .x_offset = 1, .result_offset = 16, .detail = "x holds",
      .expect = INVALID },
    { "f64: x offset at the end, n = 1", API_DEVICE, F64_SUM, 1,
      .x_offset = CAP(8), .result_offset = 16, .detail = "x holds",
      .expect = INVALID },
    { "f64: x offset past the end, n = 0", API_DEVICE, F64_SUM, 0,
      .x_offset = CAP(8) + 1, .result_offset = 16, .detail = "x holds",
      .expect = INVALID },
    { "f64: x offset 2, n SIZE_MAX (offset + n wraps)", API_DEVICE, F64_SUM,
      SIZE_MAX, .x_offset = 2, .result_offset = 16, .detail = "x holds",
      .expect = INVALID },
    { "f64: x offset SIZE_MAX", API_DEVICE, F64_SUM, 1,
      .x_offset = SIZE_MAX, .result_offset = 16, .detail = "x holds",
      .expect = INVALID },

    /* ranges: mask */
    { "mask range one past the end", API_DEVICE, R(SB_MAX, SB_U8, 0, 0),
      MASK_BYTES, .mask = MASK_VALID, .mask_offset = 1, .detail = "mask holds",
      .expect = INVALID },
    { "mask offset at the end, n = 1", API_DEVICE, F32_SUM, 1,
      .mask = MASK_VALID, .mask_offset = MASK_BYTES, .detail = "mask holds",
      .expect = INVALID },
    { "mask offset SIZE_MAX / 2", API_DEVICE, F32_SUM, 1, .mask = MASK_VALID,
      .mask_offset = SIZE_MAX / 2, .detail = "mask holds",
      .expect = INVALID },
    { "mask offset SIZE_MAX", API_DEVICE, F32_SUM, 1, .mask = MASK_VALID,
      .mask_offset = SIZE_MAX, .detail = "mask holds",
      .expect = INVALID },
    { "mask range ending at the end", API_DEVICE,
      R(SB_MIN, SB_I16, SB_I64, 0), 40,
      .mask = MASK_VALID, .mask_offset = MASK_BYTES - 40,
      .expect = EXPECT_HOST },
    { "f64: mask range one past the end", API_DEVICE, F64_SUM, CAP(8),
      .mask = MASK_VALID, .mask_offset = MASK_BYTES - CAP(8) + 1,
      .result_offset = 16, .detail = "mask holds",
      .expect = INVALID },
    { "f64: mask offset SIZE_MAX - 1, n = 2 (offset + n wraps)", API_DEVICE,
      F64_SUM, 2, .mask = MASK_VALID, .mask_offset = SIZE_MAX - 1,
      .result_offset = 16, .detail = "mask holds",
      .expect = INVALID },

    /* the result record of sb_reduce_enqueue */
    { "result offset 4 (not a multiple of 8)", API_ENQUEUE, F32_SUM, 16,
      .result_offset = 4, .detail = "result_offset = 4 is not a multiple of 8",
      .expect = INVALID },
    { "result offset 12 (not a multiple of 8)", API_ENQUEUE, F32_SUM, 16,
      .result_offset = 12, .detail = "result_offset = 12 is not a multiple of 8",
      .expect = INVALID },
    { "result record one word past the end", API_ENQUEUE, F32_SUM, 16,
      .result_offset = RES_BYTES - 8, .detail = "result holds",
      .expect = INVALID },
    { "result offset at the end", API_ENQUEUE, F32_SUM, 16,
      .result_offset = RES_BYTES, .detail = "result holds",
      .expect = INVALID },
    { "result offset SIZE_MAX - 7", API_ENQUEUE, F32_SUM, 16,
      .result_offset = SIZE_MAX - 7, .detail = "result holds",
      .expect = INVALID },
    { "result record ending at the end", API_ENQUEUE, F32_SUM, 16,
      .result_offset = RES_BYTES - 16, .expect = EXPECT_HOST },
    { "f64: result offset 1 (not a multiple of 8)", API_ENQUEUE, F64_SUM, 50,
      .result_offset = 1, .result_bytes = 64, .detail = "result_offset = 1 is not a multiple of 8",
      .expect = INVALID },
    { "f64: result offset 4 (not a multiple of 8)", API_ENQUEUE, F64_SUM, 50,
      .result_offset = 4, .result_bytes = 64, .detail = "result_offset = 4 is not a multiple of 8",
      .expect = INVALID },
    { "f64: result offset 7 (not a multiple of 8)", API_ENQUEUE, F64_SUM, 50,
      .result_offset = 7, .result_bytes = 64, .detail = "result_offset = 7 is not a multiple of 8",
      .expect = INVALID },
    { "f64: result offset 12 (not a multiple of 8)", API_ENQUEUE, F64_SUM, 50,
      .result_offset = 12, .result_bytes = 64, .detail = "result_offset = 12 is not a multiple of 8",
      .expect = INVALID },
    { "f64: result offset 33 (not a multiple of 8)", API_ENQUEUE, F64_SUM, 50,
      .result_offset = 33, .result_bytes = 64, .detail = "result_offset = 33 is not a multiple of 8",
      .expect = INVALID },
    { "f64: result record one word past the end", API_ENQUEUE, F64_SUM,
      CAP(8), .result_offset = RES_BYTES - 8, .detail = "result holds",
      .expect = INVALID },
    { "f64: result offset SIZE_MAX - 7", API_ENQUEUE, F64_SUM, CAP(8),
      .result_offset = SIZE_MAX - 7, .detail = "result holds",
      .expect = INVALID },
    { "f64: result offset SIZE_MAX & ~7", API_ENQUEUE, F64_SUM, CAP(8),
      .result_offset = SIZE_MAX & ~(size_t)7, .detail = "result holds",
      .expect = INVALID },

    /* wait lists */
    { "num_wait > 0 with a NULL list", API_ENQUEUE, F32_SUM, 16,
      .wait = WAIT_COUNT_NULL_LIST, .detail = "wait is NULL while num_wait = 1",
      .expect = INVALID },
    { "a list with num_wait = 0", API_ENQUEUE, F32_SUM, 16,
      .wait = WAIT_LIST_ZERO_COUNT, .detail = "wait is not NULL while num_wait = 0",
      .expect = INVALID },
    { "i32 max: num_wait > 0 with a NULL list", API_ENQUEUE,
      R(SB_MAX, SB_I32, 0, 0), 77, .wait = WAIT_COUNT_NULL_LIST,
      .result_bytes = 16, .detail = "wait is NULL while num_wait = 1",
      .expect = INVALID },
    { "i32 max: a list with num_wait = 0", API_ENQUEUE,
      R(SB_MAX, SB_I32, 0, 0), 77, .wait = WAIT_LIST_ZERO_COUNT,
      .result_bytes = 16, .detail = "wait is not NULL while num_wait = 0",
      .expect = INVALID },
    { "a complete event in the list", API_ENQUEUE, F32_SUM, 16,
      .wait = WAIT_COMPLETE_EVENT, .expect = EXPECT_HOST },

    /* n = 0: a value, not an error, except min/max */
    { "n = 0 sum f32", API_ALL, R(SB_SUM, SB_F32, 0, 0), 0,
      .expect = EXPECT_HOST },
    { "n = 0 sum i16 -> i64, NULL x", API_ALL, R(SB_SUM, SB_I16, SB_I64, 0),
      0, .x = X_NULL, .expect = EXPECT_HOST },
    { "n = 0 sum i16 -> i64 wrapping", API_ALL,
      R(SB_SUM, SB_I16, SB_I64, SB_WRAP), 0, .expect = EXPECT_HOST },
    { "n = 0 prod f64, NULL x", API_ALL, R(SB_PROD, SB_F64, 0, 0), 0,
      .x = X_NULL, .expect = EXPECT_HOST },
    { "n = 0 prod i16 -> i64", API_ALL, R(SB_PROD, SB_I16, SB_I64, 0), 0,
      .expect = EXPECT_HOST },
    { "n = 0 prod f32, with a mask", API_ALL, R(SB_PROD, SB_F32, 0, 0), 0,
      .mask = MASK_VALID, .expect = EXPECT_HOST },
    { "n = 0 min f32", API_ALL, R(SB_MIN, SB_F32, 0, 0), 0,
      .detail = "min over no element",
      .expect = SB_EMPTY },
    { "n = 0 min i16 -> i64, NULL x", API_ALL, R(SB_MIN, SB_I16, SB_I64, 0),
      0, .x = X_NULL, .detail = "min over no element",
      .expect = SB_EMPTY },
    { "n = 0 max f64", API_ALL, R(SB_MAX, SB_F64, 0, 0), 0,
      .detail = "max over no element",
      .expect = SB_EMPTY },
    { "n = 0 max i16 -> i64, with a mask", API_ALL,
      R(SB_MAX, SB_I16, SB_I64, 0), 0, .mask = MASK_VALID,
      .detail = "max over no element",
      .expect = SB_EMPTY },
    { "n = 0 any f32", API_ALL, R(SB_ANY, SB_F32, 0, 0), 0,
      .expect = EXPECT_HOST },
    { "n = 0 any f64, NULL x", API_ALL, R(SB_ANY, SB_F64, 0, 0), 0,
      .x = X_NULL, .expect = EXPECT_HOST },
    { "n = 0 all f64", API_ALL, R(SB_ALL, SB_F64, 0, 0), 0,
      .expect = EXPECT_HOST },
    { "n = 0 all f32", API_ALL, R(SB_ALL, SB_F32, 0, 0), 0,
      .expect = EXPECT_HOST },

    /* contexts and reports */
    { "create: NULL cl_context", API_CREATE, .handles = HANDLES_NULL_CL_CONTEXT,
      .detail = "cl_ctx is NULL",
      .expect = INVALID },
    { "create: NULL device", API_CREATE, .handles = HANDLES_NULL_DEVICE,
      .detail = "device is NULL",
      .expect = INVALID },
    { "create: NULL out", API_CREATE | API_CREATE_DEFAULT,
      .handles = HANDLES_NULL_OUT, .detail = "out is NULL",
      .expect = INVALID },
    { "create: unknown option flag", API_CREATE | API_CREATE_DEFAULT,
      .options = &opt_bad_flags, .detail = "opts->flags = 0x80 has bits",
      .expect = INVALID },
    { "create: work_group_size 24", API_CREATE | API_CREATE_DEFAULT,
      .options = &opt_wg_not_pow2, .detail = "opts->work_group_size = 24: it must be a power of two",
      .expect = INVALID },
    { "create: work_group_size 2^24", API_CREATE | API_CREATE_DEFAULT,
      .options = &opt_wg_too_large, .detail = "opts->work_group_size = 16777216: it must be a power of two",
      .expect = INVALID },
    { "create: tree_work_group_size 6", API_CREATE,
      .options = &opt_tree_not_pow2, .detail = "opts->tree_work_group_size = 6: it must be",
      .expect = INVALID },
    { "create: tree_work_group_size 2^24", API_CREATE,
      .options = &opt_tree_too_large, .detail = "opts->tree_work_group_size = 16777216: it must be",
      .expect = INVALID },
    { "create: leaves_per_item 3", API_CREATE, .options = &opt_lpi_not_pow2,
      .detail = "opts->leaves_per_item = 3: it must be",
      .expect = INVALID },
    { "create: leaves_per_item 256", API_CREATE,
      .options = &opt_lpi_too_large, .detail = "opts->leaves_per_item = 256: it must be a power of two, at most 128",
      .expect = INVALID },
    { "create: nodes_per_item 12", API_CREATE, .options = &opt_npi_not_pow2,
      .detail = "opts->nodes_per_item = 12: it must be",
      .expect = INVALID },
    { "create: nodes_per_item 256", API_CREATE,
      .options = &opt_npi_too_large, .detail = "opts->nodes_per_item = 256: it must be a power of two, at most 128",
      .expect = INVALID },
    { "create: subgroups 3", API_CREATE, .options = &opt_subgroups_mode,
      .detail = "opts->subgroups = 3 is not an SB_SUBGROUPS_* mode",
      .expect = INVALID },
    { "create: emulated sub-groups of 1", API_CREATE,
      .options = &opt_emulate_size_1, .detail = "opts->emulated_subgroup_size = 1: it must be a power of two from 2 to 64",
      .expect = INVALID },
    { "create: emulated sub-groups of 3", API_CREATE,
      .options = &opt_emulate_size_3, .detail = "opts->emulated_subgroup_size = 3: it must be",
      .expect = INVALID },
    { "create: emulated sub-groups of 128", API_CREATE,
      .options = &opt_emulate_size_128, .detail = "opts->emulated_subgroup_size = 128: it must be",
      .expect = INVALID },
    { "create: emulated sub-groups above the work-group", API_CREATE,
      .options = &opt_emulate_above_wg, .detail = "opts->emulated_subgroup_size = 8 is larger than a work-group",
      .expect = INVALID },
    { "create: all-zero options are the defaults", API_CREATE,
      .options = &opt_zero, .expect = SB_OK },
    { "report: NULL device", API_REPORT, .handles = HANDLES_NULL_DEVICE,
      .detail = "device is NULL",
      .expect = INVALID },
    { "report: NULL out", API_REPORT, .handles = HANDLES_NULL_OUT,
      .detail = "out is NULL",
      .expect = INVALID },
};

/* ------------------------------------------------------------------------
 * The fixture: per device, two contexts and buffers of another context
 * ---------------------------------------------------------------------- */

typedef struct {
    const test_device *dev;
    device_context     plain;     /* default options: host shortcut */
    device_context     no_host;   /* SB_OPT_NO_HOST: kernels run */
    cl_mem             x, mask;
    cl_context         other_ctx; /* a second context on the same device */
    cl_command_queue   other_queue;
    cl_mem             other_buf;
} device_fixture;

typedef struct {
    device_list     all;             /* first: see device_suite_new() */
    uint64_t        seed;
    unsigned char   x_host[X_BYTES];
    unsigned char   mask_host[MASK_BYTES];
    device_fixture *fix;
} suite;

static uint64_t seed;

static void setup_device(device_fixture *f, const test_device *dev,
                         const suite *s)
{
    memset(f, 0, sizeof *f);
    f->dev = dev;
    const sb_options no_host = { .flags = SB_OPT_NO_HOST };
    assert_int_equal(device_context_open(&f->plain, dev, NULL), SB_OK);
    assert_int_equal(device_context_open(&f->no_host, dev, &no_host), SB_OK);
    f->x = make_buffer(dev, X_BYTES, s->x_host);
    f->mask = make_buffer(dev, MASK_BYTES, s->mask_host);
    cl_int err = CL_SUCCESS;
    f->other_ctx = clCreateContext(NULL, 1, &dev->device, NULL, NULL, &err);
    assert_non_null(f->other_ctx);
    f->other_queue = clCreateCommandQueue(f->other_ctx, dev->device, 0, &err);
    assert_non_null(f->other_queue);
    f->other_buf = clCreateBuffer(f->other_ctx, CL_MEM_READ_WRITE, X_BYTES,
                                  NULL, &err);
    assert_non_null(f->other_buf);
    unsigned char fill[X_BYTES];
    memset(fill, RESULT_SENTINEL, sizeof fill);
    assert_int_equal(clEnqueueWriteBuffer(f->other_queue, f->other_buf,
                                          CL_TRUE, 0, X_BYTES, fill, 0, NULL,
                                          NULL), CL_SUCCESS);
}

static void teardown_device(device_fixture *f)
{
    clReleaseMemObject(f->x);
    clReleaseMemObject(f->mask);
    clReleaseMemObject(f->other_buf);
    clReleaseCommandQueue(f->other_queue);
    clReleaseContext(f->other_ctx);
    device_context_close(&f->plain);
    device_context_close(&f->no_host);
}

static int open_suite(void **state)
{
    suite *s = device_suite_new(sizeof *s);
    if (s == NULL)
        return -1;
    s->seed = seed;
    uint64_t st = mix_seed(seed, 1);
    /* Small values (0 .. 3 per byte): integer sums of a few dozen
     * elements stay far from overflow, floats are tiny or subnormal. */
    for (size_t i = 0; i < X_BYTES; i++)
        s->x_host[i] = (unsigned char)random_below(&st, 4);
    for (size_t i = 0; i < MASK_BYTES; i++)
        s->mask_host[i] = (unsigned char)random_below(&st, 3);
    s->fix = checked_malloc(sizeof *s->fix * s->all.count);
    for (size_t i = 0; i < s->all.count; i++)
        setup_device(&s->fix[i], &s->all.devices[i], s);
    *state = s;
    return 0;
}

static int close_suite(void **state)
{
    suite *s = *state;
    if (s == NULL)
        return 0;                   /* open_suite() failed */
    for (size_t i = 0; i < s->all.count; i++)
        teardown_device(&s->fix[i]);
    free(s->fix);
    device_suite_free(s);
    return 0;
}

/* ------------------------------------------------------------------------
 * Running one row through one call
 * ---------------------------------------------------------------------- */

/* What docs/order.md says n = 0 gives, written out: sum +0 (all bits zero),
 * prod 1 in the accumulator type, any 0, all 1. @return false for min/max
 * (no value). */
static bool start_value(sb_reduction r, unsigned char out[8])
{
    const sb_type acc = r.accumulator ? r.accumulator : r.input;
    memset(out, 0, 8);
    switch (r.op) {
    case SB_SUM: case SB_ANY: return true;
    case SB_ALL: out[0] = 1; return true;
    case SB_PROD:
        if (acc == SB_F32) { const float one = 1.0f; memcpy(out, &one, 4); }
        else if (acc == SB_F64) { const double one = 1.0; memcpy(out, &one, 8); }
        else out[0] = 1;              /* little-endian integer 1 */
        return true;
    default: return false;
    }
}

static bool all_sentinel(const unsigned char *p, size_t size)
{
    for (size_t i = 0; i < size; i++)
        if (p[i] != RESULT_SENTINEL)
            return false;
    return true;
}

static void print_bytes(FILE *out, const char *what, const unsigned char *p,
                        size_t size)
{
    fprintf(out, "  %s:", what);
    for (size_t i = 0; i < size; i++)
        fprintf(out, " %02x", p[i]);
    fputc('\n', out);
}

/* The expected status and bits of a row: sb_reduce_host() on the same
 * bytes, for the rows that are valid (EXPECT_HOST, SB_EMPTY); the others
 * expect nothing written. */
static sb_status host_expectation(const suite *s, const bad_input *row,
                                  unsigned char want[RESULT_BUFFER])
{
    memset(want, RESULT_SENTINEL, RESULT_BUFFER);
    if (row->expect != EXPECT_HOST && row->expect != SB_EMPTY)
        return (sb_status)row->expect;
    const size_t size = type_size(row->r.input);
    const void *x = row->n ? s->x_host + row->x_offset * size : NULL;
    const unsigned char *mask = row->mask == MASK_VALID && row->n
                              ? s->mask_host + row->mask_offset : NULL;
    return sb_reduce_host(row->r, x, mask, row->n, want);
}

typedef struct {
    const suite          *s;
    const device_fixture *f;      /* NULL for host-only calls */
    const bad_input      *row;
    unsigned              api;    /* one API_* bit */
    int                   failures;
} run;

static void mismatch(run *ru, const char *fmt, sb_status got, int want)
{
    ru->failures++;
    fprintf(stderr, "FAIL row \"%s\" via %s on %s: ", ru->row->name,
            api_names[__builtin_ctz(ru->api)],
            ru->f ? ru->f->dev->name : "the host");
    fprintf(stderr, fmt, status_name(got),
            want == EXPECT_HOST ? "(host)" : status_name((sb_status)want));
    fputc('\n', stderr);
}

/* sb_error_detail() right after the call: "" after SB_OK; otherwise a
 * sentence, which holds the row's `detail` when the status is the row's
 * own (a type the device refuses has its own sentence). `detail` is copied
 * by the caller before any other samebits call could change it. */
static void check_detail(run *ru, sb_status got, const char *detail)
{
    const bad_input *row = ru->row;
    if (got == SB_OK && detail[0] != '\0')
        mismatch(ru, "status %s but a detail is set (want %s)", got, SB_OK);
    else if (got != SB_OK && detail[0] == '\0')
        mismatch(ru, "status %s with no detail (want %s with one)", got, got);
    else if (got != SB_OK && (int)got == row->expect && row->detail != NULL &&
             strstr(detail, row->detail) == NULL) {
        mismatch(ru, "status %s (want %s) with the wrong detail", got,
                 row->expect);
        fprintf(stderr, "  detail: \"%s\"\n  want a part: \"%s\"\n", detail,
                row->detail);
    }
    if (got != SB_OK && row->expect != EXPECT_HOST && row->expect != SB_OK &&
        (int)got == row->expect && row->detail == NULL)
        mismatch(ru, "status %s (want %s): the row names no detail", got,
                 row->expect);
}

/* Copies the calling thread's detail, to check after other calls. */
static void save_detail(char *buf, size_t size)
{
    snprintf(buf, size, "%s", sb_error_detail());
}

/* The row's status on this device: a type the device cannot compute
 * exactly is refused once the arguments are valid. */
static int device_expect(const run *ru, sb_status host_status)
{
    const bad_input *row = ru->row;
    if (row->expect != EXPECT_HOST && row->expect != SB_EMPTY)
        return row->expect;
    const sb_type acc = row->r.accumulator ? row->r.accumulator : row->r.input;
    if (!type_is_exact_on(ru->f->dev, row->r.input) ||
        !type_is_exact_on(ru->f->dev, acc))
        return SB_UNSUPPORTED;
    return row->expect == EXPECT_HOST ? (int)host_status : row->expect;
}

/* Checks a result of RESULT_BUFFER bytes against the expectation. */
static void check_result(run *ru, sb_status got, int want,
                         const unsigned char *result,
                         const unsigned char *host)
{
    if ((int)got != want) {
        mismatch(ru, "status %s, want %s", got, want);
        return;
    }
    const size_t rs = sb_result_size(ru->row->r);
    bool good;
    if (got == SB_OK) {
        good = bits_equal(result, host, RESULT_BUFFER);
        unsigned char start[8];
        if (ru->row->n == 0 && start_value(ru->row->r, start))
            good = good && bits_equal(result, start, rs);
    } else {
        good = all_sentinel(result, RESULT_BUFFER);
    }
    if (!good) {
        mismatch(ru, "status %s (want %s) but the result bytes are wrong", got,
             want);
        print_bytes(stderr, "got ", result, RESULT_BUFFER);
        print_bytes(stderr, "want", host, RESULT_BUFFER);
    }
}

static void run_host(run *ru)
{
    const bad_input *row = ru->row;
    unsigned char host[RESULT_BUFFER];
    const sb_status hs = host_expectation(ru->s, row, host);
    const size_t size = type_size(row->r.input) ? type_size(row->r.input) : 1;
    const void *x = row->x == X_NULL ? NULL
                  : ru->s->x_host + row->x_offset * size;
    const unsigned char *mask = row->mask == MASK_VALID
                              ? ru->s->mask_host + row->mask_offset : NULL;
    unsigned char result[RESULT_BUFFER];
    memset(result, RESULT_SENTINEL, sizeof result);
    const sb_status got = sb_reduce_host(row->r, x, mask, row->n,
                                         row->result == RES_NULL ? NULL : result);
    char detail[1024];
    save_detail(detail, sizeof detail);
    check_detail(ru, got, detail);
    check_result(ru, got, row->expect == EXPECT_HOST ? (int)hs : row->expect,
                 result, host);
}

static cl_mem x_buffer(const run *ru)
{
    switch (ru->row->x) {
    case X_NULL:          return NULL;
    case X_OTHER_CONTEXT: return ru->f->other_buf;
    default:              return ru->f->x;
    }
}

static cl_mem mask_buffer(const run *ru)
{
    switch (ru->row->mask) {
    case MASK_VALID:         return ru->f->mask;
    case MASK_OTHER_CONTEXT: return ru->f->other_buf;
    default:                 return NULL;
    }
}

static cl_command_queue queue_of(const run *ru)
{
    switch (ru->row->queue) {
    case QUEUE_NULL:          return NULL;
    case QUEUE_OTHER_CONTEXT: return ru->f->other_queue;
    default:                  return ru->f->dev->queue;
    }
}

static void run_reduce(run *ru, const device_context *dc)
{
    const bad_input *row = ru->row;
    unsigned char host[RESULT_BUFFER];
    const sb_status hs = host_expectation(ru->s, row, host);
    const int want = device_expect(ru, hs);
    if (want != (int)hs || hs != SB_OK)
        memset(host, RESULT_SENTINEL, sizeof host);
    unsigned char result[RESULT_BUFFER];
    memset(result, RESULT_SENTINEL, sizeof result);
    const sb_status got = sb_reduce(row->null_context ? NULL : dc->ctx,
                                    queue_of(ru), row->r, x_buffer(ru),
                                    row->x_offset, mask_buffer(ru),
                                    row->mask_offset, row->n,
                                    row->result == RES_NULL ? NULL : result);
    char detail[1024];
    save_detail(detail, sizeof detail);
    check_detail(ru, got, detail);
    check_result(ru, got, want, result, host);
}

static void run_enqueue(run *ru)
{
    const bad_input *row = ru->row;
    const device_fixture *f = ru->f;
    unsigned char host[RESULT_BUFFER];
    const sb_status hs = host_expectation(ru->s, row, host);
    const int want = device_expect(ru, hs);

    const size_t res_bytes = row->result_bytes ? row->result_bytes
                                               : RES_BYTES;
    assert_true(res_bytes <= RES_MAX_BYTES);
    unsigned char fill[RES_MAX_BYTES];
    memset(fill, RESULT_SENTINEL, sizeof fill);
    cl_mem res = row->result == RES_NULL ? NULL
               : row->result == RES_OTHER_CONTEXT ? f->other_buf
               : make_buffer(f->dev, res_bytes, fill);
    cl_event user = NULL;
    cl_uint num_wait = 0;
    const cl_event *wait = NULL;
    if (row->wait != WAIT_NONE) {
        cl_int err = CL_SUCCESS;
        user = clCreateUserEvent(f->dev->cl_ctx, &err);
        assert_non_null(user);
        assert_int_equal(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
        num_wait = row->wait == WAIT_LIST_ZERO_COUNT ? 0 : 1;
        wait = row->wait == WAIT_COUNT_NULL_LIST ? NULL : &user;
    }
    cl_event sentinel_event = (cl_event)(uintptr_t)0x5b5b5b5b;
    cl_event done = sentinel_event;
    const sb_status got = sb_reduce_enqueue(
        row->null_context ? NULL : f->no_host.ctx, queue_of(ru), row->r,
        x_buffer(ru), row->x_offset, mask_buffer(ru), row->mask_offset,
        row->n, res, row->result_offset, num_wait, wait,
        row->null_done ? NULL : &done);
    char detail[1024];
    save_detail(detail, sizeof detail);
    check_detail(ru, got, detail);

    unsigned char back[RES_MAX_BYTES];
    memset(back, 0, sizeof back);
    if (got == SB_OK) {
        if (!row->null_done) {
            assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
            clReleaseEvent(done);
        }
        read_buffer(f->dev, res, 0, res_bytes, back);
    } else if (res == f->other_buf) {
        assert_int_equal(clEnqueueReadBuffer(f->other_queue, res, CL_TRUE, 0,
                                             res_bytes, back, 0, NULL, NULL),
                         CL_SUCCESS);
    } else if (res != NULL) {
        read_buffer(f->dev, res, 0, res_bytes, back);
    }

    if (got != SB_OK) {
        /* Nothing enqueued: status only; the record buffer and done are
         * as they were. */
        if ((int)got != want)
            mismatch(ru, "status %s, want %s", got, want);
        else if ((res != NULL && !all_sentinel(back, res_bytes)) ||
                 done != sentinel_event) {
            mismatch(ru, "status %s (want %s) but the record or done was "
                 "written", got, want);
            print_bytes(stderr, "buffer", back, res_bytes);
        }
    } else {
        /* The record: status word at 8, value at 0 only when SB_OK; the
         * bytes outside the record untouched. */
        const size_t off = row->result_offset;
        int32_t status;
        memcpy(&status, back + off + 8, sizeof status);
        unsigned char value[RESULT_BUFFER];
        memset(value, RESULT_SENTINEL, sizeof value);
        memcpy(value, back + off, sb_result_size(row->r));
        unsigned char outside[RES_MAX_BYTES];
        memcpy(outside, back, res_bytes);
        memset(outside + off, RESULT_SENTINEL, 12);   /* value and status */
        const bool outside_ok = all_sentinel(outside, res_bytes);
        if (want < 0 || want > SB_OVERFLOW) {
            mismatch(ru, "status %s, want %s", got, want);
        } else if (status != want) {
            mismatch(ru, "record status %s, want %s", (sb_status)status, want);
        } else {
            if (want != SB_OK)
                memset(host, RESULT_SENTINEL, sizeof host);
            check_result(ru, (sb_status)status, want, value, host);
            if (!outside_ok) {
                mismatch(ru, "record status %s (want %s): bytes outside the "
                     "record's value and status were written", got, want);
                print_bytes(stderr, "buffer", back, res_bytes);
            }
        }
    }
    if (user != NULL)
        clReleaseEvent(user);
    if (res != NULL && res != f->other_buf)
        clReleaseMemObject(res);
}

static void run_create(run *ru)
{
    const bad_input *row = ru->row;
    const device_fixture *f = ru->f;
    sb_context *const sentinel = (sb_context *)(uintptr_t)0x5b5b5b5b;
    sb_context *out = sentinel;
    sb_context **outp = row->handles == HANDLES_NULL_OUT ? NULL : &out;
    sb_status got;
    if (ru->api == API_CREATE_DEFAULT)
        got = sb_context_create_default(row->options, outp);
    else
        got = sb_context_create(
            row->handles == HANDLES_NULL_CL_CONTEXT ? NULL : f->dev->cl_ctx,
            row->handles == HANDLES_NULL_DEVICE ? NULL : f->dev->device,
            row->options, outp);
    char detail[1024];
    save_detail(detail, sizeof detail);
    check_detail(ru, got, detail);
    if ((int)got != row->expect)
        mismatch(ru, "status %s, want %s", got, row->expect);
    else if (got != SB_OK && out != sentinel)
        mismatch(ru, "status %s (want %s) but *out was written", got,
             row->expect);
    if (got == SB_OK && out != sentinel && out != NULL)
        sb_context_release(out);
}

static void run_report(run *ru)
{
    const bad_input *row = ru->row;
    sb_device_caps caps;
    memset(&caps, RESULT_SENTINEL, sizeof caps);
    const sb_status got = sb_device_report(
        row->handles == HANDLES_NULL_DEVICE ? NULL : ru->f->dev->device,
        row->handles == HANDLES_NULL_OUT ? NULL : &caps);
    char detail[1024];
    save_detail(detail, sizeof detail);
    check_detail(ru, got, detail);
    if ((int)got != row->expect)
        mismatch(ru, "status %s, want %s", got, row->expect);
    else if (got != SB_OK &&
             !all_sentinel((const unsigned char *)&caps, sizeof caps))
        mismatch(ru, "status %s (want %s) but the caps were written", got,
             row->expect);
}

/* ------------------------------------------------------------------------
 * The test
 * ---------------------------------------------------------------------- */

static void every_bad_input_gets_its_status_and_leaves_outputs_untouched(
        void **state)
{
    const suite *s = *state;
    int failures = 0;
    unsigned long runs = 0;
    size_t rows_run = 0;
    for (size_t k = 0; k < COUNT(rows); k++) {
        const bad_input *row = &rows[k];
        /* SAMEBITS_TEST_PART=1 or 2: every other row (valgrind runs the
         * halves side by side: tests/reliability_tests.cmake). */
        if (!test_part_runs((int)(k % 2) + 1))
            continue;
        rows_run++;
        /* The host path and the default device once; the rest on every
         * device. */
        if (row->apis & (API_HOST | API_CREATE_DEFAULT)) {
            run ru = { s, &s->fix[0], row, 0, 0 };
            if (row->apis & API_HOST) {
                ru.api = API_HOST;
                ru.f = NULL;
                run_host(&ru);
                runs++;
            }
            if (row->apis & API_CREATE_DEFAULT) {
                ru.api = API_CREATE_DEFAULT;
                ru.f = &s->fix[0];
                run_create(&ru);
                runs++;
            }
            failures += ru.failures;
        }
        for (size_t d = 0; d < s->all.count; d++) {
            run ru = { s, &s->fix[d], row, 0, 0 };
            const unsigned per_device[] = { API_REDUCE, API_REDUCE_NO_HOST,
                                            API_ENQUEUE, API_CREATE,
                                            API_REPORT };
            for (size_t a = 0; a < COUNT(per_device); a++) {
                if (!(row->apis & per_device[a]))
                    continue;
                ru.api = per_device[a];
                switch (ru.api) {
                case API_REDUCE:         run_reduce(&ru, &ru.f->plain); break;
                case API_REDUCE_NO_HOST: run_reduce(&ru, &ru.f->no_host); break;
                case API_ENQUEUE:        run_enqueue(&ru); break;
                case API_CREATE:         run_create(&ru); break;
                default:                 run_report(&ru); break;
                }
                runs++;
            }
            failures += ru.failures;
        }
    }
    printf("%zu of %zu rows, %lu calls on %zu device(s), %d failure(s)\n",
           rows_run, COUNT(rows), runs, s->all.count, failures);
    assert_int_equal(failures, 0);
    assert_true(rows_run > 0);
}

int main(void)
{
    seed = test_seed(0x6261645f696e70ull);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            every_bad_input_gets_its_status_and_leaves_outputs_untouched),
    };
    return cmocka_run_group_tests_name("bad_input", tests, open_suite,
                                       close_suite);
}
