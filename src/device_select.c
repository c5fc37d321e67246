/* device_select.c: the devices samebits numbers, and the one grammar that
 * names one of them ("N", "P:D", a part of a name; NULL for the automatic
 * choice), shared by sb_device_select(), sb_context_create_select(),
 * SAMEBITS_DEVICE and the samebits command's --device. One parser, so a
 * number or a name means the same device everywhere. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CL/cl_ext.h>   /* CL_PLATFORM_NOT_FOUND_KHR */
#include "device.h"

/* ---- the list ----------------------------------------------------------- */

int sb__contains_nocase(const char *hay, const char *needle)
{
    const size_t n = strlen(needle);
    if (n == 0)
        return 0;
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i]
               && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

int sb__is_simulator_name(const char *device_name)
{
    return sb__contains_nocase(device_name, "oclgrind");
}

int sb__simulator_checks_uninitialized(const char *device_name)
{
    const char *on = getenv("OCLGRIND_UNINITIALIZED");
    return sb__is_simulator_name(device_name) && on != NULL
           && strcmp(on, "1") == 0;
}

static void device_name(cl_device_id d, char *buf, size_t size)
{
    buf[0] = '\0';
    if (SB_CL(clGetDeviceInfo)(d, CL_DEVICE_NAME, size - 1, buf, NULL)
        != CL_SUCCESS)
        buf[0] = '\0';
    buf[size - 1] = '\0';
}

static void platform_text(cl_platform_id p, cl_platform_info what, char *buf,
                          size_t size)
{
    buf[0] = '\0';
    if (SB_CL(clGetPlatformInfo)(p, what, size - 1, buf, NULL) != CL_SUCCESS)
        buf[0] = '\0';
    buf[size - 1] = '\0';
}

/* Every device, in samebits' numbering, into a new array (free()). A
 * platform whose devices cannot be listed (rusticl with no driver enabled
 * answers CL_DEVICE_NOT_FOUND) has none. */
static sb_status list_all(sb_device_entry **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    cl_uint np = 0;
    cl_int err = SB_CL(clGetPlatformIDs)(0, NULL, &np);
    if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && np == 0))
        return SB_OK;
    SB_RETURN_IF(err != CL_SUCCESS, sb__cl_fail(NULL, err, "clGetPlatformIDs"));
    cl_platform_id *platforms = sb__mem.malloc(np * sizeof *platforms);
    SB_FAIL_IF(platforms == NULL, SB_OUT_OF_MEMORY,
               "cannot allocate the list of %u platforms", np);
    /* The second call may find more than the first counted: keep the
     * first count, the room there is. */
    cl_uint got = 0;
    err = SB_CL(clGetPlatformIDs)(np, platforms, &got);
    if (err != CL_SUCCESS) {
        free(platforms);
        return sb__cl_fail(NULL, err, "clGetPlatformIDs");
    }
    np = got < np ? got : np;
    sb_device_entry *list = NULL;
    size_t used = 0;
    sb_status s = SB_OK;
    for (cl_uint pi = 0; pi < np && s == SB_OK; pi++) {
        /* A platform with no device says CL_DEVICE_NOT_FOUND (rusticl with
         * no driver enabled, Clover without a GPU). Any other failure is
         * an error, not an empty platform: skipping it would renumber
         * every later device, and N must mean one device everywhere. */
        cl_uint nd = 0;
        err = SB_CL(clGetDeviceIDs)(platforms[pi], CL_DEVICE_TYPE_ALL, 0, NULL,
                                    &nd);
        if (err == CL_DEVICE_NOT_FOUND || (err == CL_SUCCESS && nd == 0))
            continue;
        if (err != CL_SUCCESS) {
            s = sb__cl_fail(NULL, err, "clGetDeviceIDs");
            break;
        }
        cl_device_id *ids = sb__mem.malloc(nd * sizeof *ids);
        sb_device_entry *grown = ids ? sb__mem.realloc(list, (used + nd)
                                                             * sizeof *list)
                                     : NULL;
        if (grown == NULL) {
            free(ids);
            s = sb__fail(SB_OUT_OF_MEMORY, "cannot allocate the device list");
            break;
        }
        list = grown;
        got = 0;
        err = SB_CL(clGetDeviceIDs)(platforms[pi], CL_DEVICE_TYPE_ALL, nd, ids,
                                    &got);
        if (err != CL_SUCCESS) {
            free(ids);
            s = sb__cl_fail(NULL, err, "clGetDeviceIDs");
            break;
        }
        nd = got < nd ? got : nd;
        for (cl_uint di = 0; di < nd; di++) {
            char name[256];
            device_name(ids[di], name, sizeof name);
            list[used] = (sb_device_entry){
                .index = (unsigned)used, .platform_index = pi,
                .device_index = di, .platform = platforms[pi],
                .device = ids[di],
                .is_simulator = sb__is_simulator_name(name),
            };
            used++;
        }
        free(ids);
    }
    free(platforms);
    if (s != SB_OK) {
        free(list);
        return s;
    }
    *out = list;
    *count = used;
    return SB_OK;
}

