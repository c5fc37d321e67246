/* tests/device_support.h: what the OpenCL device tests share: every device
 * present, an sb_context per device and option set, buffers with padding in
 * front (so that offsets are exercised), and the differential check of one
 * case on a device against sb_reduce_host() and tests/oracle.c.
 *
 * Devices are those of the library's numbering (sb_device_list()).
 * SAMEBITS_DEVICE, if set, keeps only the one device it names, read by the
 * library's parser (sb_device_select(): "N", "P:D", or a part of a name
 * that names one device), as sb_context_create_default() reads it.
 * SAMEBITS_TEST_NO_SIMULATOR=1 without SAMEBITS_DEVICE leaves Oclgrind
 * out (the default suites; tests/device_tests.cmake). No device at all is a failure, never a skip:
 * POCL is always installed where the tests run.
 *
 * Every layout choice (offsets, padding, queue) is derived from the case's
 * seed, so the line printed on a mismatch replays the case exactly. */
#ifndef SB_TEST_DEVICE_SUPPORT_H
#define SB_TEST_DEVICE_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <CL/cl.h>
#include "samebits.h"
#include "support.h"

/* ------------------------------------------------------------------------
 * Devices
 * ---------------------------------------------------------------------- */

typedef struct {
    cl_platform_id   platform;
    cl_device_id     device;
    cl_context       cl_ctx;          /* made by the tests, one per device */
    cl_command_queue queue;           /* an in-order queue of cl_ctx */
    sb_device_caps   caps;            /* sb_device_report() */
    unsigned         platform_index;  /* P and D of "P:D" */
    unsigned         device_index;
    char             name[320];       /* "P:D device (platform)" */
    bool             oclgrind;        /* the simulator, ~100x slower: callers
                                         keep their cases small there */
    bool             out_of_order;    /* out-of-order queues supported */
    bool             sparse;          /* SAMEBITS_TEST_SPARSE=1 (not on
                                         Oclgrind, sparse anyway): a slow
                                         device or a sanitizer build; the
                                         device matrices run one data
                                         family or mask choice per case in
                                         turn, and sb_reduce_enqueue() one
                                         case in three */
    bool             families_in_turn; /* unless SAMEBITS_TEST_SPARSE=0 (not
                                         on Oclgrind): the two biggest
                                         matrices (test_device_reduce,
                                         test_device_modes) run their data
                                         families in turn instead of all
                                         at every size and mask, to keep
                                         the README's test command and
                                         the portable stage short; every family
                                         still meets every reduction and
                                         mask (and mode) at some size.
                                         Dense: ctest -L sweep */
} test_device;

/*! open_devices() : every device present (or the one SAMEBITS_DEVICE names;
 *  without it, SAMEBITS_TEST_NO_SIMULATOR=1 leaves Oclgrind out),
 *  each with its own cl_context and in-order queue, listed on stdout.
 *  *out receives an array to give to close_devices().
 *  @return the number of devices; 0 (with a message on stderr) when there is
 *          none or one could not be opened. */
size_t open_devices(test_device **out);

void close_devices(test_device *devices, size_t count);

/*! device_suite_new() : for a cmocka group setup: a zeroed suite of `size`
 *  bytes whose first member is a device_list, holding every device
 *  (open_devices()). NULL when there is none: POCL is always installed, so
 *  the group must fail rather than skip. Freed by device_suite_free(),
 *  which closes the devices (NULL: nothing). */
typedef struct {
    test_device *devices;
    size_t       count;
} device_list;

void *device_suite_new(size_t size);
void device_suite_free(void *suite);

/*! device_list_setup(), device_list_teardown() : cmocka group fixtures
 *  whose state is just a device_list. */
int device_list_setup(void **state);
int device_list_teardown(void **state);

/*! device_max_work_group_size() : the largest power of two a launch may
 *  use on `d`, capped at `cap` (the tests' own limit per device kind). */
size_t device_max_work_group_size(const test_device *d, size_t cap);

/*! type_is_exact_on() : whether `d` computes `t` exactly (sb_device_report()
 *  says SB_OK; f16 and bf16, which have no entry there, on every device);
 *  if not, the library must refuse it with SB_UNSUPPORTED. */
bool type_is_exact_on(const test_device *d, sb_type t);

