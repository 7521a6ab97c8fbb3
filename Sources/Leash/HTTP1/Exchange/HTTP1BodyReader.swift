import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reads a request's body from a file or a stream in pieces, as it is sent, framing them as
/// chunks when the body's length is unknown (RFC 9112 §7.1). Used by one exchange, on one
/// thread at a time.
final class HTTP1BodyReader: @unchecked Sendable {
    // @unchecked: used by one exchange, one piece at a time (each read follows the previous
    // piece's write).
    /// What comes next.
    enum Piece {
        /// Bytes to write (`wire`, chunk framing included), carrying `bodyBytes` of the body.
        case bytes(wire: Data, bodyBytes: Int64)
        /// The body ended; `trailer` is the last chunk to write, for a chunked body.
        case end(trailer: Data?)
    }

    /// The most bytes one piece carries.
    static let pieceSize = 64 * 1024

    private enum Source {
        case file(FileHandle, URL)
        case stream(InputStream)
    }

    private let source: Source
    /// The body's length, when known (a file's size, a stream's `Content-Length`).
    let length: Int64?
    private var read: Int64 = 0
    private var ended = false

    /// A reader of the first `size` bytes of the file at `url`.
    init(file url: URL, size: Int64) throws(LeashError) {
        do {
            source = .file(try FileHandle(forReadingFrom: url), url)
        } catch {
            throw .fileAccess(reason: "the upload's file cannot be opened", url: url, underlying: error)
        }
        length = size
    }

    /// A reader of `stream`, of `length` bytes if known (else chunked).
    init(stream: InputStream, length: Int64?) {
        source = .stream(stream)
        self.length = length
        stream.open()
    }

    /// The next piece.
    func next() throws(LeashError) -> Piece {
        if ended { return .end(trailer: nil) }
        let wanted = length.map { Int(min(Int64(Self.pieceSize), $0 - read)) } ?? Self.pieceSize
        let bytes = wanted > 0 ? try readUpTo(wanted) : Data()
        read += Int64(bytes.count)
        if bytes.isEmpty {
            ended = true
            if let length, read < length {
                throw shortBody(expected: length)
            }
            return .end(trailer: length == nil ? Data("0\r\n\r\n".utf8) : nil)
        }
        guard length == nil else { return .bytes(wire: bytes, bodyBytes: Int64(bytes.count)) }
        var chunk = Data(String(bytes.count, radix: 16).utf8)
        chunk.append(contentsOf: [0x0D, 0x0A])
        chunk.append(bytes)
        chunk.append(contentsOf: [0x0D, 0x0A])
        return .bytes(wire: chunk, bodyBytes: Int64(bytes.count))
    }

    /// Closes the file or stream.
    func close() {
        switch source {
        case .file(let handle, _): try? handle.close()
        case .stream(let stream): stream.close()
        }
    }

    /// Up to `count` bytes; empty at the end.
    private func readUpTo(_ count: Int) throws(LeashError) -> Data {
        switch source {
        case .file(let handle, let url):
            do {
                return try handle.read(upToCount: count) ?? Data()
            } catch {
                throw .fileAccess(reason: "the upload's file cannot be read", url: url, underlying: error)
            }
        case .stream(let stream):
            var buffer = [UInt8](repeating: 0, count: count)
            let got = buffer.withUnsafeMutableBufferPointer { pointer in
                guard let base = pointer.baseAddress else { return 0 }
                return stream.read(base, maxLength: count)
            }
            if got < 0 {
                throw .encoding(reason: "the request's body stream failed", underlying: stream.streamError)
            }
            return Data(buffer[0..<got])
        }
    }

    /// The error of a body that ended before its declared length.
    private func shortBody(expected: Int64) -> LeashError {
        switch source {
        case .file(_, let url):
            return .fileAccess(
                reason: "the upload's file ended after \(read) of its \(expected) bytes while it was sent", url: url,
                underlying: nil)
        case .stream:
            return .encoding(
                reason: "the request's body stream ended after \(read) bytes; its Content-Length says \(expected)",
                underlying: nil)
        }
    }
}
