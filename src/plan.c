/* plan.c: argument checking shared by every path. A reduction is checked
 * once here and then described by an sb__plan, so the host path and the
 * device path refuse exactly the same requests, with the same detail. */
#include <stdio.h>
#include <string.h>
#include "plan.h"

size_t sb_type_size(sb_type t)
{
    switch (t) {
#define SB_TYPE_SIZE_CASE_(e, tag, ctype, f, s, cl) case e: return sizeof(ctype);
    SB_ALL_TYPE_LIST(SB_TYPE_SIZE_CASE_)
#undef SB_TYPE_SIZE_CASE_
    case SB_SAME_AS_INPUT:
        break;
    }
    return 0;
}

bool sb__type_valid(sb_type t) { return sb_type_size(t) != 0; }

bool sb__type_is_float(sb_type t)
{
    return t == SB_F32 || t == SB_F64 || sb__type_is_half(t);
}

bool sb__type_is_half(sb_type t) { return t == SB_F16 || t == SB_BF16; }

bool sb__type_is_signed(sb_type t)
{
    switch (t) {
#define SB_TYPE_SIGNED_CASE_(e, tag, ctype, f, s, cl) case e: return s;
    SB_ALL_TYPE_LIST(SB_TYPE_SIGNED_CASE_)
#undef SB_TYPE_SIGNED_CASE_
    case SB_SAME_AS_INPUT:
        break;
    }
    return false;
}

const char *sb__type_cl_name(sb_type t)
{
    switch (t) {
#define SB_TYPE_CL_CASE_(e, tag, ctype, f, s, cl) case e: return #cl;
    SB_ALL_TYPE_LIST(SB_TYPE_CL_CASE_)
#undef SB_TYPE_CL_CASE_
    case SB_SAME_AS_INPUT:
        break;
    }
    return "?";
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
    SB_HALF_WIDENING_LIST(SB_PAIR_TEST_)
#undef SB_PAIR_TEST_
    return false;
}

/* "f32, f64": the accumulators `input` may use, for the detail. */
static void allowed_accumulators(sb_type input, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int a = SB_I8; a <= SB_LAST_TYPE; a++)
        if (sb__pair_allowed(input, (sb_type)a) && used + 8 < size)
            used += (size_t)snprintf(buf + used, size - used, "%s%s",
                                     used ? ", " : "", sb_type_name((sb_type)a));
}

