/* cmd_bench.c: `samebits bench`: what the fixed order costs, on the host
 * path and on each OpenCL device. This file holds the options, the usage
 * text and the report's overall flow: it opens the devices, prints the
 * setup, then runs the three parts, each in its own file (bench.h):
 *
 * 1. Throughput (bench_throughput.c): GB/s of input read by sum, min and
 *    prod over f32, f64 and i32 at n = 2^s elements, by the host path, a
 *    plain loop, a plain memory read and each device, and the ratios
 *    between them.
 * 2. Small calls (bench_latency.c): microseconds per call at n = 1, 1000,
 *    10^5, on the host path and through sb_reduce(), next to each
 *    device's floors.
 * 3. First call (bench_first_call.c): context creation, the first
 *    reduction (program build, kernel compilation) and the second, in a
 *    fresh child process, with a cold then a warm kernel cache.
 * 4. In pieces (bench_stream.c, --stream): one call against pieces through
 *    sb_partial, host and devices; the partial's size and a merge's cost.
 * 5. Maps and dot products (bench_maps.c, --maps): |x|, x*x and x.y sums,
 *    masked and NaN-skipping sums against the plain sum and the read.
 * 6. Many reductions in one call (bench_batched.c, --batched): row and
 *    column sums of a matrix against the read; 1000 short reductions
 *    against as many calls; segment sums (bench_segments.c).
 *
 * What more than one part needs (the devices, the data, the sinks) is in
 * bench_common.c.
 */
#define _XOPEN_SOURCE 700         /* strtok_r */

#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "samebits.h"

