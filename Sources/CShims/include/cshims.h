#ifndef SWURL_CSHIMS_H
#define SWURL_CSHIMS_H
// Typed, prefixed wrappers for what Swift cannot call directly: curl's variadic
// curl_easy_setopt/curl_easy_getinfo and OpenSSL's function-like macros.
#define CURL_DISABLE_TYPECHECK 1
#include "ccurl.h"
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

// curl_easy_setopt(3), one wrapper per argument type.
CURLcode sw_setopt_long(CURL *h, CURLoption o, long v);
CURLcode sw_setopt_off(CURL *h, CURLoption o, curl_off_t v);
CURLcode sw_setopt_str(CURL *h, CURLoption o, const char *v);
CURLcode sw_setopt_ptr(CURL *h, CURLoption o, void *v);
CURLcode sw_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v);
CURLcode sw_setopt_write_cb(CURL *h, CURLoption o, curl_write_callback cb);
CURLcode sw_setopt_read_cb(CURL *h, CURLoption o, curl_read_callback cb);
CURLcode sw_setopt_xferinfo_cb(CURL *h, curl_xferinfo_callback cb);
CURLcode sw_setopt_debug_cb(CURL *h, curl_debug_callback cb);
CURLcode sw_setopt_ssl_ctx_cb(CURL *h, curl_ssl_ctx_callback cb);
CURLcode sw_setopt_seek_cb(CURL *h, curl_seek_callback cb);
CURLcode sw_setopt_prereq_cb(CURL *h, curl_prereq_callback cb);

// curl_easy_getinfo(3), one wrapper per result type.
CURLcode sw_getinfo_long(CURL *h, CURLINFO i, long *out);
CURLcode sw_getinfo_off(CURL *h, CURLINFO i, curl_off_t *out);
CURLcode sw_getinfo_double(CURL *h, CURLINFO i, double *out);
CURLcode sw_getinfo_str(CURL *h, CURLINFO i, const char **out);
CURLcode sw_getinfo_slist(CURL *h, CURLINFO i, struct curl_slist **out);
CURLcode sw_getinfo_certinfo(CURL *h, struct curl_certinfo **out);
CURLcode sw_getinfo_tlsinfo(CURL *h, struct curl_tlssessioninfo **out);
// After a CONNECT_ONLY transfer: waits up to wait_ms for the server to speak first, reading
// only what TLS itself sends (TLS 1.3 refuses a client's certificate, or its absence, after the
// handshake). CURLE_OK when it stayed quiet, sent data or closed the connection cleanly; else
// the receive error (its text in the handle's error buffer).
CURLcode sw_await_after_connect(CURL *h, int wait_ms);

curl_version_info_data *sw_curl_version_info(void);
// OpenSSL_version(3) with OPENSSL_VERSION, so the libcurl wrapper needs no COpenSSL import.
const char *sw_openssl_version(void);

// curl_share_setopt(3) (variadic) for the share handle redirect hops use for cookies, DNS and
// connections; and the CURLAUTH_* bit masks, which are macros Swift cannot import.
CURLSHcode sw_share_lock_data(CURLSH *sh, curl_lock_data what);
CURLMcode sw_multi_setopt_long(CURLM *m, CURLMoption o, long v);
unsigned long sw_curlauth_basic(void);
unsigned long sw_curlauth_digest(void);

// OpenSSL macros (SSL_CTX_set_min_proto_version(3) and friends).
int sw_ssl_ctx_set_min_proto(SSL_CTX *ctx, int version);
int sw_ssl_ctx_set_max_proto(SSL_CTX *ctx, int version);
// SSL_CTX_set_options(3) with SSL_OP_NO_RENEGOTIATION: a TLS 1.2 server's HelloRequest is
// answered with a no_renegotiation alert instead of a new handshake.
void sw_ssl_ctx_refuse_renegotiation(SSL_CTX *ctx);
int sw_sk_x509_num(const STACK_OF(X509) *sk);
X509 *sw_sk_x509_value(const STACK_OF(X509) *sk, int i);
void sw_openssl_free(void *p);
// BIO_get_mem_data(3): the bytes written to a memory BIO so far.
long sw_bio_mem_data(BIO *bio, const char **out);
// X509_NAME_print_ex(3) in RFC 2253 form with UTF-8 kept readable.
int sw_x509_name_print(BIO *bio, const X509_NAME *name);
// The subjectAltName extension's entries (X509_get_ext_d2i(3)); NULL when there is none or it
// does not parse. Freed with sw_x509_sans_free.
GENERAL_NAMES *sw_x509_sans(X509 *x);
int sw_x509_sans_count(const GENERAL_NAMES *names);
// Entry i's type (GEN_DNS, GEN_IPADD…); for a DNS name, email address, URI or IP address its
// bytes as stored (data and len), else data NULL: GENERAL_NAME_print(3) shows it (sw_x509_sans_print).
int sw_x509_sans_entry(const GENERAL_NAMES *names, int i, const unsigned char **data, int *len);
int sw_x509_sans_print(BIO *bio, const GENERAL_NAMES *names, int i);
// Entry i's name when it is a directory name (GEN_DIRNAME), else NULL.
X509_NAME *sw_x509_sans_dirname(const GENERAL_NAMES *names, int i);
void sw_x509_sans_free(GENERAL_NAMES *names);
// SSL_get0_alpn_selected(3) as a C string copy into buf; 0 when none was negotiated.
int sw_ssl_alpn(const SSL *ssl, char *buf, int size);
// SHA256_Init/Update/Final(3): the digest without EVP_MD_fetch(3), whose first call initialises
// OpenSSL's provider machinery (~3 M instructions), which a cache hit has no other use for.
void sw_sha256(const void *bytes, size_t count, unsigned char out[32]);

#endif
