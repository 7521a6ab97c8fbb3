// zlib for Leash's WebSocket permessage-deflate (RFC 7692), from the system: /usr/include on
// Linux (zlib1g-dev), the SDK on Apple platforms. No package dependency is needed.
#ifndef LEASH_CZLIB_H
#define LEASH_CZLIB_H

#include <zlib.h>

// deflateInit2 and inflateInit2 are macros (they pass ZLIB_VERSION and sizeof(z_stream) so that
// zlib can check the header against the library), and Swift does not import function-like
// macros: these inline wrappers keep that check.

/// deflateInit2 for a raw deflate stream (negative window bits: no zlib header or trailer).
static inline int CZlib_deflateInitRaw(z_streamp stream, int level, int windowBits, int memoryLevel) {
    return deflateInit2(stream, level, Z_DEFLATED, -windowBits, memoryLevel, Z_DEFAULT_STRATEGY);
}

/// inflateInit2 for a raw deflate stream (negative window bits: no zlib header or trailer).
static inline int CZlib_inflateInitRaw(z_streamp stream, int windowBits) {
    return inflateInit2(stream, -windowBits);
}

/// inflateInit2 for a zlib- or gzip-wrapped stream, whichever the header says (15 + 32: a 32 KiB
/// window, header detected): HTTP's Content-Encoding gzip and deflate. inflateReset2 can turn the
/// stream to raw deflate afterwards, for servers that send deflate without the zlib wrapper.
static inline int CZlib_inflateInitAuto(z_streamp stream) {
    return inflateInit2(stream, 15 + 32);
}

/// deflateInit2 with zlib's window bits as they are: 8...15 for a zlib wrapper, 16 more for a
/// gzip wrapper, negative for raw deflate (HTTP request bodies, and the tests' fixtures).
static inline int CZlib_deflateInitWindowBits(z_streamp stream, int level, int windowBits, int memoryLevel) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, memoryLevel, Z_DEFAULT_STRATEGY);
}

/// Points the stream at the next input. zlib only reads it, but next_in is const only when
/// ZLIB_CONST is defined: setting it here compiles either way, without a cast in Swift.
static inline void CZlib_setInput(z_streamp stream, const void *bytes, uInt count) {
    stream->next_in = (z_const Bytef *)bytes;
    stream->avail_in = count;
}

#endif