#define BENCH_MIN_LOG2       4
#define BENCH_MAX_LOG2       33
#define BENCH_MAX_SIZES      16
#define BENCH_DEFAULT_REPEAT 5

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: samebits bench [--device SEL] [--sizes S1,S2,...] [--repeat N]\n"
            "                      [--types T1,...] [--ops OP1,...] [--json]\n"
            "                      [--float-modes M1,...] [--isa I] [--prefetch B]\n"
            "                      [--no-latency]\n"
            "                      [--stream] [--maps] [--batched]\n"
            "\n"
            "1. GB/s of input read by sum, min and prod over f32, f64 and i32 at\n"
            "   n = 2^S elements (default sizes 20,24; S in %d..%d):\n"
            "     host-1thr   sb_reduce_host_opts, threads = 1\n"
            "     host-all    sb_reduce_host_opts, threads = 0 (every CPU, or\n"
            "                 SAMEBITS_THREADS)\n"
            "     plain-loop  for (i = 0; i < n; i++) s = s OP x[i];  in the type\n"
            "     read-1thr   the fastest memory read here, 1 thread: XOR of\n"
            "                 64-bit words, or of AVX2 / AVX-512 registers with\n"
            "                 or without prefetches 4 or 8 KiB ahead (+pf4k,\n"
            "                 +pf8k), the fastest on the buffer (column `read`)\n"
            "     read-all    the same on as many threads as host-all\n"
            "     devN        sb_reduce on device N, data in a cl_mem, computed\n"
            "                 on the device (SB_OPT_NO_HOST); result read back\n"
            "     devN-read   a plain read kernel on device N (XOR of words)\n"
            "   and the ratios host1/loop, host1/read1, hostall/readall, devN/devN-read and\n"
            "   devN/readall (the device against the host's memory read).\n"
            "2. Microseconds per f32 sum call at n = 1, 1000, 100000: host path,\n"
            "   sb_reduce with its defaults (small n on the host) and forced onto\n"
            "   the device; next to the floor of any such call on each device:\n"
            "   one command round trip (a blocking 4-byte clEnqueueReadBuffer)\n"
            "   and an empty kernel's launch + clFinish.\n"
            "3. The first call on each device (program build and kernel\n"
            "   compilation), in a child process with an empty kernel cache, then\n"
            "   with the cache it filled.\n"
            "Each figure is the best of N timed samples (default %d) after one\n"
            "warm-up. Progress goes to stderr.\n"
            "\n"
            "  --device SEL  host, or devices (number of `samebits info`, P:D, a\n"
            "                part of a name, all); default every device but\n"
            "                simulators. --device host measures the host only.\n"
            "  --types LIST  part 1 for these of f32,f64,i32,i64 (default\n"
            "                f32,f64,i32)\n"
            "  --float-modes LIST  each device in each of these float modes:\n"
            "                auto (default: what it needs), guarded (forced),\n"
            "                software (f64 forced), flushing (as a device that\n"
            "                really flushes subnormals); columns dev1, dev1g,\n"
            "                dev1s, dev1f, and their ratio to the first in the run\n"
            "  --ops LIST    part 1 for these of sum,min,prod (default all three)\n"
            "  --isa I       the host path's instruction set: auto (default:\n"
            "                SAMEBITS_ISA, else the widest this CPU runs), sse2,\n"
            "                avx2, avx512 (sb_host_options.isa in part 1;\n"
            "                sets SAMEBITS_ISA for the other parts)\n"
            "  --prefetch B  the host path prefetches B bytes ahead (0: none;\n"
            "                default SAMEBITS_PREFETCH, else measured: the\n"
            "                report's first and last lines say how): sets\n"
            "                SAMEBITS_PREFETCH for this run\n"
            "  --json        one JSON object per line: the setup, each\n"
            "                measurement, each ratio, each latency\n"
            "  --no-latency  skip parts 2 and 3\n"
            "  --stream      part 4: an f32 sum of 2^S elements (the largest of\n"
            "                --sizes) in one call and in pieces through sb_partial:\n"
            "                host pieces of 2^14..2^24, device pieces of 2^20..2^24\n"
            "                of one cl_mem; the partial's size and a merge's cost\n"
            "  --maps        part 5: sums of 2^S elements with SB_MAP_ABS,\n"
            "                SB_MAP_SQUARE, as a dot product, with a mask (6 in 7)\n"
            "                and with SB_SKIP_NAN, next to the plain sum and the\n"
            "                1-thread read, host and devices: f32, f64, f16 and\n"
            "                bf16 into f32, f16 and bf16 into themselves, f32 and\n"
            "                f16 into f64\n"
            "  --batched     part 6: f32 row and column sums of a matrix of\n"
            "                about 2^S elements, rows of 1000 and 1000 rows, by\n"
            "                sb_reduce_batched_host on 1 and every thread, next to\n"
            "                the 1-thread read; 1000 sums of 16 in one call against\n"
            "                one sb_reduce_host call of 16; by sb_reduce_batched on\n"
            "                each device, next to its read kernel on the same cl_mem\n"
            "\n"
            "Exit status: 0 measured; 2 a bad command line; 4 no such device, or\n"
            "a device failed (with --json, a last {\"kind\":\"error\"} record).\n",
            BENCH_MIN_LOG2, BENCH_MAX_LOG2, BENCH_DEFAULT_REPEAT);
}

/* ---- the setup ------------------------------------------------------------------- */

/* Where the host path's instruction set comes from, for the setup. */
static const char *isa_source(unsigned isa)
{
    if (isa != SB_ISA_AUTO)
        return "--isa";
    const char *env = getenv("SAMEBITS_ISA");
    const unsigned taken = sb_host_isa(NULL);
    unsigned parsed;
    if (env != NULL && *env != '\0')
        return sb_isa_parse(env, &parsed) == SB_OK && parsed == taken
             ? "SAMEBITS_ISA" : "the widest this CPU runs; SAMEBITS_ISA ignored";
    return "the widest this CPU runs";
}

