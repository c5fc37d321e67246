/* partial.h: what sb_partial_add() (device_partial.c) needs of the host
 * side of sb_partial (host_partial.c): the same cutting of a piece into
 * loose elements and aligned subtrees, and a way to enter a subtree's
 * node computed elsewhere. */
#ifndef SB_PARTIAL_H
#define SB_PARTIAL_H

#include "host_engine.h"

/* The next piece of `left` elements appended at position `end`: fewer
 * than 16, loose elements up to the end of the leaf (when `end` is inside
 * a leaf or fewer than 16 are left), or 16 and more, the largest aligned
 * subtree of whole leaves that starts at `end` and fits: 16 << *level
 * elements. */
size_t sb__partial_next_piece(uint64_t end, size_t left, unsigned *level);

/* The checks of sb_partial_add_host() (dot: sb_partial_add_dot_host())
 * for appending n elements to p: its reduction in *plan (a dot product's
 * plan for dot terms) and its end in *end. */
sb_status sb__partial_open(const sb_partial *p, size_t n, bool dot,
                           sb__plan *plan, uint64_t *end);

/* Appends an aligned subtree of 16 << level elements (dot terms if
 * `dot`) at p's end (which must be where sb__partial_next_piece() put
 * one), given its node and whether a checked step in it overflowed (then
 * its value is ignored). */
void sb__partial_push_subtree(sb_partial *p, sb__node node, bool overflow,
                              unsigned level, bool dot);

/* any / all: appends n elements whose truths are `any` and `all`. */
void sb__partial_add_truths(sb_partial *p, bool any, bool all, size_t n);

/* count: appends n elements of which `count` take part. */
void sb__partial_add_count(sb_partial *p, uint64_t count, size_t n);

#endif /* SB_PARTIAL_H */
