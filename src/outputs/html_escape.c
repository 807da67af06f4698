/* html_escape.c - text in etprof's HTML pages (html_escape.h). Runs of bytes
 * that need nothing are written in one piece. */
#include "outputs/html_escape.h"

void etp_html_escape(FILE *fp, const char *s)
{
    if (!s)
        return;
    const char *run = s;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        const char *entity;
        switch (c) {
        case '&': entity = "&amp;"; break;
        case '<': entity = "&lt;"; break;
        case '>': entity = "&gt;"; break;
        case '"': entity = "&quot;"; break;
        case '\'': entity = "&#39;"; break;
        default:
            if (c >= 0x20 || c == '\n' || c == '\t')
                continue;
            entity = " ";
        }
        fwrite(run, 1, (size_t)(s - run), fp);
        fputs(entity, fp);
        run = s + 1;
    }
    fwrite(run, 1, (size_t)(s - run), fp);
}
