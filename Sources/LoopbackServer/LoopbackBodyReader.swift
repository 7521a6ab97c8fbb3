import Foundation

/// Why a request body could not be read to its end.
package enum LoopbackBodyError: Error, Sendable, Equatable {
    /// The client closed or reset the connection before the body ended.
    case clientDisconnected
    /// The body's chunked framing is malformed (the server answers 400 itself).
    case malformed(reason: String)
    /// `readAll(limit:)` found more bytes than its limit.
    case tooLarge(limit: Int)
    /// The reader was used after its handler returned.
    case readerClosed
}

/// A request body as it arrives, handed to a streaming route's handler (see
/// `LoopbackServer.Route.init(method:path:streamingHandler:)`).
///
/// The body is never held whole: each `readNext(_:)` hands over the bytes that the
/// connection has received (at most 64 KB, de-chunked), straight from its buffer, so a
/// 200 MB upload costs no memory. `Expect: 100-continue` is answered when the handler
/// first asks for bytes the client has not sent yet.
///
/// ```swift
/// let route = LoopbackServer.Route(method: "PUT", path: "/count") { request, body in
///     var count = 0
///     do {
///         try body.readToEnd { count += $0.count }
///     } catch {
///         return .status(400)  // not sent when the client is gone or the framing is bad
///     }
///     return .json(["bytes": count])
/// }
/// ```
///
/// A handler may return before the body ends; the server then answers with
/// `Connection: close` and closes the connection after the response. If reading fails
/// because the client disconnected or the chunked framing is malformed, the server ignores
/// the handler's response: it answers a malformed body with 400 itself, and a departed
/// client with nothing. The reader belongs to the connection's thread and only works
/// until its handler returns.
package final class LoopbackBodyReader {
    private enum Source {
        case connection(Connection)
        case memory(Data, position: Int)
        case closed
    }

    /// The length the request announced in `Content-Length`; nil when it is chunked.
    package let declaredLength: Int?
    /// Whether the request came with `Transfer-Encoding: chunked`.
    package let isChunked: Bool
    /// The body bytes handed over so far.
    package private(set) var bytesRead = 0
    /// Whether the body has been read to its end.
    package private(set) var isComplete: Bool

    private var source: Source
    private static let memoryRunSize = 64 * 1024

    /// A reader over `data`, as if it had arrived with `Content-Length`, in runs of 64 KB:
    /// for calling a streaming handler without a server.
    package init(data: Data) {
        declaredLength = data.count
        isChunked = false
        isComplete = data.isEmpty
        source = .memory(data, position: 0)
    }

    init(connection: Connection, framing: BodyFraming) {
        switch framing {
        case .length(let length):
            declaredLength = length
            isChunked = false
            isComplete = length == 0
        case .chunked:
            declaredLength = nil
            isChunked = true
            isComplete = false
        }
        source = .connection(connection)
    }

    /// Reads the next run of body bytes and calls `consume` with them.
    ///
    /// The bytes are only valid during the call. Blocks until the client has sent more.
    /// - Returns: false (without calling `consume`) when the body has ended.
    /// - Throws: `LoopbackBodyError`, or what `consume` throws.
    package func readNext(_ consume: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        guard !isComplete else { return false }
        switch source {
        case .closed:
            throw LoopbackBodyError.readerClosed
        case .connection(let connection):
            var count = 0
            defer {
                bytesRead += count
                isComplete = connection.isBodyFinished
            }
            return try connection.readBodyRun { run in
                count = run.count
                try consume(run)
            }
        case .memory(let data, let position):
            let end = min(position + Self.memoryRunSize, data.count)
            source = .memory(data, position: end)
            bytesRead = end
            isComplete = end == data.count
            try data.withUnsafeBytes { all in
                try consume(UnsafeRawBufferPointer(rebasing: all[position..<end]))
            }
            return true
        }
    }

    /// Reads the body to its end, calling `consume` with each run of bytes (valid only
    /// during the call).
    /// - Throws: `LoopbackBodyError`, or what `consume` throws.
    package func readToEnd(_ consume: (UnsafeRawBufferPointer) throws -> Void) throws {
        while try readNext(consume) {}
    }

    /// Reads the rest of the body into memory.
    /// - Parameter limit: the most bytes to accept.
    /// - Throws: `LoopbackBodyError.tooLarge` beyond `limit` (the rest stays unread), or
    ///   another `LoopbackBodyError`.
    package func readAll(limit: Int = 64 * 1024 * 1024) throws -> Data {
        var data = Data()
        try readToEnd { run in
            guard data.count + run.count <= limit else { throw LoopbackBodyError.tooLarge(limit: limit) }
            data.append(contentsOf: run)
        }
        return data
    }

    /// Reads and drops the rest of the body, so that the connection can be kept alive.
    /// - Throws: `LoopbackBodyError`.
    package func discardRest() throws {
        try readToEnd { _ in }
    }

    /// Ends the reader's use of the connection once its handler has returned.
    func close() {
        if case .connection = source { source = .closed }
    }
}
