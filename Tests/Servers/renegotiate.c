/* A TLS 1.2 server on 127.0.0.1 that asks for a renegotiation (HelloRequest) on the second
 * request of every connection, as a server asking for a client certificate on one location
 * does. The client of a test either renegotiates (the request is answered on the same
 * connection) or refuses (the connection ends; a client resends on a new one).
 *
 * Usage: renegotiate CERT_CHAIN KEY LOG
 * Prints the port it listens on, then serves until killed. LOG gets one line per event:
 * "request PATH", "renegotiated", "renegotiation refused".
 * Built by the tests (TLSEdgeTests.renegotiatingServer) with the C compiler at hand. */
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static FILE *logfile;

static void note(const char *what, const char *detail) {
    fprintf(logfile, "%s%s%s\n", what, detail ? " " : "", detail ? detail : "");
    fflush(logfile);
}

/* Reads one request head; returns its length, or -1 when the connection ended. */
static int read_head(SSL *ssl, char *buf, int size) {
    int got = 0;
    while (got < size - 1) {
        int n = SSL_read(ssl, buf + got, size - 1 - got);
        if (n <= 0) return -1;
        got += n;
        buf[got] = 0;
        if (strstr(buf, "\r\n\r\n")) return got;
    }
    return -1;
}

static void path_of(const char *head, char *out, int size) {
    const char *start = strchr(head, ' ');
    out[0] = 0;
    if (!start) return;
    start++;
    int i = 0;
    while (start[i] && start[i] != ' ' && i < size - 1) { out[i] = start[i]; i++; }
    out[i] = 0;
}

static void serve(SSL *ssl) {
    static const char answer[] = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n";
    char head[16384], path[512];
    for (int n = 1;; n++) {
        if (read_head(ssl, head, sizeof head) < 0) return;
        path_of(head, path, sizeof path);
        note("request", path);
        if (n == 2) {
            if (SSL_renegotiate(ssl) != 1 || SSL_do_handshake(ssl) != 1) { note("renegotiation refused", NULL); return; }
            /* The client's answer to the HelloRequest comes with its next read. */
            for (int i = 0; i < 100 && SSL_renegotiate_pending(ssl); i++) {
                char byte;
                if (SSL_peek(ssl, &byte, 1) <= 0 && SSL_get_error(ssl, -1) != SSL_ERROR_WANT_READ) break;
                SSL_do_handshake(ssl);
                usleep(10000);
            }
            if (SSL_renegotiate_pending(ssl)) { note("renegotiation refused", NULL); return; }
            note("renegotiated", NULL);
        }
        if (SSL_write(ssl, answer, (int)strlen(answer)) <= 0) return;
    }
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: renegotiate CERT_CHAIN KEY LOG\n"); return 64; }
    logfile = fopen(argv[3], "a");
    if (!logfile) { perror(argv[3]); return 66; }
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx || SSL_CTX_set_max_proto_version(ctx, TLS1_2_VERSION) != 1
        || SSL_CTX_use_certificate_chain_file(ctx, argv[1]) != 1
        || SSL_CTX_use_PrivateKey_file(ctx, argv[2], SSL_FILETYPE_PEM) != 1) {
        ERR_print_errors_fp(stderr);
        return 1;
    }
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (listener < 0 || bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 16) != 0
        || getsockname(listener, (struct sockaddr *)&address, &length) != 0) {
        perror("listen");
        return 1;
    }
    printf("%d\n", ntohs(address.sin_port));
    fflush(stdout);
    for (;;) {
        int connection = accept(listener, NULL, NULL);
        if (connection < 0) continue;
        SSL *ssl = SSL_new(ctx);
        SSL_set_fd(ssl, connection);
        if (SSL_accept(ssl) == 1) serve(ssl);
        SSL_free(ssl);
        close(connection);
    }
}
