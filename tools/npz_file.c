/* npz_file.c: finds one .npy member of a NumPy .npz file for
 * tools/data_file.c. A .npz is a zip archive of .npy files: np.savez
 * stores them, np.savez_compressed deflates them (zlib inflates those).
 *
 * The central directory is the only place where a member's sizes and
 * CRC-32 are always right: a local header may hold zeros (a data
 * descriptor follows the data) or ZIP64 placeholders. So the directory is
 * found from the end-of-central-directory record (and its ZIP64 record
 * for archives past 4 GiB or 65535 members) and trusted; a local header
 * only says where the data starts. Every offset and size comes from the
 * file, so each is checked against the file's size before a byte is read:
 * a corrupt archive is one line of error, never a crash. */
#include "cli.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SAMEBITS_HAVE_ZLIB
#  define ZLIB_CONST            /* next_in is a pointer to const */
#  include <zlib.h>
#endif

enum {
    EOCD_SIZE = 22,            /* end-of-central-directory record */
    EOCD_COMMENT_MAX = 65535,
    ZIP64_LOCATOR_SIZE = 20,
    ZIP64_EOCD_SIZE = 56,
    CENTRAL_SIZE = 46,         /* central directory header, before its name */
    LOCAL_SIZE = 30,           /* local file header, before its name */
    LIST_MAX = 160             /* room for the member names in a message */
};

#define SIG_LOCAL        0x04034b50u
#define SIG_CENTRAL      0x02014b50u
#define SIG_EOCD         0x06054b50u
#define SIG_ZIP64_EOCD   0x06064b50u
#define SIG_ZIP64_LOCATOR 0x07064b50u


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

