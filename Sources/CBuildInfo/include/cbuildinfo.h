#ifndef SWURL_CBUILDINFO_H
#define SWURL_CBUILDINFO_H

/// The top-level VERSION file's bytes, as written (a trailing newline included).
const char *swurl_version_file(void);

/// The commit swurl was built from (`git rev-parse --short HEAD`, written into commit.h by
/// scripts/build-info), or "unknown" when the build did not go through the Makefile.
const char *swurl_build_commit(void);

#endif
