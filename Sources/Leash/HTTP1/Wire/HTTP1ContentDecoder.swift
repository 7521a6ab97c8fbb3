internal import CZlib
import Foundation

/// Why a response body's `Content-Encoding` could not be decoded.
package enum HTTP1ContentDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A coding other than gzip, x-gzip, deflate and identity (br, zstd, compress…), or more than
    /// one non-identity coding (`gzip, gzip`): the value as received, trimmed.
    case unsupportedEncoding(String)
    /// The compressed data is invalid: zlib's message (`incorrect data check` for a bad CRC or
    /// Adler-32, `invalid distance too far back`…) or what else was wrong.
    case corrupt(String)
    /// The body ended before the compressed stream did: a gzip or zlib trailer, or more, is missing.
    case truncated
    /// zlib itself failed (`Z_MEM_ERROR`: no memory for its state), not the data.
    case zlibFailure(function: String, status: Int32)

    /// The error in words, for logs and error messages.
    package var description: String {
        switch self {
        case .unsupportedEncoding(let coding): "unsupported Content-Encoding \"\(coding)\""
        case .corrupt(let reason): "corrupt compressed body: \(reason)"
        case .truncated: "the compressed body ended early"
        case .zlibFailure(let function, let status): "zlib's \(function) failed with status \(status)"
        }
    }
}

