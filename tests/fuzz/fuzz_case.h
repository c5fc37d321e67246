/* tests/fuzz/fuzz_case.h: how the samebits fuzzers turn their input bytes
 * into one reduction (op, types, flags, n, data, mask, layout), shared by
 * fuzz_host.c and fuzz_device.c so that one corpus format serves both.
 *
 * Input format (every byte string decodes to some case; missing header
 * bytes read as 0):
 *
 *   byte 0  op        low 4 bits: 0..13 -> op (v % 6); 14 -> 6 + high
 *                     bits (argmin, argmax, count, then unknown ops);
 *                     15 -> (sb_op)-1
 *   byte 1  input     low 4 bits: 0..14 -> type (v % 10) + 1; 15 -> by
 *                     bits 4-5: 0, 200 or -1 (invalid types), or for 1 a
 *                     half type (bit 6: bf16, else f16)
 *   byte 2  acc       low 4 bits: 0..3 -> 0 ("same"); 4..13 -> one of the
 *                     accumulators docs/order.md allows for the input (chosen by
 *                     the whole byte); 14 -> any type 1..10, valid pair or
 *                     not; 15 -> as byte 1's 15
 *   byte 3  flags     bit 0 -> SB_WRAP; bits 1-3 all set -> an unknown flag
 *                     bit (1 << (1 + (byte >> 4) % 31))
 *   byte 4  shape     bits 0-1 mask kind (0 none, 1 bytes from the input,
 *                     2 random with density byte 7, 3 leaf pattern byte 7);
 *                     bits 2-4 size kind (0-4 n = the payload's elements;
 *                     5 n = N % 4097; 6 n = N % 65537; 7 by the top bits
 *                     of N: 3 huge, 2 large (see fuzz_limits), else
 *                     N % 1025); bits 5-7 element offset (device buffers).
 *                     Large inputs are kept rare: they are slow to check.
 *   byte 5-6  N       little-endian 16-bit size parameter
 *   byte 7  mask      mask parameter (see byte 4)
 *   byte 8  values    bits 0-1 element encoding (0 raw little-endian
 *                     bytes; 1 one byte per element from a table of 32
 *                     special values of the type; 2 one byte per element, a
 *                     small integer -128..127 converted to the type; 3 one
 *                     byte per element from 8 values where signs and ties
 *                     decide: floats and halves +0, -0 and two NaNs,
 *                     integers 0, +-1,
 *                     the type's limits, +-2);
 *                     bits 2-3 floating-point environment the host path is
 *                     called in (0 default, 1 round upward, 2 round toward
 *                     zero with exception flags raised, 3 flush-to-zero and
 *                     denormals-are-zero on x86, round downward elsewhere);
 *                     bits 4-7 free for the target (fuzz_device.c: which
 *                     context, whether to also enqueue)
 *   byte 9..  payload the elements, repeated cyclically up to n; with mask
 *                     kind 1 the last (byte 7 % 64 + 1) payload bytes are the
 *                     mask pattern instead, repeated up to n.
 *
 * n = 0 with bit 0 of byte 7 set passes NULL for x and the mask. */
#ifndef SB_FUZZ_CASE_H
#define SB_FUZZ_CASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "samebits.h"

enum { FUZZ_HEADER = 9 };

/* How large the decoder may make n. */
typedef struct {
    size_t large_min;   /* size kind 7: n = large_min + N % large_span */
    size_t large_span;
    size_t medium_mod;  /* size kind 6: n = N % medium_mod */
    size_t huge_min;    /* if not 0, size kind 7 with N >> 14 == 3:
                           n = huge_min + (N & 0x3FFF) * 6 */
} fuzz_limits;

/* The host fuzzer crosses the threaded engine's threshold (n >= 2^18:
 * 253952 .. 300000), and sometimes goes far enough above it (2^20 ..
 * 2^20 + 98298) that chunks grow past their minimum of 16 blocks with 2
 * or 3 threads. */
#define FUZZ_HOST_LIMITS   { 253952u, 46049u, 65537u, 1048576u }

typedef struct {
    sb_reduction   r;
    size_t         n;
    size_t         elem_size;   /* bytes per element (1 for an invalid type) */
    unsigned char *x;           /* exactly n * elem_size bytes, malloc()ed;
                                   NULL if n == 0 */
    unsigned char *mask;        /* exactly n bytes or NULL */
    bool           null_x;      /* n == 0: x and mask passed as NULL */
    unsigned       offset;      /* elements of padding in front (device) */
    unsigned       mask_kind, size_kind, encoding, fpenv;
    unsigned       target_bits; /* byte 8 >> 4, for the target */
    unsigned char  mask_param;
    size_t         pattern;     /* elements in the payload pattern */
    size_t         mask_pattern;/* bytes in the mask pattern (kind 1) */
} fuzz_case;

/*! fuzz_decode() : fills *c from `data`. Returns false only when memory
 *  runs out (the case is then skipped). Release with fuzz_case_free(). */
bool fuzz_decode(const uint8_t *data, size_t size, fuzz_limits limits,
                 fuzz_case *c);

void fuzz_case_free(fuzz_case *c);

/*! fuzz_case_print() : the decoded case on a few lines, with the first
 *  elements and mask bytes, enough to rebuild it by hand. */
void fuzz_case_print(FILE *out, const fuzz_case *c);

/*! fuzz_keep_input() : remembers the input being run, for
 *  fuzz_write_input().
 *  fuzz_write_input() : writes it to $SAMEBITS_FUZZ_ARTIFACTS (default:
 *  the current directory) as mismatch-<hash> and names the file on `log`.
 *  The targets call it before abort(): a device target's OpenCL compiler
 *  (POCL's LLVM) installs its own SIGABRT handler, which hides the abort
 *  from libFuzzer, so libFuzzer may not save the input itself. */
void fuzz_keep_input(const uint8_t *data, size_t size);
void fuzz_write_input(FILE *log);

/*! fuzz_print_bytes() : `size` bytes of `p` in hex. */
void fuzz_print_bytes(FILE *out, const void *p, size_t size);

/* The floating-point environment of byte 8: fuzz_fpenv_set() installs it
 * (after saving the caller's), fuzz_fpenv_check() tells whether the host
 * path left it exactly as it was installed, and fuzz_fpenv_restore()
 * returns to the saved one. */
typedef struct {
    unsigned mode;
    int      round;          /* fegetround() after installing */
    int      flags;          /* fetestexcept(FE_ALL_EXCEPT) after installing */
    unsigned csr;            /* x86 MXCSR after installing, 0 elsewhere */
    unsigned saved_csr;
    int      saved_round;
} fuzz_fpenv;

void fuzz_fpenv_set(fuzz_fpenv *e, unsigned mode);
bool fuzz_fpenv_check(const fuzz_fpenv *e, FILE *out);
void fuzz_fpenv_restore(const fuzz_fpenv *e);

#endif /* SB_FUZZ_CASE_H */
