// The version's one source of truth is the VERSION file at the top of the repository: C23's
// #embed copies its bytes in at compile time, and the compiler's dependency file lists it, so a
// changed VERSION rebuilds this file (and only this file) with no code generation step.
#include "cbuildinfo.h"

#pragma clang diagnostic ignored "-Wc23-extensions"

static const char version_file[] = {
#embed "../../VERSION"
    , 0
};

// commit.h (git-ignored) is written by scripts/build-info, which the Makefile runs before each
// build; a plain `swift build` on a fresh clone has none and says "unknown".
#if __has_include("commit.h")
#include "commit.h"
#endif
#ifndef SWURL_COMMIT
#define SWURL_COMMIT "unknown"
#endif

const char *swurl_version_file(void) { return version_file; }

const char *swurl_build_commit(void) { return SWURL_COMMIT; }
