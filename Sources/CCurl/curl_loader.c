/*
 * libcurl, opened with dlopen the first time a curl_* function runs.
 *
 * Linked normally, libcurl.so.4 and the ~30 libraries it needs (nghttp2, ssh2, rtmp, LDAP,
 * Kerberos, IDN, PSL, brotli, zstd, ...) are mapped and relocated at every start of swurl: about
 * 4 ms, more than a whole cache hit takes otherwise (docs/performance.md). The headers are
 * libcurl's own, so every definition below is checked against curl's prototype; only the
 * addresses are looked up at run time, all at once in sw_curl_load. The definitions are hidden:
 * the binary does not export them (HIDDEN), so libcurl's own calls never come back here.
 */
#define _GNU_SOURCE 1
#include "ccurl.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define LIBCURL "libcurl.so.4"

// Every entry point swurl uses (scripts/make-deb reads this list for the package's Depends).
#define CURL_ENTRY_POINTS(X) \
    X(curl_global_init) X(curl_version_info) X(curl_free) X(curl_easy_strerror) \
    X(curl_easy_init) X(curl_easy_setopt) X(curl_easy_getinfo) X(curl_easy_perform) \
    X(curl_easy_reset) X(curl_easy_cleanup) X(curl_easy_recv) X(curl_slist_append) X(curl_slist_free_all) \
    X(curl_url) X(curl_url_set) X(curl_url_get) X(curl_url_cleanup) X(curl_url_strerror) \
    X(curl_share_init) X(curl_share_setopt) X(curl_share_cleanup) \
    X(curl_multi_init) X(curl_multi_setopt) X(curl_multi_add_handle) X(curl_multi_remove_handle) \
    X(curl_multi_perform) X(curl_multi_poll) X(curl_multi_wakeup) X(curl_multi_info_read) \
    X(curl_multi_strerror) X(curl_multi_cleanup)

#define POINTER(name) static __typeof__(name) *p_##name;
CURL_ENTRY_POINTS(POINTER)

static int loaded = 0;
static const char *load_error = NULL;
static char load_error_text[512];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void);

/// Once per process, whichever thread asks first (pthread_once): the later calls see the result.
int sw_curl_load(void) {
    if (__builtin_expect(__atomic_load_n(&loaded, __ATOMIC_ACQUIRE), 1)) return 0;
    pthread_once(&load_once, load);
    return __atomic_load_n(&loaded, __ATOMIC_ACQUIRE) ? 0 : -1;
}

