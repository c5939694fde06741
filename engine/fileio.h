/* Internal: whole-file reads, fsync'd writes and atomic replacement of a
 * file, for the engine's config and checkpoint code and (through
 * internal/trainer_api.h) the trainer's outputs. Errors name the path;
 * ENOSPC and EDQUOT become EL_ENOSPC, other failures EL_EIO. */
#ifndef EL_FILEIO_H
#define EL_FILEIO_H

#include <stddef.h>
#include <stdio.h>
#include "electra/error.h"

struct stat;
/* Opens path read-only (close-on-exec) and fstats it into *st; a path that
 * is missing or not a regular file is an EL_EIO error naming it (-1). */
int el__open_regular(const char *path, struct stat *st, el_error *err);

/* "dir/name" in a new malloc'd string (caller frees); NULL when out of memory. */
char *el__path_join(const char *dir, const char *name);

/* Reads a whole regular file of at most max_bytes into *out (NUL-terminated,
 * caller frees). Errors name path. */
int el__read_file(const char *path, size_t max_bytes, char **out, size_t *len, el_error *err);
/* Creates/truncates path, writes len bytes, fsyncs and closes it. A failed
 * write leaves the partial file for the caller to remove. */
int el__write_file(const char *path, const void *data, size_t len, el_error *err);
/* dst = a copy of the regular file src (at most max_bytes), as the two above. */
int el__copy_file(const char *src, const char *dst, size_t max_bytes, el_error *err);

/* The pieces of el__write_file, for writers that stream: */
/* errno e of `what` on path as an el_error (EL_ENOSPC or EL_EIO). */
int el__io_error(el_error *err, int e, const char *path, const char *what);
/* Writes all len bytes to fd (retrying short writes and EINTR). */
int el__write_all(int fd, const void *data, size_t len, const char *path, el_error *err);
/* fsync (a special file that cannot be synced is fine), then close. */
int el__fsync_close(int fd, const char *path, el_error *err);

/* fsync a directory (after a rename in it, so the new entry is durable). */
int el__fsync_dir(const char *dir, el_error *err);

/* Atomic replacement of a file: everything goes into "<path>.tmp-<pid>" in
 * the same directory, which is fsync'd, renamed over path, and the directory
 * fsync'd -- a reader (or a crash) sees the old file or the new one, never a
 * part. Use:
 *   el__atomic a;
 *   if (el__atomic_begin(&a, path, err)) return ...;   // a.f is open for writing
 *   fwrite(..., a.f); fprintf(a.f, ...);
 *   return el__atomic_commit(&a, err);                 // or el__atomic_abort(&a)
 * begin fails without leaving anything; commit checks every write (ferror,
 * fflush, fsync, fclose, rename) and on a failure removes the temporary file,
 * leaving path as it was. Messages: "cannot create <tmp>: <reason>",
 * "cannot write <tmp>: ...", "cannot rename <tmp> to <path>: ..."; a full
 * disk reads "no space left on device" and is EL_ENOSPC. */
typedef struct el__atomic {
  FILE *f;         /* the temporary file, between begin and commit/abort */
  char path[4096]; /* the file being replaced */
  char tmp[4120];  /* path + ".tmp-<pid>" */
} el__atomic;
int el__atomic_begin(el__atomic *a, const char *path, el_error *err);
int el__atomic_commit(el__atomic *a, el_error *err);
/* Closes and removes the temporary file; path is untouched. */
void el__atomic_abort(el__atomic *a);
/* The whole of data as path, atomically (begin, one write, commit). */
int el__write_atomic(const char *path, const void *data, size_t len, el_error *err);

/* rm -r: path and, when it is a directory, everything under it (symbolic
 * links removed, not followed). Returns 0 when all of it is gone, -1 after
 * removing what it could (errno from the first failure). */
int el__remove_tree(const char *path);

/* mkdir -p: dir and every missing parent (0755). Errors name the directory
 * that could not be made. */
int el__mkdirs(const char *dir, el_error *err);
/* Makes an output path usable before any work is done: creates the missing
 * directories above it (and, when is_dir, the directory itself) and checks
 * that the directory it will be written in is writable, so a long run does
 * not fail at its end. */
int el__prepare_output(const char *path, int is_dir, el_error *err);

#endif
