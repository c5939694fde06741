#!/usr/bin/env bash
# A man page from a program's installed --help text (deploy/help-docs.sh), so
# the page cannot drift from --help: the text goes in verbatim (no fill), with
# roff's special characters escaped.
#   deploy/man-page.sh TXT NAME VERSION SUMMARY >NAME.1
set -euo pipefail
txt=$1 name=$2 version=$3 summary=$4
printf '.\\" -*- coding: UTF-8 -*-\n'
upper=$(tr '[:lower:]' '[:upper:]' <<<"$name")
printf '.TH %s 1 "" "electra.c %s" "User Commands"\n' "$upper" "$version"
printf '.SH NAME\n%s \\- %s\n' "$name" "$summary"
printf '.SH DESCRIPTION\n'
printf 'The text of \\fB%s \\-\\-help\\fR (and, for electra\\-train, each command'"'"'s \\-\\-help).\n' "$name"
printf '.PP\n.nf\n'
# \ -> \e; a line starting with . or ' would be a request: \& before it;
# - -> \- so options stay ASCII hyphens when rendered and searched.
sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/" -e 's/-/\\-/g' "$txt"
printf '.fi\n'
printf '.SH SEE ALSO\n.BR electra\\-train (1),\n.BR electra\\-server (1);\nREADME.md and docs/ of electra.c\n'
