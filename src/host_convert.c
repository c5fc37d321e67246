/* host_convert.c: the exact input-to-accumulator conversions of docs/order.md
 * (SB_WIDENING_LIST), one tight loop per allowed pair. Every conversion in
 * the list is exact, so a plain C conversion is the specified one. */
#include "host_engine.h"

#define SB_CONVERT_FN_(in, ac)                                              \
static void convert_##in##_##ac(const void *src, void *dst, size_t count)   \
{                                                                           \
    const sb__ctype_##in *s = src;                                          \
    sb__ctype_##ac *d = dst;                                                \
    for (size_t i = 0; i < count; i++)                                      \
        d[i] = (sb__ctype_##ac)s[i];                                        \
}
SB_WIDENING_LIST(SB_CONVERT_FN_)
#undef SB_CONVERT_FN_

void sb__convert(sb_type input, sb_type acc, const void *in, void *out,
                 size_t count)
{
#define SB_CONVERT_CASE_(in, ac)                                            \
    if (input == (sb_type)SB__T_##in && acc == (sb_type)SB__T_##ac) {                         \
        convert_##in##_##ac(in_, out, count);                               \
        return;                                                             \
    }
    const void *in_ = in;
    SB_WIDENING_LIST(SB_CONVERT_CASE_)
#undef SB_CONVERT_CASE_
}