static void print_json_setup(const char *cpu, unsigned threads, unsigned isa,
                             unsigned repeat, const bench_device *devs,
                             size_t dev_count)
{
    printf("{\"kind\":\"setup\",\"command\":");
    cli_json_string(stdout, cli_command_line());
    printf(",\"samebits_version\":\"%s\",\"cpu\":", SAMEBITS_VERSION_STRING);
    cli_json_string(stdout, cpu);
    printf(",\"online_cpus\":%u,\"threads_all\":%u,\"host_isa\":\"%s\","
           "\"host_isa_source\":\"%s\",\"host_prefetch\":%zu,\"repeat\":%u,"
           "\"warmup\":1,\"statistic\":\"best\",\"unit\":\"GB/s\",\"devices\":[",
           cli_online_cpus(), threads,
           sb_isa_name(sb_host_isa(&(sb_host_options){ .isa = isa })),
           isa_source(isa), sb_host_prefetch(), repeat);
    for (size_t i = 0; i < dev_count; i++) {
        char title[300];
        cli_device_title(devs[i].dev, title, sizeof title);
        printf("%s{\"method\":\"%s\",\"name\":", i ? "," : "",
               devs[i].label);
        cli_json_string(stdout, title);
        printf(",\"f32_mode\":\"%s\",\"f64_mode\":\"%s\"%s}",
               cli_mode_name(devs[i].caps.type_mode[SB_F32]),
               devs[i].caps.type_status[SB_F64] == SB_OK
               ? cli_mode_name(devs[i].caps.type_mode[SB_F64]) : "refused",
               devs[i].mode_flags ? ",\"flushing\":true" : "");
    }
    printf("]}\n");
}

static const char *prefetch_source_name(sb_prefetch_source source)
{
    switch (source) {
    case SB_PREFETCH_FROM_ENVIRONMENT: return "SAMEBITS_PREFETCH";
    case SB_PREFETCH_MEASURED:         return "measured";
    default:                           return "not measured yet";
    }
}

/* A report's candidate distances, each with the median rate it folded at
 * where it has one: " 0 -> 21.5 GB/s, 4096 -> 34.7 GB/s". */
static void print_candidates_text(const sb_prefetch_report *r)
{
    for (int k = 0; k < SB_PREFETCH_CANDIDATES; k++) {
        printf("%s %zu", k ? "," : "", r->candidates[k]);
        if (r->gb_per_s[k] > 0)
            printf(" -> %.1f GB/s", r->gb_per_s[k]);
    }
}

/* The same as the JSON member "candidates". */
static void print_candidates_json(const sb_prefetch_report *r)
{
    printf("\"candidates\":[");
    for (int k = 0; k < SB_PREFETCH_CANDIDATES; k++)
        printf("%s{\"bytes\":%zu,\"gb_per_s\":%.3f}", k ? "," : "",
               r->candidates[k], r->gb_per_s[k]);
    printf("]");
}

/* The rest of a report's line after "(": where its distance came from,
 * and unless SAMEBITS_PREFETCH set it, the candidates (`waiting` says
 * what times them while none is kept). */
static void print_report_text(const sb_prefetch_report *r,
                              const char *waiting)
{
    printf("%s", prefetch_source_name(r->source));
    if (r->source == SB_PREFETCH_NOT_YET)
        printf(": %s", waiting);
    else if (r->source == SB_PREFETCH_MEASURED)
        printf(":");
    if (r->source != SB_PREFETCH_FROM_ENVIRONMENT)
        print_candidates_text(r);
    printf(")\n");
}

/* Where the host path's prefetch distance stands (sb_host_prefetch_report):
 * set, measured (with what each candidate folded at), or still to be. */
static void print_prefetch_text(void)
{
    sb_prefetch_report r;
    sb_host_prefetch_report(&r);
    /* The library ignores anything but decimal digits. */
    const char *pf = getenv("SAMEBITS_PREFETCH");
    if (pf != NULL && *pf != '\0' && r.source != SB_PREFETCH_FROM_ENVIRONMENT)
        printf("SAMEBITS_PREFETCH ignored; ");
    printf("prefetch %zu bytes ahead (", r.bytes);
    print_report_text(&r, "the first float folds of 64 MiB or more time "
                          "each of");
}

