/* data_file.c: reads the input of `samebits reduce`: raw little-endian
 * elements, text (one number per line) or NumPy .npy files (see cli.h).
 *
 * A regular file is mapped, never copied: raw and .npy data are used in
 * place, text is parsed in one pass into an array. Standard input and
 * other unmappable files are read once into memory. Every failure is one
 * line of text for the user, never a crash: sizes are checked before any
 * element is touched. */
#define _POSIX_C_SOURCE 200809L   /* mmap, fstat, fileno */

#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define TEXT_LINE_MAX 256

static int fail(char *err, size_t size, const char *fmt, ...) CLI_PRINTF(3, 4);

static int fail(char *err, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
    return -1;
}

int cli_parse_format(const char *s)
{
    static const char *const names[] = { "auto", "raw", "text", "npy" };
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

static int ends_with(const char *s, const char *suffix)
{
    const size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* ---- getting the bytes ----------------------------------------------------- */

/* Maps `fd` or reads it to the end; sets d->map or d->owned. */
static int read_bytes(int fd, const char *path, cli_data *d,
                      const unsigned char **bytes, size_t *size,
                      char *err, size_t err_size)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        if (st.st_size == 0) {
            *bytes = (const unsigned char *)"";
            *size = 0;
            return 0;
        }
        void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
                         fd, 0);
        if (map != MAP_FAILED) {
            d->map = map;
            d->map_size = (size_t)st.st_size;
            *bytes = map;
            *size = (size_t)st.st_size;
            return 0;
        }
    }
    size_t used = 0, cap = 1 << 16;
    unsigned char *buf = malloc(cap);
    for (;;) {
        if (buf == NULL)
            return fail(err, err_size, "%s: out of memory", path);
        const ssize_t got = read(fd, buf + used, cap - used);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            const int e = errno;
            free(buf);
            return fail(err, err_size, "%s: %s", path, strerror(e));
        }
        if (got == 0)
            break;
        used += (size_t)got;
        if (used == cap) {
            unsigned char *grown = realloc(buf, cap * 2);
            if (grown == NULL)
                free(buf);
            buf = grown;
            cap *= 2;
        }
    }
    d->owned = buf;
    *bytes = buf;
    *size = used;
    return 0;
}

/* Points d->data at `size` bytes of elements at `p`, copying them only if
 * they are not aligned for the type. */
static int use_elements(cli_data *d, const unsigned char *p, size_t size,
                        const char *path, char *err, size_t err_size)
{
    const size_t elem = sb_type_size(d->type);
    if (size % elem != 0)
        return fail(err, err_size, "%s: %zu bytes is not a whole number of "
                    "%s elements (%zu bytes each): truncated?", path, size,
                    sb_type_name(d->type), elem);
    d->n = size / elem;
    if (size == 0 || (uintptr_t)p % elem == 0) {
        d->data = p;
        return 0;
    }
    void *copy = malloc(size);
    if (copy == NULL)
        return fail(err, err_size, "%s: out of memory", path);
    memcpy(copy, p, size);
    free(d->owned);           /* the copy replaces a read buffer, if any */
    d->owned = copy;
    d->data = copy;
    return 0;
}

/* ---- .npy ------------------------------------------------------------------ */

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* The value of `'key':` in the header dict: a pointer after the colon. */
static const char *npy_key(const char *h, const char *end, const char *key)
{
    char quoted[32];
    snprintf(quoted, sizeof quoted, "'%s'", key);
    const size_t len = strlen(quoted);
    for (const char *p = h; p + len <= end; p++)
        if (memcmp(p, quoted, len) == 0) {
            p = skip_space(p + len, end);
            if (p < end && *p == ':')
                return skip_space(p + 1, end);
            return NULL;
        }
    return NULL;
}

