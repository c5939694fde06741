/* Markdown as LanguageTool's annotated text (lt_doc.h): the prose is text,
 * everything else markup, so `electra-train check README.md` reads what a
 * reader reads. Code blocks, front matter, HTML blocks and comments, table
 * rules and thematic breaks are markup read as a paragraph break; heading,
 * list and quote markers, emphasis, link brackets and targets, HTML tags and
 * backslashes before punctuation are markup read as nothing; inline code,
 * images and autolinks are markup read as one neutral word
 * (EL__MD_CODE_WORD), so the sentence around them stays whole. A heading, a
 * table row or a line before a list item ends its sentence. A practical
 * subset of CommonMark and GitHub's tables, not a full parser: what it does
 * not know stays text. */
#ifndef EL_CHECK_MD_DOC_H
#define EL_CHECK_MD_DOC_H

#include <stddef.h>

#include "lt_doc.h"

/* What inline code, an image or an autolink reads as: a name-like word the
 * dictionaries accept and the detector reads as a noun ("`make test`
 * runs the tests" -> "Code runs the tests"). */
#define EL__MD_CODE_WORD "Code"

/* d from the Markdown md[0..len); -1 when out of memory. */
int el__lt_doc_from_markdown(const char *md, size_t len, el__lt_doc *d);

/* 1 when a file of this name is Markdown by its extension (.md, .markdown,
 * .mdown, .mkd, any case). */
int el__is_markdown_name(const char *path);

#endif
