/* source_graph_internal.h - what the source graph's writers share with its
 * builder (source_graph.c) beyond the public source_graph.h. */
#ifndef ETP_SOURCE_GRAPH_INTERNAL_H
#define ETP_SOURCE_GRAPH_INTERNAL_H

#include "etprof/source_graph.h"

/* Namespace from a module path: "layer1.0.conv1" -> "layer1/0/conv1" ('/'
 * inside a component escaped as "\/", ';' replaced by '_'), as the source
 * graph's nodes carry it. Caller frees; NULL on allocation failure. */
char *etp_module_namespace(const char *path);

#endif
