/* data_file.c: reads the input of `samebits reduce`: raw little-endian
 * elements, text (numbers separated by whitespace or commas), NumPy .npy
 * files and .npz archives of them (tools/npz_file.c); see cli.h.
 *
 * --format auto decides by content, never by the file's name, and never
 * guesses raw: a raw file of f64 read as text, or text read as raw f64,
 * would give a confident wrong number. What is neither .npy, .npz nor
 * text is refused with a message that names what it looks like and says
 * which --format to give (a mask whose bytes are all 0 or 1 cannot be
 * anything but raw, and is read so).
 *
 * A regular file is mapped, never copied: raw, .npy and stored .npz data
 * are used in place, text is parsed in one pass into an array. Standard
 * input and other unmappable files are read once into memory, then
 * detected the same way; for reading in pieces (cli_stream_open()) raw
 * data and a .npy on a pipe are read one piece at a time instead. Every failure is one line of text for the user,
 * never a crash: sizes are checked before any element is touched. */
#define _POSIX_C_SOURCE 200809L   /* mmap, fstat, fileno */
#define _DEFAULT_SOURCE           /* madvise (posix_madvise ignores DONTNEED) */

#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* A token longer than this is not one number (the exact decimal value of
 * the smallest f64 subnormal, 4.94...e-324, has 751 significant digits:
 * room to spare). */
#define TEXT_TOKEN_MAX 4096


static int fail(char *err, size_t size, const char *fmt, ...) CLI_PRINTF(3, 4);

