/* The open connections of the HTTP layer (http.c), tracked so that slow
 * clients cannot hold the server: a deadline for receiving a request's whole
 * header (from the connection's start, or from the end of the previous
 * answer on a kept-alive connection) and one for its whole body; a cap on
 * open connections checked when one is accepted (refused at once, not left
 * waiting in the backlog); and the count the drain waits for.
 *
 * A connection past its deadline is shut down (shutdown(2), both ways) by a
 * watcher thread; libmicrohttpd then reads end-of-file and closes it itself,
 * so it stays the only owner of the socket. libmicrohttpd reports a closed
 * connection (el__conns_close, under the tracker's lock) before it closes its
 * descriptor, so the watcher never touches a descriptor that was reused.
 *
 * On a drain (el__conns_drain) requests not yet fully received are closed
 * the same way: the drain answers what was received, and a slow header or
 * body must not hold it for the whole --drain-timeout.
 *
 * Thread-safe: every function may run on any thread. */
#ifndef EL_SERVER_CONNS_H
#define EL_SERVER_CONNS_H

#include <stddef.h>

typedef struct el__conns el__conns;
typedef struct el__conn el__conn;

enum {
  EL_CONN_HEADER = 0, /* waiting for a request's header (new or kept alive) */
  EL_CONN_BODY,       /* header read, body being received */
  EL_CONN_BUSY        /* request being worked on or answered: no deadline here */
};

/* header_timeout / body_timeout in seconds, 0 = none. NULL on failure. */
el__conns *el__conns_new(double header_timeout, double body_timeout);
/* Stops the watcher and frees (every connection must be closed by then, or
 * be forgotten: the daemon is stopped). */
void el__conns_free(el__conns *c);

/* A new connection on descriptor fd; NULL when out of memory (untracked). */
el__conn *el__conns_open(el__conns *c, int fd);
void el__conns_close(el__conns *c, el__conn *k);
/* The connection enters a phase; its deadline restarts. */
void el__conns_phase(el__conns *c, el__conn *k, int phase);
/* In the header phase: a request line has arrived, so the connection holds a
 * request being received (the deadline does not restart). */
void el__conns_request(el__conns *c, el__conn *k);
/* From now on, close every connection holding a request not fully received
 * (its header or body still coming): at once if that request began before
 * this call, else once grace seconds have passed (a request sent on a
 * kept-alive connection just after the call is still read and refused). */
void el__conns_drain(el__conns *c, double grace);

/* Asks the watcher to give freed heap back to the system (malloc_trim) within
 * 50 ms, at most every 0.5 s: called when the server goes idle after a burst. */
void el__conns_trim_soon(el__conns *c);

/* Open connections now; connections closed by a deadline so far. */
int el__conns_count(el__conns *c);
long el__conns_timed_out(el__conns *c);

#endif