sb_status sb_device_list(sb_device_entry *entries, size_t capacity,
                         size_t *count)
{
    sb__detail_clear();
    SB_FAIL_IF(count == NULL, SB_INVALID_ARGUMENT, "count is NULL");
    SB_FAIL_IF(entries == NULL && capacity > 0, SB_INVALID_ARGUMENT,
               "entries is NULL while capacity = %zu", capacity);
    sb_device_entry *all;
    size_t n;
    const sb_status s = list_all(&all, &n);
    SB_RETURN_IF(s != SB_OK, s);
    for (size_t i = 0; i < n && i < capacity; i++)
        entries[i] = all[i];
    *count = n;
    free(all);
    return SB_OK;
}

/* ---- choosing one -------------------------------------------------------- */

/* Appends " N name (platform)" for each device to `buf`, for a detail
 * that lists what there is to choose from. */
static void describe(const sb_device_entry *all, size_t n, const int *pick,
                     char *buf, size_t size)
{
    size_t used = strlen(buf);
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        if (pick != NULL && !pick[i])
            continue;
        char name[128], platform[128], item[300];
        device_name(all[i].device, name, sizeof name);
        platform_text(all[i].platform, CL_PLATFORM_NAME, platform,
                      sizeof platform);
        snprintf(item, sizeof item, "%s%zu %s (%s)", first ? "" : ", ", i,
                 name, platform);
        first = 0;
        if (used + strlen(item) + 4 >= size) {   /* no room: say so */
            snprintf(buf + used, size - used, "...");
            return;
        }
        memcpy(buf + used, item, strlen(item) + 1);
        used += strlen(item);
    }
}

