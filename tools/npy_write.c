/* npy_write.c: writes a 1-D NumPy .npy (format 1.0), the answers of
 * `samebits reduce --axis / --segments --out`. A written file is whole
 * or absent: the bytes go to a new file beside the target (FILE.part<pid>,
 * created exclusively with the user's umask), are flushed to the disk
 * (fsync), and only then renamed over the target, so a full disk, a
 * failed write or a crash never leaves a truncated .npy that numpy would
 * read as fewer answers. The target is replaced, not written through: a
 * link or the old file's permissions are not kept, and the path must be
 * a regular file's (not "-" or /dev/stdout). */
#define _POSIX_C_SOURCE 200809L   /* fsync, getpid */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Writes all of buf to fd; 0, or the errno of the write that failed. */
static int write_all(int fd, const void *buf, size_t size)
{
    const unsigned char *p = buf;
    while (size > 0) {
        const ssize_t w = write(fd, p, size);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : EIO;
        p += w;
        size -= (size_t)w;
    }
    return 0;
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
    char *tmp = malloc(plen + 32);
    if (tmp == NULL) {
        snprintf(err, err_size, "%s: out of memory", path);
        return -1;
    }
    snprintf(tmp, plen + 32, "%s.part%ld", path, (long)getpid());
    const int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0) {
        snprintf(err, err_size, "%s: cannot create %s beside it: %s", path,
                 tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    int e = write_all(fd, header, hl);
    if (e == 0 && count > 0)
        e = write_all(fd, items, count * item_size);
    if (e == 0 && fsync(fd) != 0)
        e = errno;
    if (close(fd) != 0 && e == 0)
        e = errno;
    if (e == 0 && rename(tmp, path) != 0)
        e = errno;
    if (e != 0) {
        snprintf(err, err_size, "%s: %s", path, strerror(e));
        remove(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}
