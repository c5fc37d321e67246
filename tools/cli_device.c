/* cli_device.c: the OpenCL devices the samebits command can run on: listing
 * them in one fixed order (the numbers of `samebits info` and of
 * --device N), choosing them from a --device list, and the message for a
 * machine without any OpenCL platform. See cli.h. */
#include "cli.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl_ext.h>   /* CL_PLATFORM_NOT_FOUND_KHR */

#define MAX_PLATFORMS 16
#define MAX_DEVICES_PER_PLATFORM 16

static int contains_nocase(const char *hay, const char *needle)
{
    const size_t n = strlen(needle);
    if (n == 0)
        return 0;
    for (; *hay != '\0'; hay++) {
        size_t i = 0;
        while (i < n && hay[i] != '\0'
               && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

/* "POCL 3.1" from "OpenCL 3.0 PoCL 3.1+debian  Linux, ...", "Oclgrind 21.10"
 * from "OpenCL 1.2 (Oclgrind 21.10)", else the platform's name. */
static void short_label(const cli_device *d, char *buf, size_t size)
{
    const char *v = d->platform_version;
    const char *p = strstr(v, "PoCL ");
    if (p != NULL) {
        const size_t len = strcspn(p + 5, " +");
        snprintf(buf, size, "POCL %.*s", (int)len, p + 5);
        return;
    }
    p = strstr(v, "Oclgrind ");
    if (p != NULL) {
        const size_t len = strcspn(p + 9, " )");
        snprintf(buf, size, "Oclgrind %.*s", (int)len, p + 9);
        return;
    }
    snprintf(buf, size, "%.*s", (int)(size - 1), d->platform_name);
}

void cli_devices_load(cli_device_list *list)
{
    memset(list, 0, sizeof *list);
    cl_platform_id platforms[MAX_PLATFORMS];
    cl_uint np = 0;
    list->error = clGetPlatformIDs(MAX_PLATFORMS, platforms, &np);
    if (list->error != CL_SUCCESS || np == 0) {
        if (list->error == CL_SUCCESS)
            list->error = CL_PLATFORM_NOT_FOUND_KHR;
        return;
    }
    if (np > MAX_PLATFORMS)
        np = MAX_PLATFORMS;
    list->platform_count = np;
    list->devices = calloc((size_t)np * MAX_DEVICES_PER_PLATFORM,
                           sizeof *list->devices);
    if (list->devices == NULL) {
        list->error = CL_OUT_OF_HOST_MEMORY;
        return;
    }
    for (cl_uint pi = 0; pi < np; pi++) {
        cl_device_id ids[MAX_DEVICES_PER_PLATFORM];
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[pi], CL_DEVICE_TYPE_ALL,
                           MAX_DEVICES_PER_PLATFORM, ids, &nd) != CL_SUCCESS)
            continue;                      /* a platform without devices */
        if (nd > MAX_DEVICES_PER_PLATFORM)
            nd = MAX_DEVICES_PER_PLATFORM;
        for (cl_uint di = 0; di < nd; di++) {
            cli_device *d = &list->devices[list->count];
            d->index = (unsigned)list->count;
            d->platform_index = pi;
            d->device_index = di;
            d->platform = platforms[pi];
            d->device = ids[di];
            clGetPlatformInfo(platforms[pi], CL_PLATFORM_NAME,
                              sizeof d->platform_name - 1, d->platform_name, NULL);
            clGetPlatformInfo(platforms[pi], CL_PLATFORM_VENDOR,
                              sizeof d->platform_vendor - 1, d->platform_vendor,
                              NULL);
            clGetPlatformInfo(platforms[pi], CL_PLATFORM_VERSION,
                              sizeof d->platform_version - 1,
                              d->platform_version, NULL);
            clGetDeviceInfo(ids[di], CL_DEVICE_NAME, sizeof d->name - 1,
                            d->name, NULL);
            d->simulator = contains_nocase(d->name, "oclgrind");
            short_label(d, d->label, sizeof d->label);
            list->count++;
        }
    }
}

void cli_devices_free(cli_device_list *list)
{
    free(list->devices);
    memset(list, 0, sizeof *list);
}

void cli_print_no_platform(FILE *out, const cli_device_list *list)
{
    fprintf(out,
            "No OpenCL platform found (clGetPlatformIDs: %s).\n"
            "samebits works on the host path only here; every command "
            "accepts --device host.\n"
            "To add a device, install its OpenCL driver (an ICD, listed in "
            "/etc/OpenCL/vendors):\n"
            "your GPU vendor's, or POCL for the CPU (Debian/Ubuntu: apt-get "
            "install pocl-opencl-icd).\n",
            cli_cl_error_name(list->error));
}

static void add_device(cli_selection *sel, const cli_device *d)
{
    for (size_t i = 0; i < sel->count; i++)
        if (sel->devices[i] == d)
            return;
    if (sel->count < CLI_MAX_DEVICES)
        sel->devices[sel->count++] = d;
}

void cli_select_devices(const cli_device_list *list, int simulators,
                        cli_selection *sel)
{
    for (size_t i = 0; i < list->count; i++)
        if (simulators || !list->devices[i].simulator)
            add_device(sel, &list->devices[i]);
}

/* Adds the devices one item names; returns how many it named. */
static size_t select_item(const char *item, const cli_device_list *list,
                          cli_selection *sel)
{
    if (strcmp(item, "host") == 0) {
        sel->host = 1;
        return 1;
    }
    if (strcmp(item, "all") == 0 || strcmp(item, "devices") == 0) {
        sel->host |= strcmp(item, "all") == 0;
        cli_select_devices(list, 1, sel);
        return 1;
    }
    unsigned long p, d;
    char tail;
    if (sscanf(item, "%lu:%lu%c", &p, &d, &tail) == 2) {
        for (size_t i = 0; i < list->count; i++)
            if (list->devices[i].platform_index == p
                    && list->devices[i].device_index == d) {
                add_device(sel, &list->devices[i]);
                return 1;
            }
        return 0;
    }
    if (cli_parse_uint(item, 0, ~0ul, &d) == 0) {
        if (d >= list->count)
            return 0;
        add_device(sel, &list->devices[d]);
        return 1;
    }
    size_t named = 0;
    for (size_t i = 0; i < list->count; i++) {
        const cli_device *dev = &list->devices[i];
        if (contains_nocase(dev->name, item)
                || contains_nocase(dev->platform_name, item)
                || contains_nocase(dev->platform_vendor, item)
                || contains_nocase(dev->platform_version, item)) {
            add_device(sel, dev);
            named++;
        }
    }
    return named;
}

int cli_select(const char *context, const char *spec,
               const cli_device_list *list, cli_selection *sel)
{
    char buf[512];
    if (strlen(spec) >= sizeof buf || spec[0] == '\0') {
        cli_error(context, "--device wants host, all, a device number, P:D "
                  "or a name");
        return -1;
    }
    strcpy(buf, spec);
    char *save = NULL;
    for (char *item = strtok_r(buf, ",", &save); item != NULL;
         item = strtok_r(NULL, ",", &save)) {
        if (select_item(item, list, sel) > 0)
            continue;
        if (list->count == 0)
            cli_error(context, "--device %s: there is no OpenCL device here "
                      "(%s); only --device host works", item,
                      cli_cl_error_name(list->error));
        else
            cli_error(context, "--device %s: no OpenCL device matches "
                      "(`samebits info` lists %zu: numbers 0..%zu, P:D, "
                      "or a part of a name)", item, list->count,
                      list->count - 1);
        return -1;
    }
    return 0;
}

int cli_select_or_all(const char *context, const char *spec, int simulators,
                      cli_device_list *list, cli_selection *sel)
{
    memset(sel, 0, sizeof *sel);
    cli_devices_load(list);
    if (spec == NULL) {
        cli_select_devices(list, simulators, sel);
        return 0;
    }
    if (cli_select(context, spec, list, sel) == 0)
        return 0;
    cli_devices_free(list);
    return -1;
}

void cli_device_title(const cli_device *d, char *buf, size_t size)
{
    snprintf(buf, size, "%s (%s)", d->name, d->label);
}

cl_context cli_cl_context(const cli_device *d, cl_int *err)
{
    const cl_context_properties props[] = {
        CL_CONTEXT_PLATFORM, (cl_context_properties)d->platform, 0
    };
    return clCreateContext(props, 1, &d->device, NULL, NULL, err);
}

const char *cli_cl_error_name(cl_int err)
{
    static char unknown[32];
    switch (err) {
#define NAME(e) case e: return #e;
    NAME(CL_SUCCESS) NAME(CL_DEVICE_NOT_FOUND) NAME(CL_DEVICE_NOT_AVAILABLE)
    NAME(CL_COMPILER_NOT_AVAILABLE) NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    NAME(CL_OUT_OF_RESOURCES) NAME(CL_OUT_OF_HOST_MEMORY)
    NAME(CL_BUILD_PROGRAM_FAILURE) NAME(CL_INVALID_VALUE)
    NAME(CL_INVALID_PLATFORM) NAME(CL_INVALID_DEVICE) NAME(CL_INVALID_CONTEXT)
    NAME(CL_INVALID_BUFFER_SIZE) NAME(CL_INVALID_WORK_GROUP_SIZE)
    NAME(CL_PLATFORM_NOT_FOUND_KHR)
#undef NAME
    default:
        snprintf(unknown, sizeof unknown, "OpenCL error %d", (int)err);
        return unknown;
    }
}