static sb_type npy_type(const char *descr, int mask)
{
    static const struct { const char *code; sb_type type; } codes[] = {
        { "i1", SB_I8 }, { "u1", SB_U8 }, { "i2", SB_I16 }, { "u2", SB_U16 },
        { "i4", SB_I32 }, { "u4", SB_U32 }, { "i8", SB_I64 }, { "u8", SB_U64 },
        { "f4", SB_F32 }, { "f8", SB_F64 },
    };
    const char order = descr[0];
    const char *code = descr + 1;
    if (mask && strcmp(descr, "|b1") == 0)
        return SB_U8;
    /* One-byte types have no byte order ('|'); the others must be '<'. */
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (strcmp(code, codes[i].code) == 0) {
            const int one_byte = code[1] == '1';
            if (order == '<' || (one_byte && order == '|'))
                return codes[i].type;
        }
    return (sb_type)0;
}

static int load_npy(const unsigned char *b, size_t size, const char *path,
                    sb_type want, int mask, cli_data *d, char *err,
                    size_t err_size)
{
    if (size < 10 || memcmp(b, "\x93NUMPY", 6) != 0)
        return fail(err, err_size, "%s: not a .npy file (no \\x93NUMPY magic)",
                    path);
    const unsigned major = b[6];
    size_t header_len, start;
    if (major == 1) {
        header_len = (size_t)b[8] | (size_t)b[9] << 8;
        start = 10;
    } else if (major == 2 || major == 3) {
        if (size < 12)
            return fail(err, err_size, "%s: .npy header cut short", path);
        header_len = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16
                   | (size_t)b[11] << 24;
        start = 12;
    } else {
        return fail(err, err_size, "%s: .npy format version %u.%u is not "
                    "supported (1.0 to 3.0 are)", path, major, b[7]);
    }
    if (header_len > size - start)
        return fail(err, err_size, "%s: corrupt .npy header: it claims %zu "
                    "bytes, the file has %zu after the magic", path,
                    header_len, size - start);
    const char *h = (const char *)b + start, *hend = h + header_len;

    /* 'descr': '<f8' */
    const char *v = npy_key(h, hend, "descr");
    char descr[16];
    size_t dl = 0;
    if (v == NULL || *v != '\'')
        return fail(err, err_size, "%s: corrupt .npy header: no 'descr' "
                    "string (a structured dtype?)", path);
    for (v++; v < hend && *v != '\'' && dl + 1 < sizeof descr; v++)
        descr[dl++] = *v;
    descr[dl] = '\0';
    if (v >= hend || *v != '\'')
        return fail(err, err_size, "%s: corrupt .npy header: bad 'descr'",
                    path);
    sb_type type = npy_type(descr, mask);
    if (mask && sb_type_size(type) != 1)
        type = (sb_type)0;              /* a mask is one byte per element */
    if (type == 0) {
        if (descr[0] == '>')
            return fail(err, err_size, "%s: dtype '%s' is big-endian; save it "
                        "little-endian (a.astype('<%s'))", path, descr,
                        descr + 1);
        return fail(err, err_size, "%s: dtype '%s' is not supported (%s)",
                    path, descr, mask ? "a mask is u1, i1 or b1"
                    : "samebits reads i1 u1 i2 u2 i4 u4 i8 u8 f4 f8");
    }

    /* 'fortran_order': False */
    v = npy_key(h, hend, "fortran_order");
    int fortran;
    if (v != NULL && (size_t)(hend - v) >= 4 && memcmp(v, "True", 4) == 0)
        fortran = 1;
    else if (v != NULL && (size_t)(hend - v) >= 5 && memcmp(v, "False", 5) == 0)
        fortran = 0;
    else
        return fail(err, err_size, "%s: corrupt .npy header: no "
                    "'fortran_order'", path);

    /* 'shape': (2, 3) */
    v = npy_key(h, hend, "shape");
    if (v == NULL || *v != '(')
        return fail(err, err_size, "%s: corrupt .npy header: no 'shape'", path);
    size_t count = 1, dims = 0, big_dims = 0;
    for (v++;;) {
        v = skip_space(v, hend);
        if (v < hend && *v == ')')
            break;
        if (v >= hend || *v < '0' || *v > '9')
            return fail(err, err_size, "%s: corrupt .npy header: bad 'shape'",
                        path);
        size_t dim = 0;
        for (; v < hend && *v >= '0' && *v <= '9'; v++) {
            if (dim > (SIZE_MAX - 9) / 10)
                return fail(err, err_size, "%s: .npy shape too large", path);
            dim = dim * 10 + (size_t)(*v - '0');
        }
        if (dim != 0 && count > SIZE_MAX / dim)
            return fail(err, err_size, "%s: .npy shape too large", path);
        count *= dim;
        dims++;
        big_dims += dim > 1;
        v = skip_space(v, hend);
        if (v < hend && *v == ',')
            v++;
    }
    /* A Fortran-ordered array with one dimension > 1 is also C-ordered. */
    if (fortran && big_dims > 1)
        return fail(err, err_size, "%s: the array is in Fortran order; "
                    "samebits reads C-contiguous arrays "
                    "(np.ascontiguousarray(a))", path);
    if (want != 0 && want != type && !mask)
        return fail(err, err_size, "%s: the file holds %s (dtype '%s'), not "
                    "%s as --type says", path, sb_type_name(type), descr,
                    sb_type_name(want));
    d->type = type;
    const size_t elem = sb_type_size(type);
    if (count > SIZE_MAX / elem)
        return fail(err, err_size, "%s: .npy shape too large", path);
    const size_t need = count * elem, have = size - start - header_len;
    if (have != need)
        return fail(err, err_size, "%s: the .npy header says %zu element%s "
                    "(%zu bytes) in %zu dimension%s, but %zu bytes of data "
                    "follow: %s", path, count, count == 1 ? "" : "s", need,
                    dims, dims == 1 ? "" : "s", have,
                    have < need ? "truncated" : "extra bytes at the end");
    return use_elements(d, b + start + header_len, need, path, err, err_size);
}

