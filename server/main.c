/* electra-server: see --help and docs/API.md. */
#include <stdio.h>

#include "electra/electra.h"
#include "srv_options.h"
#include "srv_server.h"

int main(int argc, char **argv) {
  static el__srv_options opt;
  char err[1400];
  if (el__options_parse(&opt, argc, argv, NULL, err, sizeof err)) {
    fprintf(stderr, "electra-server: %s\n", err);
    return 2;
  }
  if (opt.help) {
    fputs(el__options_usage(), stdout);
    return 0;
  }
  if (opt.version) {
    printf("electra-server %s\n", EL_VERSION);
    return 0;
  }
  if (opt.healthcheck)
    return el__healthcheck(opt.host, opt.health_port ? opt.health_port : opt.port);
  return el__server_main(&opt);
}
