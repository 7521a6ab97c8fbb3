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

/// Points the stream at the next input. zlib only reads it, but next_in is const only when
/// ZLIB_CONST is defined: setting it here compiles either way, without a cast in Swift.
static inline void CZlib_setInput(z_streamp stream, const void *bytes, uInt count) {
    stream->next_in = (z_const Bytef *)bytes;
    stream->avail_in = count;
}

#endif
