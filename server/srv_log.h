/* Log lines on stderr, one write(2) each so threads never interleave:
 * text ("2025-01-01T12:00:00.123Z info message") or JSON objects
 * ({"ts":..., "level":..., "msg":...}) with --log-format json. */
#ifndef EL_SERVER_LOG_H
#define EL_SERVER_LOG_H

void el__log_init(int json);
void el__log(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One line per answered request: request_id (X-Request-Id, given or
 * generated) and client (the peer address) end it. */
void el__log_access(const char *method, const char *path, int status, double seconds,
                    int batch_size, const char *model, const char *error_type,
                    const char *request_id, const char *client);

#endif