static void load(void) {
    void *h = dlopen(LIBCURL, RTLD_LAZY | RTLD_LOCAL);
    if (h == NULL) {
        const char *e = dlerror();
        snprintf(load_error_text, sizeof load_error_text, "%s", e != NULL ? e : "cannot open " LIBCURL);
        load_error = load_error_text;
        return;
    }
// The symbol version a link against libcurl4-openssl-dev records: the OpenSSL flavour, whose
// SSL_CTX the pins are checked on (a libcurl on another TLS library would not take them). A
// libcurl built without symbol versions still resolves (glibc accepts unversioned symbols).
#define RESOLVE(name) \
    *(void **)(&p_##name) = dlvsym(h, #name, "CURL_OPENSSL_4"); \
    if (p_##name == NULL) { \
        snprintf(load_error_text, sizeof load_error_text, \
                 "%s lacks %s@CURL_OPENSSL_4 (swurl needs libcurl 7.85 or later, built with OpenSSL)", LIBCURL, #name); \
        load_error = load_error_text; \
        return; \
    }
    CURL_ENTRY_POINTS(RESOLVE)
#undef RESOLVE
    __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
}

const char *sw_curl_load_error(void) { return load_error; }
int sw_curl_is_loaded(void) { return __atomic_load_n(&loaded, __ATOMIC_ACQUIRE); }

const char *sw_curl_path(void) {
    Dl_info info;
    if (!sw_curl_is_loaded() || dladdr((void *)p_curl_easy_init, &info) == 0) return NULL;
    return info.dli_fname;
}

/// The last resort for a caller that did not check sw_curl_load first: nothing can go on
/// without libcurl, so say why and stop (exit status 1, as any failed request).
static void require(void) {
    if (sw_curl_load() == 0) return;
    fprintf(stderr, "swurl: error: cannot load libcurl: %s\n  hint: install the libcurl4 package (apt install libcurl4)\n", load_error);
    _exit(1);
}

__typeof__(curl_easy_setopt) *sw_curl_easy_setopt_fn(void) { require(); return p_curl_easy_setopt; }
__typeof__(curl_easy_getinfo) *sw_curl_easy_getinfo_fn(void) { require(); return p_curl_easy_getinfo; }
__typeof__(curl_multi_setopt) *sw_curl_multi_setopt_fn(void) { require(); return p_curl_multi_setopt; }
__typeof__(curl_share_setopt) *sw_curl_share_setopt_fn(void) { require(); return p_curl_share_setopt; }

#define CALL(name) (require(), p_##name)
#define HIDDEN __attribute__((visibility("hidden")))
HIDDEN CURLcode curl_global_init(long flags) { return CALL(curl_global_init)(flags); }
HIDDEN curl_version_info_data *curl_version_info(CURLversion v) { return CALL(curl_version_info)(v); }
HIDDEN void curl_free(void *p) { CALL(curl_free)(p); }
HIDDEN const char *curl_easy_strerror(CURLcode c) { return CALL(curl_easy_strerror)(c); }
HIDDEN CURL *curl_easy_init(void) { return CALL(curl_easy_init)(); }
HIDDEN CURLcode curl_easy_perform(CURL *h) { return CALL(curl_easy_perform)(h); }
HIDDEN void curl_easy_reset(CURL *h) { CALL(curl_easy_reset)(h); }
HIDDEN void curl_easy_cleanup(CURL *h) { CALL(curl_easy_cleanup)(h); }
HIDDEN CURLcode curl_easy_recv(CURL *h, void *buf, size_t len, size_t *n) { return CALL(curl_easy_recv)(h, buf, len, n); }
HIDDEN struct curl_slist *curl_slist_append(struct curl_slist *l, const char *s) { return CALL(curl_slist_append)(l, s); }
HIDDEN void curl_slist_free_all(struct curl_slist *l) { CALL(curl_slist_free_all)(l); }
HIDDEN CURLU *curl_url(void) { return CALL(curl_url)(); }
HIDDEN CURLUcode curl_url_set(CURLU *u, CURLUPart what, const char *part, unsigned int flags) { return CALL(curl_url_set)(u, what, part, flags); }
HIDDEN CURLUcode curl_url_get(CURLU *u, CURLUPart what, char **part, unsigned int flags) { return CALL(curl_url_get)(u, what, part, flags); }
HIDDEN void curl_url_cleanup(CURLU *u) { CALL(curl_url_cleanup)(u); }
HIDDEN const char *curl_url_strerror(CURLUcode c) { return CALL(curl_url_strerror)(c); }
HIDDEN CURLSH *curl_share_init(void) { return CALL(curl_share_init)(); }
HIDDEN CURLSHcode curl_share_cleanup(CURLSH *s) { return CALL(curl_share_cleanup)(s); }
HIDDEN CURLM *curl_multi_init(void) { return CALL(curl_multi_init)(); }
HIDDEN CURLMcode curl_multi_add_handle(CURLM *m, CURL *h) { return CALL(curl_multi_add_handle)(m, h); }
HIDDEN CURLMcode curl_multi_remove_handle(CURLM *m, CURL *h) { return CALL(curl_multi_remove_handle)(m, h); }
HIDDEN CURLMcode curl_multi_perform(CURLM *m, int *running) { return CALL(curl_multi_perform)(m, running); }
HIDDEN CURLMcode curl_multi_poll(CURLM *m, struct curl_waitfd extra[], unsigned int n, int timeout_ms, int *ret) { return CALL(curl_multi_poll)(m, extra, n, timeout_ms, ret); }
HIDDEN CURLMcode curl_multi_wakeup(CURLM *m) { return CALL(curl_multi_wakeup)(m); }
HIDDEN CURLMsg *curl_multi_info_read(CURLM *m, int *left) { return CALL(curl_multi_info_read)(m, left); }
HIDDEN const char *curl_multi_strerror(CURLMcode c) { return CALL(curl_multi_strerror)(c); }
HIDDEN CURLMcode curl_multi_cleanup(CURLM *m) { return CALL(curl_multi_cleanup)(m); }
