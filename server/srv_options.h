/* electra-server's options (docs/API.md): command-line flags, ELECTRA_<OPTION>
 * environment variables and an optional --config JSON file. Precedence:
 * flag > environment > config file > default. Parsing never exits: errors
 * come back as a message for main to print. */
#ifndef EL_SERVER_OPTIONS_H
#define EL_SERVER_OPTIONS_H

#include <stddef.h>

#define EL_SRV_MAX_MODELS 16
#define EL_SRV_MAX_ORIGINS 16
/* --max-bytes-in-flight counts a request body's bytes this many times: the
 * body and the parsed request it becomes until answered (http.c) */
#define EL_SRV_BODY_WEIGHT 40

typedef struct el__model_spec {
  char name[64];
  char dir[1024];
  /* ElectraForTokenClassification: the id2label name meaning "no error", from
   * --correct-label; empty: found from the label names (srv_models.h) */
  char correct_label[128];
  /* the generator of its corrections (/v2/check), from --generator; empty:
   * DIR/generator/ when present */
  char generator[1024];
  int dtype; /* el_dtype: --model-dtype NAME=..., else --dtype (set once parsing ends) */
  int no_dictionary; /* --no-dictionary: the model alone even when config.json has a
                        score_dictionary_weight (set once parsing ends) */
  int no_checker;    /* --no-checker: no grammar checker (set once parsing ends) */
  int verify_dtype;  /* el_dtype of the checker's verification pass (--verify-dtype); -1:
                        el__check_verifier_load's default (set once parsing ends) */
} el__model_spec;

/* One --correct-label NAME=LABEL as given; applied to models[] once every
 * layer is parsed (the model may come from another layer). */
typedef struct el__label_spec {
  char model[64];
  char label[1024]; /* a label, a dtype or a directory (--generator) */
  int layer;
} el__label_spec;

typedef struct el__srv_options {
  el__model_spec models[EL_SRV_MAX_MODELS];
  int n_models;
  el__label_spec correct_labels[EL_SRV_MAX_MODELS];
  int n_correct_labels;
  el__label_spec model_dtypes[EL_SRV_MAX_MODELS]; /* --model-dtype NAME=DTYPE as given */
  el__label_spec generators[EL_SRV_MAX_MODELS];   /* --generator NAME=GEN_DIR as given */
  int n_generators;
  int n_model_dtypes;
  int dtype; /* --dtype: el_dtype of every model without a --model-dtype */
  char config[1024];
  char host[256];
  int port;
  int health_port;   /* a second port for the probes and /metrics; 0 = none */
  int threads;       /* engine compute threads; 0 = CPU quota */
  int http_threads;  /* libmicrohttpd pool size; 0 = min(cores, 4), at least 2 */
  int max_batch_tokens, max_batch_size, max_wait_us, max_queue, max_inputs, max_qa_windows;
  long max_body_bytes;
  long max_bytes_in_flight; /* memory of requests in flight: bodies x EL_SRV_BODY_WEIGHT
                             * from header to answer, plus answers */
  double request_timeout, drain_timeout; /* seconds */
  int connection_timeout;                /* idle seconds before a connection closes */
  int max_connections;
  long max_queue_tokens;        /* tokens of accepted, unanswered requests before 429; 0 = none */
  double header_timeout;        /* seconds to receive a request's whole header; 0 = none */
  double body_timeout;          /* seconds to receive a request's whole body; 0 = none */
  int max_connections_per_client; /* open connections from one address; 0 = no limit */
  long max_response_bytes;      /* largest answer body (/tokenize); larger is 422 */
  int specials_as_text;         /* --special-tokens-in-text text */
  char api_key_file[1024];
  char api_key[256]; /* read from api_key_file (trailing newline removed) */
  char cors_origins[EL_SRV_MAX_ORIGINS][256]; /* "*" allows any origin */
  int n_cors;
  int log_json;      /* --log-format json */
  int access_log;    /* 0 with --no-access-log */
  int no_access_log; /* --no-access-log as given (access_log is its negation) */
  int no_dictionary; /* --no-dictionary: copied to every model's spec */
  int no_checker;    /* --no-checker: copied to every model's spec */
  int verify_dtype;  /* --verify-dtype: copied to every model's spec; -1 when not given */
  int healthcheck;   /* --healthcheck: probe /health and exit */
  int help, version;
} el__srv_options;

void el__options_defaults(el__srv_options *o);
/* Parses argv and the environment (envp NULL: the process environment).
 * Models add up across config file, environment (ELECTRA_MODEL=a=DIR,b=DIR)
 * and flags; a name given again in a higher layer takes that layer's
 * directory. --correct-label NAME=LABEL works the same way and must name a
 * model that is given. Returns 0, or -1 with a message in err. Not
 * thread-safe. */
int el__options_parse(el__srv_options *o, int argc, char **argv, char **envp, char *err,
                      size_t errcap);
/* Full --help text. */
const char *el__options_usage(void);

#endif
