/* reduce.h: what the two files of `samebits reduce` share.
 *
 * tools/cmd_reduce.c parses the command line and reduces a whole input
 * as one array; tools/cmd_reduce_batched.c reduces each row or column of
 * a 2-D .npy (--axis) or each segment of a 1-D input (--segments), one
 * answer each, through the library's batched and segmented reductions. */
#ifndef SAMEBITS_TOOLS_REDUCE_H
#define SAMEBITS_TOOLS_REDUCE_H

#include <stddef.h>

#include "cli.h"

/* ---- tools/cmd_reduce.c ------------------------------------------------------ */

/* The result as text that reads back to the same bits (%.9g, %.17g,
 * integers in full, 0/1 for any/all; argmin/argmax: the value only). */
void reduce_format_value(sb_reduction r, const void *result, char *buf,
                         size_t size);

/* The exit status of cli.h for a library status. */
int reduce_exit_status(sb_status s, int on_device);

/* Why a status is not a value, in one line on stderr (cli_error): the
 * detail, and for an overflow what would avoid it. */
void reduce_explain(sb_reduction r, sb_status s, const char *detail);

/* The library's verdict on the reduction, in the command's words:
 * CLI_EXIT_OK, or CLI_EXIT_USAGE after the message. */
int reduce_check_reduction(sb_reduction r);

/* ---- tools/cmd_reduce_batched.c ---------------------------------------------- */

/* What --axis / --segments reduce, from the command line. */
typedef struct {
    sb_reduction r;          /* r.input 0: the file says it */
    const char  *file;       /* "-": standard input */
    const char  *array;      /* a .npz member, or NULL */
    cli_format   format;
    const char  *mask_file;  /* --mask: the input's shape, or NULL */
    const char  *mask_array;
    cli_format   mask_format;
    int          axis;       /* 0 (each column) or 1 (each row); -1 */
    const char  *segments;   /* the offsets .npy of --segments, or NULL */
    const char  *out_file;   /* --out: the answers as a .npy, or NULL */
    int          bits, json;
} reduce_batched_args;

/* Runs the batched reduction on the host (dev NULL) or on `dev`, whose
 * title is `target`, prints one answer per row, column or segment (text,
 * or one JSON record) and returns the exit status: 0 when every answer
 * is a value, 1 when some row has none (empty, overflow), 2, 3 or 4 as
 * cli.h says. */
int reduce_batched(const reduce_batched_args *a, const cli_device *dev,
                   const char *target);

#endif /* SAMEBITS_TOOLS_REDUCE_H */
