/// Why permessage-deflate could not set up or compress: a local failure, never the peer's.
///
/// What the peer sends fails as a `WebSocketProtocolViolation` instead (bad DEFLATE data is
/// `invalidCompressedData`, too much of it `messageTooLarge`), since that closes with a code.
package enum WebSocketCompressionError: Error, Hashable, Sendable {
    /// A window size outside the 8...15 bits that RFC 7692 §7.1.2 allows.
    case windowBitsOutOfRange(Int)
    /// A zlib call that returned `status` (a `Z_…` code such as `Z_MEM_ERROR`).
    case zlibFailure(function: String, status: Int32)
    /// Deflate's flushed output did not end with the empty stored block (`00 00 FF FF`) that
    /// `Z_SYNC_FLUSH` always writes, so it cannot be stripped (RFC 7692 §7.2.1).
    case missingFlushMarker
}
