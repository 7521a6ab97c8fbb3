import Foundation
import Rx

/// A WebSocket an app holds: one object for the whole conversation, across the connects and
/// reconnects of `WebSocketOptions.reconnect`, made at once by
/// `client.webSocketSession(_:options:)` before any connection opens.
///
/// A `WebSocket` is one connection, and exists only once it is open; a session outlives its
/// connections (hence the name, as for `ServerSentEventSession`), so a view model keeps it
/// in a property and sends through it whenever the user types:
///
/// - **Connecting starts when the session is made**, and goes on (with the reconnect policy)
///   until the session ends: `close(code:reason:)`, the policy's end (a close it does not
///   retry, or its last attempt), a handshake the server refused, `Manager.cancelAll()`, or
///   the session released (closed with 1000).
/// - **`events` is shared and hot.** Every subscriber sees the same connections. One that
///   subscribes late first gets the session's current state as an event (`.opened(socket)`
///   while a connection is open, `.reconnecting` while waiting for the next, `.closed` just
///   after one ended), then every event as it happens; once the session has ended, the way
///   it ended (completed, or the handshake's error). No interleaving of a subscribe and an
///   open loses the open: the state is read and the subscriber registered in one step.
/// - **`send` can be called at any time.** While a connection is open the message is queued
///   on it at once (`WebSocket.send(_:)`). While connecting or reconnecting it is kept, in
///   order, bounded by `maximumQueuedBytes`, and queued on the next connection as soon as it
///   opens, before anything sent later. It fails with `LeashError.webSocketSendFailed` when
///   the session ends first (`.closed`), when the kept messages would pass the bound
///   (`.queueFull`), or when it waited longer than `WebSocketOptions.sendTimeout`
///   (`.timedOut`).
///
/// **At most once per send.** A message is handed to one connection at most. If that
/// connection drops before the message is written, its send fails (`.closed`) and it is not
/// sent again on the next one: it may have reached the server, and only the app knows
/// whether sending it twice is safe. A message kept while no connection was open was never
/// seen by any server, so writing it on the next connection is its first and only try; so is
/// a message the closing connection refused to queue (nothing of it was written).
///
/// ```swift
/// var options = WebSocketOptions()
/// options.reconnect = WebSocketReconnectPolicy()
/// let session = client.webSocketSession(ChatRoom(name: "general"), options: options)
/// session.events
///     .compactMap { $0.message }
///     .subscribe(onNext: { print($0) })
///     .disposed(by: disposeBag)
/// session.send(.text("hello"))  // kept until the first connection opens
/// ```
///
/// In `async` code, `session.events.values` is the same events as an `AsyncThrowingStream`,
/// and `try await session.send(…).value` waits for the write.
public final class WebSocketSession: Sendable {
    /// Where a session stands: `state`, and what a late subscriber of `events` learns first.
    public enum State: Equatable, Sendable {
        /// The first connect is under way (its handshake).
        case connecting
        /// A connection is open: sends go straight to it.
        case open(WebSocket)
        /// A connection just ended; `.reconnecting` or the session's end follows.
        case closed(WebSocketClose)
        /// Waiting `delay` seconds to connect again, then connecting, until the next
        /// `.opened` (`attempt` as in `WebSocketEvent.reconnecting`).
        case reconnecting(attempt: Int, delay: TimeInterval)
        /// The session is over: `failure` is why, when it did not end in order (the
        /// `LeashError` of a refused handshake, `LeashError.cancelled`), `nil` after an
        /// orderly end (`events` failed, or completed).
        case ended(failure: Swift.Error?)

        /// Whether two states say the same (an `ended` by its failure's description, since
        /// errors are not equatable).
        public static func == (lhs: State, rhs: State) -> Bool {
            switch (lhs, rhs) {
            case (.connecting, .connecting): return true
            case (.open(let left), .open(let right)): return left == right
            case (.closed(let left), .closed(let right)): return left == right
            case (.reconnecting(let leftAttempt, let leftDelay), .reconnecting(let rightAttempt, let rightDelay)):
                return leftAttempt == rightAttempt && leftDelay == rightDelay
            case (.ended(let left), .ended(let right)):
                return left.map(String.init(describing:)) == right.map(String.init(describing:))
            default: return false
            }
        }

        /// The socket, while a connection is open.
        public var socket: WebSocket? {
            if case .open(let socket) = self { return socket }
            return nil
        }
    }

    /// The shared machinery; the run and the subscribers hold it, not this handle, so that
    /// releasing the handle ends the session.
    private let core: WebSocketSessionCore

    init(core: WebSocketSessionCore) {
        self.core = core
    }

    deinit {
        core.close(code: .normalClosure, reason: "")
    }

    /// Where the session stands now.
    public var state: State { core.state }

    /// What happens to the session's connections, in order (see `WebSocketEvent`), shared by
    /// every subscriber: a late one first gets the current state as an event (see the
    /// type's documentation). Completes after the last `.closed` when the session ends in
    /// order; fails with the handshake's `LeashError` when a connect is refused, or
    /// `LeashError.cancelled` after `Manager.cancelAll()`. Disposing a subscription leaves
    /// the session running.
    public var events: Observable<WebSocketEvent> { core.events }

    /// Sends `message` now if a connection is open, else as soon as one opens (see the
    /// type's documentation), and returns its outcome: completes once it is written, fails
    /// with `LeashError.webSocketSendFailed` if it cannot be. Eager: subscribing is optional,
    /// and a late subscriber still learns the outcome.
    @discardableResult
    public func send(_ message: WebSocketMessage) -> Completable {
        let outcome = WebSocketSendOutcome()
        core.send(message, outcome)
        return outcome.completable
    }

    /// Ends the session: an open connection closes with `code` and `reason` (see
    /// `WebSocket.close(code:reason:)`), after the messages already queued on it, and is not
    /// reconnected; a connect or reconnect under way stops. Messages still kept for a
    /// connection fail with `.closed`; `events` completes. Calling it again does nothing.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        core.close(code: code, reason: reason)
    }
}

extension Client {
    /// A WebSocket session to `endpoint`, connecting from now on: see `WebSocketSession`
    /// (and `client.rx.webSocket(_:options:)` for how each connection behaves: the upgrade
    /// goes through the whole pipeline, a 401 refreshes the token, the reconnect policy).
    public func webSocketSession(_ endpoint: Endpoint, options: WebSocketOptions = WebSocketOptions())
        -> WebSocketSession
    {
        WebSocketSession(
            core: WebSocketSessionCore(
                connections: webSocketStream(endpoint, options: options), options: options, manager: manager))
    }
}
