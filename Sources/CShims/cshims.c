// SHA256_Init and friends are deprecated in OpenSSL 3.0 in favour of EVP, still supported, and
// are the one way to hash without the provider fetch (sw_sha256).
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include "cshims.h"
#include <string.h>
#include <errno.h>
#include <poll.h>
#include <time.h>
#include <openssl/x509v3.h>
#include <openssl/bio.h>
#include <openssl/sha.h>

CURLcode sw_setopt_long(CURL *h, CURLoption o, long v) { return sw_curl_easy_setopt_fn()(h, o, v); }
CURLcode sw_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return sw_curl_easy_setopt_fn()(h, o, v); }
CURLcode sw_setopt_str(CURL *h, CURLoption o, const char *v) { return sw_curl_easy_setopt_fn()(h, o, v); }
CURLcode sw_setopt_ptr(CURL *h, CURLoption o, void *v) { return sw_curl_easy_setopt_fn()(h, o, v); }
CURLcode sw_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return sw_curl_easy_setopt_fn()(h, o, v); }
CURLcode sw_setopt_write_cb(CURL *h, CURLoption o, curl_write_callback cb) { return sw_curl_easy_setopt_fn()(h, o, cb); }
CURLcode sw_setopt_read_cb(CURL *h, CURLoption o, curl_read_callback cb) { return sw_curl_easy_setopt_fn()(h, o, cb); }
CURLcode sw_setopt_xferinfo_cb(CURL *h, curl_xferinfo_callback cb) { return sw_curl_easy_setopt_fn()(h, CURLOPT_XFERINFOFUNCTION, cb); }
CURLcode sw_setopt_debug_cb(CURL *h, curl_debug_callback cb) { return sw_curl_easy_setopt_fn()(h, CURLOPT_DEBUGFUNCTION, cb); }
CURLcode sw_setopt_ssl_ctx_cb(CURL *h, curl_ssl_ctx_callback cb) { return sw_curl_easy_setopt_fn()(h, CURLOPT_SSL_CTX_FUNCTION, cb); }
CURLcode sw_setopt_seek_cb(CURL *h, curl_seek_callback cb) { return sw_curl_easy_setopt_fn()(h, CURLOPT_SEEKFUNCTION, cb); }
CURLcode sw_setopt_prereq_cb(CURL *h, curl_prereq_callback cb) { return sw_curl_easy_setopt_fn()(h, CURLOPT_PREREQFUNCTION, cb); }

CURLcode sw_getinfo_long(CURL *h, CURLINFO i, long *out) { return sw_curl_easy_getinfo_fn()(h, i, out); }
CURLcode sw_getinfo_off(CURL *h, CURLINFO i, curl_off_t *out) { return sw_curl_easy_getinfo_fn()(h, i, out); }
CURLcode sw_getinfo_slist(CURL *h, CURLINFO i, struct curl_slist **out) { return sw_curl_easy_getinfo_fn()(h, i, out); }
CURLcode sw_getinfo_double(CURL *h, CURLINFO i, double *out) { return sw_curl_easy_getinfo_fn()(h, i, out); }
CURLcode sw_getinfo_str(CURL *h, CURLINFO i, const char **out) { return sw_curl_easy_getinfo_fn()(h, i, out); }
CURLcode sw_getinfo_certinfo(CURL *h, struct curl_certinfo **out) { return sw_curl_easy_getinfo_fn()(h, CURLINFO_CERTINFO, out); }
CURLcode sw_getinfo_tlsinfo(CURL *h, struct curl_tlssessioninfo **out) { return sw_curl_easy_getinfo_fn()(h, CURLINFO_TLS_SSL_PTR, out); }

CURLcode sw_await_after_connect(CURL *h, int wait_ms) {
    curl_socket_t fd = CURL_SOCKET_BAD;
    if (sw_curl_easy_getinfo_fn()(h, CURLINFO_ACTIVESOCKET, &fd) != CURLE_OK || fd == CURL_SOCKET_BAD) return CURLE_OK;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
        if (elapsed >= wait_ms) return CURLE_OK;
        struct pollfd p = { fd, POLLIN, 0 };
        int r = poll(&p, 1, (int)(wait_ms - elapsed));
        if (r < 0 && errno == EINTR) return CURLE_OK;
        if (r <= 0) return CURLE_OK;
        char buf[512];
        size_t n = 0;
        CURLcode c = curl_easy_recv(h, buf, sizeof buf, &n);
        if (c == CURLE_AGAIN) continue;
        (void)n;
        return c;
    }
}