sb_status sb__plan_make(sb_reduction r, sb__plan *plan)
{
    SB_FAIL_IF(plan == NULL, SB_INVALID_ARGUMENT, "internal: plan is NULL");
    SB_FAIL_IF(r.op < SB_SUM || r.op > SB_COUNT, SB_INVALID_ARGUMENT,
               "r.op = %d is not an sb_op (SB_SUM ... SB_COUNT)", (int)r.op);
    SB_FAIL_IF(!sb__type_valid(r.input), SB_INVALID_ARGUMENT,
               "r.input = %d is not an element type (SB_I8 ... SB_BF16)",
               (int)r.input);
    SB_FAIL_IF((r.flags & ~(SB_WRAP | SB_SKIP_NAN)) != 0,
               SB_INVALID_ARGUMENT,
               "r.flags = 0x%x has bits that are not flags (SB_WRAP = 0x%x, "
               "SB_SKIP_NAN = 0x%x)", r.flags, SB_WRAP, SB_SKIP_NAN);
    SB_FAIL_IF(r.map != SB_MAP_NONE && r.map != SB_MAP_ABS &&
               r.map != SB_MAP_SQUARE, SB_INVALID_ARGUMENT,
               "r.map = %d is not an sb_map (SB_MAP_NONE, SB_MAP_ABS, "
               "SB_MAP_SQUARE)", (int)r.map);
    SB_FAIL_IF((r.flags & SB_SKIP_NAN) && !sb__type_is_float(r.input),
               SB_INVALID_ARGUMENT,
               "SB_SKIP_NAN is for float inputs; %s has no NaN",
               sb_type_name(r.input));

    /* any, all and count read the input as it is: no accumulator. */
    const bool boolean = r.op == SB_ANY || r.op == SB_ALL ||
                         r.op == SB_COUNT;
    const sb_type acc = r.accumulator == SB_SAME_AS_INPUT ? r.input
                                                          : r.accumulator;
    if (boolean) {
        SB_FAIL_IF(r.map != SB_MAP_NONE, SB_INVALID_ARGUMENT,
                   "%s takes no map: r.map must be SB_MAP_NONE, not %s",
                   sb_op_name(r.op), sb_map_name(r.map));
        SB_FAIL_IF(acc != r.input, SB_INVALID_ARGUMENT,
                   "%s takes no accumulator: r.accumulator must be "
                   "SB_SAME_AS_INPUT (0) or the input type %s, not %s",
                   sb_op_name(r.op), sb_type_name(r.input),
                   sb__type_valid(acc) ? sb_type_name(acc) : "an unknown type");
        /* Harmless on integers (nothing wraps), refused on floats as
         * everywhere: samebits.h, SB_WRAP. */
        SB_FAIL_IF((r.flags & SB_WRAP) && sb__type_is_float(acc),
                   SB_INVALID_ARGUMENT,
                   "SB_WRAP is for integer types; %s of %s has none",
                   sb_op_name(r.op), sb_type_name(r.input));
    } else {
        SB_FAIL_IF(!sb__type_valid(acc), SB_INVALID_ARGUMENT,
                   "r.accumulator = %d is not a type (SB_SAME_AS_INPUT or "
                   "SB_I8 ... SB_BF16)", (int)r.accumulator);
        if (!sb__pair_allowed(r.input, acc)) {
            char allowed[96];
            allowed_accumulators(r.input, allowed, sizeof allowed);
            return sb__fail(SB_INVALID_ARGUMENT,
                            "%s -> %s is not an exact widening: %s input "
                            "may use %s", sb_type_name(r.input),
                            sb_type_name(acc), sb_type_name(r.input), allowed);
        }
        SB_FAIL_IF((r.flags & SB_WRAP) && sb__type_is_float(acc),
                   SB_INVALID_ARGUMENT,
                   "SB_WRAP is for integer accumulators; the accumulator "
                   "is %s", sb_type_name(acc));
    }
    const bool arith = r.op == SB_SUM || r.op == SB_PROD;

    plan->op = r.op;
    plan->input = r.input;
    plan->acc = acc;
    plan->wrap = arith && (r.flags & SB_WRAP) != 0;
    plan->map = r.map;
    plan->skip_nan = (r.flags & SB_SKIP_NAN) != 0;
    plan->dot = false;
    /* An integer map can overflow whatever the op: abs(INT32_MIN). */
    const bool int_map = r.map != SB_MAP_NONE && !sb__type_is_float(acc);
    plan->wrap = (arith || int_map) && (r.flags & SB_WRAP) != 0;
    plan->checked = (arith || int_map) && !plan->wrap &&
                    !sb__type_is_float(acc);
    /* Half elements are never read as they are: the fold reads floats. */
    plan->prepared = acc != r.input || r.map != SB_MAP_NONE ||
                     plan->skip_nan || sb__type_is_half(r.input);
    plan->input_size = sb_type_size(r.input);
    plan->fold_size = sb__type_is_half(acc) ? sizeof(float)
                                            : sb_type_size(acc);
    plan->arg = r.op == SB_ARGMIN || r.op == SB_ARGMAX;
    plan->result_size = r.op == SB_COUNT ? sizeof(uint64_t)
                      : plan->arg ? sizeof(sb_arg_result)
                      : boolean ? 1 : sb_type_size(acc);
    return SB_OK;
}

sb_status sb__plan_make_dot(sb_reduction r, sb__plan *plan)
{
    SB_FAIL_IF(r.op != SB_SUM, SB_INVALID_ARGUMENT,
               "a dot product is a sum: r.op must be SB_SUM, not %s",
               sb_op_name(r.op));
    SB_FAIL_IF(r.map != SB_MAP_NONE, SB_INVALID_ARGUMENT,
               "a dot product takes no map: r.map must be SB_MAP_NONE, "
               "not %s", sb_map_name(r.map));
    const sb_status s = sb__plan_make(r, plan);
    SB_RETURN_IF(s != SB_OK, s);
    plan->dot = true;
    plan->prepared = true;
    return SB_OK;
}

sb_reduction sb__plan_reduction(const sb__plan *plan)
{
    const sb_reduction r = {
        .op = plan->op, .input = plan->input, .accumulator = plan->acc,
        .flags = (plan->wrap ? SB_WRAP : 0u) |
                 (plan->skip_nan ? SB_SKIP_NAN : 0u),
        .map = plan->map,
    };
    return r;
}

const char *sb_map_name(sb_map map)
{
    switch (map) {
    case SB_MAP_NONE:   return "none";
    case SB_MAP_ABS:    return "abs";
    case SB_MAP_SQUARE: return "square";
    }
    return "?";
}

sb_status sb_reduction_check(sb_reduction r)
{
    sb__detail_clear();
    sb__plan plan;
    return sb__plan_make(r, &plan);
}

size_t sb_result_size(sb_reduction r)
{
    sb__detail_clear();
    sb__plan plan = { .result_size = 0 };
    return sb__plan_make(r, &plan) == SB_OK ? plan.result_size : 0;
}
