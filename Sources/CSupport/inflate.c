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

// How much of a "deflate" body is kept, before any output, for reading it again as raw deflate.
#define SEEN_MAX (64 * 1024)

struct sw_inflater {
    z_stream z;
    int raw_tried;     // deflate: the zlib wrapper was refused, raw deflate is being read
    int gzip;          // a gzip member (gzip, x-gzip), else deflate (zlib-wrapped or raw)
    int ended;         // the stream (the last member) reached its end
    unsigned char *seen;   // deflate, before any output: the bytes read so far (up to SEEN_MAX), so
    size_t seen_len;       // that a raw-deflate retry reads them again whatever pieces they came in
    int seen_full;         // more than SEEN_MAX read without output: no retry after this piece
    unsigned char *replay; // a retry's input: the bytes seen, then the piece's rest (s->in points in)
    const char *first_msg; // zlib's words for the wrapped stream's fault, when the retry fails too
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
    free(s->seen);
    free(s->replay);
    p_inflateEnd(&s->z);
    free(s);
}

void sw_inflater_input(sw_inflater *s, const void *bytes, unsigned long len) {
    // A retry's replay buffer is read to its end before new input comes.
    free(s->replay);
    s->replay = NULL;
    s->in = bytes;
    s->in_len = len;
}

int sw_inflater_ended(const sw_inflater *s) { return s->ended; }

const char *sw_inflater_message(const sw_inflater *s) {
    // A wrapped stream that failed past its header, and failed as raw deflate too: the first
    // fault is the body's (a bad block, a wrong check value), not the raw reading's.
    if (s->raw_tried && s->first_msg != NULL && strcmp(s->first_msg, "incorrect header check") != 0
        && strcmp(s->first_msg, "unknown compression method") != 0 && strcmp(s->first_msg, "invalid window size") != 0) {
        return s->first_msg;
    }
    return s->z.msg;
}

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
        s->z.next_in = (Bytef *)s->in;
        s->z.avail_in = (uInt)(s->in_len > 0x40000000 ? 0x40000000 : s->in_len);
        uInt offered = s->z.avail_in;
        s->z.next_out = out;
        s->z.avail_out = (uInt)(cap > 0x40000000 ? 0x40000000 : cap);
        uInt room = s->z.avail_out;
        int rc = p_inflate(&s->z, Z_NO_FLUSH);
        size_t used = offered - s->z.avail_in;
        size_t made = room - s->z.avail_out;
        if (rc == Z_DATA_ERROR && !s->gzip && !s->raw_tried && s->z.total_out == 0 && !s->seen_full
            && s->z.total_in - used == s->seen_len) {
            // "deflate" sent as raw deflate (no zlib wrapper), as some servers do: libcurl and
            // browsers read it too. Started again on the same bytes: those earlier pieces gave
            // (kept in `seen`), then this piece's (libcurl keeps none, and fails a raw stream
            // whose first piece is one byte).
            s->first_msg = s->z.msg;
            s->raw_tried = 1;
            if (p_inflateReset2(&s->z, -15) != Z_OK) return SW_INFLATE_ERROR;
            if (s->seen_len > 0) {
                unsigned char *buf = malloc(s->seen_len + s->in_len);
                if (buf == NULL) return SW_INFLATE_ERROR;
                memcpy(buf, s->seen, s->seen_len);
                if (s->in_len > 0) memcpy(buf + s->seen_len, s->in, s->in_len);
                free(s->replay);
                s->replay = buf;
                s->in = buf;
                s->in_len += s->seen_len;
            }
            free(s->seen);
            s->seen = NULL;
            s->seen_len = 0;
            continue;
        }
        // Before any output, what is read is kept for a raw-deflate retry (a bounded amount).
        if (!s->gzip && !s->raw_tried && !s->seen_full && used > 0) {
            unsigned char *grown = s->z.total_out == 0 && s->seen_len + used <= SEEN_MAX ? realloc(s->seen, s->seen_len + used) : NULL;
            if (grown == NULL) {
                free(s->seen);
                s->seen = NULL;
                s->seen_len = 0;
                s->seen_full = 1;
            } else {
                memcpy(grown + s->seen_len, s->in, used);
                s->seen = grown;
                s->seen_len += used;
            }
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
