/* The corrections a writer already has: a spellchecker's (docs/GED.md §6).
 * Each word hunspell rejects (lang/dict.h: letters only, names and split
 * clitics left alone) is replaced by its first suggestion; a rejected word
 * without a suggestion proposes nothing. Scored by m2_score.h beside the
 * model, so `eval --m2` says what a checker adds over it. */
#ifndef EL_TRAIN_M2_SPELL_H
#define EL_TRAIN_M2_SPELL_H

#include "dict.h"
#include "m2.h"

#define EL__M2_SPELL_TYPE "SPELL" /* the proposed edits' type */

/* Appends the spellchecker's edits for s to out (minimal form). A word is
 * sentence-initial (so "Becouse" is checked, "Helen" is not) at the start of
 * s and after a token ".", "!" or "?". Variant v's dictionaries judge and
 * suggest (EL__DICT_GB: en_GB alone). EL_ENOMEM. */
int el__m2_spell_propose(el__dict *d, el__dict_variant v, const el__m2_sent *s, el__m2_edits *out,
                         el_error *err);

#endif