/* Writes a one-line reason to `err` and returns -1, so that a failure is
 * one statement: return fail(err, size, "%s: truncated", path). */
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
    static const char *const names[] = { "auto", "raw", "text", "npy", "npz" };
    for (int i = 0; i < 5; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

static int ends_with(const char *s, const char *suffix)
{
    const size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcasecmp(s + a - b, suffix) == 0;
}

/* ---- getting the bytes ----------------------------------------------------- */

/* Whether `fd` can be mapped whole: a regular file read from its start.
 * Standard input may be a file already read part-way: then its content is
 * the rest, which read() gives and a map would not. */
static int is_mappable(int fd, struct stat *st)
{
    return fstat(fd, st) == 0 && S_ISREG(st->st_mode)
           && lseek(fd, 0, SEEK_CUR) == 0;
}

/* Maps `fd` or reads it to the end; sets d->map or d->owned. */
static int read_bytes(int fd, const char *path, cli_data *d,
                      const unsigned char **bytes, size_t *size,
                      char *err, size_t err_size)
{
    struct stat st;
    if (is_mappable(fd, &st)) {
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

static sb_type npy_type(const char *descr)
{
    static const struct { const char *code; sb_type type; } codes[] = {
        { "i1", SB_I8 }, { "u1", SB_U8 }, { "i2", SB_I16 }, { "u2", SB_U16 },
        { "i4", SB_I32 }, { "u4", SB_U32 }, { "i8", SB_I64 }, { "u8", SB_U64 },
        { "f4", SB_F32 }, { "f8", SB_F64 }, { "f2", SB_F16 },
    };
    if (descr[0] == '\0')
        return (sb_type)0;
    const char order = descr[0];
    const char *code = descr + 1;
    /* numpy's bool is one byte, 0 or 1: a mask, or u8 data for any/all
     * (or a count with sum). */
    if (strcmp(descr, "|b1") == 0)
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

/* The header of the .npy at b[0, size) (size: what is there so far, at
 * least the whole header): sets *type, *count (elements) and *data_start
 * (the offset of the first element), and, when `shape` is not NULL, its
 * ndim, dims and fortran. A Fortran-ordered array of more than one
 * dimension > 1 is refused unless `keep_order` (the caller then reads it
 * by its strides). */
static int npy_header(const unsigned char *b, size_t size, const char *path,
                      sb_type want, int mask, int keep_order,
                      sb_type *type_out, size_t *count_out,
                      size_t *data_start, cli_data *shape, char *err,
                      size_t err_size)
{
    if (size < 10 || memcmp(b, "\x93NUMPY", 6) != 0)
        return fail(err, err_size, "%s: not a .npy file (no \\x93NUMPY magic)%s",
                    path, size >= 4 && memcmp(b, "PK", 2) == 0
                    ? ": a zip archive, so --format npz?" : "");
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
    sb_type type = npy_type(descr);
    if (mask && sb_type_size(type) != 1)
        type = (sb_type)0;              /* a mask is one byte per element */
    if (type == 0) {
        if (descr[0] == '>')
            return fail(err, err_size, "%s: dtype '%s' is big-endian; save it "
                        "little-endian (a.astype('<%s'))", path, descr,
                        descr + 1);
        return fail(err, err_size, "%s: dtype '%s' is not supported (%s)",
                    path, descr, mask ? "a mask is u1, i1 or b1"
                    : "samebits reads b1 i1 u1 i2 u2 i4 u4 i8 u8 f4 f8");
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
    size_t count = 1, dims = 0, big_dims = 0, first[2] = { 0, 0 };
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
        if (dims < 2)
            first[dims] = dim;
        dims++;
        big_dims += dim > 1;
        v = skip_space(v, hend);
        if (v < hend && *v == ',')
            v++;
    }
    /* A Fortran-ordered array with one dimension > 1 is also C-ordered. */
    if (fortran && big_dims > 1 && !keep_order)
        return fail(err, err_size, "%s: the array is in Fortran order; "
                    "samebits reads C-contiguous arrays "
                    "(np.ascontiguousarray(a))", path);
    if (want != 0 && want != type && !mask)
        return fail(err, err_size, "%s: the file holds %s (dtype '%s'), not "
                    "%s as --type says", path, sb_type_name(type), descr,
                    sb_type_name(want));
    if (count > SIZE_MAX / sb_type_size(type))
        return fail(err, err_size, "%s: .npy shape too large", path);
    *type_out = type;
    *count_out = count;
    *data_start = start + header_len;
    if (shape != NULL) {
        shape->ndim = dims;
        shape->dims[0] = first[0];
        shape->dims[1] = first[1];
        shape->fortran = fortran;
    }
    return 0;
}

/* How many bytes of a .npy hold its header, from its first 12 (or fewer:
 * then 0, not yet known). */
static size_t npy_header_bytes(const unsigned char *b, size_t size)
{
    if (size < 10)
        return 0;
    if (b[6] == 1)
        return 10 + ((size_t)b[8] | (size_t)b[9] << 8);
    if (size < 12)
        return 0;
    return 12 + ((size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16
                 | (size_t)b[11] << 24);
}

static int load_npy(const unsigned char *b, size_t size, const char *path,
                    sb_type want, int mask, int keep_order, cli_data *d,
                    char *err, size_t err_size)
{
    sb_type type;
    size_t count, start;
    if (npy_header(b, size, path, want, mask, keep_order, &type, &count,
                   &start, d, err, err_size) != 0)
        return -1;
    d->type = type;
    const size_t elem = sb_type_size(type);
    const size_t need = count * elem, have = size - start;
    if (have != need)
        return fail(err, err_size, "%s: the .npy header says %zu element%s "
                    "(%zu bytes), but %zu bytes of data follow: %s", path,
                    count, count == 1 ? "" : "s", need, have,
                    have < need ? "truncated" : "extra bytes at the end");
    return use_elements(d, b + start, need, path, err, err_size);
}

/* ---- text ------------------------------------------------------------------ */

/* `s` as it may be shown in a message: unprintable bytes as '?', cut. */
static void shown_token(const char *s, char *out, size_t size)
{
    size_t k = 0;
    for (; s[k] != '\0' && k + 4 < size; k++)
        out[k] = s[k] >= 0x20 && s[k] < 0x7f ? s[k] : '?';
    if (s[k] != '\0' && k + 4 <= size) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = '\0';
}

/* Parses one number of type t from the NUL-terminated token `s` into
 * `out`. Returns 0, or -1 with the reason in `why`; *not_number tells a
 * token that is no number at all from one out of range. */
static int parse_number(const char *s, sb_type t, void *out,
                        int *not_number, char *why, size_t why_size)
{
    char shown[80];
    shown_token(s, shown, sizeof shown);
    char *end = NULL;
    *not_number = 0;
    errno = 0;
    /* A decimal read as f16 or bf16 through strtof would be rounded
     * twice, and no C function rounds it once: refused, not guessed. */
    if (t == SB_F16 || t == SB_BF16)
        return fail(why, why_size, "%s is not read from text (a decimal "
                    "would be rounded twice): give a .npy, .npz or raw file",
                    sb_type_name(t));
    if (t == SB_F32 || t == SB_F64) {
        /* strtof for f32, never strtod then a cast: that rounds twice,
         * and a decimal just above a tie between two floats would round
         * to the even one instead of up. */
        double v;
        if (t == SB_F32) {
            const float f = strtof(s, &end);    /* correctly rounded */
            memcpy(out, &f, 4);
            v = f;
        } else {
            v = strtod(s, &end);
            memcpy(out, &v, 8);
        }
        if (end == s || *end != '\0') {
            *not_number = 1;
            return fail(why, why_size, "'%s' is not a number", shown);
        }
        /* ERANGE is overflow (+-HUGE_VAL from a finite literal: refused,
         * it is no value of the type) or underflow: then glibc's result
         * is the correctly rounded subnormal or zero, the value wanted.
         * A literal "inf" is no ERANGE. */
        if (errno == ERANGE && isinf(v))
            return t == SB_F32
                ? fail(why, why_size, "%s is out of range for f32 (largest "
                       "finite %.9g)", shown, (double)FLT_MAX)
                : fail(why, why_size, "%s is out of range for f64 (largest "
                       "finite %.17g)", shown, DBL_MAX);
        return 0;
    }
    /* Integers: decimal digits after an optional sign, nothing else
     * (strtoll would also take leading blanks, which a token has not). */
    const char *digits = s + (s[0] == '+' || s[0] == '-');
    if (*digits < '0' || *digits > '9') {
        *not_number = 1;
        return fail(why, why_size, "'%s' is not an integer (the type is %s)",
                    shown, sb_type_name(t));
    }
    const int is_signed = t == SB_I8 || t == SB_I16 || t == SB_I32 || t == SB_I64;
    const unsigned bits = (unsigned)sb_type_size(t) * 8;
    if (is_signed) {
        const long long v = strtoll(s, &end, 10);
        if (*end != '\0') {
            *not_number = 1;
            return fail(why, why_size, "'%s' is not an integer (the type is "
                        "%s)", shown, sb_type_name(t));
        }
        const long long lo = bits == 64 ? LLONG_MIN : -(1LL << (bits - 1));
        const long long hi = bits == 64 ? LLONG_MAX : (1LL << (bits - 1)) - 1;
        if (errno == ERANGE || v < lo || v > hi)
            return fail(why, why_size, "%s is out of range for %s", shown,
                        sb_type_name(t));
        const int64_t w = v;
        memcpy(out, &w, bits / 8);  /* little-endian: the low bytes */
        return 0;
    }
    const unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0') {
        *not_number = 1;
        return fail(why, why_size, "'%s' is not an integer (the type is %s)",
                    shown, sb_type_name(t));
    }
    /* strtoull takes "-1" as ULLONG_MAX; only a negative zero is a value. */
    const unsigned long long hi = bits == 64 ? ULLONG_MAX : (1ULL << bits) - 1;
    if ((s[0] == '-' && v != 0) || errno == ERANGE || v > hi)
        return fail(why, why_size, "%s is out of range for %s", shown,
                    sb_type_name(t));
    const uint64_t w = v;
    memcpy(out, &w, bits / 8);
    return 0;
}

static int is_blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Text: tokens separated by any mix of blanks and commas, one or many per
 * line; blank lines are skipped and # starts a comment that runs to the
 * end of its line. A comma must stand between two numbers of its line.
 * `format_option` is set when the format was detected, not given: a
 * message then says how to read the file as raw data instead. */
static int load_text(const unsigned char *b, size_t size, const char *path,
                     sb_type type, const char *format_option, cli_data *d,
                     char *err, size_t err_size)
{
    if (type == 0) {
        fail(err, err_size, "%s: text data needs --type (only .npy and .npz "
             "files say what they hold)", path);
        return CLI_DATA_NEEDS_TYPE;
    }
    d->type = type;
    const size_t elem = sb_type_size(type);
    size_t n = 0, cap = 0, lineno = 0, data_lines = 0;
    unsigned char *out = NULL;
    const unsigned char *p = b, *end = b + size;
    if (size >= 3 && memcmp(b, "\xef\xbb\xbf", 3) == 0)
        p += 3;                      /* a UTF-8 byte order mark is no data */
    char token[TEXT_TOKEN_MAX];
    char why[TEXT_TOKEN_MAX + 128];
    while (p < end) {
        const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
        const unsigned char *e = nl != NULL ? nl : end;
        const unsigned char *s = p;
        p = nl != NULL ? nl + 1 : end;
        lineno++;
        size_t on_line = 0;
        int after_comma = 0;
        why[0] = '\0';
        int not_number = 0;
        while (s < e) {
            if (is_blank(*s)) {
                s++;
                continue;
            }
            if (*s == '#') {
                if (after_comma)
                    break;           /* a comma before it: an error below */
                s = e;
                continue;
            }
            if (*s == ',') {
                if (on_line == 0 || after_comma) {
                    fail(why, sizeof why, on_line == 0
                         ? "a comma with no number before it"
                         : "an empty field (two commas with no number "
                           "between them)");
                    break;
                }
                after_comma = 1;
                s++;
                continue;
            }
            const unsigned char *t = s;
            while (s < e && !is_blank(*s) && *s != ',')
                s++;
            const size_t len = (size_t)(s - t);
            if (len >= sizeof token) {
                char shown[48];
                memcpy(token, t, 40);
                token[40] = '\0';
                shown_token(token, shown, sizeof shown);
                fail(why, sizeof why, "a token of more than %d characters "
                     "('%s...') is not one number", TEXT_TOKEN_MAX - 1,
                     shown);
                not_number = 1;
                break;
            }
            memcpy(token, t, len);
            token[len] = '\0';
            if (memchr(t, '\0', len) != NULL) {
                char shown[80];
                shown_token(token, shown, sizeof shown);
                fail(why, sizeof why, "a NUL byte inside '%s...' is not a "
                     "number", shown);
                not_number = 1;
                break;
            }
            if (n == cap) {
                const size_t grown_cap = cap ? 2 * cap : 4096;
                unsigned char *grown = grown_cap <= SIZE_MAX / elem
                                     ? realloc(out, grown_cap * elem) : NULL;
                if (grown == NULL) {
                    free(out);
                    return fail(err, err_size, "%s: out of memory at line %zu",
                                path, lineno);
                }
                out = grown;
                cap = grown_cap;
            }
            if (parse_number(token, type, out + n * elem, &not_number, why,
                             sizeof why) != 0)
                break;
            n++;
            on_line++;
            after_comma = 0;
        }
        if (why[0] == '\0' && after_comma)
            fail(why, sizeof why, "a comma with no number after it");
        if (why[0] != '\0') {
            free(out);
            /* A word on the first line is most likely a CSV header; a file
             * that only looked like text may be raw data. */
            const int header = not_number && data_lines == 0 && on_line == 0
                && (isalpha((unsigned char)token[0]) || token[0] == '"'
                    || token[0] == '\'');
            return fail(err, err_size, "%s, line %zu: %s%s%s%s%s", path,
                        lineno, why,
                        header ? " (a header line? start it with #)" : "",
                        not_number && format_option ? "; if the file holds "
                        "raw binary data, give " : "",
                        not_number && format_option ? format_option : "",
                        not_number && format_option ? " raw" : "");
        }
        data_lines += on_line > 0;
    }
    d->owned = out;
    d->data = out != NULL ? (const void *)out : (const void *)"";
    d->n = n;
    return 0;
}

/* ---- what the content is ------------------------------------------------------ */

/* The length of the well-formed UTF-8 sequence of 2 to 4 bytes at p
 * (no overlong forms, no surrogates, nothing past U+10FFFF), or 0. */
static size_t utf8_length(const unsigned char *p, size_t left)
{
    const unsigned c = p[0];
    size_t len;
    unsigned lo = 0x80, hi = 0xBF;           /* the second byte's range */
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        lo = c == 0xE0 ? 0xA0 : 0x80;
        hi = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF;
    } else {
        return 0;
    }
    if (left < len || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    return len;
}

/* Whether b[0, size) is text: printable ASCII, blanks and newlines, and
 * well-formed UTF-8 (in comments, say); no NUL, no other control byte.
 * Raw numbers are almost never that, and text that is not numbers is
 * refused by the parser, line by line. Otherwise *bad is the offset of
 * the first byte that is not text. */
static int is_text(const unsigned char *b, size_t size, size_t *bad)
{
    size_t i = size >= 3 && memcmp(b, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    while (i < size) {
        const unsigned char c = b[i];
        if ((c >= 0x20 && c < 0x7f) || c == '\n' || is_blank(c)) {
            i++;
            continue;
        }
        const size_t len = c >= 0x80 ? utf8_length(b + i, size - i) : 0;
        if (len == 0) {
            *bad = i;
            return 0;
        }
        i += len;
    }
    return 1;
}

/* What binary content looks like, by its first bytes, or NULL. */
static const char *binary_kind(const unsigned char *b, size_t size)
{
    static const struct {
        const char *magic;
        size_t      len;
        const char *what;
    } kinds[] = {
        { "\x1f\x8b", 2, "gzip-compressed data (decompress it first)" },
        { "\x28\xb5\x2f\xfd", 4, "zstd-compressed data (decompress it first)" },
        { "\xfd" "7zXZ", 5, "xz-compressed data (decompress it first)" },
        { "BZh", 3, "bzip2-compressed data (decompress it first)" },
        { "\x04\x22\x4d\x18", 4, "lz4-compressed data (decompress it first)" },
        { "7z\xbc\xaf\x27\x1c", 6, "a 7-Zip archive" },
        { "\x89HDF\r\n\x1a\n", 8, "an HDF5 file (.h5, NetCDF-4): save the "
          "array with np.save" },
        { "CDF\x01", 4, "a NetCDF file: save the array with np.save" },
        { "CDF\x02", 4, "a NetCDF file: save the array with np.save" },
        { "PAR1", 4, "a Parquet file" },
        { "ARROW1", 6, "an Arrow file" },
        { "\x89PNG", 4, "a PNG image" },
        { "%PDF", 4, "a PDF document" },
        { "\x7f" "ELF", 4, "an executable (ELF)" },
        { "\xff\xfe", 2, "UTF-16 text (convert it: iconv -f UTF-16 -t UTF-8)" },
        { "\xfe\xff", 2, "UTF-16 text (convert it: iconv -f UTF-16 -t UTF-8)" },
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (size >= kinds[i].len && memcmp(b, kinds[i].magic, kinds[i].len) == 0)
            return kinds[i].what;
    /* pickle protocols 2 to 5 start with PROTO (0x80) and the version. */
    if (size >= 2 && b[0] == 0x80 && b[1] >= 2 && b[1] <= 5)
        return "a Python pickle (save the array with np.save)";
    return NULL;
}

/* The line of byte `at`, counting from 1, for a message. */
static size_t line_of(const unsigned char *b, size_t at)
{
    size_t line = 1;
    for (size_t i = 0; i < at; i++)
        line += b[i] == '\n';
    return line;
}

/* --format auto: .npy by its magic, .npz by a zip header, else text;
 * refuses the rest. A mask whose bytes are all 0 or 1 is raw: no text,
 * .npy or zip is that. */
static int detect(const unsigned char *b, size_t size, const char *name,
                  const char *path, sb_type type, int mask, cli_format *format,
                  char *err, size_t err_size)
{
    if (size >= 6 && memcmp(b, "\x93NUMPY", 6) == 0) {
        *format = CLI_FORMAT_NPY;
        return 0;
    }
    if (size >= 4 && (memcmp(b, "PK\x03\x04", 4) == 0
                      || memcmp(b, "PK\x05\x06", 4) == 0)) {
        *format = CLI_FORMAT_NPZ;
        return 0;
    }
    /* The name decides nothing, but a file named .npy that is no .npy (an
     * empty one, left by a failed save) must not read as text. */
    const char *option = mask ? "--mask-format" : "--format";
    if (path != NULL && (ends_with(path, ".npy") || ends_with(path, ".npz")))
        return fail(err, err_size, "%s: %s, but the name says %s: not a "
                    "NumPy file (give %s text or %s raw to read it as such)",
                    name, size == 0 ? "empty" : "no \\x93NUMPY magic nor zip "
                    "header", path + strlen(path) - 4, option, option);
    size_t bad = 0;
    if (is_text(b, size, &bad)) {
        *format = CLI_FORMAT_TEXT;
        return 0;
    }
    size_t big = 0;                  /* a mask's first byte above 1 */
    if (mask) {
        while (big < size && b[big] <= 1)
            big++;
        if (big == size) {
            *format = CLI_FORMAT_RAW;
            return 0;
        }
    }
    const char *kind = binary_kind(b, size);
    char what[200], where[64] = "";
    const size_t line = line_of(b, bad);
    if (line > 1)                    /* a text file with one stray byte */
        snprintf(where, sizeof where, ", line %zu", line);
    if (kind != NULL) {
        snprintf(what, sizeof what, "looks like %s", kind);
    } else if (mask) {
        snprintf(what, sizeof what, "binary data of unknown format (byte "
                 "0x%02x at offset %zu%s is not text, byte 0x%02x at offset "
                 "%zu not 0 or 1)", b[bad], bad, where, b[big], big);
    } else {
        snprintf(what, sizeof what, "binary data of unknown format (byte "
                 "0x%02x at offset %zu%s is not text)", b[bad], bad, where);
    }
    if (mask)
        return fail(err, err_size, "%s: %s; it is not .npy, .npz or text: "
                    "if it holds one byte per element, give --mask-format raw",
                    name, what);
    if (type == 0)
        return fail(err, err_size, "%s: %s; it is not .npy, .npz or text: if "
                    "it holds raw little-endian elements, give --format raw "
                    "and --type", name, what);
    return fail(err, err_size, "%s: %s; it is not .npy, .npz or text: if it "
                "holds raw little-endian %s elements, give --format raw", name,
                what, sb_type_name(type));
}

/* ---- the loader -------------------------------------------------------------- */

static const char *format_name(cli_format f)
{
    switch (f) {
    case CLI_FORMAT_RAW:  return "raw data";
    case CLI_FORMAT_TEXT: return "text";
    case CLI_FORMAT_NPY:  return "a .npy file";
    case CLI_FORMAT_NPZ:  return "a .npz archive";
    default:              return "auto";
    }
}

/* Drops the file's bytes (a map or a read buffer) once they are not used. */
static void drop_bytes(cli_data *d)
{
    if (d->map != NULL) {
        munmap(d->map, d->map_size);
        d->map = NULL;
        d->map_size = 0;
    }
    free(d->owned);
    d->owned = NULL;
}

/* The elements of the bytes b[0, size) that `out` holds (a map or a read
 * buffer): detected, parsed and checked as cli_data_load() says. */
static int load_bytes(const unsigned char *b, size_t size, const char *name,
                      int use_stdin, const char *path, cli_format format,
                      sb_type type, int mask, int keep_order,
                      const char *array, cli_data *out, char *err,
                      size_t err_size)
{
    int rc = 0;
    const int detected = format == CLI_FORMAT_AUTO;
    if (detected)
        rc = detect(b, size, name, use_stdin ? NULL : path, type, mask,
                    &format, err, err_size);
    if (rc == 0 && array != NULL && format != CLI_FORMAT_NPZ)
        rc = fail(err, err_size, "%s: %s NAME picks an array of a .npz "
                  "archive, and this is %s", name,
                  mask ? "--mask-array" : "--array", format_name(format));
    if (rc != 0) {
        cli_data_free(out);
        return rc;
    }
    out->format = format;
    const char *format_option = mask ? "--mask-format" : "--format";
    switch (format) {
    case CLI_FORMAT_NPY:
        rc = load_npy(b, size, name, type, mask, keep_order, out, err,
                      err_size);
        break;
    case CLI_FORMAT_NPZ: {
        const unsigned char *member = NULL;
        size_t member_size = 0;
        void *inflated = NULL;
        char member_name[96], what[640];
        rc = cli_npz_member(b, size, name, array,
                            mask ? "--mask-array" : "--array", &member,
                            &member_size, &inflated, member_name,
                            sizeof member_name, err, err_size);
        if (rc != 0)
            break;
        if (inflated != NULL) {
            /* Only the inflated member is used: the archive can go. */
            drop_bytes(out);
            out->owned = inflated;
        }
        snprintf(what, sizeof what, "%s[%s]", name, member_name);
        rc = load_npy(member, member_size, what, type, mask, keep_order, out,
                      err, err_size);
        break;
    }
    case CLI_FORMAT_TEXT: {
        /* The numbers go to an array of their own; the text is then let go. */
        cli_data text = *out;
        out->map = NULL;
        out->owned = NULL;
        rc = load_text(b, size, name, type, detected ? format_option : NULL,
                       out, err, err_size);
        drop_bytes(&text);
        break;
    }
    default:
        if (type == 0) {
            fail(err, err_size, "%s: raw data needs --type", name);
            rc = CLI_DATA_NEEDS_TYPE;
            break;
        }
        out->type = type;
        rc = use_elements(out, b, size, name, err, err_size);
        break;
    }
    if (rc == 0 && format != CLI_FORMAT_NPY && format != CLI_FORMAT_NPZ) {
        out->ndim = 1;                   /* text and raw are flat */
        out->dims[0] = out->n;
    }
    if (rc != 0)
        cli_data_free(out);
    return rc;
}

int cli_data_load(const char *path, cli_format format, sb_type type,
                  int mask, const char *array, cli_data *out, char *err,
                  size_t err_size)
{
    return cli_data_load_shaped(path, format, type, mask, array, 0, out, err,
                                err_size);
}

int cli_data_load_shaped(const char *path, cli_format format, sb_type type,
                         int mask, const char *array, int keep_order,
                         cli_data *out, char *err, size_t err_size)
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
    return load_bytes(b, size, name, use_stdin, path, format, type, mask,
                      keep_order, array, out, err, err_size);
}

/* ---- in pieces ----------------------------------------------------------------- */

/* Reads up to `want` bytes (fewer only at the end of the input). */
static int read_full(int fd, const char *name, unsigned char *buf,
                     size_t want, size_t *got, char *err, size_t err_size)
{
    *got = 0;
    while (*got < want) {
        const ssize_t r = read(fd, buf + *got, want - *got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return fail(err, err_size, "%s: %s", name, strerror(errno));
        if (r == 0)
            break;
        *got += (size_t)r;
    }
    return 0;
}

/* The stream hands out s->data, loaded whole with status rc. */
static int use_whole(cli_stream *s, int rc)
{
    if (rc != 0)
        return rc;
    s->type = s->data.type;
    s->format = s->data.format;
    s->n = s->data.n;
    s->n_known = 1;
    return 0;
}

int cli_stream_open(const char *path, cli_format format, sb_type type,
                    int mask, const char *array, size_t piece,
                    cli_stream *s, char *err, size_t err_size)
{
    memset(s, 0, sizeof *s);
    s->fd = -1;
    if (mask)
        type = SB_U8;
    const int use_stdin = strcmp(path, "-") == 0;
    s->name = use_stdin ? "standard input" : path;
    struct stat st;
    const int piped = use_stdin && array == NULL
        && !is_mappable(STDIN_FILENO, &st)
        && (format == CLI_FORMAT_RAW || format == CLI_FORMAT_NPY
            || format == CLI_FORMAT_AUTO);
    if (!piped)
        return use_whole(s, cli_data_load(path, format, type, mask, array,
                                          &s->data, err, err_size));
    /* A pipe: its first bytes say whether it is a .npy. */
    size_t cap = 1 << 16, used = 0;
    unsigned char *head = malloc(cap);
    if (head == NULL)
        return fail(err, err_size, "%s: out of memory", s->name);
    size_t got = 0;
    if (read_full(STDIN_FILENO, s->name, head, 12, &got, err, err_size) != 0) {
        free(head);
        return -1;
    }
    used = got;
    const int is_npy = used >= 6 && memcmp(head, "\x93NUMPY", 6) == 0;
    if (format == CLI_FORMAT_RAW || is_npy) {
        size_t start = 0;
        if (is_npy && format != CLI_FORMAT_RAW) {
            const size_t hb = npy_header_bytes(head, used);
            if (hb == 0 || hb > (1u << 24)) {
                free(head);
                return fail(err, err_size, "%s: corrupt .npy header", s->name);
            }
            if (hb > cap) {
                unsigned char *grown = realloc(head, hb);
                if (grown == NULL) {
                    free(head);
                    return fail(err, err_size, "%s: out of memory", s->name);
                }
                head = grown;
                cap = hb;
            }
            if (read_full(STDIN_FILENO, s->name, head + used, hb - used, &got,
                          err, err_size) != 0) {
                free(head);
                return -1;
            }
            used += got;
            size_t count = 0;
            sb_type t = 0;
            if (npy_header(head, used, s->name, type, mask, 0, &t, &count,
                           &start, NULL, err, err_size) != 0) {
                free(head);
                return -1;
            }
            s->type = t;
            s->n = count;
            s->n_known = 1;
            s->format = CLI_FORMAT_NPY;
        } else {
            if (type == 0) {
                free(head);
                fail(err, err_size, "%s: raw data needs --type", s->name);
                return CLI_DATA_NEEDS_TYPE;
            }
            s->type = type;
            s->format = CLI_FORMAT_RAW;
        }
        const size_t elem = sb_type_size(s->type);
        s->buf = malloc(piece * elem);
        if (s->buf == NULL) {
            free(head);
            return fail(err, err_size, "%s: out of memory for a piece of %zu "
                        "elements", s->name, piece);
        }
        /* What was read past the header (at most 12 bytes) starts the
         * first piece. */
        s->carry = used - start;
        memcpy(s->carry_bytes, head + start, s->carry);
        free(head);
        s->fd = STDIN_FILENO;
        s->piece = piece;
        return 0;
    }
    /* Not a .npy and not raw: read it whole, as cli_data_load() does. */
    for (;;) {
        if (used == cap) {
            unsigned char *grown = realloc(head, cap * 2);
            if (grown == NULL) {
                free(head);
                return fail(err, err_size, "%s: out of memory", s->name);
            }
            head = grown;
            cap *= 2;
        }
        if (read_full(STDIN_FILENO, s->name, head + used, cap - used, &got,
                      err, err_size) != 0) {
            free(head);
            return -1;
        }
        used += got;
        if (used < cap)
            break;
    }
    s->data.owned = head;
    return use_whole(s, load_bytes(head, used, s->name, 1, path, format, type,
                                   mask, 0, array, &s->data, err, err_size));
}

int cli_stream_next(cli_stream *s, size_t max, const void **elems,
                    size_t *count, char *err, size_t err_size)
{
    *count = 0;
    *elems = NULL;
    const size_t elem = sb_type_size(s->type);
    if (s->fd < 0) {
        /* In memory or mapped: the next slice. The pages of a map before
         * it are let go, so that a file larger than memory stays out of
         * it (they are still in the page cache, clean). */
        if (s->data.map != NULL && s->done > 0) {
            const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
            const uintptr_t base = (uintptr_t)s->data.map + s->released;
            const uintptr_t upto = ((uintptr_t)s->data.data
                                    + s->done * elem) & ~(page - 1);
            if (upto > base) {
                madvise((void *)base, upto - base, MADV_DONTNEED);
                s->released += upto - base;
            }
        }
        const size_t left = s->n - s->done;
        *count = left < max ? left : max;
        *elems = (const unsigned char *)s->data.data + s->done * elem;
        s->done += *count;
        return 0;
    }
    if (max > s->piece)
        max = s->piece;
    if (s->n_known && max > s->n - s->done)
        max = s->n - s->done;
    size_t got = 0;
    const size_t want = max * elem;
    const size_t from_carry = s->carry < want ? s->carry : want;
    memcpy(s->buf, s->carry_bytes, from_carry);
    memmove(s->carry_bytes, s->carry_bytes + from_carry,
            s->carry - from_carry);
    s->carry -= from_carry;
    if (read_full(s->fd, s->name, s->buf + from_carry, want - from_carry,
                  &got, err, err_size) != 0)
        return -1;
    const size_t have = from_carry + got;
    if (have % elem != 0)
        return fail(err, err_size, "%s: %zu bytes is not a whole number of "
                    "%s elements (%zu bytes each): truncated?", s->name,
                    s->done * elem + have, sb_type_name(s->type), elem);
    *count = have / elem;
    *elems = s->buf;
    s->done += *count;
    if (s->n_known && *count < max)
        return fail(err, err_size, "%s: the .npy header says %zu elements, "
                    "but the data end after %zu: truncated", s->name, s->n,
                    s->done);
    if (s->n_known && s->done == s->n) {
        unsigned char extra;
        size_t more = 0;
        if (read_full(s->fd, s->name, &extra, 1, &more, err, err_size) != 0)
            return -1;
        if (more != 0)
            return fail(err, err_size, "%s: the .npy header says %zu "
                        "elements, but more data follow: extra bytes at the "
                        "end", s->name, s->n);
    }
    return 0;
}

void cli_stream_close(cli_stream *s)
{
    cli_data_free(&s->data);
    free(s->buf);
    memset(s, 0, sizeof *s);
    s->fd = -1;
}

void cli_data_free(cli_data *d)
{
    drop_bytes(d);
    memset(d, 0, sizeof *d);
}
