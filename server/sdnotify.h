/* systemd's readiness protocol (sd_notify(3)) without libsystemd.
 *
 * Under Type=notify, systemd passes $NOTIFY_SOCKET: an AF_UNIX datagram
 * socket (a path, or an abstract name written with a leading '@'). A service
 * reports its state by sending newline-separated KEY=VALUE lines to it:
 *   READY=1      models loaded and warmed; systemd starts ordering on us
 *   RELOADING=1  SIGHUP received, models being reloaded (then READY=1 again)
 *   STOPPING=1   draining after SIGTERM
 *   STATUS=text  free text shown by `systemctl status`
 *   WATCHDOG=1   keep-alive, needed every WatchdogSec= when that is set
 * Outside systemd the variable is unset and every call is a no-op, so the
 * server calls these unconditionally.
 *
 * Thread-safe: each call opens, sends on and closes its own socket. Not
 * async-signal-safe (reads the environment): call from the event loop, not
 * from a signal handler. */
#ifndef ELECTRA_SERVER_SDNOTIFY_H
#define ELECTRA_SERVER_SDNOTIFY_H

/* Sends state (e.g. "READY=1" or "STOPPING=1\nSTATUS=draining") to
 * $NOTIFY_SOCKET. Returns 1 when sent, 0 when $NOTIFY_SOCKET is unset or
 * empty, a negative errno value on failure (-EINVAL for an empty state,
 * -EAFNOSUPPORT for an address that is neither '/' path nor '@' name,
 * -ENAMETOOLONG, or what socket/sendto failed with). */
int el__sd_notify(const char *state);

/* printf-style el__sd_notify, for STATUS= lines; same returns. States longer
 * than 4095 bytes are refused with -EMSGSIZE. */
int el__sd_notifyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The watchdog interval systemd expects WATCHDOG=1 within, in microseconds:
 * $WATCHDOG_USEC when set to a positive integer and, if $WATCHDOG_PID is set,
 * it names this process; else 0 (no watchdog). Send WATCHDOG=1 every half of
 * it, as sd_watchdog_enabled(3) advises. */
unsigned long long el__sd_watchdog_usec(void);

#endif
