/* Resume state save/load (format in state.h). Bytes go through a
 * fopencookie stream whose write function hashes what reaches the file, so
 * the checksum costs no second pass when saving. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "strmap.h"
#include "state.h"
#include "trainer_api.h"

#define STATE_MAGIC "ELSTATE1"
#define STATE_VERSION 1u

typedef struct state_header {
  char magic[8];
  uint32_t version, header_bytes;
  int64_t step;
  uint64_t data_epoch, data_offset;
  uint64_t rng[4];
  uint64_t vocab_hash;
  uint32_t vocab_size;
  int32_t threads;
  uint64_t data_hash, tokens_seen;
  double train_seconds;
  uint32_t json_len, reserved;
  uint64_t reserved2;
} state_header;
_Static_assert(sizeof(state_header) == 128, "state header is 128 bytes");

typedef struct hcookie {
  int fd;
  uint64_t h;
  int err; /* errno of the first failed write */
} hcookie;

static ssize_t hc_write(void *c, const char *buf, size_t n) {
  hcookie *k = c;
  size_t done = 0;
  while (done < n) {
    ssize_t w = write(k->fd, buf + done, n - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (!k->err) k->err = errno;
      return -1;
    }
    done += (size_t)w;
  }
  k->h = el__fnv1a(buf, n, k->h);
  return (ssize_t)n;
}

static int fail_io(el_error *err, int e, const char *what, const char *path) {
  if (e == ENOSPC || e == EDQUOT)
    return el_error_set(err, EL_ENOSPC, "%s %s: no space left on device", what, path);
  return el_error_set(err, EL_EIO, "%s %s: %s", what, path, strerror(e ? e : EIO));
}

int el__state_save(const char *dir, const el__state *s, const el__params *p, el_error *err) {
  if (mkdir(dir, 0755) && errno != EEXIST) return fail_io(err, errno, "cannot create", dir);
  char path[4200];
  snprintf(path, sizeof path, "%s/state.bin", dir);
  el__atomic a; /* the hashing stream writes to a.f's descriptor */
  int rc = el__atomic_begin(&a, path, err);
  if (rc) return rc;
  const char *tmp = a.tmp;
  hcookie k = {fileno(a.f), EL_FNV_OFFSET, 0};
  cookie_io_functions_t fns = {NULL, hc_write, NULL, NULL};
  FILE *f = fopencookie(&k, "w", fns);
  if (!f) {
    el__atomic_abort(&a);
    return el_error_set(err, EL_ENOMEM, "cannot open a stream for %s", path);
  }
  setvbuf(f, NULL, _IOFBF, 1 << 20);
  state_header h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, STATE_MAGIC, 8);
  h.version = STATE_VERSION;
  h.header_bytes = sizeof h;
  h.step = s->step;
  h.data_epoch = s->data_epoch;
  h.data_offset = s->data_offset;
  memcpy(h.rng, s->rng.s, sizeof h.rng);
  h.vocab_hash = s->vocab_hash;
  h.vocab_size = s->vocab_size;
  h.threads = s->threads;
  h.data_hash = s->data_hash;
  h.tokens_seen = s->tokens_seen;
  h.train_seconds = s->train_seconds;
  const char *json = s->settings_json ? s->settings_json : "{}";
  h.json_len = (uint32_t)strlen(json);
  if (fwrite(&h, sizeof h, 1, f) != 1 || fwrite(json, 1, h.json_len, f) != h.json_len)
    rc = fail_io(err, k.err, "cannot write", tmp);
  if (!rc) rc = el__params_write(p, f, tmp, err);
  if (!rc && fflush(f)) rc = fail_io(err, k.err, "cannot write", tmp);
  uint64_t sum = k.h;
  if (!rc && (fwrite(&sum, sizeof sum, 1, f) != 1 || fflush(f)))
    rc = fail_io(err, k.err, "cannot write", tmp);
  if (rc == EL_EIO && k.err == ENOSPC) rc = fail_io(err, ENOSPC, "cannot write", tmp);
  fclose(f);
  if (rc) {
    el__atomic_abort(&a);
    return rc;
  }
  if ((rc = el__atomic_commit(&a, err))) return rc;
  snprintf(path, sizeof path, "%s/settings.json", dir);
  return el__write_atomic(path, json, strlen(json), err);
}