/// Decodes a response body's `Content-Encoding` (RFC 9110 §8.4.1) as it streams in: gzip (and its
/// old name x-gzip) and deflate.
///
/// Feed the body as it arrives to `decode(_:)`, which returns what those bytes inflate to, then
/// call `finish()` once the body has ended (it throws if the compressed stream had not).
///
/// - **Memory.** A call returns at most `maximumOutputSize(forInputCount:)` bytes (deflate
///   inflates at most 1,032 to 1), and builds that output in place, 64 KiB at a time, so what
///   one call holds is proportional to what it returns. A decompression bomb therefore costs no
///   more than its pieces' output, one piece at a time: the caller bounds it by the size of the
///   pieces it feeds (what one socket read returns: 16 KiB reads return at most about 16 MiB)
///   and by streaming each result onwards.
/// - **gzip.** Several gzip members one after the other (RFC 1952 §2.2 allows it; `cat a.gz b.gz`
///   makes them) decode as one body, as gunzip and Node's zlib do.
/// - **deflate.** RFC 9110 §8.4.1.2 means the zlib format (RFC 1950), but some servers send raw
///   deflate (RFC 1951) instead. The first two bytes tell them apart: a zlib header has 8 in its low
///   nibble, a window of at most 32 KiB and a header check that is a multiple of 31, while raw
///   deflate data from any real compressor starts with a Huffman block (block type bits not 00)
///   or a stored block (padding bits zero), so never with a byte whose low nibble is 8. Servers
///   mislabel the other way too: gzip data is accepted as deflate and zlib data as gzip, since
///   their headers cannot be mistaken for each other.
/// - **Trailing bytes.** Whatever follows the end of the compressed stream (after the last gzip
///   member: bytes that do not start another) is ignored, as browsers do; curl fails instead.
///   Some servers pad bodies, and by then the data is complete and its checksum verified.
/// - **Empty body.** A body with no bytes at all decodes to nothing without error (a `HEAD`-like
///   response, or a server that labels an empty body gzip), as browsers accept it.
///
/// After an error, every call throws that error again. Not thread-safe: one body, one caller.
///
/// ```swift
/// if let decoder = try HTTP1ContentDecoder.make(contentEncoding: headers["Content-Encoding"]) {
///     for try await piece in body { deliver(try decoder.decode(piece)) }
///     try decoder.finish()
/// }
/// ```
package final class HTTP1ContentDecoder {
    /// The codings this decoder reads.
    package enum Coding: String, Sendable, Equatable {
        /// gzip (RFC 1952), also sent as `x-gzip`.
        case gzip
        /// deflate: zlib-wrapped (RFC 1950), or raw (RFC 1951) from servers that get it wrong.
        case deflate
    }

    /// The most bytes deflate data can inflate to per byte: a 258-byte match coded in 2 bits.
    package static let maximumExpansion = 1032

    /// The most bytes the output grows by in one step, and the first step's upper bound.
    private static let outputStep = 64 * 1024

    /// The coding being decoded.
    package let coding: Coding

    /// Where the decoder is in the body.
    private enum State {
        /// Waiting for the first two bytes, which tell zlib from gzip from raw deflate; holds the
        /// first byte if it came alone.
        case awaitingHeader(UInt8?)
        /// Inside a compressed stream; `isGzip` when it is a gzip member, which another may follow.
        case inflating(isGzip: Bool)
        /// A gzip member ended: waiting for two bytes to see whether another member starts
        /// (holding the first if it came alone), or whether the rest is trailing bytes.
        case betweenMembers(UInt8?)
        /// The compressed stream ended; anything more is ignored.
        case ended
        /// Decoding failed; the error is thrown again on every call.
        case failed(HTTP1ContentDecodingError)
    }

    /// The zlib stream; allocated once, since zlib's state points back at it and it must not move.
    private let stream: UnsafeMutablePointer<z_stream>
    /// Where the decoder is in the body.
    private var state = State.awaitingHeader(nil)

    /// A decoder for a `Content-Encoding` header value, or nil when the body needs none.
    ///
    /// The value is a comma-separated list of codings, case-insensitive, with optional spaces
    /// and tabs around each (RFC 9110 §8.4). `identity` and empty elements are dropped; an empty
    /// or absent value, or one with only those, needs no decoding. Exactly one other coding is
    /// supported: gzip, x-gzip or deflate. Others (br, zstd, compress…) and chains of codings
    /// (`deflate, gzip`, even `gzip, gzip`) are refused: they are rare, and decoding a chain
    /// would multiply the expansion bound per layer.
    ///
    /// - Parameter contentEncoding: The header's value, or nil if the response has none.
    /// - Returns: A decoder, or nil when the body is not encoded.
    /// - Throws: `unsupportedEncoding` with the coding, or with the whole value for a chain;
    ///   `zlibFailure` when zlib has no memory for its state.
    package static func make(contentEncoding: String?) throws(HTTP1ContentDecodingError) -> HTTP1ContentDecoder? {
        guard let contentEncoding else { return nil }
        let codings = contentEncoding.split(separator: ",").map { $0.trimmingOptionalWhitespace() }.filter {
            !$0.isEmpty && $0.lowercased() != "identity"
        }
        guard let only = codings.first else { return nil }
        guard codings.count == 1 else { throw .unsupportedEncoding(codings.joined(separator: ", ")) }
        switch only.lowercased() {
        case "gzip", "x-gzip": return try HTTP1ContentDecoder(coding: .gzip)
        case "deflate": return try HTTP1ContentDecoder(coding: .deflate)
        default: throw .unsupportedEncoding(String(only))
        }
    }

    /// The most bytes one `decode(_:)` call can return for `inputCount` bytes of input:
    /// `maximumExpansion` per byte, plus 2 KiB for what the previous call's input left unfinished
    /// (the bits of a code that the new bytes complete into at most one more 258-byte match).
    ///
    /// - Parameter inputCount: The number of bytes passed to `decode(_:)`.
    /// - Returns: The bound, or `Int.max` if it does not fit in an `Int`.
    package static func maximumOutputSize(forInputCount inputCount: Int) -> Int {
        let (perByte, overflow) = max(0, inputCount).multipliedReportingOverflow(by: maximumExpansion)
        return overflow || perByte > Int.max - 2048 ? Int.max : perByte + 2048
    }

    /// A decoder for `coding`.
    ///
    /// - Parameter coding: The body's content coding.
    /// - Throws: `zlibFailure` when zlib has no memory for its state.
    package init(coding: Coding) throws(HTTP1ContentDecodingError) {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // Header auto-detection: gzip or zlib. Raw deflate is switched to once the first bytes
        // show it (inflateReset2), so the state is allocated, and can fail, here and only here.
        let status = CZlib_inflateInitAuto(stream)
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw .zlibFailure(function: "inflateInit2", status: status)
        }
        self.stream = stream
        self.coding = coding
    }

    /// Frees zlib's state and the stream.
    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Inflates the next piece of the body.
    ///
    /// - Parameter bytes: The next bytes of the body as received (after any transfer coding).
    /// - Returns: What they decode to; often empty (a header, or data still inside a block), and
    ///   at most `maximumOutputSize(forInputCount: bytes.count)` bytes.
    /// - Throws: `corrupt` for invalid data (a bad header, block, CRC or length), `zlibFailure`
    ///   when zlib runs out of memory, or the error of an earlier call.
    package func decode(_ bytes: Data) throws(HTTP1ContentDecodingError) -> Data {
        if case .failed(let error) = state { throw error }
        var output = Data()
        var produced = 0
        let error = bytes.withUnsafeBytes { input in consume(input, into: &output, produced: &produced) }
        if let error {
            state = .failed(error)
            throw error
        }
        // Data that never got a byte is returned as a fresh empty value, not an empty buffer.
        guard produced > 0 else { return Data() }
        let allocated = output.count
        output.count = produced
        // zlib wrote the output in place, so it is copied nowhere, unless far less came out than
        // the first guess made room for (input that barely compresses): then a right-sized copy,
        // so that a caller keeping the pieces does not keep the slack too.
        guard allocated - produced > 4096 && allocated > 2 * produced else { return output }
        return output.withUnsafeBytes { Data($0) }
    }

    /// The body ended: checks that the compressed stream did too.
    ///
    /// Calling it again, or `decode(_:)` after it, does nothing more (input is ignored).
    ///
    /// - Returns: Output still held back: always empty, since `decode(_:)` returns all that its
    ///   input inflates to; returned so that callers append it, and stay right should a coding
    ///   that buffers output ever be added.
    /// - Throws: `truncated` if the body ended inside the compressed stream (its trailer, or
    ///   more, missing), or the error of an earlier call.
    @discardableResult
    package func finish() throws(HTTP1ContentDecodingError) -> Data {
        switch state {
        case .awaitingHeader(nil), .betweenMembers, .ended:
            // No bytes at all (an empty body), or a complete stream: trailing bytes are ignored.
            state = .ended
            return Data()
        case .awaitingHeader(.some), .inflating:
            state = .failed(.truncated)
            throw .truncated
        case .failed(let error):
            throw error
        }
    }

    /// Decodes `input` according to the state, appending to `output` after its first `produced`
    /// bytes; returns the error that stopped it, if any (closures cannot throw typed errors
    /// through `withUnsafeBytes`).
    private func consume(
        _ input: UnsafeRawBufferPointer, into output: inout Data, produced: inout Int
    ) -> HTTP1ContentDecodingError? {
        var offset = 0
        while offset < input.count {
            switch state {
            case .awaitingHeader(let held):
                // Two bytes decide the format; a lone first byte waits for the next piece.
                guard let (first, second) = Self.leadingPair(held: held, input: input, offset: offset) else {
                    state = .awaitingHeader(input[offset])
                    return nil
                }
                let isGzip = first == 0x1F && second == 0x8B
                if !isGzip && coding == .deflate && !Self.isZlibHeader(first, second) {
                    // Raw deflate: the same state, now without a wrapper.
                    let status = inflateReset2(stream, -15)
                    guard status == Z_OK else { return .zlibFailure(function: "inflateReset2", status: status) }
                }
                state = .inflating(isGzip: isGzip)
                if let held, let error = inflateHeld(held, isGzip: isGzip, into: &output, produced: &produced) {
                    return error
                }
            case .inflating(let isGzip):
                let rest = UnsafeRawBufferPointer(rebasing: input[offset...])
                let (consumed, error) = inflateAll(rest, isGzip: isGzip, into: &output, produced: &produced)
                if let error { return error }
                offset += consumed
            case .betweenMembers(let held):
                guard let (first, second) = Self.leadingPair(held: held, input: input, offset: offset) else {
                    state = .betweenMembers(input[offset])
                    return nil
                }
                guard first == 0x1F && second == 0x8B else {
                    // Not another member: trailing bytes, ignored (see the type's documentation).
                    state = .ended
                    return nil
                }
                // Another member: the stream starts over (inflateReset keeps gzip detection).
                let status = inflateReset(stream)
                guard status == Z_OK else { return .zlibFailure(function: "inflateReset", status: status) }
                state = .inflating(isGzip: true)
                if let held, let error = inflateHeld(held, isGzip: true, into: &output, produced: &produced) {
                    return error
                }
            case .ended:
                return nil
            case .failed(let error):
                return error
            }
        }
        return nil
    }

    /// The first two bytes from a byte held back and the input at `offset`, or nil if there is
    /// only one so far. `offset` is within `input`.
    private static func leadingPair(held: UInt8?, input: UnsafeRawBufferPointer, offset: Int) -> (UInt8, UInt8)? {
        if let held { return (held, input[offset]) }
        guard input.count - offset >= 2 else { return nil }
        return (input[offset], input[offset + 1])
    }

    /// Whether two bytes are a zlib header (RFC 1950 §2.2): deflate (CM 8), a window of at most
    /// 32 KiB (CINFO ≤ 7), and a check making CMF·256 + FLG a multiple of 31.
    private static func isZlibHeader(_ cmf: UInt8, _ flg: UInt8) -> Bool {
        cmf & 0x0F == 8 && cmf >> 4 <= 7 && (Int(cmf) << 8 | Int(flg)) % 31 == 0
    }

    /// Inflates a byte that was held back to see the format: the stream's first byte, or a gzip
    /// member's. Returns the error, if any.
    private func inflateHeld(
        _ byte: UInt8, isGzip: Bool, into output: inout Data, produced: inout Int
    ) -> HTTP1ContentDecodingError? {
        withUnsafeBytes(of: byte) { inflateAll($0, isGzip: isGzip, into: &output, produced: &produced).error }
    }

    /// Inflates `input` into `output` until it is used up or the stream ends.
    ///
    /// - Returns: How many bytes of `input` zlib consumed (all of them unless the stream ended
    ///   before), and the error, if any. On the stream's end the state moves on.
    private func inflateAll(
        _ input: UnsafeRawBufferPointer, isGzip: Bool, into output: inout Data, produced: inout Int
    ) -> (consumed: Int, error: HTTP1ContentDecodingError?) {
        guard let base = input.baseAddress, !input.isEmpty else { return (0, nil) }
        // zlib counts in 32 bits: more than 4 GiB is fed in pieces.
        var fed = 0
        defer {
            // No pointer into the caller's buffer may outlive this call.
            CZlib_setInput(stream, nil, 0)
        }
        while true {
            if stream.pointee.avail_in == 0 && fed < input.count {
                let piece = min(input.count - fed, Int(UInt32.max))
                CZlib_setInput(stream, base + fed, UInt32(piece))
                fed += piece
            }
            if produced == output.count {
                grow(&output, remainingInput: Int(stream.pointee.avail_in) + input.count - fed)
            }
            let status = inflateStep(into: &output, produced: &produced)
            let consumed = fed - Int(stream.pointee.avail_in)
            switch status {
            case Z_STREAM_END:
                state = isGzip ? .betweenMembers(nil) : .ended
                return (consumed, nil)
            case Z_OK, Z_BUF_ERROR:
                // Z_BUF_ERROR only says no progress was possible (no input left, or no room),
                // which the checks below settle.
                break
            case Z_NEED_DICT:
                return (consumed, .corrupt("the zlib stream needs a preset dictionary, which HTTP never provides"))
            case Z_MEM_ERROR:
                return (consumed, .zlibFailure(function: "inflate", status: status))
            default:
                // Z_DATA_ERROR; Z_STREAM_ERROR cannot follow from data, but is no crash either.
                return (consumed, .corrupt(zlibMessage(status: status)))
            }
            let inputLeft = stream.pointee.avail_in > 0 || fed < input.count
            // All output is out once inflate stops with room to spare and no input left.
            if !inputLeft && produced < output.count { return (consumed, nil) }
            if status == Z_BUF_ERROR && inputLeft && produced < output.count {
                // Input and room, yet no progress: zlib never does this, but looping would hang.
                return (consumed, .corrupt("inflate made no progress"))
            }
        }
    }

    /// Gives `output` room past its count: at most 64 KiB, and for the first step about four
    /// times the input still to come (compressed data rarely inflates less), at least 512 bytes.
    /// Data grows its capacity geometrically, so these steps cost amortised linear time (measured:
    /// 256 MB in 64 KiB steps takes 0.1 s), and no step asks for more than 64 KiB beyond the
    /// output already produced, however far the input would inflate.
    private func grow(_ output: inout Data, remainingInput: Int) {
        guard output.isEmpty else {
            output.count += Self.outputStep
            return
        }
        // Compared before multiplying, so that no input size can overflow.
        output.count = remainingInput >= Self.outputStep / 4 ? Self.outputStep : max(512, remainingInput * 4)
    }

    /// One `inflate` call, writing after the first `produced` bytes of `output`.
    private func inflateStep(into output: inout Data, produced: inout Int) -> Int32 {
        output.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return Z_BUF_ERROR }
            let space = UInt32(min(buffer.count - produced, Int(UInt32.max)))
            stream.pointee.next_out = (base + produced).assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = space
            let status = inflate(stream, Z_SYNC_FLUSH)
            produced += Int(space - stream.pointee.avail_out)
            stream.pointee.next_out = nil
            stream.pointee.avail_out = 0
            return status
        }
    }

    /// zlib's message for the last error (`incorrect header check`…), or the status if it set none.
    private func zlibMessage(status: Int32) -> String {
        guard let message = stream.pointee.msg else { return "zlib status \(status)" }
        return String(cString: message)
    }
}

extension Substring {
    /// The element without the spaces and tabs (HTTP's optional whitespace) around it.
    fileprivate func trimmingOptionalWhitespace() -> Substring {
        let isWhitespace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isWhitespace($0) }), let last = lastIndex(where: { !isWhitespace($0) })
        else { return self[endIndex...] }
        return self[first...last]
    }
}