static void print_prefetch_json(void)
{
    sb_prefetch_report r;
    sb_host_prefetch_report(&r);
    printf("{\"kind\":\"prefetch\",\"bytes\":%zu,\"source\":\"%s\",",
           r.bytes, prefetch_source_name(r.source));
    print_candidates_json(&r);
    printf("}\n");
}

/* The folds that measured their own prefetch distance in the runs
 * (sb_host_prefetch_folds), one line each. */
static void print_prefetch_folds_text(void)
{
    sb_prefetch_fold folds[SB_PREFETCH_FOLDS];
    const size_t n = sb_host_prefetch_folds(folds, SB_PREFETCH_FOLDS);
    if (n > 0)
        printf("folds that measured their own prefetch distance:\n");
    for (size_t i = 0; i < n; i++) {
        const sb_prefetch_report *r = &folds[i].report;
        printf("  %s: %zu bytes (", folds[i].fold, r->bytes);
        print_report_text(r, "timing each of");
    }
}

static void print_prefetch_folds_json(void)
{
    sb_prefetch_fold folds[SB_PREFETCH_FOLDS];
    const size_t n = sb_host_prefetch_folds(folds, SB_PREFETCH_FOLDS);
    for (size_t i = 0; i < n; i++) {
        const sb_prefetch_report *r = &folds[i].report;
        printf("{\"kind\":\"prefetch_fold\",\"fold\":\"%s\",\"bytes\":%zu,"
               "\"source\":\"%s\",", folds[i].fold, r->bytes,
               prefetch_source_name(r->source));
        print_candidates_json(r);
        printf("}\n");
    }
}

/* Lets the library measure its prefetch distance before anything is
 * timed (when SAMEBITS_PREFETCH leaves that to it): f32 sums of 2^25
 * elements on one thread (the default is the one-thread calls'), a few
 * at most, so that every row, on the host and on POCL
 * (whose launches take the distance in use), runs at the distance the
 * library keeps, as a program's later calls do. */
static int settle_prefetch(void)
{
    sb_prefetch_report r;
    sb_host_prefetch_report(&r);
    if (r.source != SB_PREFETCH_NOT_YET)
        return 0;
    const size_t n = (size_t)1 << 25;
    float *x = malloc(n * sizeof *x);
    if (x == NULL)
        return 0;                     /* the rows will measure it */
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(i % 1000) * 0.001f;
    const sb_reduction sum = { SB_SUM, SB_F32, 0, 0, 0 };
    const sb_host_options one_thread = { .threads = 1 };
    float total;
    for (int k = 0; k < 4 && r.source == SB_PREFETCH_NOT_YET; k++) {
        if (sb_reduce_host_opts(sum, x, NULL, n, &total, &one_thread) !=
            SB_OK)
            break;
        sb_host_prefetch_report(&r);
    }
    free(x);
    return r.source == SB_PREFETCH_MEASURED;
}

/* The text report's first lines: the command, the machine, the devices. */
static void print_text_setup(const char *cpu, unsigned threads, unsigned isa,
                             const bench_device *devs, size_t dev_count)
{
    printf("command: %s\n", cli_command_line());
    /* Credit SAMEBITS_THREADS only when the library takes it. */
    const char *env = getenv("SAMEBITS_THREADS");
    unsigned parsed = 0;
    const char *from = env == NULL || *env == '\0' ? ""
                     : sb_threads_parse(env, &parsed) == SB_OK
                     ? " (SAMEBITS_THREADS)" : " (SAMEBITS_THREADS ignored)";
    printf("cpu: %s; %u online CPUs; host-all = threads 0 = %u threads%s\n",
           cpu, cli_online_cpus(), threads, from);
    printf("host path: %s (%s); ",
           sb_isa_name(sb_host_isa(&(sb_host_options){ .isa = isa })),
           isa_source(isa));
    print_prefetch_text();
    for (size_t i = 0; i < dev_count; i++) {
        char title[300];
        cli_device_title(devs[i].dev, title, sizeof title);
        printf("%s: %s; launch shape %zu x %u leaves; f32 %s, f64 %s%s\n",
               devs[i].label, title, devs[i].caps.work_group_size,
               devs[i].caps.leaves_per_item,
               cli_mode_name(devs[i].caps.type_mode[SB_F32]),
               devs[i].caps.type_status[SB_F64] == SB_OK
               ? cli_mode_name(devs[i].caps.type_mode[SB_F64]) : "refused",
               devs[i].mode_flags ? " (a flushing device: -cl-denorms-are-zero)"
                                  : "");
    }
}

