/* cmd_info.c: `samebits info`: the host path, then every OpenCL platform
 * and device with what matters for the contract (docs/order.md): OpenCL
 * version, fp64, subnormals, sub-groups, work-group limits, the launch
 * shape samebits uses, and per type the mode samebits computes it in
 * (native, guarded, software) or why it is refused. With no OpenCL platform it says so and
 * still succeeds: the host path needs none. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "samebits.h"

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: samebits info\n"
            "\n"
            "Lists the host path and every OpenCL platform and device: OpenCL\n"
            "version, fp64, f32/f64 subnormals, sub-groups, work-group limits,\n"
            "the launch shape samebits uses, and per type how samebits computes\n"
            "it exactly there: native (the hardware's IEEE arithmetic), guarded\n"
            "(the hardware flushes subnormals: exact integer code where one is\n"
            "involved) or software (f64 without fp64), or why it refuses it. A device's\n"
            "number N means that device everywhere: --device N of every\n"
            "command, SAMEBITS_DEVICE=N and sb_context_create_select(\"N\");\n"
            "so do P:D and a part of a name that names one device. It also\n"
            "says what SAMEBITS_THREADS and SAMEBITS_DEVICE select. Send this\n"
            "output with any `samebits check` report.\n"
            "Exit status: 0; 2 for a bad command line.\n");
}

static const char *subgroup_text(const sb_device_caps *c)
{
    switch (c->subgroup_backend) {
    case SB_SUBGROUP_BACKEND_KHR:
        return "shuffles (cl_khr_subgroup_shuffle_relative)";
    case SB_SUBGROUP_BACKEND_INTEL:
        return "shuffles (cl_intel_subgroups)";
    case SB_SUBGROUP_BACKEND_NVIDIA:
        return "shuffles (inline PTX shfl.sync)";
    default:
        return "none used (local memory)";
    }
}

static void print_size(const char *label, double bytes)
{
    static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    int u = 0;
    while (bytes >= 1024.0 && u < 4) {
        bytes /= 1024.0;
        u++;
    }
    printf("%s %.0f %s", label, bytes, units[u]);
}

static void print_device(const cli_device *d)
{
    printf("  device %u: %s   [--device %u or %u:%u, SAMEBITS_DEVICE=%u]\n",
           d->index, d->name, d->index, d->platform_index, d->device_index,
           d->index);
    sb_device_caps c;
    const sb_status s = sb_device_report(d->device, &c);
    if (s != SB_OK) {
        printf("    cannot be queried: %s\n", sb_status_string(s));
        return;
    }
    cl_device_type type = 0;
    char driver[128] = "";
    clGetDeviceInfo(d->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetDeviceInfo(d->device, CL_DRIVER_VERSION, sizeof driver - 1, driver,
                    NULL);
    printf("    %-20s %s%s%s%s\n", "type",
           (type & CL_DEVICE_TYPE_GPU) ? "GPU " : "",
           (type & CL_DEVICE_TYPE_CPU) ? "CPU " : "",
           (type & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator " : "",
           d->simulator ? "(a simulator: slow; `check` runs --quick on it "
                          "by default)" : "");
    printf("    %-20s %s; driver %s; vendor %s\n", "OpenCL", c.version,
           driver, c.vendor);
    printf("    %-20s %s\n", "fp64", c.fp64 ? "yes" : "no");
    printf("    %-20s f32 %s, f64 %s\n", "subnormals",
           c.f32_denormals ? "kept" : "FLUSHED",
           !c.fp64 ? "-" : c.f64_denormals ? "kept" : "FLUSHED");
    printf("    %-20s %s", "sub-groups", subgroup_text(&c));
    if (c.subgroup_size_count > 0) {
        printf(", sizes");
        for (unsigned i = 0; i < c.subgroup_size_count; i++)
            printf(" %u", c.subgroup_sizes[i]);
    }
    printf("\n");
    printf("    %-20s %zu;", "max work-group size", c.max_work_group_size);
    print_size(" local memory", (double)c.local_mem_size);
    print_size(", largest buffer", (double)c.max_alloc);
    printf("\n");
    printf("    %-20s work-groups of %zu items x %u leaves of 16 = %zu "
           "elements each\n", "launch shape", c.work_group_size,
           c.leaves_per_item, c.work_group_size * c.leaves_per_item * 16);
    /* Per type: exact natively, exact guarded or in software, or refused. */
    printf("    %-20s", "exact, native");
    int refused = 0;
    for (int t = SB_I8; t <= SB_F64; t++) {
        if (c.type_status[t] != SB_OK)
            refused++;
        else if (c.type_mode[t] == SB_MODE_NATIVE)
            printf(" %s", sb_type_name((sb_type)t));
    }
    printf("\n");
    for (int t = SB_I8; t <= SB_F64; t++)
        if (c.type_status[t] == SB_OK && c.type_mode[t] != SB_MODE_NATIVE) {
            char label[32];
            snprintf(label, sizeof label, "exact, %s",
                     cli_mode_name(c.type_mode[t]));
            printf("    %-20s %s: %s\n", label, sb_type_name((sb_type)t),
                   c.type_reason[t]);
        }
    if (refused == 0)
        printf("    %-20s none\n", "refused");
    for (int t = SB_I8; t <= SB_F64; t++)
        if (c.type_status[t] != SB_OK)
            printf("    %-20s %s: %s\n", "refused", sb_type_name((sb_type)t),
                   c.type_reason[t]);
}

