/* html_escape.h - how every HTML page etprof writes (the analysis report,
 * the diff page) puts text into its markup: one rule, for element text and
 * quoted attribute values alike. */
#ifndef ETP_HTML_ESCAPE_H
#define ETP_HTML_ESCAPE_H

#include <stdio.h>

/* Write @p s (NULL: nothing) to @p fp as HTML text: & < > " ' become
 * entities; control bytes other than tab and newline (C0, 0x01-0x1f) become
 * a space, since HTML has no way to carry them and names read from untrusted
 * files may hold them; every other byte, invalid UTF-8 included, is written
 * as it is (the page is declared UTF-8; a browser shows a bad sequence as
 * U+FFFD). Thread safety: that of @p fp. */
void etp_html_escape(FILE *fp, const char *s);

#endif
