/* tests/fuzz/fuzz_replay.c: a main() for a fuzz target built without
 * libFuzzer (any compiler): runs every file named on the command line, and
 * every file of every directory named (sorted by name), once through
 * LLVMFuzzerTestOneInput(). A mismatch aborts inside the target; this
 * program exits non-zero if a file cannot be read or nothing was run. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "fuzz_replay: cannot open %s\n", path);
        return -1;
    }
    size_t cap = 4096, size = 0;
    uint8_t *data = malloc(cap);
    for (;;) {
        if (data == NULL) {
            fclose(f);
            fprintf(stderr, "fuzz_replay: out of memory on %s\n", path);
            return -1;
        }
        size += fread(data + size, 1, cap - size, f);
        if (size < cap)
            break;
        cap *= 2;
        uint8_t *grown = realloc(data, cap);
        if (grown == NULL)
            free(data);
        data = grown;
    }
    const int failed = ferror(f);
    fclose(f);
    if (failed) {
        free(data);
        fprintf(stderr, "fuzz_replay: cannot read %s\n", path);
        return -1;
    }
    fprintf(stderr, "%s (%zu bytes)\n", path, size);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* @return the number of files run, or -1 on an error. */
static long run_directory(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "fuzz_replay: cannot open directory %s\n", dir);
        return -1;
    }
    char **names = NULL;
    size_t count = 0, cap = 0;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (count == cap) {
            cap = cap ? 2 * cap : 64;
            char **grown = realloc(names, cap * sizeof *names);
            if (grown == NULL)
                break;
            names = grown;
        }
        const size_t length = strlen(dir) + strlen(e->d_name) + 2;
        names[count] = malloc(length);
        if (names[count] == NULL)
            break;
        snprintf(names[count], length, "%s/%s", dir, e->d_name);
        count++;
    }
    closedir(d);
    if (count > 0)
        qsort(names, count, sizeof *names, compare_names);
    long run = 0;
    for (size_t i = 0; i < count; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            if (run_file(names[i]) != 0)
                run = -1;
            else if (run >= 0)
                run++;
        }
        free(names[i]);
    }
    free(names);
    return run;
}

int main(int argc, char **argv)
{
    long total = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "fuzz_replay: no such file %s\n", argv[i]);
            return 1;
        }
        const long run = S_ISDIR(st.st_mode) ? run_directory(argv[i])
                       : run_file(argv[i]) == 0 ? 1 : -1;
        if (run < 0)
            return 1;
        total += run;
    }
    printf("fuzz_replay: %ld inputs, no mismatch\n", total);
    return total > 0 ? 0 : 1;
}
