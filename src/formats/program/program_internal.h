/* program_internal.h - the program reader's state that other parts of
 * libetprof read below the public etprof/program.h. */
#ifndef ETP_PROGRAM_INTERNAL_H
#define ETP_PROGRAM_INTERNAL_H

#include "etprof/program.h"
#include "formats/flatbuffers/fb.h"

/* The verified FlatBuffer of @p p as the file holds it and its root table:
 * for a .bpte the bundled program's (*bundled = 1), else the program's (for
 * the schema-driven JSON dump, outputs/dump/). */
const fb_buf *etp_program_flatbuffer(const etp_program *p, uint32_t *root, int *bundled);

#endif
