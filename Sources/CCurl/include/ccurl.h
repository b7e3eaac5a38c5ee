#ifndef SWURL_CCURL_H
#define SWURL_CCURL_H
/*
 * libcurl's headers (libcurl4-openssl-dev), with the library itself opened by dlopen on first
 * use (curl_loader.c): a request the cache answers, `--help`, `--offline` and the other runs
 * that never reach the network do not load and relocate libcurl and its ~30 libraries.
 */
// curl's typecheck-gcc.h is never active under clang, but keep it off for gcc builds too.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

/// Opens libcurl.so.4 and resolves every entry point swurl calls, once; 0 when it is ready.
/// Every curl_* function also loads it on first use, and ends the process with
/// sw_curl_load_error()'s text when it cannot: callers that can report an error call this first.
int sw_curl_load(void);
/// Why sw_curl_load failed (dlerror's text), or NULL.
const char *sw_curl_load_error(void);
/// Whether libcurl has been loaded by this process (tests check that a cache hit does not).
int sw_curl_is_loaded(void);
/// The file libcurl was loaded from (dladdr(3)), or NULL before it is loaded.
const char *sw_curl_path(void);

#if !defined(__swift__)
// curl's variadic functions, which Swift cannot call; CShims wraps them with one typed function
// per argument type.
__typeof__(curl_easy_setopt) *sw_curl_easy_setopt_fn(void);
__typeof__(curl_easy_getinfo) *sw_curl_easy_getinfo_fn(void);
__typeof__(curl_multi_setopt) *sw_curl_multi_setopt_fn(void);
__typeof__(curl_share_setopt) *sw_curl_share_setopt_fn(void);
#endif

#endif