static unsigned le16(const unsigned char *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16
         | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* ---- the central directory ------------------------------------------------ */

typedef struct {
    uint64_t offset;      /* of the directory, from the start of the file */
    uint64_t size;
    uint64_t entries;
} zip_directory;

/* One member, as its central directory header describes it. */
typedef struct {
    const unsigned char *name;   /* name_len bytes, not NUL-terminated */
    size_t   name_len;
    unsigned flags, method;
    uint32_t crc;
    uint64_t csize, usize;       /* compressed and uncompressed sizes */
    uint64_t local;              /* offset of its local header */
} zip_entry;

static int find_directory(const unsigned char *b, size_t size,
                          const char *path, zip_directory *dir, char *err,
                          size_t err_size)
{
    if (size < EOCD_SIZE)
        return fail(err, err_size, "%s: a zip archive (.npz) cut short: "
                    "%zu bytes, no end-of-central-directory record", path,
                    size);
    /* The record ends the file, after a comment of up to 64 KiB. */
    size_t eocd = size - EOCD_SIZE;
    const size_t lowest = size - EOCD_SIZE > EOCD_COMMENT_MAX
                        ? size - EOCD_SIZE - EOCD_COMMENT_MAX : 0;
    for (;;) {
        if (le32(b + eocd) == SIG_EOCD
                && le16(b + eocd + 20) <= size - eocd - EOCD_SIZE)
            break;
        if (eocd == lowest)
            return fail(err, err_size, "%s: a zip archive (.npz) without its "
                        "end-of-central-directory record: truncated?", path);
        eocd--;
    }
    const unsigned char *e = b + eocd;
    uint64_t disk = le16(e + 4), dir_disk = le16(e + 6);
    uint64_t here = le16(e + 8), total = le16(e + 10);
    dir->size = le32(e + 12);
    dir->offset = le32(e + 16);
    uint64_t limit = eocd;       /* the directory ends before this */
    if (here == 0xFFFF || total == 0xFFFF || dir->size == 0xFFFFFFFFu
            || dir->offset == 0xFFFFFFFFu) {
        /* ZIP64: a locator just before the record points at the ZIP64
         * record, which holds the real values. */
        if (eocd < ZIP64_LOCATOR_SIZE
                || le32(b + eocd - ZIP64_LOCATOR_SIZE) != SIG_ZIP64_LOCATOR)
            return fail(err, err_size, "%s: corrupt zip archive: its ZIP64 "
                        "end-of-central-directory locator is missing", path);
        const unsigned char *loc = b + eocd - ZIP64_LOCATOR_SIZE;
        const uint64_t at = le64(loc + 8);
        if (le32(loc + 16) > 1)
            return fail(err, err_size, "%s: a multi-volume (split) zip "
                        "archive: not supported", path);
        if (at > eocd - ZIP64_LOCATOR_SIZE
                || eocd - ZIP64_LOCATOR_SIZE - at < ZIP64_EOCD_SIZE
                || le32(b + at) != SIG_ZIP64_EOCD)
            return fail(err, err_size, "%s: corrupt zip archive: bad ZIP64 "
                        "end-of-central-directory record", path);
        const unsigned char *z = b + at;
        disk = le32(z + 16);
        dir_disk = le32(z + 20);
        here = le64(z + 24);
        total = le64(z + 32);
        dir->size = le64(z + 40);
        dir->offset = le64(z + 48);
        limit = at;
    }
    if (disk != 0 || dir_disk != 0 || here != total)
        return fail(err, err_size, "%s: a multi-volume (split) zip archive: "
                    "not supported", path);
    if (dir->offset > limit || dir->size > limit - dir->offset)
        return fail(err, err_size, "%s: corrupt zip archive: its central "
                    "directory (%" PRIu64 " bytes at %" PRIu64 ") lies outside "
                    "the file: truncated?", path, dir->size, dir->offset);
    if (total > dir->size / CENTRAL_SIZE)
        return fail(err, err_size, "%s: corrupt zip archive: %" PRIu64
                    " members cannot fit in a central directory of %" PRIu64
                    " bytes", path, total, dir->size);
    dir->entries = total;
    return 0;
}

/* The ZIP64 extra field (id 1) holds, in this order, each of the
 * uncompressed size, compressed size and local header offset whose
 * 32-bit field is 0xFFFFFFFF. */
static int zip64_extra(const unsigned char *x, size_t len, zip_entry *z)
{
    int need_u = z->usize == 0xFFFFFFFFu, need_c = z->csize == 0xFFFFFFFFu;
    int need_l = z->local == 0xFFFFFFFFu;
    while (len >= 4) {
        const unsigned id = le16(x), n = le16(x + 2);
        if (n > len - 4)
            return -1;
        if (id == 1) {
            const unsigned char *v = x + 4;
            size_t left = n;
            uint64_t *fields[3] = { need_u ? &z->usize : NULL,
                                    need_c ? &z->csize : NULL,
                                    need_l ? &z->local : NULL };
            for (int i = 0; i < 3; i++) {
                if (fields[i] == NULL)
                    continue;
                if (left < 8)
                    return -1;
                *fields[i] = le64(v);
                v += 8;
                left -= 8;
            }
            return 0;
        }
        x += 4 + n;
        len -= 4 + n;
    }
    return need_u || need_c || need_l ? -1 : 0;
}

/* Reads the header at *pos of the directory and moves *pos past it. */
static int next_entry(const unsigned char *d, uint64_t dir_size, uint64_t *pos,
                      zip_entry *z, const char *path, char *err,
                      size_t err_size)
{
    const uint64_t at = *pos;
    if (dir_size - at < CENTRAL_SIZE || le32(d + at) != SIG_CENTRAL)
        return fail(err, err_size, "%s: corrupt zip archive: bad central "
                    "directory header at byte %" PRIu64 " of the directory",
                    path, at);
    const unsigned char *h = d + at;
    const size_t name_len = le16(h + 28), extra_len = le16(h + 30);
    const size_t comment_len = le16(h + 32);
    if (dir_size - at - CENTRAL_SIZE < (uint64_t)name_len + extra_len
                                       + comment_len)
        return fail(err, err_size, "%s: corrupt zip archive: a central "
                    "directory header runs past the directory", path);
    z->flags = le16(h + 8);
    z->method = le16(h + 10);
    z->crc = le32(h + 16);
    z->csize = le32(h + 20);
    z->usize = le32(h + 24);
    z->local = le32(h + 42);
    z->name = h + CENTRAL_SIZE;
    z->name_len = name_len;
    if (zip64_extra(h + CENTRAL_SIZE + name_len, extra_len, z) != 0)
        return fail(err, err_size, "%s: corrupt zip archive: a member's "
                    "ZIP64 sizes are missing", path);
    *pos = at + CENTRAL_SIZE + name_len + extra_len + comment_len;
    return 0;
}

/* ---- names ------------------------------------------------------------------ */

static int has_npy_suffix(const unsigned char *name, size_t len)
{
    return len > 4 && memcmp(name + len - 4, ".npy", 4) == 0;
}

/* The name as the user knows it: without ".npy" (np.savez adds it to each
 * keyword), unprintable bytes as '?', cut to fit. */
static void display_name(const unsigned char *name, size_t len, char *out,
                         size_t size)
{
    if (has_npy_suffix(name, len))
        len -= 4;
    size_t k = 0;
    for (size_t i = 0; i < len && k + 4 < size; i++)
        out[k++] = name[i] >= 0x20 && name[i] < 0x7f ? (char)name[i] : '?';
    if (k < len && k + 4 <= size) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = '\0';
}

/* "x, y, mask", as much as fits, then "...". */
typedef struct {
    char text[LIST_MAX];
    int  full;
} name_list;

static void list_add(name_list *list, const unsigned char *name, size_t len)
{
    char shown[64];
    display_name(name, len, shown, sizeof shown);
    const size_t used = strlen(list->text);
    if (list->full)
        return;
    if (used + strlen(shown) + 8 > sizeof list->text) {
        snprintf(list->text + used, sizeof list->text - used, ", ...");
        list->full = 1;
    } else {
        snprintf(list->text + used, sizeof list->text - used, "%s%s",
                 used ? ", " : "", shown);
    }
}

static int name_matches(const zip_entry *z, const char *array)
{
    const size_t n = strlen(array);
    if (z->name_len == n && memcmp(z->name, array, n) == 0)
        return 1;
    return z->name_len == n + 4 && memcmp(z->name, array, n) == 0
        && memcmp(z->name + n, ".npy", 4) == 0;
}

static const char *method_name(unsigned method)
{
    switch (method) {
    case 9:  return " (deflate64)";
    case 12: return " (bzip2)";
    case 14: return " (LZMA)";
    case 93: return " (zstd)";
    case 95: return " (xz)";
    case 98: return " (PPMd)";
    default: return "";
    }
}

/* ---- the member's bytes ------------------------------------------------------ */

static uint32_t crc32_of(const unsigned char *p, size_t n)
{
#ifdef SAMEBITS_HAVE_ZLIB
    uLong c = crc32(0L, Z_NULL, 0);
    while (n > 0) {
        const uInt k = n > (1u << 30) ? 1u << 30 : (uInt)n;   /* uInt: 32 bits */
        c = crc32(c, p, k);
        p += k;
        n -= k;
    }
    return (uint32_t)c;
#else
    /* The same CRC-32 (zip's, reflected 0xEDB88320) without zlib. */
    static uint32_t table[256];
    if (table[1] == 0)
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
#endif
}

#ifdef SAMEBITS_HAVE_ZLIB
/* Inflates the raw deflate stream src[0, csize) into dst, which has room
 * for usize + 1 bytes: the spare byte catches a stream that inflates to
 * more than the directory says. */
static int inflate_member(const unsigned char *src, uint64_t csize,
                          unsigned char *dst, uint64_t usize, const char *what,
                          char *err, size_t err_size)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK)
        return fail(err, err_size, "%s: zlib cannot start inflating: out of "
                    "memory?", what);
    const uInt chunk = 1u << 30;              /* avail_in/out are 32 bits */
    uint64_t in_left = csize, out_left = usize + 1;
    z.next_in = src;
    z.next_out = dst;
    int zr;
    for (;;) {
        if (z.avail_in == 0 && in_left > 0) {
            z.avail_in = in_left > chunk ? chunk : (uInt)in_left;
            in_left -= z.avail_in;
        }
        if (z.avail_out == 0 && out_left > 0) {
            z.avail_out = out_left > chunk ? chunk : (uInt)out_left;
            out_left -= z.avail_out;
        }
        zr = inflate(&z, Z_NO_FLUSH);
        if (zr == Z_STREAM_END)
            break;
        if (zr != Z_OK && zr != Z_BUF_ERROR) {
            const char *msg = z.msg != NULL ? z.msg : "bad data";
            inflateEnd(&z);
            return fail(err, err_size, "%s: corrupt deflated data (zlib: %s)",
                        what, msg);
        }
        if (z.avail_out == 0 && out_left == 0) {
            inflateEnd(&z);
            return fail(err, err_size, "%s: corrupt zip archive: the member "
                        "inflates to more than the %" PRIu64 " bytes its "
                        "directory entry says", what, usize);
        }
        if (z.avail_in == 0 && in_left == 0) {
            inflateEnd(&z);
            return fail(err, err_size, "%s: corrupt zip archive: the deflated "
                        "data (%" PRIu64 " bytes) ends before its end mark: "
                        "truncated?", what, csize);
        }
    }
    const uint64_t produced = (uint64_t)(z.next_out - dst);
    inflateEnd(&z);
    if (produced != usize)
        return fail(err, err_size, "%s: corrupt zip archive: the member "
                    "inflates to %" PRIu64 " bytes, its directory entry says "
                    "%" PRIu64, what, produced, usize);
    return 0;
}
#endif