/* ---- text ------------------------------------------------------------------ */

/* Parses one number of type t from the NUL-terminated `s` into `out`. */
static int parse_number(const char *s, sb_type t, void *out, char *why,
                        size_t why_size)
{
    char *end = NULL;
    errno = 0;
    if (t == SB_F32 || t == SB_F64) {
        if (t == SB_F32) {
            const float v = strtof(s, &end);    /* correctly rounded */
            memcpy(out, &v, 4);
        } else {
            const double v = strtod(s, &end);
            memcpy(out, &v, 8);
        }
        /* ERANGE: overflow to inf or underflow to a subnormal or zero is
         * the correctly rounded value, which is what is wanted here. */
        if (end == s || *end != '\0')
            return fail(why, why_size, "'%s' is not a number", s);
        return 0;
    }
    const int is_signed = t == SB_I8 || t == SB_I16 || t == SB_I32 || t == SB_I64;
    const unsigned bits = (unsigned)sb_type_size(t) * 8;
    if (is_signed) {
        const long long v = strtoll(s, &end, 10);
        if (end == s || *end != '\0')
            return fail(why, why_size, "'%s' is not an integer", s);
        const long long lo = bits == 64 ? LLONG_MIN : -(1LL << (bits - 1));
        const long long hi = bits == 64 ? LLONG_MAX : (1LL << (bits - 1)) - 1;
        if (errno == ERANGE || v < lo || v > hi)
            return fail(why, why_size, "%s is out of range for %s", s,
                        sb_type_name(t));
        const int64_t w = v;
        memcpy(out, &w, bits / 8);  /* little-endian: the low bytes */
        return 0;
    }
    const char *p = s;
    while (*p == ' ' || *p == '\t')
        p++;
    const unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end != '\0')
        return fail(why, why_size, "'%s' is not an integer", s);
    const unsigned long long hi = bits == 64 ? ULLONG_MAX : (1ULL << bits) - 1;
    if (*p == '-' || errno == ERANGE || v > hi)
        return fail(why, why_size, "%s is out of range for %s", s,
                    sb_type_name(t));
    const uint64_t w = v;
    memcpy(out, &w, bits / 8);
    return 0;
}