int cmd_info(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            print_usage(stdout);
            return CLI_EXIT_OK;
        }
        cli_error("info", "unknown option '%s'", argv[i]);
        print_usage(stderr);
        return CLI_EXIT_USAGE;
    }

    char cpu[256];
    cli_cpu_model(cpu, sizeof cpu);
    printf("samebits %s (library %s)\n\n", SAMEBITS_VERSION_STRING,
           sb_version_string());
    /* What the library makes of SAMEBITS_THREADS, read by its parser. */
    const char *threads_env = getenv("SAMEBITS_THREADS");
    char threads_note[320] = "";
    unsigned parsed = 0;
    if (threads_env != NULL && *threads_env != '\0') {
        if (sb_threads_parse(threads_env, &parsed) == SB_OK)
            snprintf(threads_note, sizeof threads_note,
                     ", from SAMEBITS_THREADS=%s", threads_env);
        else
            snprintf(threads_note, sizeof threads_note,
                     "; SAMEBITS_THREADS is IGNORED: %s", sb_error_detail());
    }
    printf("host path: %s; %u threads (%u online CPUs%s); every type exact\n",
           cpu, sb_host_thread_count(NULL), cli_online_cpus(), threads_note);
    /* The instruction set, and what the library makes of SAMEBITS_ISA. */
    const unsigned isa = sb_host_isa(NULL);
    char runs[64] = "";
    for (unsigned k = SB_ISA_BASELINE; k <= SB_ISA_AVX512; k++)
        if (sb_host_isa_check(k) == SB_OK)
            snprintf(runs + strlen(runs), sizeof runs - strlen(runs), "%s%s",
                     *runs ? ", " : "", sb_isa_name(k));
    const char *isa_env = getenv("SAMEBITS_ISA");
    char isa_note[320] = "";
    unsigned asked = 0;
    if (isa_env != NULL && *isa_env != '\0') {
        if (sb_isa_parse(isa_env, &asked) != SB_OK)
            snprintf(isa_note, sizeof isa_note,
                     "; SAMEBITS_ISA is IGNORED: %s", sb_error_detail());
        else if (asked != SB_ISA_AUTO && sb_host_isa_check(asked) != SB_OK)
            snprintf(isa_note, sizeof isa_note,
                     "; SAMEBITS_ISA is IGNORED: %s", sb_error_detail());
        else if (asked != SB_ISA_AUTO)
            snprintf(isa_note, sizeof isa_note, ", from SAMEBITS_ISA=%s",
                     isa_env);
    }
    printf("           instruction set %s (this CPU runs %s%s)\n\n",
           sb_isa_name(isa), runs, isa_note);

    cli_device_list list;
    cli_devices_load(&list);
    if (list.platform_count == 0) {
        printf("OpenCL: ");
        cli_print_no_platform(stdout, &list);
        cli_devices_free(&list);
        return CLI_EXIT_OK;
    }
    printf("OpenCL: %u platform%s, %zu device%s\n", list.platform_count,
           list.platform_count == 1 ? "" : "s", list.count,
           list.count == 1 ? "" : "s");
    /* The default device of sb_context_create_default(), as the library
     * chooses it. */
    const char *sel = getenv("SAMEBITS_DEVICE");
    sb_device_entry chosen;
    if (sb_device_select(sel, &chosen) == SB_OK)
        printf("default device (sb_context_create_default): device %u%s%s\n",
               chosen.index, sel && *sel ? ", from SAMEBITS_DEVICE=" : "",
               sel && *sel ? sel : "");
    else
        printf("default device (sb_context_create_default): NONE: "
               "SAMEBITS_DEVICE=%s: %s\n", sel ? sel : "", sb_error_detail());
    unsigned shown = ~0u;
    for (size_t i = 0; i < list.count; i++) {
        const cli_device *d = &list.devices[i];
        if (d->platform_index != shown) {
            shown = d->platform_index;
            printf("\nplatform %u: %s; %s; %s\n", d->platform_index,
                   d->platform_name, d->platform_vendor, d->platform_version);
        }
        print_device(d);
    }
    cli_devices_free(&list);
    return CLI_EXIT_OK;
}
