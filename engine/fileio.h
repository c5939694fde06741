/* Internal: whole-file reads and fsync'd writes, shared by config.c and
 * checkpoint.c (and the checkpoint tests). Errors name the path; ENOSPC and
 * EDQUOT become EL_ENOSPC, other failures EL_EIO. */
#ifndef EL_FILEIO_H
#define EL_FILEIO_H

#include <stddef.h>
#include "electra/error.h"

/* Reads a whole regular file of at most max_bytes into *out (NUL-terminated,
 * caller frees). Errors name path. */
int el__read_file(const char *path, size_t max_bytes, char **out, size_t *len, el_error *err);
/* Creates/truncates path, writes len bytes, fsyncs and closes it. A failed
 * write leaves the partial file for the caller to remove. */
int el__write_file(const char *path, const void *data, size_t len, el_error *err);

/* The pieces of el__write_file, for writers that stream: */
/* errno e of `what` on path as an el_error (EL_ENOSPC or EL_EIO). */
int el__io_error(el_error *err, int e, const char *path, const char *what);
/* Writes all len bytes to fd (retrying short writes and EINTR). */
int el__write_all(int fd, const void *data, size_t len, const char *path, el_error *err);
/* fsync (a special file that cannot be synced is fine), then close. */
int el__fsync_close(int fd, const char *path, el_error *err);

/* mkdir -p: dir and every missing parent (0755). Errors name the directory
 * that could not be made. */
int el__mkdirs(const char *dir, el_error *err);
/* Makes an output path usable before any work is done: creates the missing
 * directories above it (and, when is_dir, the directory itself) and checks
 * that the directory it will be written in is writable, so a long run does
 * not fail at its end. */
int el__prepare_output(const char *path, int is_dir, el_error *err);

#endif
