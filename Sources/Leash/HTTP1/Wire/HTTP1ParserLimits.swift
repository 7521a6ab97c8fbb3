import Foundation

/// Bounds on what `HTTP1ResponseParser` accepts: each exceeded limit is a typed error, never unbounded memory.
///
/// Every byte the parser buffers belongs to a head, a chunk-size line or a trailer section, so these limits
/// bound its memory; bodies are handed out as they arrive and never buffered.
package struct HTTP1ParserLimits: Sendable, Equatable {
    /// The bytes of one head: status line, header lines and the blank line, line endings included.
    package var maximumHeadBytes: Int
    /// The bytes of one status, header or trailer line, its line ending (CRLF or LF) included.
    package var maximumLineBytes: Int
    /// The header fields of one head (an obs-fold continuation is part of its field, not another one).
    package var maximumHeaderCount: Int
    /// The bytes of one chunk-size line, extensions and line ending included.
    package var maximumChunkLineBytes: Int
    /// The bytes of the trailer section: every trailer line and the closing blank line.
    package var maximumTrailerBytes: Int
    /// The 1xx heads (other than 101) accepted before the final head.
    package var maximumInterimResponses: Int

    /// Limits with the given values; the defaults are generous for real servers and small enough for memory.
    package init(
        maximumHeadBytes: Int = 64 * 1024,
        maximumLineBytes: Int = 16 * 1024,
        maximumHeaderCount: Int = 128,
        maximumChunkLineBytes: Int = 1024,
        maximumTrailerBytes: Int = 16 * 1024,
        maximumInterimResponses: Int = 16
    ) {
        self.maximumHeadBytes = maximumHeadBytes
        self.maximumLineBytes = maximumLineBytes
        self.maximumHeaderCount = maximumHeaderCount
        self.maximumChunkLineBytes = maximumChunkLineBytes
        self.maximumTrailerBytes = maximumTrailerBytes
        self.maximumInterimResponses = maximumInterimResponses
    }

    /// The default limits.
    package static let `default` = HTTP1ParserLimits()
}
