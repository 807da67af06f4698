/*
 * bundle_target.h - the directory a bundle is published at: its parent
 * (which must exist, or is created on request) and what is there now
 * (nothing, an empty directory, an etprof bundle, anything else), by the
 * rules of etp_bundle_probe() in etprof/bundle.h.
 */
#ifndef ETP_BUNDLE_TARGET_H
#define ETP_BUNDLE_TARGET_H

#include <sys/types.h>

#include "etprof/bundle.h"
#include "formats/bundle/bundle_rules.h"

/*
 * Open the parent directory of @p dir (created first, like mkdir -p, with
 * ETP_BUNDLE_PARENTS) into *parentfd (caller closes) and copy @p dir's last
 * component into @p leaf (trailing slashes ignored). *missing (if non-NULL)
 * is set when it failed because the parent does not exist.
 * @return ETP_OK; ETP_E_USAGE (empty, "/", ".", ".."); ETP_E_IO naming @p dir.
 */
etp_status etp_target_open_parent(const char *dir, unsigned flags, int *parentfd,
                                  char leaf[ETP_BUNDLE_NAME_MAX + 1], int *missing,
                                  etp_error *err);

/*
 * What @p leaf in @p parentfd is (*kind), and ETP_OK when a bundle may
 * replace it with @p flags; else ETP_E_IO naming @p dir (a symlink, not a
 * directory, a non-bundle without ETP_BUNDLE_FORCE). *mode (if non-NULL)
 * receives an existing directory's permission bits.
 */
etp_status etp_target_classify(int parentfd, const char *leaf, const char *dir, unsigned flags,
                               etp_bundle_target *kind, mode_t *mode, etp_error *err);

#endif
