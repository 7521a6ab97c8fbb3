internal import CZlib
import Foundation

/// Inflates incoming compressed messages for permessage-deflate (RFC 7692 §7.2.2), a fragment
/// at a time, with a cap on the inflated size.
///
/// The cap is what makes a decompression bomb harmless: the output never grows past the cap
/// plus one byte (the byte that proves it is exceeded), however much the input would inflate
/// to, and inflating stops there. One zlib stream serves every message of the connection; it
/// is reset after each message when the peer compresses without context takeover. It is not
/// thread-safe: one connection, one caller at a time.
///
/// ```swift
/// let decompressor = try parameters.makeClientDecompressor()
/// var assembler = WebSocketMessageAssembler(decompressor: decompressor)
/// ```
package final class PerMessageDeflateDecompressor {
    /// The LZ77 window the peer compresses with, in bits (8...15).
    package let windowBits: Int
    /// Whether the peer resets its stream after each message, so this one must too.
    package let noContextTakeover: Bool

    /// The zlib stream; allocated once, since zlib's state points back at it and it must not move.
    private let stream: UnsafeMutablePointer<z_stream>
    /// Whether the current message's DEFLATE data ended with a final block (BFINAL set): zlib
    /// then takes no more input, so the rest of the message is ignored.
    private var reachedStreamEnd = false

    /// A decompressor for the direction the peer compresses.
    ///
    /// - Parameters:
    ///   - windowBits: The peer's agreed window, 8...15 bits (raw inflate accepts 8, unlike deflate).
    ///   - noContextTakeover: Whether each message was compressed on its own.
    /// - Throws: `windowBitsOutOfRange`, or `zlibFailure` when zlib cannot set up (no memory).
    package init(windowBits: Int = 15, noContextTakeover: Bool = false) throws(WebSocketCompressionError) {
        guard (8...15).contains(windowBits) else { throw .windowBitsOutOfRange(windowBits) }
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = CZlib_inflateInitRaw(stream, Int32(windowBits))
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw .zlibFailure(function: "inflateInit2", status: status)
        }
        self.stream = stream
        self.windowBits = windowBits
        self.noContextTakeover = noContextTakeover
    }

    /// Frees zlib's state and the stream.
    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Inflates the payload of one frame of a compressed message, appending to `output`.
    ///
    /// - Parameters:
    ///   - fragment: The frame's payload: a piece of the message's DEFLATE data.
    ///   - isFinal: Whether the frame ends the message; the flush marker the sender stripped is
    ///     then put back (§7.2.2), and the stream is reset if there is no context takeover.
    ///   - output: The message inflated so far; the new bytes are appended.
    ///   - maximumSize: The most bytes `output` may hold.
    /// - Throws: `messageTooLarge(maximumSize + 1)` as soon as the inflated data passes
    ///   `maximumSize` (1009); `invalidCompressedData` for bad DEFLATE data (1007). Either
    ///   way the stream is left mid-message: the connection must fail.
    package func decompress(
        _ fragment: Data, isFinal: Bool, appendingTo output: inout Data, maximumSize: Int
    ) throws(WebSocketProtocolViolation) {
        let limit = max(0, maximumSize)
        var produced = output.count
        guard produced <= limit else { throw .messageTooLarge(produced) }
        // A byte of room past the limit: inflate filling it is what shows the limit is passed.
        let ceiling = limit == Int.max ? limit : limit + 1
        defer { output.count = produced }
        if !reachedStreamEnd {
            var status = fragment.withUnsafeBytes { input in
                inflateAll(input, into: &output, produced: &produced, ceiling: ceiling, flush: Z_SYNC_FLUSH)
            }
            var endsOnBlockBoundary = true
            if isFinal && status == Z_OK && !reachedStreamEnd {
                // Z_BLOCK stops at the end of the empty stored block the marker completes, where
                // zlib flags data_type with 128: only then did the message's data end cleanly.
                // Truncated data, or data that kept its own marker, ends elsewhere; accepting it
                // would hand out a partial message and leave the stream mid-block.
                status = PerMessageDeflateCompressor.flushMarker.withUnsafeBytes { marker in
                    inflateAll(marker, into: &output, produced: &produced, ceiling: ceiling, flush: Z_BLOCK)
                }
                endsOnBlockBoundary = reachedStreamEnd || stream.pointee.data_type & 128 != 0
            }
            if produced > limit { throw .messageTooLarge(produced) }
            guard status == Z_OK, endsOnBlockBoundary else { throw .invalidCompressedData }
        }
        if isFinal { try endMessage() }
    }

    /// Inflates a whole compressed message: the payloads of its frames joined.
    ///
    /// - Returns: The inflated message.
    /// - Throws: As `decompress(_:isFinal:appendingTo:maximumSize:)`.
    package func decompress(_ message: Data, maximumSize: Int) throws(WebSocketProtocolViolation) -> Data {
        var output = Data()
        try decompress(message, isFinal: true, appendingTo: &output, maximumSize: maximumSize)
        return output
    }

    /// Readies the stream for the next message.
    private func endMessage() throws(WebSocketProtocolViolation) {
        defer { reachedStreamEnd = false }
        if noContextTakeover {
            guard inflateReset(stream) == Z_OK else { throw .invalidCompressedData }
        } else if reachedStreamEnd {
            // A final block ended zlib's stream, but with context takeover the next message may
            // still point back into this one: restart the stream with the window as dictionary.
            var window = [UInt8](repeating: 0, count: 1 << windowBits)
            var length: UInt32 = 0
            guard inflateGetDictionary(stream, &window, &length) == Z_OK, inflateReset(stream) == Z_OK,
                inflateSetDictionary(stream, window, length) == Z_OK
            else { throw .invalidCompressedData }
        }
    }

    /// Inflates all of `input` with `flush`, growing `output` up to `ceiling` bytes.
    ///
    /// - Returns: `Z_OK` when the input is used up or the data ended with a final block (the
    ///   stream then takes no more); the failing zlib status otherwise. It also returns `Z_OK`
    ///   once `produced` reaches `ceiling`, which the caller checks first.
    private func inflateAll(
        _ input: UnsafeRawBufferPointer, into output: inout Data, produced: inout Int, ceiling: Int, flush: Int32
    ) -> Int32 {
        // An empty fragment has nothing to add: the last call left no output pending.
        guard !input.isEmpty else { return Z_OK }
        // zlib counts in 32 bits: feed more than 4 GiB in pieces.
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
            if produced == output.count {
                if output.count >= ceiling { return Z_OK }
                let remainingInput = Int(stream.pointee.avail_in) + input.count - consumed
                output.count = grownSize(of: output.count, remainingInput: remainingInput, ceiling: ceiling)
            }
            let status = inflateStep(into: &output, produced: &produced, flush: flush)
            switch status {
            case Z_STREAM_END:
                reachedStreamEnd = true
                return Z_OK
            case Z_OK, Z_BUF_ERROR:
                // Z_BUF_ERROR only says that no progress was possible this call (the input is
                // used up, or more is needed to finish a block), which the check below settles.
                break
            default:
                // Z_DATA_ERROR for corrupt data; Z_MEM_ERROR, Z_NEED_DICT and Z_STREAM_ERROR
                // cannot follow from a valid raw stream either.
                return status
            }
            if produced >= ceiling { return Z_OK }
            // All output is out once inflate stops with space to spare and no input left.
            if stream.pointee.avail_in == 0 && consumed == input.count && produced < output.count { return Z_OK }
        }
    }

    /// The size to grow an output buffer of `size` bytes (below `ceiling`) to: double, so that
    /// growth is amortised, or by four times the input still to come if more (compressed data
    /// rarely inflates less), and never past `ceiling`, so a bomb cannot make it allocate more.
    private func grownSize(of size: Int, remainingInput: Int, ceiling: Int) -> Int {
        let inputGuess = remainingInput > (ceiling - size) / 4 ? ceiling : remainingInput * 4
        let step = max(size, 256, inputGuess)
        return step >= ceiling - size ? ceiling : size + step
    }

    /// One `inflate` call with `flush`, writing after the first `produced` bytes of `output`.
    private func inflateStep(into output: inout Data, produced: inout Int, flush: Int32) -> Int32 {
        output.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return Z_BUF_ERROR }
            let space = UInt32(min(buffer.count - produced, Int(UInt32.max)))
            stream.pointee.next_out = (base + produced).assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = space
            let status = inflate(stream, flush)
            produced += Int(space - stream.pointee.avail_out)
            stream.pointee.next_out = nil
            stream.pointee.avail_out = 0
            return status
        }
    }
}