/* ---- the member --------------------------------------------------------------- */

int cli_npz_member(const unsigned char *b, size_t size, const char *path,
                   const char *array, const char *option,
                   const unsigned char **member, size_t *member_size,
                   void **inflated, char *name, size_t name_size,
                   char *err, size_t err_size)
{
    *member = NULL;
    *member_size = 0;
    *inflated = NULL;
    name[0] = '\0';
    /* np.savez writes a member first (PK\3\4); an empty archive is its end
     * record alone (PK\5\6). */
    if (size < 4 || (memcmp(b, "PK\x03\x04", 4) != 0
                     && memcmp(b, "PK\x05\x06", 4) != 0))
        return fail(err, err_size, "%s: not a .npz file (no zip header)%s",
                    path, size >= 6 && memcmp(b, "\x93NUMPY", 6) == 0
                    ? ": a .npy, so --format npy?" : "");
    zip_directory dir;
    memset(&dir, 0, sizeof dir);
    if (find_directory(b, size, path, &dir, err, err_size) != 0)
        return -1;

    /* Walk the whole directory: it must be sound, and the names of the
     * arrays are what a message lists. */
    const unsigned char *d = b + dir.offset;
    uint64_t pos = 0;
    size_t arrays = 0, others = 0, matches = 0;
    name_list list, other_list;
    memset(&list, 0, sizeof list);
    memset(&other_list, 0, sizeof other_list);
    zip_entry chosen, z;
    memset(&chosen, 0, sizeof chosen);
    for (uint64_t i = 0; i < dir.entries; i++) {
        if (next_entry(d, dir.size, &pos, &z, path, err, err_size) != 0)
            return -1;
        if (z.name_len > 0 && z.name[z.name_len - 1] == '/')
            continue;                                  /* a directory */
        const int npy = has_npy_suffix(z.name, z.name_len);
        if (npy) {
            arrays++;
            list_add(&list, z.name, z.name_len);
        } else {
            others++;
            list_add(&other_list, z.name, z.name_len);
        }
        if (array != NULL ? name_matches(&z, array) : npy) {
            matches++;
            chosen = z;
        }
    }
    if (arrays == 0 && others == 0)
        return fail(err, err_size, "%s: an empty zip archive: no array to "
                    "reduce", path);
    if (array != NULL && matches == 0)
        return fail(err, err_size, "%s has no array '%s' (%s %s%s%s)", path,
                    array, arrays ? "it holds" : "it holds no .npy; its "
                    "members:", arrays ? list.text : other_list.text,
                    arrays && others ? "; other members: " : "",
                    arrays && others ? other_list.text : "");
    if (array != NULL && matches > 1)
        return fail(err, err_size, "%s holds %zu members named '%s': which "
                    "one is meant is ambiguous", path, matches, array);
    if (array == NULL && arrays == 0)
        return fail(err, err_size, "%s: a zip archive, but not a .npz: none "
                    "of its %zu member%s (%s) is a .npy file", path, others,
                    others == 1 ? "" : "s", other_list.text);
    if (array == NULL && arrays > 1)
        return fail(err, err_size, "%s holds %zu arrays (%s): give %s NAME",
                    path, arrays, list.text, option);

    display_name(chosen.name, chosen.name_len, name, name_size);
    char what[512];
    snprintf(what, sizeof what, "%s[%s]", path, name);
    if (chosen.flags & 0x41)
        return fail(err, err_size, "%s: the member is encrypted: samebits "
                    "cannot read it", what);
    if (chosen.method != 0 && chosen.method != 8)
        return fail(err, err_size, "%s: compression method %u%s is not "
                    "supported: samebits reads stored (np.savez) and "
                    "deflated (np.savez_compressed) members", what,
                    chosen.method, method_name(chosen.method));
    if (chosen.method == 0 && chosen.csize != chosen.usize)
        return fail(err, err_size, "%s: corrupt zip archive: a stored member "
                    "whose two sizes differ (%" PRIu64 " and %" PRIu64
                    " bytes)", what, chosen.usize, chosen.csize);

    /* The local header: where the data starts. Its sizes and CRC may be
     * zeros (a data descriptor follows the data) or ZIP64 placeholders:
     * the directory's are the ones used. */
    const uint64_t at = chosen.local;
    if (at > size || size - at < LOCAL_SIZE || le32(b + at) != SIG_LOCAL)
        return fail(err, err_size, "%s: corrupt zip archive: no local header "
                    "at byte %" PRIu64 " where the directory says", what, at);
    const size_t lname = le16(b + at + 26), lextra = le16(b + at + 28);
    if (size - at - LOCAL_SIZE < (uint64_t)lname + lextra)
        return fail(err, err_size, "%s: corrupt zip archive: a local header "
                    "runs past the end of the file", what);
    if (lname != chosen.name_len
            || memcmp(b + at + LOCAL_SIZE, chosen.name, lname) != 0)
        return fail(err, err_size, "%s: corrupt zip archive: the local header "
                    "names another member than the directory", what);
    const uint64_t data = at + LOCAL_SIZE + lname + lextra;
    if (chosen.csize > size - data)
        return fail(err, err_size, "%s: corrupt zip archive: the member's %"
                    PRIu64 " bytes run past the end of the file: truncated?",
                    what, chosen.csize);
    if (chosen.usize > SIZE_MAX - 1)
        return fail(err, err_size, "%s: a member of %" PRIu64 " bytes is too "
                    "large for this machine", what, chosen.usize);

    const unsigned char *bytes = b + data;
    if (chosen.method == 8) {
#ifdef SAMEBITS_HAVE_ZLIB
        /* Deflate compresses nothing by more than 1032:1; a directory
         * that claims more is corrupt, and must not make us allocate it. */
        if (chosen.usize / 1032 > chosen.csize + 64)
            return fail(err, err_size, "%s: corrupt zip archive: %" PRIu64
                        " deflated bytes cannot inflate to the %" PRIu64
                        " its directory entry says", what, chosen.csize,
                        chosen.usize);
        unsigned char *out = malloc((size_t)chosen.usize + 1);
        if (out == NULL)
            return fail(err, err_size, "%s: out of memory for its %" PRIu64
                        " inflated bytes", what, chosen.usize);
        if (inflate_member(bytes, chosen.csize, out, chosen.usize, what, err,
                           err_size) != 0) {
            free(out);
            return -1;
        }
        *inflated = out;
        bytes = out;
#else
        return fail(err, err_size, "%s: compressed .npz members need zlib; "
                    "rebuild samebits with zlib1g-dev, or save with np.savez",
                    what);
#endif
    }
    const uint32_t crc = crc32_of(bytes, (size_t)chosen.usize);
    if (crc != chosen.crc) {
        free(*inflated);
        *inflated = NULL;
        return fail(err, err_size, "%s: CRC-32 mismatch (the archive says "
                    "0x%08" PRIx32 ", the member's bytes give 0x%08" PRIx32
                    "): the archive is corrupt", what, chosen.crc, crc);
    }
    *member = bytes;
    *member_size = (size_t)chosen.usize;
    return 0;
}