static int all_digits(const char *s, size_t len)
{
    if (len == 0)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

/* "123" within [0, limit) into *out; 0 if not (however many digits). */
static int parse_index(const char *s, size_t len, size_t limit, size_t *out)
{
    size_t v = 0;
    for (size_t i = 0; i < len; i++) {
        const size_t digit = (size_t)(s[i] - '0');
        if (v > (limit - digit) / 10)   /* v * 10 + digit >= limit */
            return 0;
        v = v * 10 + digit;
    }
    if (v >= limit)
        return 0;
    *out = v;
    return 1;
}

/* Rank of the automatic choice: GPU 0, CPU 1, other 2, simulator 3. */
static int auto_rank(const sb_device_entry *e)
{
    if (e->is_simulator)
        return 3;
    cl_device_type type = 0;
    SB_CL(clGetDeviceInfo)(e->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    return (type & CL_DEVICE_TYPE_GPU) ? 0 : (type & CL_DEVICE_TYPE_CPU) ? 1 : 2;
}

static int names(const sb_device_entry *e, const char *sel)
{
    char text[256];
    device_name(e->device, text, sizeof text);
    if (sb__contains_nocase(text, sel))
        return 1;
    static const cl_platform_info fields[] = {
        CL_PLATFORM_NAME, CL_PLATFORM_VENDOR, CL_PLATFORM_VERSION
    };
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
        platform_text(e->platform, fields[k], text, sizeof text);
        if (sb__contains_nocase(text, sel))
            return 1;
    }
    return 0;
}

/* The device `sel` names among `all`; `label` ("SAMEBITS_DEVICE=" or "")
 * starts the detail of a failure. */
static sb_status choose(const char *label, const char *sel,
                        const sb_device_entry *all, size_t n,
                        sb_device_entry *out)
{
    char detail[1000];
    const int automatic = sel == NULL || *sel == '\0';
    if (n == 0 && automatic)
        return sb__fail(SB_UNSUPPORTED, "there is no OpenCL device here (no "
                        "platform, or platforms without devices)");
    if (n == 0)
        return sb__fail(SB_UNSUPPORTED, "%s'%s': there is no OpenCL device "
                        "here (no platform, or platforms without devices)",
                        label, sel);
    if (automatic) {
        size_t best = 0;
        for (size_t i = 1; i < n; i++)
            if (auto_rank(&all[i]) < auto_rank(&all[best]))
                best = i;
        *out = all[best];
        return SB_OK;
    }
    /* The samebits command's --device adds "host", "all" and "devices";
     * here they name no device, and saying so beats "matches no device". */
    if (strcmp(sel, "host") == 0)
        return sb__fail(SB_UNSUPPORTED, "%s'host' is not a device: the host "
                        "path needs no context (sb_reduce_host())", label);
    const size_t len = strlen(sel);
    const char *colon = strchr(sel, ':');
    if (all_digits(sel, len)) {
        size_t i;
        if (parse_index(sel, len, n, &i)) {
            *out = all[i];
            return SB_OK;
        }
        snprintf(detail, sizeof detail, "%s'%s': there %s %zu device%s, "
                 "numbered 0..%zu: ", label, sel, n == 1 ? "is" : "are", n,
                 n == 1 ? "" : "s", n - 1);
        describe(all, n, NULL, detail, sizeof detail);
        return sb__fail(SB_UNSUPPORTED, "%s", detail);
    }
    if (colon != NULL && all_digits(sel, (size_t)(colon - sel))
        && all_digits(colon + 1, strlen(colon + 1))) {
        size_t p, d;
        if (parse_index(sel, (size_t)(colon - sel), (size_t)-1 / 2, &p)
            && parse_index(colon + 1, strlen(colon + 1), (size_t)-1 / 2, &d))
            for (size_t i = 0; i < n; i++)
                if (all[i].platform_index == p && all[i].device_index == d) {
                    *out = all[i];
                    return SB_OK;
                }
        snprintf(detail, sizeof detail, "%s'%s': no device D of platform P "
                 "has these numbers; the devices are: ", label, sel);
        describe(all, n, NULL, detail, sizeof detail);
        return sb__fail(SB_UNSUPPORTED, "%s", detail);
    }
    int *pick = sb__mem.calloc(n, sizeof *pick);
    SB_FAIL_IF(pick == NULL, SB_OUT_OF_MEMORY, "cannot allocate %zu flags", n);
    size_t matches = 0, last = 0;
    for (size_t i = 0; i < n; i++)
        if ((pick[i] = names(&all[i], sel)) != 0) {
            matches++;
            last = i;
        }
    if (matches == 1) {
        free(pick);
        *out = all[last];
        return SB_OK;
    }
    if (matches == 0)
        snprintf(detail, sizeof detail, "%s'%s' matches no device; the "
                 "devices are: ", label, sel);
    else
        snprintf(detail, sizeof detail, "%s'%s' matches %zu devices (give "
                 "the number of one, or more of its name): ", label, sel,
                 matches);
    describe(all, n, matches ? pick : NULL, detail, sizeof detail);
    free(pick);
    return sb__fail(SB_UNSUPPORTED, "%s", detail);
}

static sb_status select_device(const char *label, const char *sel,
                               sb_device_entry *out)
{
    sb_device_entry *all;
    size_t n;
    sb_status s = list_all(&all, &n);
    SB_RETURN_IF(s != SB_OK, s);
    s = choose(label, sel, all, n, out);
    free(all);
    return s;
}

sb_status sb_device_select(const char *selector, sb_device_entry *out)
{
    sb__detail_clear();
    SB_FAIL_IF(out == NULL, SB_INVALID_ARGUMENT, "out is NULL");
    return select_device("", selector, out);
}

/* ---- contexts on a chosen device ------------------------------------------ */

static sb_status create_on(const char *label, const char *sel,
                           const sb_options *opts, sb_context **out)
{
    SB_FAIL_IF(out == NULL, SB_INVALID_ARGUMENT, "out is NULL");
    sb_device_entry e;
    sb_status s = select_device(label, sel, &e);
    SB_RETURN_IF(s != SB_OK, s);
    const cl_context_properties props[] = {
        CL_CONTEXT_PLATFORM, (cl_context_properties)e.platform, 0
    };
    cl_int err = CL_SUCCESS;
    cl_context cl_ctx = SB_CL(clCreateContext)(props, 1, &e.device, NULL,
                                               NULL, &err);
    SB_RETURN_IF(cl_ctx == NULL, sb__cl_fail(NULL, err, "clCreateContext"));
    s = sb_context_create(cl_ctx, e.device, opts, out);
    SB_CL(clReleaseContext)(cl_ctx);   /* the sb_context holds its own reference */
    return s;
}

sb_status sb_context_create_select(const char *selector,
                                   const sb_options *opts, sb_context **out)
{
    sb__detail_clear();
    return create_on("", selector, opts, out);
}

sb_status sb_context_create_default(const sb_options *opts, sb_context **out)
{
    sb__detail_clear();
    return create_on("SAMEBITS_DEVICE=", getenv("SAMEBITS_DEVICE"), opts, out);
}
