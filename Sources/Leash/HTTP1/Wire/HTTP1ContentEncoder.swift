internal import CZlib
import Foundation

/// Why data could not be compressed.
package enum HTTP1ContentEncodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A zlib call that returned `status` (`Z_MEM_ERROR`: no memory; `Z_STREAM_ERROR`: a level
    /// outside -1...9).
    case zlibFailure(function: String, status: Int32)
    /// `encode(_:)` or `finish()` after `finish()`: the stream is complete.
    case finished

    /// The error in words, for logs and error messages.
    package var description: String {
        switch self {
        case .zlibFailure(let function, let status): "zlib's \(function) failed with status \(status)"
        case .finished: "the compressed stream was already finished"
        }
    }
}

/// Compresses data as gzip (RFC 1952), zlib (RFC 1950, HTTP's `deflate`) or raw deflate
/// (RFC 1951), as it streams.
///
/// The tests make `HTTP1ContentDecoder`'s fixtures with it (the test target cannot import
/// zlib); it is there for request bodies (`Content-Encoding: gzip`) later. Feed the data to
/// `encode(_:)` and take the rest from `finish()`; the pieces joined are the compressed stream.
/// Not thread-safe: one stream, one caller.
///
/// ```swift
/// let body = try HTTP1ContentEncoder.compress(json, as: .gzip)
/// ```
package final class HTTP1ContentEncoder {
    /// The container around the deflate data.
    package enum Format: Sendable, Equatable, CaseIterable {
        /// A gzip member (RFC 1952): `Content-Encoding: gzip`.
        case gzip
        /// A zlib stream (RFC 1950): `Content-Encoding: deflate` as RFC 9110 §8.4.1.2 means it.
        case zlib
        /// Deflate data without a wrapper (RFC 1951): what some servers wrongly send as `deflate`.
        case rawDeflate

        /// deflateInit2's window bits: a 32 KiB window, plus 16 for gzip, negative for raw.
        fileprivate var windowBits: Int32 {
            switch self {
            case .gzip: 15 + 16
            case .zlib: 15
            case .rawDeflate: -15
            }
        }
    }

    /// The output grows by this much at a time when zlib needs room.
    private static let outputStep = 64 * 1024

    /// The format being written.
    package let format: Format
    /// The zlib stream; allocated once, since zlib's state points back at it and it must not move.
    private let stream: UnsafeMutablePointer<z_stream>
    /// Whether `finish()` has run: deflate then takes no more input.
    private var isFinished = false

    /// Compresses `data` in one go.
    ///
    /// - Parameters:
    ///   - data: The data to compress.
    ///   - format: The container.
    ///   - level: zlib's level, 0 (stored) to 9 (smallest), or -1 for its default (6).
    /// - Returns: The complete compressed stream.
    /// - Throws: `zlibFailure` for a level out of range or no memory.
    package static func compress(_ data: Data, as format: Format, level: Int = -1) throws(HTTP1ContentEncodingError)
        -> Data
    {
        let encoder = try HTTP1ContentEncoder(format: format, level: level)
        var output = try encoder.encode(data)
        output.append(try encoder.finish())
        return output
    }

    /// An encoder writing `format`.
    ///
    /// - Parameters:
    ///   - format: The container.
    ///   - level: zlib's level, 0 (stored) to 9 (smallest), or -1 for its default (6).
    /// - Throws: `zlibFailure` for a level out of range or no memory.
    package init(format: Format, level: Int = -1) throws(HTTP1ContentEncodingError) {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // Memory level 8 is zlib's default (deflateInit's): 128 KiB of state besides the window.
        let status = CZlib_deflateInitWindowBits(stream, Int32(clamping: level), format.windowBits, 8)
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw .zlibFailure(function: "deflateInit2", status: status)
        }
        self.stream = stream
        self.format = format
    }

    /// Frees zlib's state and the stream.
    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compresses the next piece of data.
    ///
    /// - Parameter data: The next bytes to compress.
    /// - Returns: The compressed bytes deflate has ready; often empty, since it buffers input
    ///   until it has a block's worth.
    /// - Throws: `finished` after `finish()`; `zlibFailure` if deflate fails.
    package func encode(_ data: Data) throws(HTTP1ContentEncodingError) -> Data {
        guard !isFinished else { throw .finished }
        return try run(data, flush: Z_NO_FLUSH)
    }

    /// Ends the stream.
    ///
    /// - Returns: The last compressed bytes: what deflate held back, and the trailer.
    /// - Throws: `finished` if called before; `zlibFailure` if deflate fails.
    package func finish() throws(HTTP1ContentEncodingError) -> Data {
        guard !isFinished else { throw .finished }
        isFinished = true
        return try run(Data(), flush: Z_FINISH)
    }

    /// Deflates `input` with `flush` until zlib has taken it all and has nothing more to write
    /// (for `Z_FINISH`, until the stream ends).
    private func run(_ input: Data, flush: Int32) throws(HTTP1ContentEncodingError) -> Data {
        var output = Data()
        var produced = 0
        let status = input.withUnsafeBytes { buffer in
            deflateAll(buffer, flush: flush, into: &output, produced: &produced)
        }
        guard status == Z_OK || status == Z_STREAM_END else { throw .zlibFailure(function: "deflate", status: status) }
        output.count = produced
        return output
    }

    /// The loop behind `run`: returns `Z_OK` (or `Z_STREAM_END` when finishing) once done, or the
    /// failing status.
    private func deflateAll(
        _ input: UnsafeRawBufferPointer, flush: Int32, into output: inout Data, produced: inout Int
    ) -> Int32 {
        // zlib counts in 32 bits: more than 4 GiB is fed in pieces.
        var fed = 0
        defer {
            // No pointer into the caller's buffer may outlive this call.
            CZlib_setInput(stream, nil, 0)
        }
        while true {
            if stream.pointee.avail_in == 0 && fed < input.count, let base = input.baseAddress {
                let piece = min(input.count - fed, Int(UInt32.max))
                CZlib_setInput(stream, base + fed, UInt32(piece))
                fed += piece
            }
            // Until the last piece is in, deflate must not finish the stream.
            let pieceFlush = flush == Z_FINISH && fed < input.count ? Z_NO_FLUSH : flush
            if produced == output.count { output.count += Self.outputStep }
            let status = output.withUnsafeMutableBytes { buffer -> Int32 in
                guard let base = buffer.baseAddress else { return Z_BUF_ERROR }
                let space = UInt32(min(buffer.count - produced, Int(UInt32.max)))
                stream.pointee.next_out = (base + produced).assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = space
                let status = deflate(stream, pieceFlush)
                produced += Int(space - stream.pointee.avail_out)
                stream.pointee.next_out = nil
                stream.pointee.avail_out = 0
                return status
            }
            let inputLeft = stream.pointee.avail_in > 0 || fed < input.count
            let roomLeft = produced < output.count
            switch status {
            case Z_STREAM_END:
                return status
            case Z_OK:
                // Without Z_FINISH, done once the input is in and deflate stopped with room to
                // spare (it has written all it will); with it, only Z_STREAM_END ends.
                if flush != Z_FINISH && !inputLeft && roomLeft { return Z_OK }
            case Z_BUF_ERROR:
                // No progress was possible: fine with nothing left to do, a failure with room
                // and input (it never happens, but looping would hang), more room otherwise.
                if flush != Z_FINISH && !inputLeft { return Z_OK }
                if roomLeft { return status }
            default:
                return status
            }
        }
    }
}