/* Checks the trailing checksum of path by one sequential pass. */
static int verify_checksum(const char *path, el_error *err) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return el_error_set(err, EL_EIO, "resume state %s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) || st.st_size < (off_t)(sizeof(state_header) + 8)) {
    close(fd);
    return el_error_set(err, EL_EFORMAT, "resume state %s is truncated", path);
  }
  uint64_t body = (uint64_t)st.st_size - 8, done = 0, h = EL_FNV_OFFSET, stored = 0;
  char *buf = malloc(1 << 20);
  if (!buf) {
    close(fd);
    return el_error_set(err, EL_ENOMEM, "out of memory");
  }
  int rc = EL_OK;
  while (done < body) {
    size_t want = body - done < (1u << 20) ? (size_t)(body - done) : (1u << 20);
    ssize_t r = read(fd, buf, want);
    if (r <= 0) {
      rc = el_error_set(err, EL_EIO, "resume state %s: read error", path);
      break;
    }
    h = el__fnv1a(buf, (size_t)r, h);
    done += (uint64_t)r;
  }
  if (!rc && read(fd, &stored, 8) != 8)
    rc = el_error_set(err, EL_EIO, "resume state %s: read error", path);
  if (!rc && stored != h)
    rc = el_error_set(err, EL_EFORMAT,
                      "resume state %s is damaged (checksum %016llx, expected %016llx)", path,
                      (unsigned long long)h, (unsigned long long)stored);
  free(buf);
  close(fd);
  return rc;
}

static int read_header(FILE *f, const char *path, el__state *s, el_error *err) {
  state_header h;
  memset(s, 0, sizeof *s);
  if (fread(&h, sizeof h, 1, f) != 1)
    return el_error_set(err, EL_EFORMAT, "resume state %s is truncated", path);
  if (memcmp(h.magic, STATE_MAGIC, 8))
    return el_error_set(err, EL_EFORMAT, "%s is not a resume state (bad magic)", path);
  if (h.version != STATE_VERSION)
    return el_error_set(err, EL_EFORMAT, "resume state %s: format version %u, this build reads %u",
                        path, h.version, STATE_VERSION);
  /* every version-1 header is 128 bytes: another size is damage, not a version */
  if (h.header_bytes != sizeof h)
    return el_error_set(err, EL_EFORMAT, "resume state %s is damaged (header size %u bytes, "
                        "expected %zu)", path, h.header_bytes, sizeof h);
  if (h.json_len > (1u << 24))
    return el_error_set(err, EL_EFORMAT, "resume state %s: settings too long", path);
  s->step = h.step;
  s->data_epoch = h.data_epoch;
  s->data_offset = h.data_offset;
  memcpy(s->rng.s, h.rng, sizeof h.rng);
  s->vocab_hash = h.vocab_hash;
  s->vocab_size = h.vocab_size;
  s->threads = h.threads;
  s->data_hash = h.data_hash;
  s->tokens_seen = h.tokens_seen;
  s->train_seconds = h.train_seconds;
  s->settings_json = malloc(h.json_len + 1);
  if (!s->settings_json) return el_error_set(err, EL_ENOMEM, "out of memory");
  if (fread(s->settings_json, 1, h.json_len, f) != h.json_len) {
    free(s->settings_json);
    s->settings_json = NULL;
    return el_error_set(err, EL_EFORMAT, "resume state %s is truncated", path);
  }
  s->settings_json[h.json_len] = 0;
  return EL_OK;
}

int el__state_peek(const char *dir, el__state *s, el_error *err) {
  char path[4200];
  snprintf(path, sizeof path, "%s/state.bin", dir);
  FILE *f = fopen(path, "rb");
  if (!f) return el_error_set(err, EL_EIO, "resume state %s: %s", path, strerror(errno));
  int rc = read_header(f, path, s, err);
  fclose(f);
  return rc;
}

int el__state_load(const char *dir, el__state *s, el__params *p, el_error *err) {
  char path[4200];
  snprintf(path, sizeof path, "%s/state.bin", dir);
  int rc = verify_checksum(path, err);
  if (rc) return rc;
  FILE *f = fopen(path, "rb");
  if (!f) return el_error_set(err, EL_EIO, "resume state %s: %s", path, strerror(errno));
  rc = read_header(f, path, s, err);
  if (!rc) rc = el__params_read(p, f, path, err);
  fclose(f);
  if (rc) {
    free(s->settings_json);
    s->settings_json = NULL;
  }
  return rc;
}
