/* The English every model of the server shares: hunspell's dictionaries
 * (/score's dictionary signal, the checker's spelling), lang/'s learner
 * tables (the checker's candidates) and the English n-gram model (/score's
 * signal for models built with --ngram), each loaded once for the process at
 * its first use and kept across reloads: they do not change with a model,
 * and loading them per model set would hold two copies during a reload
 * (~24 MB resident for both). Thread-safe (the loader thread and start-up
 * ask for them). */
#ifndef EL_SERVER_LANG_H
#define EL_SERVER_LANG_H

#include "dict.h"
#include "learner.h"
#include "ngram.h"

/* The process's dictionaries / learner tables (borrowed; they live as long
 * as the process, reachable from here, so a request finishing during the
 * exit never reads freed tables), loading them at the first call; an error
 * names the missing files and their Debian packages. */
int el__srv_lang_dict(el__dict **out, el_error *err);
int el__srv_lang_learner(el__learner **out, el_error *err);
/* ... CMU Sphinx's English trigram model (lang/ngram.h, ~34 MB resident). */
int el__srv_lang_ngram(el__ngram **out, el_error *err);

#endif
