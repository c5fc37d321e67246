/* npy_write.c: writes a 1-D NumPy .npy (format 1.0), the answers of
 * `samebits reduce --axis / --segments --out`. A written file is whole
 * or absent: the bytes go to a temporary file beside the target, which is
 * renamed over it only once everything is on disk, so a full disk or a
 * failed write never leaves a truncated .npy that numpy would read as
 * fewer answers. */
#define _POSIX_C_SOURCE 200809L   /* mkstemp, fchmod, umask */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The header: magic, version 1.0, its length (little-endian), then the
 * dict, padded with spaces to a multiple of 64 bytes in all and ended by
 * a newline (numpy's own layout, format.py). */
static size_t npy_header(char *out, size_t size, const char *descr,
                         size_t count)
{
    char dict[256];
    const int dl = snprintf(dict, sizeof dict,
                            "{'descr': %s, 'fortran_order': False, "
                            "'shape': (%zu,), }", descr, count);
    if (dl < 0 || (size_t)dl >= sizeof dict)
        return 0;
    const size_t fixed = 10;                 /* magic 6, version 2, len 2 */
    size_t total = fixed + (size_t)dl + 1;
    total = (total + 63) / 64 * 64;
    if (total > size || total - fixed > 0xFFFF)
        return 0;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    const size_t hl = total - fixed;
    out[8] = (char)(hl & 0xFF);
    out[9] = (char)(hl >> 8);
    memcpy(out + fixed, dict, (size_t)dl);
    memset(out + fixed + dl, ' ', total - fixed - (size_t)dl - 1);
    out[total - 1] = '\n';
    return total;
}

int cli_npy_write(const char *path, const char *descr, size_t count,
                  const void *items, size_t item_size, char *err,
                  size_t err_size)
{
    char header[512];
    const size_t hl = npy_header(header, sizeof header, descr, count);
    if (hl == 0) {
        snprintf(err, err_size, "%s: the .npy header for %s does not fit",
                 path, descr);
        return -1;
    }
    const size_t plen = strlen(path);
    char *tmp = malloc(plen + 16);
    if (tmp == NULL) {
        snprintf(err, err_size, "%s: out of memory", path);
        return -1;
    }
    snprintf(tmp, plen + 16, "%s.partXXXXXX", path);
    FILE *f = NULL;
    const int fd = mkstemp(tmp);
    if (fd >= 0) {
        /* mkstemp() makes it private (0600); the answers get the
         * permissions any new file of the user's would. */
        const mode_t mask = umask(0);
        umask(mask);
        (void)fchmod(fd, 0666 & ~mask);
        f = fdopen(fd, "wb");
    }
    if (f == NULL) {
        snprintf(err, err_size, "%s: cannot create a file beside it: %s",
                 path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            remove(tmp);
        }
        free(tmp);
        return -1;
    }
    int ok = fwrite(header, 1, hl, f) == hl
             && (count == 0 || fwrite(items, item_size, count, f) == count);
    ok = fflush(f) == 0 && ok;
    const int saved = errno;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        snprintf(err, err_size, "%s: %s", path,
                 strerror(ok ? errno : saved ? saved : EIO));
        remove(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}
