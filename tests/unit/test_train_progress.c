/* The status line on a terminal (train/report/progress.c) is cut to the
 * terminal's width, so a redraw leaves no wrapped line behind; on a wide
 * terminal it is whole. Runs on a pseudo-terminal of 80, then 200 columns. */
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "progress.h"
#include "../test.h"

/* What the pty's master side reads within 1 s of the last byte, after "\033[K". */
static size_t drawn_len(int master, char *buf, size_t cap) {
  size_t n = 0;
  struct pollfd pf = {master, POLLIN, 0};
  while (n + 1 < cap && poll(&pf, 1, 200) > 0) {
    ssize_t r = read(master, buf + n, cap - 1 - n);
    if (r <= 0) break;
    n += (size_t)r;
  }
  buf[n] = 0;
  char *k = strstr(buf, "\033[K");
  return k ? strlen(k + 3) : 0;
}

static void resize(int fd, int cols) {
  struct winsize w = {.ws_row = 24, .ws_col = (unsigned short)cols};
  ioctl(fd, TIOCSWINSZ, &w);
}

int main(void) {
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) || unlockpt(master)) {
    SKIP("no pseudo-terminal here");
    return el_test_done();
  }
  int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
  struct termios t;
  tcgetattr(slave, &t);
  cfmakeraw(&t);
  tcsetattr(slave, TCSANOW, &t);
  FILE *f = fdopen(slave, "w");
  el__progress p;
  el__progress_init(&p, f, 100000);
  CHECK(p.tty, "a pseudo-terminal is a terminal");
  el__progress_stats s = {.step = 12345, .tokens_per_s = 12345, .lr = 1e-4, .eta_s = 3600,
                          .gen_loss = 3.2, .gen_acc = 0.41, .disc_loss = 0.2345,
                          .disc_base_loss = 0.3456, .disc_auc = 0.789};
  char buf[4096];
  resize(slave, 80);
  el__progress_update(&p, &s, 1);
  size_t n80 = drawn_len(master, buf, sizeof buf);
  CHECK(n80 == 79, "80 columns: the status line is cut to 79 (got %zu)", n80);
  resize(slave, 200);
  el__progress_update(&p, &s, 1);
  size_t n200 = drawn_len(master, buf, sizeof buf);
  CHECK(n200 > 120 && n200 < 199, "200 columns: the whole line (%zu characters)", n200);
  CHECK(strstr(buf, "ETA 1h00m00s") != NULL, "... ending with the ETA: %s", strstr(buf, "\033[K") + 3);
  el__progress_done(&p);
  fclose(f);
  close(master);
  return el_test_done();
}
