/* cli_device.c: the OpenCL devices the samebits command can run on: the
 * library's list (sb_device_list(): the numbers of `samebits info`, of
 * --device N and of SAMEBITS_DEVICE are one numbering), choosing them from
 * a --device list (each item read by sb_device_select(), the one parser),
 * and the message for a machine without any OpenCL platform. See cli.h. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl_ext.h>   /* CL_PLATFORM_NOT_FOUND_KHR */

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
    /* The platform count and, with none, why: for the messages. The
     * numbering itself is the library's (sb_device_list()). */
    cl_uint np = 0;
    list->error = clGetPlatformIDs(0, NULL, &np);
    if (list->error != CL_SUCCESS || np == 0) {
        if (list->error == CL_SUCCESS)
            list->error = CL_PLATFORM_NOT_FOUND_KHR;
        return;
    }
    list->platform_count = np;
    size_t count = 0;
    if (sb_device_list(NULL, 0, &count) != SB_OK || count == 0)
        return;
    sb_device_entry *entries = calloc(count, sizeof *entries);
    list->devices = calloc(count, sizeof *list->devices);
    if (entries == NULL || list->devices == NULL
            || sb_device_list(entries, count, &count) != SB_OK) {
        free(entries);
        free(list->devices);
        list->devices = NULL;
        list->error = CL_OUT_OF_HOST_MEMORY;
        return;
    }
    for (size_t i = 0; i < count; i++) {
        cli_device *d = &list->devices[i];
        const sb_device_entry *e = &entries[i];
        d->index = e->index;
        d->platform_index = e->platform_index;
        d->device_index = e->device_index;
        d->platform = e->platform;
        d->device = e->device;
        d->simulator = e->is_simulator;
        clGetPlatformInfo(e->platform, CL_PLATFORM_NAME,
                          sizeof d->platform_name - 1, d->platform_name, NULL);
        clGetPlatformInfo(e->platform, CL_PLATFORM_VENDOR,
                          sizeof d->platform_vendor - 1, d->platform_vendor,
                          NULL);
        clGetPlatformInfo(e->platform, CL_PLATFORM_VERSION,
                          sizeof d->platform_version - 1, d->platform_version,
                          NULL);
        clGetDeviceInfo(e->device, CL_DEVICE_NAME, sizeof d->name - 1,
                        d->name, NULL);
        short_label(d, d->label, sizeof d->label);
    }
    list->count = count;
    free(entries);
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

/* Adds what one item names: "host", "all", "devices", or one device in
 * the library's grammar (sb_device_select(): N, P:D, a part of a name),
 * so that an item means here what it means in SAMEBITS_DEVICE. */
static int select_item(const char *context, const char *item,
                       const cli_device_list *list, cli_selection *sel)
{
    if (strcmp(item, "host") == 0) {
        sel->host = 1;
        return 0;
    }
    if (strcmp(item, "all") == 0 || strcmp(item, "devices") == 0) {
        sel->host |= strcmp(item, "all") == 0;
        cli_select_devices(list, 1, sel);
        return 0;
    }
    sb_device_entry e;
    if (sb_device_select(item, &e) != SB_OK) {
        cli_error(context, "--device %s: %s", item, sb_error_detail());
        return -1;
    }
    for (size_t i = 0; i < list->count; i++)
        if (list->devices[i].device == e.device) {
            add_device(sel, &list->devices[i]);
            return 0;
        }
    cli_error(context, "--device %s: device %u appeared after the list was "
              "made; run again", item, e.index);
    return -1;
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
         item = strtok_r(NULL, ",", &save))
        if (select_item(context, item, list, sel) != 0)
            return -1;
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
    return sb_cl_error_name(err);
}
