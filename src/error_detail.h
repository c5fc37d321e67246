/* error_detail.h: the sentence behind sb_error_detail(). Each public entry
 * point clears it first; a failure sets it where the failure is known, so
 * the sentence names the argument or the condition. One per thread. */
#ifndef SB_ERROR_DETAIL_H
#define SB_ERROR_DETAIL_H

#include "samebits.h"

#if defined(__GNUC__)
#  define SB_PRINTF_(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#  define SB_PRINTF_(fmt, args)
#endif

/* Empties the calling thread's detail: the first line of every public
 * function that returns a status. */
void sb__detail_clear(void);

/* Sets the detail to the formatted sentence and returns `status`, so that
 * a failure is one line: return sb__fail(SB_INVALID_ARGUMENT, "x is NULL"). */
sb_status sb__fail(sb_status status, const char *fmt, ...) SB_PRINTF_(2, 3);

/* Whether a detail is set (a deeper call may have said more already). */
int sb__detail_is_set(void);

/* `return sb__fail(...)` when `cond` holds. */
#define SB_FAIL_IF(cond, status, ...) \
    do { if (cond) return sb__fail((status), __VA_ARGS__); } while (0)

#endif /* SB_ERROR_DETAIL_H */
