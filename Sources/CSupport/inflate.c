/*
 * Decoding of gzip and deflate response bodies with zlib, for swurl's own decoding (which,
 * unlike libcurl 7.88's, tells a stream that reached its end from one cut short). zlib is opened
 * with dlopen the first time a body needs it: libz.so.1 is libcurl's own dependency (every
 * machine with libcurl has it), and linking it would map it at every start. The header gives the
 * types and prototypes; only the addresses are looked up at run time.
 */
#define _GNU_SOURCE 1
#include "csupport.h"
#include <zlib.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define ZLIB_ENTRY_POINTS(X) X(inflateInit2_) X(inflate) X(inflateEnd) X(inflateReset2) X(zlibVersion)
#define POINTER(name) static __typeof__(name) *p_##name;
ZLIB_ENTRY_POINTS(POINTER)

static int zloaded = 0;
static pthread_once_t zonce = PTHREAD_ONCE_INIT;

static void zload(void) {
    void *h = dlopen("libz.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (h == NULL) return;
#define RESOLVE(name) if ((p_##name = (__typeof__(name) *)dlsym(h, #name)) == NULL) return;
    ZLIB_ENTRY_POINTS(RESOLVE)
    __atomic_store_n(&zloaded, 1, __ATOMIC_RELEASE);
}

struct sw_inflater {
    z_stream z;
    int raw_tried;     // deflate: the zlib wrapper was refused, raw deflate is being read
    int gzip;          // a gzip member (gzip, x-gzip), else deflate (zlib-wrapped or raw)
    int ended;         // the stream (the last member) reached its end
    unsigned char head[2]; // deflate: the stream's first two bytes (the zlib header zlib reads), kept
                       // so that a raw-deflate retry reads them again whatever pieces they came in
    int held;          // the last call filled the output: zlib may hold more without new input
    int trailer;       // raw deflate ended: bytes of an adler32 some servers send after it, left to skip
    const unsigned char *in;
    size_t in_len;
};

sw_inflater *sw_inflater_new(int gzip) {
    pthread_once(&zonce, zload);
    if (!__atomic_load_n(&zloaded, __ATOMIC_ACQUIRE)) return NULL;
    sw_inflater *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    s->gzip = gzip;
    // gzip: its own header only (16); deflate: the zlib wrapper, or gzip's (32 detects either).
    if (p_inflateInit2_(&s->z, gzip ? 15 + 16 : 15 + 32, p_zlibVersion(), (int)sizeof(z_stream)) != Z_OK) {
        free(s);
        return NULL;
    }
    return s;
}

void sw_inflater_free(sw_inflater *s) {
    if (s == NULL) return;
    p_inflateEnd(&s->z);
    free(s);
}

void sw_inflater_input(sw_inflater *s, const void *bytes, unsigned long len) {
    s->in = bytes;
    s->in_len = len;
}

int sw_inflater_ended(const sw_inflater *s) { return s->ended; }

const char *sw_inflater_message(const sw_inflater *s) { return s->z.msg; }

long sw_inflater_read(sw_inflater *s, void *out, unsigned long cap) {
    for (;;) {
        if (s->in_len == 0 && !s->held) return 0;
        if (s->ended) {
            if (s->in_len == 0) return 0;
            // Raw deflate: up to 4 bytes after its end (an adler32 some servers append, as
            // libcurl accepts them).
            if (s->raw_tried && s->trailer > 0) {
                size_t skip = s->in_len < (size_t)s->trailer ? s->in_len : (size_t)s->trailer;
                s->in += skip;
                s->in_len -= skip;
                s->trailer -= (int)skip;
                continue;
            }
            // After a gzip member, another may follow (RFC 1952 §2.2, as gzip -d reads them);
            // anything else is stray bytes.
            if (!s->gzip || s->in[0] != 0x1f || (s->in_len > 1 && s->in[1] != 0x8b)) return SW_INFLATE_STRAY;
            if (p_inflateReset2(&s->z, 15 + 16) != Z_OK) return SW_INFLATE_ERROR;
            s->ended = 0;
        }
        if (!s->gzip && !s->raw_tried && s->z.total_in < 2) {
            size_t n = 2 - s->z.total_in < s->in_len ? 2 - s->z.total_in : s->in_len;
            memcpy(s->head + s->z.total_in, s->in, n);
        }
        s->z.next_in = (Bytef *)s->in;
        s->z.avail_in = (uInt)(s->in_len > 0x40000000 ? 0x40000000 : s->in_len);
        uInt offered = s->z.avail_in;
        s->z.next_out = out;
        s->z.avail_out = (uInt)(cap > 0x40000000 ? 0x40000000 : cap);
        uInt room = s->z.avail_out;
        int rc = p_inflate(&s->z, Z_NO_FLUSH);
        size_t used = offered - s->z.avail_in;
        size_t made = room - s->z.avail_out;
        if (rc == Z_DATA_ERROR && !s->gzip && !s->raw_tried && s->z.total_out == 0 && s->z.total_in - used <= 2) {
            // "deflate" sent as raw deflate (no zlib wrapper), as some servers do: libcurl and
            // browsers read it too. Started again on the same bytes: those of this piece, and
            // before them the header bytes earlier pieces gave (libcurl cannot, and fails a raw
            // stream whose first piece is one byte).
            size_t earlier = s->z.total_in - used;
            s->raw_tried = 1;
            if (p_inflateReset2(&s->z, -15) != Z_OK) return SW_INFLATE_ERROR;
            if (earlier > 0) {
                s->z.next_in = s->head;
                s->z.avail_in = (uInt)earlier;
                s->z.next_out = out;
                s->z.avail_out = room;
                rc = p_inflate(&s->z, Z_NO_FLUSH);
                // Two bytes make no output a full buffer leaves behind, nor the stream's end
                // before the bytes that follow.
                if ((rc != Z_OK && rc != Z_BUF_ERROR && rc != Z_STREAM_END) || s->z.avail_in != 0) return SW_INFLATE_ERROR;
                if (rc == Z_STREAM_END) { s->ended = 1; s->trailer = 4; }
                made = room - s->z.avail_out;
                if (made > 0) return (long)made;
            }
            continue;
        }
        s->in += used;
        s->in_len -= used;
        // A full output may leave decoded bytes (and the stream's end) inside zlib with all
        // input read: the next call asks for them without new input.
        s->held = room > 0 && s->z.avail_out == 0;
        if (rc == Z_STREAM_END) {
            s->ended = 1;
            s->held = 0;
            s->trailer = 4;
            if (made > 0) return (long)made;
            continue;
        }
        if (rc == Z_BUF_ERROR && made == 0) {
            s->held = 0;
            if (used == 0) return 0;
            continue;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) return SW_INFLATE_ERROR;
        if (made > 0) return (long)made;
        if (used == 0) return 0;
    }
}
