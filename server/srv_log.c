/* Logging (srv_log.h). */
#include "srv_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "srv_sbuf.h"

static int log_json;

void el__log_init(int json) { log_json = json; }

static void timestamp(char *buf, size_t cap) {
  struct timeval tv;
  gettimeofday(&tv, NULL);
  struct tm tm;
  gmtime_r(&tv.tv_sec, &tm);
  size_t n = strftime(buf, cap, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(buf + n, cap - n, ".%03dZ", (int)(tv.tv_usec / 1000));
}

/* JSON logs go to stdout, where container log collectors read them; text
 * logs to stderr, the terminal's diagnostic stream. */
static void emit(el__sb *b) {
  el__sb_put(b, "\n", 1);
  if (b->oom) return;
  size_t off = 0;
  while (off < b->len) {
    ssize_t w = write(log_json ? 1 : 2, b->data + off, b->len - off);
    if (w <= 0) break;
    off += (size_t)w;
  }
}

void el__log(const char *level, const char *fmt, ...) {
  char msg[2048], ts[40];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  timestamp(ts, sizeof ts);
  el__sb b = {0};
  if (log_json) {
    el__sb_printf(&b, "{\"ts\":\"%s\",\"level\":\"%s\",\"msg\":", ts, level);
    el__sb_json_str(&b, msg, strlen(msg));
    el__sb_puts(&b, "}");
  } else {
    el__sb_printf(&b, "%s %s %s", ts, level, msg);
  }
  emit(&b);
  el__sb_free(&b);
}

/* Up to max bytes of s, bytes outside 0x21..0x7e and '%' written as %XX. */
static void put_escaped(el__sb *b, const char *s, size_t max) {
  for (size_t i = 0; s[i] && i < max; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x21 || c >= 0x7f || c == '%')
      el__sb_printf(b, "%%%02X", c);
    else
      el__sb_put(b, (const char *)&c, 1);
  }
}

void el__log_access(const char *method, const char *path, int status, double seconds,
                    int batch_size, const char *model, const char *error_type,
                    const char *request_id, const char *client) {
  char ts[40];
  timestamp(ts, sizeof ts);
  el__sb b = {0};
  /* the path is client-controlled: cut it and escape it in both formats */
  size_t plen = strlen(path);
  if (plen > 200) plen = 200;
  if (log_json) {
    el__sb_printf(&b, "{\"ts\":\"%s\",\"level\":\"info\",\"msg\":\"access\",\"method\":", ts);
    el__sb_json_str(&b, method, strlen(method) > 16 ? 16 : strlen(method));
    el__sb_puts(&b, ",\"route\":");
    el__sb_json_str(&b, path, plen);
    el__sb_printf(&b, ",\"status\":%d,\"latency_ms\":%.3f,\"batch_size\":%d", status,
                  seconds * 1e3, batch_size);
    if (model) {
      el__sb_puts(&b, ",\"model\":");
      el__sb_json_str(&b, model, strlen(model));
    }
    if (error_type) el__sb_printf(&b, ",\"error\":\"%s\"", error_type);
    el__sb_puts(&b, ",\"request_id\":");
    el__sb_json_str(&b, request_id, strlen(request_id));
    el__sb_puts(&b, ",\"client\":");
    el__sb_json_str(&b, client, strlen(client));
    el__sb_puts(&b, "}");
  } else {
    /* every field as %XX-escaped printable ASCII without spaces: no client
     * byte (an ESC in the method token, say) reaches the log raw */
    el__sb_printf(&b, "%s access ", ts);
    put_escaped(&b, method, 16);
    el__sb_puts(&b, " ");
    put_escaped(&b, path, plen);
    el__sb_printf(&b, " %d %.3fms batch=%d", status, seconds * 1e3, batch_size);
    if (model) {
      el__sb_puts(&b, " model=");
      put_escaped(&b, model, 64);
    }
    if (error_type) el__sb_printf(&b, " error=%s", error_type);
    el__sb_puts(&b, " id=");
    put_escaped(&b, request_id, 128);
    el__sb_puts(&b, " client=");
    put_escaped(&b, client, 64);
  }
  emit(&b);
  el__sb_free(&b);
}
