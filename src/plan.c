/* plan.c: argument checking shared by every path. A reduction is checked
 * once here and then described by an sb__plan, so the host path and the
 * device path refuse exactly the same requests. */
#include "sb_internal.h"

size_t sb_type_size(sb_type t)
{
    switch (t) {
#define SB_TYPE_SIZE_CASE_(e, tag, ctype, f, s) case e: return sizeof(ctype);
    SB_TYPE_LIST(SB_TYPE_SIZE_CASE_)
#undef SB_TYPE_SIZE_CASE_
    }
    return 0;
}

bool sb__type_valid(sb_type t) { return sb_type_size(t) != 0; }

bool sb__type_is_float(sb_type t) { return t == SB_F32 || t == SB_F64; }

bool sb__type_is_signed(sb_type t)
{
    switch (t) {
#define SB_TYPE_SIGNED_CASE_(e, tag, ctype, f, s) case e: return s;
    SB_TYPE_LIST(SB_TYPE_SIGNED_CASE_)
#undef SB_TYPE_SIGNED_CASE_
    }
    return false;
}
bool sb__pair_allowed(sb_type input, sb_type acc)
{
    if (!sb__type_valid(input) || !sb__type_valid(acc))
        return false;
    if (input == acc)
        return true;
#define SB_PAIR_TEST_(in, ac) \
    if (input == (sb_type)SB__T_##in && acc == (sb_type)SB__T_##ac) return true;
    SB_WIDENING_LIST(SB_PAIR_TEST_)
#undef SB_PAIR_TEST_
    return false;
}

sb_status sb__plan_make(sb_reduction r, sb__plan *plan)
{
    SB_RETURN_IF(plan == NULL, SB_INVALID_ARGUMENT);
    SB_RETURN_IF(r.op < SB_SUM || r.op > SB_ALL, SB_INVALID_ARGUMENT);
    SB_RETURN_IF(!sb__type_valid(r.input), SB_INVALID_ARGUMENT);
    SB_RETURN_IF((r.flags & ~SB_WRAP) != 0, SB_INVALID_ARGUMENT);

    const bool boolean = r.op == SB_ANY || r.op == SB_ALL;
    const sb_type acc = r.accumulator == 0 ? r.input : r.accumulator;
    if (boolean)
        SB_RETURN_IF(acc != r.input, SB_INVALID_ARGUMENT);
    else
        SB_RETURN_IF(!sb__pair_allowed(r.input, acc), SB_INVALID_ARGUMENT);
    const bool arith = r.op == SB_SUM || r.op == SB_PROD;
    SB_RETURN_IF((r.flags & SB_WRAP) && sb__type_is_float(acc),
                 SB_INVALID_ARGUMENT);

    plan->op = r.op;
    plan->input = r.input;
    plan->acc = acc;
    plan->wrap = arith && (r.flags & SB_WRAP) != 0;
    plan->checked = arith && !plan->wrap && !sb__type_is_float(acc);
    plan->input_size = sb_type_size(r.input);
    plan->result_size = boolean ? 1 : sb_type_size(acc);
    return SB_OK;
}

sb_status sb_reduction_check(sb_reduction r)
{
    sb__plan plan;
    return sb__plan_make(r, &plan);
}

size_t sb_result_size(sb_reduction r)
{
    sb__plan plan;
    return sb__plan_make(r, &plan) == SB_OK ? plan.result_size : 0;
}
