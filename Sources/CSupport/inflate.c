/*
 * Decoding of gzip, deflate (and zstd, at the end) response bodies with zlib, for swurl's own decoding (which,
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

// zstd through libzstd (libzstd.so.1, libcurl's own dependency on Debian), opened the same way.
// No header is needed: the few functions and their two buffer structs are zstd's stable API.
typedef struct { const void *src; size_t size; size_t pos; } sw_zstd_in;
typedef struct { void *dst; size_t size; size_t pos; } sw_zstd_out;
typedef struct sw_zstd_dctx sw_zstd_dctx;
static sw_zstd_dctx *(*p_ZSTD_createDCtx)(void);
static size_t (*p_ZSTD_freeDCtx)(sw_zstd_dctx *);
static size_t (*p_ZSTD_DCtx_setParameter)(sw_zstd_dctx *, int, int);
static size_t (*p_ZSTD_decompressStream)(sw_zstd_dctx *, sw_zstd_out *, sw_zstd_in *);
static unsigned (*p_ZSTD_isError)(size_t);
static const char *(*p_ZSTD_getErrorName)(size_t);
// ZSTD_d_windowLogMax; 2^23 = 8 MiB, the most RFC 9659's zstd content coding may ask for.
#define SW_ZSTD_WINDOW_LOG_MAX_PARAMETER 100
#define SW_ZSTD_WINDOW_LOG_MAX 23

static int zstd_loaded = 0;
static pthread_once_t zstd_once = PTHREAD_ONCE_INIT;

static void zstd_load(void) {
    void *h = dlopen("libzstd.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (h == NULL) return;
#define ZRESOLVE(name) if ((*(void **)(&p_##name) = dlsym(h, #name)) == NULL) return;
    ZRESOLVE(ZSTD_createDCtx) ZRESOLVE(ZSTD_freeDCtx) ZRESOLVE(ZSTD_DCtx_setParameter)
    ZRESOLVE(ZSTD_decompressStream) ZRESOLVE(ZSTD_isError) ZRESOLVE(ZSTD_getErrorName)
#undef ZRESOLVE
    __atomic_store_n(&zstd_loaded, 1, __ATOMIC_RELEASE);
}

struct sw_inflater {
    sw_zstd_dctx *zstd;    // a zstd decoder (and none of the zlib fields below are used)
    const char *zstd_msg;  // libzstd's words for the last error
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

static sw_inflater *zstd_new(void) {
    pthread_once(&zstd_once, zstd_load);
    if (!__atomic_load_n(&zstd_loaded, __ATOMIC_ACQUIRE)) return NULL;
    sw_inflater *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    s->zstd = p_ZSTD_createDCtx();
    if (s->zstd == NULL || p_ZSTD_isError(p_ZSTD_DCtx_setParameter(s->zstd, SW_ZSTD_WINDOW_LOG_MAX_PARAMETER, SW_ZSTD_WINDOW_LOG_MAX))) {
        if (s->zstd != NULL) p_ZSTD_freeDCtx(s->zstd);
        free(s);
        return NULL;
    }
    return s;
}

// One call of sw_inflater_read for zstd: frames one after another are one body (RFC 8878 §3.1);
// the data has ended when a frame has and no byte follows.
static long zstd_read(sw_inflater *s, void *out, unsigned long cap) {
    for (;;) {
        if (s->in_len == 0 && !s->held) return 0;
        sw_zstd_in in = { s->in, s->in_len, 0 };
        sw_zstd_out o = { out, cap, 0 };
        int after_frame = s->ended;
        size_t rc = p_ZSTD_decompressStream(s->zstd, &o, &in);
        if (p_ZSTD_isError(rc)) {
            s->zstd_msg = p_ZSTD_getErrorName(rc);
            // Bytes after a whole frame that start no frame: stray bytes, as after gzip's end.
            return after_frame ? SW_INFLATE_STRAY : SW_INFLATE_ERROR;
        }
        s->in += in.pos;
        s->in_len -= in.pos;
        // 0: a frame is whole and all its bytes are out. (A call that moved nothing, after a
        // frame's end, returns the next frame's header size: not a frame begun.)
        if (in.pos > 0 || o.pos > 0) s->ended = rc == 0;
        // A full output may leave decoded bytes inside libzstd with all input read.
        s->held = o.pos == o.size && cap > 0;
        if (o.pos > 0) return (long)o.pos;
        if (in.pos == 0) {
            s->held = 0;
            return 0;
        }
    }
}

sw_inflater *sw_inflater_new(int coding) {
    if (coding == SW_CODING_ZSTD) return zstd_new();
    int gzip = coding == SW_CODING_GZIP;
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
    if (s->zstd != NULL) {
        p_ZSTD_freeDCtx(s->zstd);
        free(s);
        return;
    }
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

const char *sw_inflater_library(const sw_inflater *s) { return s->zstd != NULL ? "zstd" : "zlib"; }

const char *sw_inflater_message(const sw_inflater *s) {
    if (s->zstd != NULL) return s->zstd_msg;
    // A wrapped stream that failed past its header, and failed as raw deflate too: the first
    // fault is the body's (a bad block, a wrong check value), not the raw reading's.
    if (s->raw_tried && s->first_msg != NULL && strcmp(s->first_msg, "incorrect header check") != 0
        && strcmp(s->first_msg, "unknown compression method") != 0 && strcmp(s->first_msg, "invalid window size") != 0) {
        return s->first_msg;
    }
    return s->z.msg;
}

long sw_inflater_read(sw_inflater *s, void *out, unsigned long cap) {
    if (s->zstd != NULL) return zstd_read(s, out, cap);
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