/* ---- the options ----------------------------------------------------------------- */

/* One item of a comma-separated option: its value, or -1 if invalid. */
typedef int (*parse_item_fn)(const char *item);

static int parse_log2_size(const char *item)
{
    unsigned long v;
    return cli_parse_uint(item, BENCH_MIN_LOG2, BENCH_MAX_LOG2, &v) == 0
         ? (int)v : -1;
}

/* Parses "20,24,27" (or "f32,f64", "sum,min") into out[] with `parse`;
 * with `allowed`, only those values are accepted. Returns the count, or 0
 * if invalid, repeated or more than `max`. */
static size_t parse_list(const char *s, parse_item_fn parse,
                         const int *allowed, size_t allowed_count,
                         int *out, size_t max)
{
    size_t count = 0;
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return 0;
    strcpy(buf, s);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        const int v = parse(tok);
        size_t a = 0, seen = 0;
        while (allowed != NULL && a < allowed_count && allowed[a] != v)
            a++;
        while (seen < count && out[seen] != v)
            seen++;
        if (v < 0 || (allowed != NULL && a == allowed_count) || count == max
                || seen < count)
            return 0;
        out[count++] = v;
    }
    return count;
}

/* "auto", "guarded", "software", "flushing" (--float-modes); -1 if none. */
static int parse_bench_mode(const char *s)
{
    static const char *const names[BENCH_MODE_COUNT] = {
        [BENCH_MODE_AUTO] = "auto", [BENCH_MODE_GUARDED] = "guarded",
        [BENCH_MODE_SOFTWARE] = "software", [BENCH_MODE_FLUSHING] = "flushing",
    };
    for (int m = 0; m < BENCH_MODE_COUNT; m++)
        if (strcmp(s, names[m]) == 0)
            return m;
    return -1;
}

/* ---- the command ----------------------------------------------------------------- */

