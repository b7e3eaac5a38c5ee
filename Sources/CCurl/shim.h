#ifndef SWURL_CCURL_SHIM_H
#define SWURL_CCURL_SHIM_H
// curl's typecheck-gcc.h is never active under clang, but keep it off for gcc builds too.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#endif