static int load_text(const unsigned char *b, size_t size, const char *path,
                     sb_type type, cli_data *d, char *err, size_t err_size)
{
    if (type == 0)
        return fail(err, err_size, "%s: text data needs --type", path);
    d->type = type;
    const size_t elem = sb_type_size(type);
    size_t n = 0, cap = 0, lineno = 0;
    unsigned char *out = NULL;
    const unsigned char *p = b, *end = b + size;
    while (p < end) {
        const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
        const unsigned char *line_end = nl != NULL ? nl : end;
        lineno++;
        /* Trim blanks (and the \r of CRLF files). */
        const unsigned char *s = p, *e = line_end;
        while (s < e && (*s == ' ' || *s == '\t' || *s == '\r'))
            s++;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
            e--;
        p = nl != NULL ? nl + 1 : end;
        if (s == e || *s == '#')
            continue;
        char token[TEXT_LINE_MAX];
        if ((size_t)(e - s) >= sizeof token) {
            free(out);
            return fail(err, err_size, "%s, line %zu: longer than %d "
                        "characters: not one number", path, lineno,
                        TEXT_LINE_MAX - 1);
        }
        memcpy(token, s, (size_t)(e - s));
        token[e - s] = '\0';
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            unsigned char *grown = realloc(out, cap * elem);
            if (grown == NULL) {
                free(out);
                return fail(err, err_size, "%s: out of memory at line %zu",
                            path, lineno);
            }
            out = grown;
        }
        char why[TEXT_LINE_MAX + 64];
        if (parse_number(token, type, out + n * elem, why, sizeof why) != 0) {
            free(out);
            return fail(err, err_size, "%s, line %zu: %s", path, lineno, why);
        }
        n++;
    }
    d->owned = out;
    d->data = out != NULL ? (const void *)out : (const void *)"";
    d->n = n;
    return 0;
}

/* ---- the loader -------------------------------------------------------------- */

int cli_data_load(const char *path, cli_format format, sb_type type,
                  int mask, cli_data *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    if (mask)
        type = SB_U8;
    const int use_stdin = strcmp(path, "-") == 0;
    const char *name = use_stdin ? "standard input" : path;
    const int fd = use_stdin ? STDIN_FILENO : open(path, O_RDONLY);
    if (fd < 0)
        return fail(err, err_size, "%s: %s", path, strerror(errno));
    const unsigned char *b = NULL;
    size_t size = 0;
    int rc = read_bytes(fd, name, out, &b, &size, err, err_size);
    if (!use_stdin)
        close(fd);
    if (rc != 0)
        return rc;

    if (format == CLI_FORMAT_AUTO) {
        if ((size >= 6 && memcmp(b, "\x93NUMPY", 6) == 0) || ends_with(path, ".npy"))
            format = CLI_FORMAT_NPY;
        else if (ends_with(path, ".txt") || ends_with(path, ".csv"))
            format = CLI_FORMAT_TEXT;
        else
            format = CLI_FORMAT_RAW;
    }
    out->format = format;
    switch (format) {
    case CLI_FORMAT_NPY:
        rc = load_npy(b, size, name, type, mask, out, err, err_size);
        break;
    case CLI_FORMAT_TEXT: {
        /* The numbers go to an array of their own; the text is then let go. */
        void *text = out->owned;
        out->owned = NULL;
        rc = load_text(b, size, name, type, out, err, err_size);
        free(text);
        if (out->map != NULL) {
            munmap(out->map, out->map_size);
            out->map = NULL;
        }
        break;
    }
    default:
        if (type == 0) {
            rc = fail(err, err_size, "%s: raw data needs --type (or give a "
                      ".npy file, or --format text)", name);
            break;
        }
        out->type = type;
        rc = use_elements(out, b, size, name, err, err_size);
        break;
    }
    if (rc != 0)
        cli_data_free(out);
    return rc;
}

void cli_data_free(cli_data *d)
{
    if (d->map != NULL)
        munmap(d->map, d->map_size);
    free(d->owned);
    memset(d, 0, sizeof *d);
}
