import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The bytes under a WebSocket: a connected, two-way stream (plain TCP for `ws://`, TLS for
/// `wss://`) that Leash's own codec frames, so that every platform runs the same protocol code.
///
/// The contract the connection relies on:
/// - At most one `receive` and one `send` are outstanding at a time; a second call before the
///   first's completion is a bug in the caller.
/// - `receive` completes once, with at least one byte, the end of the stream (the peer closed
///   its side), or a failure. Nothing is read before it is asked for: a reader that does not
///   ask holds the peer back through TCP's window (this is the socket's backpressure). After
///   the end, every `receive` gets the end again; after a failure, a failure.
/// - `send` completes once every byte is written (handed to the kernel or TLS), or fails.
/// - Completions run on the stream's own threads, one at a time (a serial queue), never inside
///   the call that started them: a `receive` and a `send` outstanding together never complete
///   at once (`HTTP1Exchange` relies on it).
/// - `close()` is idempotent and may be called from any thread, at any time: it closes the
///   connection (TCP close, after a TLS close-notify where there is one) and completes the
///   outstanding calls with `URLError(.cancelled)`, once each; calls made after it fail the
///   same way. Releasing the last reference to a stream closes it too.
/// - Failures are `URLError`s (`.networkConnectionLost`, `.cannotConnectToHost`,
///   `.secureConnectionFailed`, `.serverCertificateUntrusted`…), which Leash reports as
///   `LeashError.transport`.
package protocol WebSocketByteStream: AnyObject, Sendable {
    /// Reads what has arrived, up to `maximumLength` bytes, waiting for at least one.
    func receive(maximumLength: Int, _ completion: @escaping @Sendable (WebSocketByteStreamRead) -> Void)

    /// Writes all of `bytes`.
    func send(_ bytes: Data, _ completion: @escaping @Sendable (URLError?) -> Void)

    /// Closes the connection; outstanding calls complete with failures.
    func close()

    /// Writes all of `bytes`, as `send(_:_:)` does, and says how many of them were handed to
    /// the kernel (or TLS) before a failure: 0 means the peer never got any of them, which
    /// makes a request safe to send again on another connection. A stream that cannot tell
    /// reports `nil` on failure.
    func send(_ bytes: Data, reportingWritten completion: @escaping @Sendable (_ written: Int?, URLError?) -> Void)

    /// Whether the connection, idle, has something to read or has been closed by the peer:
    /// either way it cannot carry a new request. Asked only while no `receive` is outstanding.
    /// A stream that cannot tell says false.
    var hasInputOrHangup: Bool { get }

    /// Whether the caller runs on the stream's own queue, inside one of its completions: a
    /// request made there must not be lent this connection, whose queue it holds (it may
    /// wait for its answer). A stream that cannot tell says false.
    var isOnItsQueue: Bool { get }
}

extension WebSocketByteStream {
    package func send(
        _ bytes: Data, reportingWritten completion: @escaping @Sendable (_ written: Int?, URLError?) -> Void
    ) {
        send(bytes) { error in completion(error == nil ? bytes.count : nil, error) }
    }

    package var hasInputOrHangup: Bool { false }

    package var isOnItsQueue: Bool { false }
}

/// What one `WebSocketByteStream.receive` got.
package enum WebSocketByteStreamRead: Sendable {
    /// At least one byte.
    case bytes(Data)
    /// The peer closed its side of the connection: no more bytes will come.
    case end
    /// The connection failed (or was closed by `close()`).
    case failed(URLError)
}

/// Where a byte stream connects: a host and port, and whether TLS runs over it.
package struct WebSocketAddress: Hashable, Sendable {
    /// The host name or address literal (without brackets for IPv6).
    package var host: String
    /// The TCP port.
    package var port: Int
    /// Whether TLS runs over the connection (`wss://`).
    package var isSecure: Bool
    /// For TLS: a PEM file of certificate authorities trusted besides the system's (tests use
    /// it for their self-signed certificate; meant for tests and private authorities). On
    /// Linux it becomes libcurl's CA file, which replaces the default bundle *file* but keeps
    /// the default CA *directory* (Debian and Ubuntu: /etc/ssl/certs): where libcurl has no
    /// such directory, only these authorities are trusted.
    package var additionalTrustedAuthorities: URL?
    /// For TLS: an HTTP proxy (`http://[user:password@]host:port`) whose `CONNECT` tunnel the
    /// connection goes through (`HTTP1Transport`'s `https_proxy`); nil to connect directly.
    /// Linux only (libcurl runs the tunnel); elsewhere a connector refuses an address with one.
    package var tunnelProxy: String?

    /// An address from its parts.
    package init(
        host: String, port: Int, isSecure: Bool, additionalTrustedAuthorities: URL? = nil, tunnelProxy: String? = nil
    ) {
        self.host = host
        self.port = port
        self.isSecure = isSecure
        self.additionalTrustedAuthorities = additionalTrustedAuthorities
        self.tunnelProxy = tunnelProxy
    }
}

/// Opens byte streams: each platform's (`WebSocketByteStreams.connect`), or a test's.
package protocol WebSocketByteStreamConnector: Sendable {
    /// Connects to `address`, completing once (on the connector's own thread) with the open
    /// stream or the `URLError` that stopped it. Disposing before the completion abandons the
    /// attempt: the socket is closed and the completion is not called. A dispose that races
    /// the completion can lose (the completion may already be running when it comes): a caller
    /// that has disposed must close a stream it still receives.
    func connect(
        to address: WebSocketAddress,
        _ completion: @escaping @Sendable (Result<any WebSocketByteStream, URLError>) -> Void
    ) -> Disposable
}

/// A transport that brings its own WebSocket connections (`StubTransport`, whose scripted
/// server runs in virtual time): a WebSocket on a manager with such a transport connects
/// through it instead of the network.
package protocol WebSocketConnectorProviding {
    /// Opens the WebSocket connections of the manager's clients.
    var webSocketConnector: any WebSocketByteStreamConnector { get }
}