static int run_bench(int argc, char **argv)
{
    int sizes[BENCH_MAX_SIZES] = { 20, 24 };
    size_t size_count = 2;
    unsigned long repeat = BENCH_DEFAULT_REPEAT;
    int json = 0, latency = 1, stream = 0, maps = 0, batched = 0;
    const char *device_spec = NULL;
    /* i64 is measured on request only (the baseline of software f64). */
    static const int all_types[] = { SB_F32, SB_F64, SB_I32, SB_I64 };
    static const int all_ops[] = { SB_SUM, SB_MIN, SB_PROD };
    enum { TYPES = sizeof all_types / sizeof *all_types, DEFAULT_TYPES = 3,
           OPS = sizeof all_ops / sizeof *all_ops };
    int types[TYPES], ops[OPS];
    memcpy(types, all_types, sizeof types);
    memcpy(ops, all_ops, sizeof ops);
    size_t type_count = DEFAULT_TYPES, op_count = OPS;
    int modes[BENCH_MODE_COUNT] = { BENCH_MODE_AUTO };
    size_t mode_count = 1;
    unsigned isa = SB_ISA_AUTO;

    for (int i = 1; i < argc; i++) {
        const char *v;
        int missing = 0;
        if (cli_is_help(argv[i])) {
            print_usage(stdout);
            return CLI_EXIT_OK;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--no-latency") == 0) {
            latency = 0;
        } else if (strcmp(argv[i], "--stream") == 0) {
            stream = 1;
        } else if (strcmp(argv[i], "--maps") == 0) {
            maps = 1;
        } else if (strcmp(argv[i], "--batched") == 0) {
            batched = 1;
        } else if ((v = cli_option_value(argc, argv, &i, "--first-call-child",
                                         &missing)) != NULL) {
            return bench_first_call_child(v);
        } else if ((v = cli_option_value(argc, argv, &i, "--device",
                                         &missing)) != NULL || missing) {
            if (missing) {
                cli_error("bench", "--device wants host, N, P:D, a name or all");
                return CLI_EXIT_USAGE;
            }
            device_spec = v;
        } else if ((v = cli_option_value(argc, argv, &i, "--sizes",
                                         &missing)) != NULL || missing) {
            size_count = missing ? 0 : parse_list(v, parse_log2_size, NULL, 0,
                                                  sizes, BENCH_MAX_SIZES);
            if (size_count == 0) {
                cli_error("bench", "--sizes wants log2 sizes in %d..%d, "
                          "separated by commas, each once (at most %d)",
                          BENCH_MIN_LOG2, BENCH_MAX_LOG2, BENCH_MAX_SIZES);
                return CLI_EXIT_USAGE;
            }
        } else if ((v = cli_option_value(argc, argv, &i, "--types",
                                         &missing)) != NULL || missing) {
            type_count = missing ? 0 : parse_list(v, cli_parse_type,
                                                  all_types, TYPES, types,
                                                  TYPES);
            if (type_count == 0) {
                cli_error("bench", "--types wants one or more of f32,f64,i32,i64, "
                          "each once");
                return CLI_EXIT_USAGE;
            }
        } else if ((v = cli_option_value(argc, argv, &i, "--ops",
                                         &missing)) != NULL || missing) {
            op_count = missing ? 0 : parse_list(v, cli_parse_op, all_ops,
                                                OPS, ops, OPS);
            if (op_count == 0) {
                cli_error("bench", "--ops wants one or more of sum,min,prod, each once");
                return CLI_EXIT_USAGE;
            }
        } else if ((v = cli_option_value(argc, argv, &i, "--float-modes",
                                         &missing)) != NULL || missing) {
            mode_count = missing ? 0 : parse_list(v, parse_bench_mode, NULL, 0,
                                                  modes, BENCH_MODE_COUNT);
            if (mode_count == 0) {
                cli_error("bench", "--float-modes wants one or more of "
                          "auto,guarded,software,flushing, each once");
                return CLI_EXIT_USAGE;
            }
        } else if ((v = cli_option_value(argc, argv, &i, "--isa",
                                         &missing)) != NULL || missing) {
            if (missing || sb_isa_parse(v, &isa) != SB_OK) {
                cli_error("bench", "--isa wants auto, %s, avx2 or avx512",
                          sb_isa_name(SB_ISA_BASELINE));
                return CLI_EXIT_USAGE;
            }
            if (sb_host_isa_check(isa) != SB_OK) {
                cli_error("bench", "--isa %s: %s", v, sb_error_detail());
                return CLI_EXIT_USAGE;
            }
        } else if ((v = cli_option_value(argc, argv, &i, "--prefetch",
                                         &missing)) != NULL || missing) {
            unsigned long bytes;
            if (missing || cli_parse_uint(v, 0, 1ul << 20, &bytes) != 0) {
                cli_error("bench", "--prefetch wants a number of bytes in "
                          "0..1048576 (0: none)");
                return CLI_EXIT_USAGE;
            }
            /* The library reads it per call (samebits.h). */
            setenv("SAMEBITS_PREFETCH", v, 1);
        } else if ((v = cli_option_value(argc, argv, &i, "--repeat",
                                         &missing)) != NULL || missing) {
            if (missing || cli_parse_uint(v, 1, BENCH_MAX_REPEAT,
                                          &repeat) != 0) {
                cli_error("bench", "--repeat wants a count in 1..%d",
                          BENCH_MAX_REPEAT);
                return CLI_EXIT_USAGE;
            }
        } else {
            cli_error("bench", "unknown option '%s'", argv[i]);
            print_usage(stderr);
            return CLI_EXIT_USAGE;
        }
    }
    /* Parts 2-6 call with the defaults (SB_ISA_AUTO): they take the
     * set from SAMEBITS_ISA (the last --isa counts, as in part 1). */
    if (isa != SB_ISA_AUTO)
        setenv("SAMEBITS_ISA", sb_isa_name(isa), 1);

    cli_device_list list;
    cli_selection sel;
    if (cli_select_or_all("bench", device_spec, 0, &list, &sel) != 0)
        return CLI_EXIT_DEVICE;

    /* Whatever fails from here is a device or the library on it. One
     * column per device and float mode, the device's own mode first. */
    int rc = CLI_EXIT_DEVICE;
    bench_device devs[BENCH_MAX_DEVICES];
    size_t dev_count = 0;
    for (size_t i = 0; i < sel.count; i++)
        for (size_t k = 0; k < mode_count && dev_count < BENCH_MAX_DEVICES;
             k++) {
            fprintf(stderr, "bench: dev%u: building kernels\n",
                    sel.devices[i]->index);
            if (bench_device_open(&devs[dev_count++], sel.devices[i],
                                  (bench_mode)modes[k]) != 0)
                goto done;
        }

    char cpu[256];
    cli_cpu_model(cpu, sizeof cpu);
    const bench_throughput_plan plan = {
        .types = types, .type_count = type_count,
        .sizes = sizes, .size_count = size_count,
        .ops = ops, .op_count = op_count,
        .repeat = (unsigned)repeat, .threads = cli_default_threads(),
        .isa = isa, .json = json,
    };
    const int settled = settle_prefetch();
    const size_t prefetch_before = sb_host_prefetch();
    sb_prefetch_report setup_report;
    sb_host_prefetch_report(&setup_report);
    const int prefetch_set =
        setup_report.source == SB_PREFETCH_FROM_ENVIRONMENT;
    if (json)
        print_json_setup(cpu, plan.threads, isa, plan.repeat, devs, dev_count);
    else {
        print_text_setup(cpu, plan.threads, isa, devs, dev_count);
        if (settled)
            printf("(the prefetch distance measured before the runs, on f32 "
                   "sums of 2^25 elements on one thread)\n");
    }
    const int no_platform = list.platform_count == 0;
    if (bench_throughput(&plan, devs, dev_count, no_platform) != 0)
        goto done;
    if (latency && (bench_latency(json, devs, dev_count) != 0
                    || bench_first_call(json, devs, dev_count) != 0))
        goto done;
    int largest = sizes[0];
    for (size_t i = 1; i < size_count; i++)
        largest = sizes[i] > largest ? sizes[i] : largest;
    if (stream && bench_stream(json, largest, plan.repeat, devs,
                               dev_count) != 0)
        goto done;
    if (maps && bench_maps(json, largest, plan.repeat, devs, dev_count) != 0)
        goto done;
    if (batched && bench_batched(json, largest, plan.repeat, devs,
                                 dev_count) != 0)
        goto done;
    /* What the runs measured of the prefetch distance, when that moved. */
    if (json) {
        print_prefetch_json();
        print_prefetch_folds_json();
    } else {
        if (sb_host_prefetch() != prefetch_before || !prefetch_set) {
            printf("\nafter these runs: ");
            print_prefetch_text();
        }
        print_prefetch_folds_text();
    }
    rc = CLI_EXIT_OK;
done:
    for (size_t i = 0; i < dev_count; i++)
        bench_device_close(&devs[i]);
    cli_devices_free(&list);
    return rc;
}

int cmd_bench(int argc, char **argv)
{
    int json = 0, help = 0;
    for (int i = 1; i < argc; i++) {
        json |= strcmp(argv[i], "--json") == 0;
        help |= cli_is_help(argv[i]);
    }
    const int rc = run_bench(argc, argv);
    /* --json: a record for every outcome, a failure too. */
    if (json && !help && rc != CLI_EXIT_OK) {
        printf("{\"kind\":\"error\",\"exit\":%d,\"error\":", rc);
        cli_json_string(stdout, cli_last_error());
        printf("}\n");
    }
    return rc;
}
