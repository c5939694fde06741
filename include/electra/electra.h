/* electra.c public API: include this one header. */
#ifndef ELECTRA_ELECTRA_H
#define ELECTRA_ELECTRA_H
#include "error.h"
#include "tokenizer.h"
#include "model.h"
#include "engine.h"
#include "score.h"
#define EL_VERSION "0.1.0"
#endif