/*! make_buffer() : a read-write buffer of `bytes` bytes of d's context
 *  holding `data` (may be NULL: contents undefined). bytes > 0. Exits the
 *  program if OpenCL fails. */
cl_mem make_buffer(const test_device *d, size_t bytes, const void *data);

/*! padded_copy() : a buffer of d's context holding `pad` bytes of 0x5A,
 *  then the `bytes` bytes of `data` (bytes + pad > 0), so that a call
 *  reading before its offset sees the wrong bytes. */
cl_mem padded_copy(const test_device *d, const void *data, size_t bytes,
                   size_t pad);

/*! read_buffer() : a blocking read of `bytes` bytes at `offset`, through
 *  d's queue. Exits the program if OpenCL fails. */
void read_buffer(const test_device *d, cl_mem buffer, size_t offset,
                 size_t bytes, void *data);

/*! keep_buffers() : from now on, the buffers check_on_device() makes are
 *  kept until release_kept_buffers() instead of released after each case.
 *  For Oclgrind's uninitialised-value check (21.10): it never drops the
 *  shadow state of a released buffer, and applies it to the next buffer
 *  that reuses the id, so a scratch buffer of the library (made without
 *  host data) would read as uninitialised past the old buffer's size. */
void keep_buffers(void);
void release_kept_buffers(void);

/* ------------------------------------------------------------------------
 * Contexts
 * ---------------------------------------------------------------------- */

/* An sb_context on one device, and the options it was made with. */
typedef struct {
    const test_device *dev;
    sb_options         opts;
    sb_context        *ctx;    /* NULL until device_context_open() succeeds */
} device_context;

/*! device_context_open() : sb_context_create() on dev's cl_context.
 *  `opts` may be NULL (defaults). @return its status. */
sb_status device_context_open(device_context *dc, const test_device *dev,
                              const sb_options *opts);

void device_context_close(device_context *dc);

/*! print_options() : every field of `o` on one line (no newline). */
void print_options(FILE *out, const sb_options *o);

/* ------------------------------------------------------------------------
 * The differential check on a device
 * ---------------------------------------------------------------------- */

/* What check_on_device() runs. */
enum {
    RUN_REDUCE  = 1u,   /* sb_reduce() twice, bits of both compared */
    RUN_ENQUEUE = 2u,   /* sb_reduce_enqueue() once, into a record at a
                           random result_offset, read back and compared */
    RUN_BOTH    = 3u
};

/* Where a case's data sit in its buffers (derived from the case seed). */
typedef struct {
    size_t x_offset;      /* elements of padding in front of x */
    size_t x_tail;        /* elements of padding after x */
    size_t mask_offset;   /* bytes of padding in front of the mask */
    size_t mask_tail;
    size_t result_offset; /* multiple of 8, for sb_reduce_enqueue() */
    bool   null_buffers;  /* n == 0 only: x and mask passed as NULL */
    bool   own_queue;     /* pass a NULL queue: the context's own */
} device_layout;

device_layout layout_for(const test_case *c);

/*! check_on_device() :
 *  Builds the data and mask of `c` exactly as check_against_oracle() does,
 *  places them in device buffers as layout_for(c) says (padding filled with
 *  random bytes), and runs what `runs` asks. The statuses and whole result
 *  buffers must equal oracle_reduce()'s, and sb_reduce_host() must agree
 *  too. For a type the device refuses (type_is_exact_on()), both calls must
 *  return SB_UNSUPPORTED and leave the result untouched. On a mismatch
 *  prints the device, options, case and layout and every result to stderr.
 *  `oracle_status`, when not NULL, receives the oracle's status.
 *  @return true if everything agreed. */
bool check_on_device(const device_context *dc, const test_case *c,
                     unsigned runs, sb_status *oracle_status);

/*! check_data_on_device() : the same for caller-built data of c->n
 *  elements (`mask` may be NULL). */
bool check_data_on_device(const device_context *dc, const test_case *c,
                          const void *x, const unsigned char *mask,
                          unsigned runs, sb_status *oracle_status);

/* Counts of what the oracle answered, so a run shows that it covered
 * overflow, empty results and refusals, not only SB_OK. */
typedef struct {
    unsigned long cases, ok, empty, overflow, wrong;
} tally;

void tally_add(tally *t, sb_status oracle_status, bool agreed);
void print_tally(const char *what, const tally *t);

#endif /* SB_TEST_DEVICE_SUPPORT_H */
