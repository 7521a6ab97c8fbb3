internal import CZlib
import Foundation

/// Compresses outgoing messages for permessage-deflate (RFC 7692 §7.2.1): each message is
/// deflated with `Z_SYNC_FLUSH` and loses the `00 00 FF FF` that the flush ends with.
///
/// One zlib stream serves every message of the connection: with context takeover its window
/// carries over, so a message may point back into earlier ones; without, it is reset after
/// each message. It is not thread-safe: one connection, one caller at a time.
///
/// ```swift
/// let compressor = try parameters.makeClientCompressor()
/// let frame = try compressor.messageFrame(opcode: .text, payload: Data(text.utf8))
/// ```
package final class PerMessageDeflateCompressor {
    /// The default for `minimumCompressedSize`: 64 bytes.
    ///
    /// LZ77 only pays on repeats of three bytes or more, and a match costs two or three bytes
    /// to encode, so a short text has little to gain while its literals still cost about a
    /// byte each; a payload up to 125 bytes keeps the same two-byte frame header however much
    /// it shrinks. Below 64 bytes the saving is a few bytes at best, for a deflate call here
    /// and an inflate call at the peer. Context takeover can make short repeats worth it: set
    /// 0 to compress everything.
    package static let defaultMinimumCompressedSize = 64

    /// The LZ77 window agreed for this direction, in bits (8...15).
    package let windowBits: Int
    /// Whether the stream is reset after each message (the `…_no_context_takeover` agreed).
    package let noContextTakeover: Bool
    /// Payloads shorter than this go out uncompressed from `messageFrame(opcode:payload:)`.
    package let minimumCompressedSize: Int

    /// The zlib stream; allocated once, since zlib's state points back at it and it must not move.
    private let stream: UnsafeMutablePointer<z_stream>

    /// The flush marker `Z_SYNC_FLUSH` ends with: an empty stored block (RFC 7692 §7.2.1).
    static let flushMarker: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    /// A compressor for one direction of a connection.
    ///
    /// - Parameters:
    ///   - windowBits: The agreed window, 8...15 bits.
    ///   - noContextTakeover: Whether each message must be compressed on its own.
    ///   - minimumCompressedSize: The size under which `messageFrame` does not compress.
    /// - Throws: `windowBitsOutOfRange`, or `zlibFailure` when zlib cannot set up (no memory).
    package init(
        windowBits: Int = 15, noContextTakeover: Bool = false,
        minimumCompressedSize: Int = defaultMinimumCompressedSize
    ) throws(WebSocketCompressionError) {
        guard (8...15).contains(windowBits) else { throw .windowBitsOutOfRange(windowBits) }
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // zlib's deflate refuses an 8-bit window for raw deflate (since 1.2.9; before, it used
        // 9 anyway). 9 is safe when 8 was agreed: deflate keeps every match within the window
        // less 262 bytes (MAX_DIST), so a 512-byte window never points more than 250 bytes
        // back, which a peer inflating with a 256-byte window can follow.
        let status = CZlib_deflateInitRaw(stream, Z_DEFAULT_COMPRESSION, Int32(max(windowBits, 9)), 8)
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw .zlibFailure(function: "deflateInit2", status: status)
        }
        self.stream = stream
        self.windowBits = windowBits
        self.noContextTakeover = noContextTakeover
        self.minimumCompressedSize = minimumCompressedSize
    }

    /// Frees zlib's state and the stream.
    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compresses one whole message payload (RFC 7692 §7.2.1).
    ///
    /// - Returns: The DEFLATE blocks without the trailing `00 00 FF FF`; an empty payload gives
    ///   `00`, the empty block of §7.2.3.6.
    /// - Throws: `WebSocketCompressionError` when zlib fails; the compressor is then unusable.
    package func compress(_ payload: Data) throws(WebSocketCompressionError) -> Data {
        // Half the input to start: text usually shrinks by more, and data that does not
        // costs one growth.
        var output = Data(count: payload.count / 2 + 64)
        var produced = 0
        let status = payload.withUnsafeBytes { input in
            deflateAll(input, into: &output, produced: &produced)
        }
        guard status == Z_OK else { throw .zlibFailure(function: "deflate", status: status) }
        let markerStart = produced - Self.flushMarker.count
        guard markerStart >= 0, output[markerStart..<produced].elementsEqual(Self.flushMarker) else {
            throw .missingFlushMarker
        }
        output.count = markerStart
        if noContextTakeover {
            let resetStatus = deflateReset(stream)
            guard resetStatus == Z_OK else { throw .zlibFailure(function: "deflateReset", status: resetStatus) }
        }
        return output
    }

    /// The frame for a whole outgoing message: compressed with RSV1 set (RFC 7692 §6) when it
    /// is a text or binary message of at least `minimumCompressedSize` bytes, else as given.
    ///
    /// Control frames are never compressed (§6.1), so any other opcode passes through. Without
    /// context takeover a payload that did not shrink goes out as it was: the stream was reset,
    /// so the peer's inflater misses nothing. With takeover the compressed form must be sent,
    /// since the peer's window has to see every byte this one did.
    package func messageFrame(opcode: WebSocketFrame.Opcode, payload: Data) throws(WebSocketCompressionError)
        -> WebSocketFrame
    {
        guard opcode == .text || opcode == .binary, payload.count >= minimumCompressedSize else {
            return WebSocketFrame(opcode: opcode, payload: payload)
        }
        let compressed = try compress(payload)
        if noContextTakeover && compressed.count >= payload.count {
            return WebSocketFrame(opcode: opcode, payload: payload)
        }
        return WebSocketFrame(rsv1: true, opcode: opcode, payload: compressed)
    }

    /// Deflates all of `input` and flushes, growing `output` as needed.
    ///
    /// - Returns: `Z_OK`, or the zlib status that failed.
    private func deflateAll(_ input: UnsafeRawBufferPointer, into output: inout Data, produced: inout Int) -> Int32 {
        // zlib counts in 32 bits: feed a payload over 4 GiB in pieces, flushing after the last.
        let pieceLimit = Int(UInt32.max)
        var consumed = 0
        defer {
            // No pointer into the caller's buffer may outlive this call.
            CZlib_setInput(stream, nil, 0)
        }
        while true {
            if stream.pointee.avail_in == 0, consumed < input.count, let base = input.baseAddress {
                let piece = min(input.count - consumed, pieceLimit)
                CZlib_setInput(stream, base + consumed, UInt32(piece))
                consumed += piece
            }
            let isLastPiece = consumed == input.count
            // More than six bytes free, as the zlib manual asks for a flush: with less, deflate
            // can run out of space inside the marker and repeat it.
            if output.count - produced < 16 { output.count += max(output.count, 256) }
            let status = deflateStep(into: &output, produced: &produced, flush: isLastPiece ? Z_SYNC_FLUSH : Z_NO_FLUSH)
            // Z_BUF_ERROR only says that no progress was possible this call, which the checks
            // below settle; anything else but Z_OK is a broken stream.
            guard status == Z_OK || status == Z_BUF_ERROR else { return status }
            // The flush is complete once deflate stops with output space to spare (zlib manual).
            if isLastPiece && stream.pointee.avail_in == 0 && produced < output.count { return Z_OK }
        }
    }

    /// One `deflate` call writing after the first `produced` bytes of `output`.
    private func deflateStep(into output: inout Data, produced: inout Int, flush: Int32) -> Int32 {
        output.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return Z_BUF_ERROR }
            let space = UInt32(min(buffer.count - produced, Int(UInt32.max)))
            stream.pointee.next_out = (base + produced).assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = space
            let status = deflate(stream, flush)
            produced += Int(space - stream.pointee.avail_out)
            stream.pointee.next_out = nil
            stream.pointee.avail_out = 0
            return status
        }
    }
}
