/* outline.h - the readable (non-JSON) view of `etprof dump`. */
#ifndef ETP_OUTLINE_H
#define ETP_OUTLINE_H

#include <stdio.h>

#include "etprof/etdump.h"
#include "etprof/etrecord.h"
#include "etprof/program.h"
#include "etprof/vgf.h"

void etp_outline_etdump(const etp_etdump *d, FILE *fp);
void etp_outline_program(const etp_program *p, FILE *fp);
void etp_outline_etrecord(const etp_etrecord *r, FILE *fp);
/* A VGF, each line starting with @p indent (outline_vgf.c). */
void etp_outline_vgf(const etp_vgf *v, FILE *fp, const char *indent);

#endif
