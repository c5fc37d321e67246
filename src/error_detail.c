/* error_detail.c: sb_error_detail(), one sentence per thread (see
 * error_detail.h). Thread-local storage keeps threads from reading each
 * other's failures without a lock. */
#include <stdarg.h>
#include <stdio.h>
#include "error_detail.h"

enum { SB_DETAIL_MAX = 1024 };

static _Thread_local char detail[SB_DETAIL_MAX];

void sb__detail_clear(void)
{
    detail[0] = '\0';
}

int sb__detail_is_set(void)
{
    return detail[0] != '\0';
}

sb_status sb__fail(sb_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return status;
}

const char *sb_error_detail(void)
{
    return detail;
}
