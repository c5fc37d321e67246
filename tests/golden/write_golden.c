/* tests/golden/write_golden.c: computes the expected result of every case
 * of the conformance corpus (tools/corpus.c) with the oracle
 * (tests/oracle.c), never with the library, and writes or verifies
 * tests/golden/corpus.golden: a line per case, and per reduction of a
 * batch.
 *
 *   write_golden write  FILE   writes FILE (the `write-golden` target)
 *   write_golden verify FILE   recomputes every line and compares it with
 *                              FILE: a hand-edited or stale golden file
 *                              fails here (the golden_matches_oracle test)
 *
 * The golden file is a deliberate, reviewed artefact: the build never
 * writes it, and a changed line is a change to the contract. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "oracle.h"
#include "samebits.h"

/* Reads the whole of `path`; NULL (after a message) on failure. */
static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return NULL;
    }
    size_t size = 0, cap = 1 << 16;
    char *text = malloc(cap);
    size_t got;
    while (text != NULL && (got = fread(text + size, 1, cap - size - 1, f)) > 0) {
        size += got;
        if (cap - size - 1 == 0) {
            char *grown = realloc(text, cap * 2);
            if (grown == NULL) {
                free(text);
                text = NULL;
                break;
            }
            text = grown;
            cap *= 2;
        }
    }
    fclose(f);
    if (text == NULL) {
        fprintf(stderr, "%s: out of memory\n", path);
        return NULL;
    }
    text[size] = '\0';
    return text;
}

/* The golden lines of case `c`, computed by the oracle: one, or one per
 * reduction of a batch ("<case-id>/<b>": the oracle over the elements
 * corpus_gather() gives it), into lines[0 .. corpus_answers(c)). */
static int golden_lines(const corpus_case *c, char (*lines)[CORPUS_LINE_MAX])
{
    const size_t elem = sb_type_size(c->r.input);
    void *x = malloc(c->n * elem + 1);
    void *y = c->dot ? malloc(c->n * elem + 1) : NULL;
    unsigned char *mask = c->mask != CORPUS_MASK_NONE ? malloc(c->n + 1) : NULL;
    void *row = malloc(c->n * elem + 1);
    unsigned char *row_mask = malloc(c->n + 1);
    int rc = -1;
    if (x == NULL || (c->dot && y == NULL) || row == NULL || row_mask == NULL
            || (c->mask != CORPUS_MASK_NONE && mask == NULL)) {
        fprintf(stderr, "write_golden: out of memory\n");
        goto done;
    }
    corpus_fill(c, x);
    if (y != NULL)
        corpus_fill_y(c, y);
    if (mask != NULL)
        corpus_fill_mask(c, mask);
    for (size_t b = 0; b < corpus_answers(c); b++) {
        unsigned char result[16] = { 0 };   /* an sb_arg_result at most */
        sb_status s;
        if (c->layout == CORPUS_ONE) {
            s = c->dot ? oracle_dot(c->r, x, y, mask, c->n, result)
                       : oracle_reduce(c->r, x, mask, c->n, result);
        } else {
            const size_t len = corpus_gather(c, b, x, mask, row, row_mask);
            s = oracle_reduce(c->r, row, mask != NULL ? row_mask : NULL, len,
                              result);
        }
        if (s != SB_OK && s != SB_EMPTY && s != SB_OVERFLOW) {
            fprintf(stderr, "write_golden: the oracle fails case %s (%zu) "
                    "with status %d\n", c->id, b, (int)s);
            goto done;
        }
        char res[CORPUS_RESULT_MAX];
        corpus_format_answer(res, sizeof res, c->r, s, result);
        if (c->layout == CORPUS_ONE)
            snprintf(lines[b], CORPUS_LINE_MAX, "%s %s", c->id, res);
        else
            snprintf(lines[b], CORPUS_LINE_MAX, "%s/%zu %s", c->id, b, res);
    }
    rc = 0;
done:
    free(x);
    free(y);
    free(mask);
    free(row);
    free(row_mask);
    return rc;
}

/* golden_lines() into memory of its own; NULL on failure. */
static char (*lines_of(const corpus_case *c))[CORPUS_LINE_MAX]
{
    char (*lines)[CORPUS_LINE_MAX] = malloc(corpus_answers(c)
                                            * sizeof *lines);
    if (lines == NULL) {
        fprintf(stderr, "write_golden: out of memory\n");
        return NULL;
    }
    if (golden_lines(c, lines) != 0) {
        free(lines);
        return NULL;
    }
    return lines;
}

static int write_file(const char *path, const corpus_case *cases, size_t count)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        perror(tmp);
        return 1;
    }
    fputs(corpus_golden_header(), f);
    fprintf(f, "# corpus version %d, %zu cases\n", CORPUS_VERSION, count);
    for (size_t i = 0; i < count; i++) {
        char (*lines)[CORPUS_LINE_MAX] = lines_of(&cases[i]);
        if (lines == NULL) {
            fclose(f);
            remove(tmp);
            return 1;
        }
        for (size_t b = 0; b < corpus_answers(&cases[i]); b++)
            fprintf(f, "%s\n", lines[b]);
        free(lines);
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        perror(path);
        remove(tmp);
        return 1;
    }
    printf("write_golden: wrote %zu cases to %s\n", count, path);
    return 0;
}

static int verify_file(const char *path, const corpus_case *cases, size_t count)
{
    char *text = read_all(path);
    if (text == NULL)
        return 1;
    size_t i = 0, b = 0, bad = 0, lineno = 0;
    char (*want)[CORPUS_LINE_MAX] = NULL;
    for (char *line = strtok(text, "\n"); line != NULL;
         line = strtok(NULL, "\n")) {
        lineno++;
        if (line[0] == '#')
            continue;
        if (i == count) {
            fprintf(stderr, "%s:%zu: a line after the last case: %s\n",
                    path, lineno, line);
            bad++;
            break;
        }
        if (b == 0 && (want = lines_of(&cases[i])) == NULL) {
            free(text);
            return 1;
        }
        if (strcmp(line, want[b]) != 0 && bad++ < 20)
            fprintf(stderr, "%s:%zu: has    %s\n%*s  oracle %s\n", path,
                    lineno, line, (int)(strlen(path) + 1 + 8), "", want[b]);
        if (++b == corpus_answers(&cases[i])) {
            free(want);
            want = NULL;
            b = 0;
            i++;
        }
    }
    free(want);
    free(text);
    if (i < count) {
        fprintf(stderr, "%s: %zu cases missing (from %s on)\n", path,
                count - i, cases[i].id);
        bad++;
    }
    if (bad > 0) {
        fprintf(stderr, "%s: %zu lines differ from the oracle; if the corpus "
                "or the contract changed on purpose, rerun the write-golden "
                "target and say so in the commit message\n", path, bad);
        return 1;
    }
    printf("%s: all %zu cases match the oracle\n", path, count);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "write") != 0
                      && strcmp(argv[1], "verify") != 0)) {
        fprintf(stderr, "usage: write_golden write|verify FILE\n");
        return 2;
    }
    size_t count = 0;
    const corpus_case *cases = corpus_cases(&count);
    if (cases == NULL) {
        fprintf(stderr, "write_golden: out of memory\n");
        return 1;
    }
    return strcmp(argv[1], "write") == 0 ? write_file(argv[2], cases, count)
                                         : verify_file(argv[2], cases, count);
}
