import Foundation

/// Writes the body of a streamed response (`LoopbackResponse.streamed(status:headers:_:)`)
/// while the route's code decides what comes next.
///
/// Each `write` sends one chunk of a `Transfer-Encoding: chunked` body at once. A write
/// blocks while the socket's send buffer is full, so a client that stops reading stops the
/// writer too (TCP backpressure, visible in `bytesWritten` and
/// `LoopbackServer.Counters.responseBodyBytes`). Once the client has gone, or the server
/// has stopped, `write` and `pause` return false and the closure should return.
///
/// ```swift
/// server.route("GET", "/ticks", response: .streamed(headers: ["Content-Type": "text/plain"]) { writer in
///     for tick in 1...5 {
///         guard writer.write("tick \(tick)\n"), writer.pause(0.1) else { return }
///     }
/// })  // returning normally writes the terminating chunk: a clean end
/// ```
///
/// The closure runs on the connection's own thread. The writer may be used from other
/// threads too (its calls are serialized), but only until the closure returns: after that
/// every call returns false.
package final class LoopbackStreamWriter: @unchecked Sendable {
    // Sendable: `connection` (not Sendable) is touched only while `io` is held, and only
    // until `finish()` clears it; meanwhile the connection's own thread is inside the route's
    // closure and leaves the connection alone. `state` guards the rest.

    /// Where the stream stands.
    private enum Phase: Sendable {
        /// Writing.
        case open
        /// The client left or the server stopped: nothing more can be written.
        case clientGone
        /// `dropConnection()` cut the stream.
        case dropped
        /// The closure returned.
        case finished
    }

    /// What other threads may read at any time.
    private struct State: Sendable {
        /// Where the stream stands.
        var phase = Phase.open
        /// The body bytes written so far.
        var bytesWritten = 0
    }

    /// Serializes the calls that use the connection (they may block on the socket).
    private let io = NSLock()
    /// The connection written to; nil once the stream is finished. Guarded by `io`.
    private var connection: Connection?
    /// The connection's descriptor, for `isClientConnected` (which must not wait for `io`).
    private let fd: Int32
    private let state = ServerLock(State())

    /// The last chunk of a chunked body.
    private static let terminator: [UInt8] = Array("0\r\n\r\n".utf8)

    /// A writer for the response being written on `connection`; the connection's thread
    /// makes it once the head is out.
    init(connection: Connection) {
        self.connection = connection
        fd = connection.fd
    }

    /// The body bytes written so far (chunk framing not counted), each write counted once
    /// the socket has taken all of it.
    package var bytesWritten: Int {
        state.withLock { $0.bytesWritten }
    }

    /// Whether the client still holds the connection open: false once it has closed or
    /// reset it, once the server has stopped, after `dropConnection()` and after the
    /// closure has returned. Checked without blocking, so another thread may ask while a
    /// write is blocked.
    package var isClientConnected: Bool {
        // The descriptor stays valid while the phase is open: `finish()` changes the phase
        // under this lock before the connection can close it. The peek never blocks.
        state.withLock { $0.phase == .open && Socket.peerIsOpen(fd) }
    }

    /// Writes `data` as one chunk and sends it at once; an empty `data` writes nothing.
    ///
    /// Blocks while the socket's send buffer is full (until the client reads, leaves, or
    /// the server stops).
    /// - Returns: false when the client has gone (counted in
    ///   `LoopbackServer.Counters.clientDisconnectCount`), the server has stopped, the
    ///   connection was dropped or the closure has returned: nothing more can be sent.
    @discardableResult
    package func write(_ data: Data) -> Bool {
        data.withUnsafeBytes { write($0) }
    }

    /// Writes `text` as UTF-8, one chunk; see `write(_:)` for `Data`.
    @discardableResult
    package func write(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    /// Writes `bytes` (copied before the call returns) as one chunk; see `write(_:)` for
    /// `Data`. For producers that assemble large batches in a buffer of their own.
    @discardableResult
    package func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        io.lock()
        defer { io.unlock() }
        guard let connection, phase == .open else { return false }
        guard !bytes.isEmpty else { return true }
        // A peer that has closed would still accept a write or two before the kernel noticed;
        // looking first makes the first write after a disconnect fail.
        guard Socket.peerIsOpen(fd), connection.writeChunk(bytes) else { return clientLeft(connection) }
        state.withLock { $0.bytesWritten += bytes.count }
        connection.core.responseBodyWritten(bytes.count)
        return true
    }

    /// Waits `seconds` while watching the connection, like `LoopbackResponse.delay`.
    /// - Returns: true when the time passed; false as soon as the client disconnects
    ///   (counted), the server stops, or when the stream can no longer be written.
    @discardableResult
    package func pause(_ seconds: TimeInterval) -> Bool {
        io.lock()
        defer { io.unlock() }
        guard let connection, phase == .open else { return false }
        guard connection.waitForClient(seconds: seconds.isNaN ? 0 : max(0, seconds)) else {
            // `waitForClient` counted the disconnect (unless the server stopped).
            state.withLock { $0.phase = .clientGone }
            return false
        }
        return true
    }

    /// Closes the connection abruptly: no terminating chunk is written, so the client sees a
    /// body that ends too early. Later writes and pauses return false. Not counted as a
    /// client disconnect.
    package func dropConnection() {
        io.lock()
        defer { io.unlock() }
        guard connection != nil, phase == .open else { return }
        state.withLock { $0.phase = .dropped }
        // End of stream now, mid-body; the connection's thread closes the descriptor (after
        // draining what the client still sends) once the closure returns.
        Socket.shutdownWrite(fd)
    }

    /// Ends the stream once the closure has returned: writes the terminating chunk if the
    /// stream is still open, and retires the writer.
    /// - Returns: what the connection does next.
    func finish(keepAlive: Bool) -> Connection.Outcome {
        io.lock()
        defer { io.unlock() }
        guard let connection else { return .gone }
        self.connection = nil
        let ending = state.withLock { state -> Phase in
            defer { state.phase = .finished }
            return state.phase
        }
        switch ending {
        case .open:
            guard Socket.peerIsOpen(fd), connection.writeAll(Self.terminator) else {
                return connection.disconnected()
            }
            return keepAlive ? .keepAlive : .close
        case .dropped:
            return .close
        case .clientGone, .finished:
            return .gone
        }
    }

    /// Where the stream stands now.
    private var phase: Phase {
        state.withLock { $0.phase }
    }

    /// Records that the client is gone and counts it (unless the server stopped).
    private func clientLeft(_ connection: Connection) -> Bool {
        state.withLock { $0.phase = .clientGone }
        _ = connection.disconnected()
        return false
    }
}