curl_version_info_data *sw_curl_version_info(void) { return curl_version_info(CURLVERSION_NOW); }
const char *sw_openssl_version(void) { return OpenSSL_version(OPENSSL_VERSION); }

CURLSHcode sw_share_lock_data(CURLSH *sh, curl_lock_data what) { return sw_curl_share_setopt_fn()(sh, CURLSHOPT_SHARE, what); }
CURLMcode sw_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return sw_curl_multi_setopt_fn()(m, o, v); }
unsigned long sw_curlauth_basic(void) { return CURLAUTH_BASIC; }
unsigned long sw_curlauth_digest(void) { return CURLAUTH_DIGEST; }

int sw_ssl_ctx_set_min_proto(SSL_CTX *ctx, int version) { return (int)SSL_CTX_set_min_proto_version(ctx, version); }
int sw_ssl_ctx_set_max_proto(SSL_CTX *ctx, int version) { return (int)SSL_CTX_set_max_proto_version(ctx, version); }
void sw_ssl_ctx_refuse_renegotiation(SSL_CTX *ctx) { SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION); }
int sw_sk_x509_num(const STACK_OF(X509) *sk) { return sk_X509_num(sk); }
X509 *sw_sk_x509_value(const STACK_OF(X509) *sk, int i) { return sk_X509_value(sk, i); }
void sw_openssl_free(void *p) { OPENSSL_free(p); }
long sw_bio_mem_data(BIO *bio, const char **out) {
    char *p = NULL;
    long n = BIO_get_mem_data(bio, &p);
    *out = p;
    return n;
}
int sw_x509_name_print(BIO *bio, const X509_NAME *name) {
    return X509_NAME_print_ex(bio, name, 0, XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB);
}
GENERAL_NAMES *sw_x509_sans(X509 *x) {
    return X509_get_ext_d2i(x, NID_subject_alt_name, NULL, NULL);
}
int sw_x509_sans_count(const GENERAL_NAMES *names) { return sk_GENERAL_NAME_num(names); }
int sw_x509_sans_entry(const GENERAL_NAMES *names, int i, const unsigned char **data, int *len) {
    const GENERAL_NAME *n = sk_GENERAL_NAME_value(names, i);
    *data = NULL;
    *len = 0;
    if (n == NULL) return -1;
    const ASN1_STRING *s = NULL;
    switch (n->type) {
    case GEN_DNS: case GEN_EMAIL: case GEN_URI: s = n->d.ia5; break;
    case GEN_IPADD: s = n->d.ip; break;
    default: break;
    }
    if (s != NULL) {
        *data = ASN1_STRING_get0_data(s);
        *len = ASN1_STRING_length(s);
    }
    return n->type;
}
int sw_x509_sans_print(BIO *bio, const GENERAL_NAMES *names, int i) {
    GENERAL_NAME *n = sk_GENERAL_NAME_value(names, i);
    return n == NULL ? 0 : GENERAL_NAME_print(bio, n);
}
X509_NAME *sw_x509_sans_dirname(const GENERAL_NAMES *names, int i) {
    const GENERAL_NAME *n = sk_GENERAL_NAME_value(names, i);
    return n != NULL && n->type == GEN_DIRNAME ? n->d.dirn : NULL;
}
void sw_x509_sans_free(GENERAL_NAMES *names) { GENERAL_NAMES_free(names); }
int sw_ssl_alpn(const SSL *ssl, char *buf, int size) {
    const unsigned char *p = NULL;
    unsigned int n = 0;
    SSL_get0_alpn_selected(ssl, &p, &n);
    if (p == NULL || n == 0 || size <= 0) return 0;
    if ((int)n >= size) n = (unsigned int)size - 1;
    memcpy(buf, p, n);
    buf[n] = 0;
    return (int)n;
}

void sw_sha256(const void *bytes, size_t count, unsigned char out[32]) {
    SHA256_CTX c;
    SHA256_Init(&c);
    SHA256_Update(&c, bytes, count);
    SHA256_Final(out, &c);
}
