/* status.c: names and messages of statuses, types and operations, and
 * the library's version. */
#include "plan.h"

const char *sb_version_string(void)
{
    return SAMEBITS_VERSION_STRING;
}

unsigned sb_version_number(void)
{
    return SAMEBITS_VERSION_NUMBER;
}

const char *sb_status_string(sb_status s)
{
    switch (s) {
#define SB_STATUS_CASE_(name, value, text) case name: return text;
    SB_STATUS_LIST(SB_STATUS_CASE_)
#undef SB_STATUS_CASE_
    }
    return "unknown status";
}

const char *sb_type_name(sb_type t)
{
    switch (t) {
#define SB_TYPE_NAME_CASE_(e, tag, ctype, f, s, cl) case e: return #tag;
    SB_ALL_TYPE_LIST(SB_TYPE_NAME_CASE_)
#undef SB_TYPE_NAME_CASE_
    case SB_SAME_AS_INPUT:
        break;
    }
    return "?";
}

const char *sb_op_name(sb_op op)
{
    switch (op) {
    case SB_SUM:  return "sum";
    case SB_PROD: return "prod";
    case SB_MIN:  return "min";
    case SB_MAX:  return "max";
    case SB_ANY:  return "any";
    case SB_ALL:  return "all";
    case SB_ARGMIN: return "argmin";
    case SB_ARGMAX: return "argmax";
    case SB_COUNT:  return "count";
    }
    return "?";
}
