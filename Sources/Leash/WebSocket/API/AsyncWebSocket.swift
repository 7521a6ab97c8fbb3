import Foundation
import Rx

/// A WebSocket for `async` code (`client.webSocket(_:options:)`): its events as an
/// `AsyncThrowingStream`, and `send` that waits until the message is written.
///
/// Iterating `events` connects (through the whole pipeline, as `client.rx.webSocket` does);
/// leaving the loop, or cancelling its task, closes the socket with 1000. The loop pulls: a
/// slow loop holds the server back rather than letting messages pile up. That is what sets
/// it apart from a `WebSocketSession`'s `events.values`, a hot stream shared by every
/// subscriber, which buffers what a slow loop has not taken yet: take this for one task that
/// reads a socket at its own pace, the session for an app that holds one across reconnects.
///
/// ```swift
/// let chat = client.webSocket(Chat())
/// Task {
///     for try await event in chat.events {
///         if case .message(.text(let text)) = event { print(text) }
///     }
/// }
/// try await chat.send(.text("hello"))   // waits for the socket to open, then to be written
/// ```
public final class AsyncWebSocket: Sendable {
    private struct State {
        var socket: WebSocket?
        var isOver = false
        var waiters: [UInt64: CheckedContinuation<WebSocket, Swift.Error>] = [:]
        var nextWaiter: UInt64 = 0
    }

    /// What happens to the socket, in order (see `WebSocketEvent`); iterating connects.
    public let events: AsyncThrowingStream<WebSocketEvent, Swift.Error>
    private let state: LockedState<State>

    init(_ source: Observable<WebSocketEvent>) {
        let state = LockedState(State())
        self.state = state
        let tracked = source.do(
            onNext: { event in
                switch event {
                case .opened(let socket): Self.opened(socket, state)
                case .closed: state.withLock { $0.socket = nil }
                default: break
                }
            },
            onDispose: { Self.ended(state) })
        events = AsyncPull.stream(of: tracked)
    }

    /// Sends `message` once the socket is open (waiting for it, or for the reconnect in
    /// progress), and returns once it is written.
    ///
    /// - Throws: `LeashError.webSocketSendFailed` when it cannot be queued (closing, closed,
    ///   the queue full) or the connection ended first; `CancellationError` if the task is
    ///   cancelled while it waits for the socket to open.
    public func send(_ message: WebSocketMessage) async throws {
        let socket = try await openSocket()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Swift.Error>) in
            socket.connection.send(message) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    /// Starts the closing handshake of the open socket (see `WebSocket.close(code:reason:)`);
    /// does nothing while none is open.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        state.withLock { $0.socket }?.close(code: code, reason: reason)
    }

    private func openSocket() async throws -> WebSocket {
        enum Now {
            case socket(WebSocket)
            case over
            case wait
        }
        switch state.withLock({ state -> Now in
            if let socket = state.socket { return .socket(socket) }
            return state.isOver ? .over : .wait
        }) {
        case .socket(let socket): return socket
        case .over: throw LeashError.webSocketSendFailed(.closed)
        case .wait: break
        }
        let id = state.withLock { state -> UInt64 in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let now = state.withLock { state -> Result<WebSocket, Swift.Error>? in
                    if let socket = state.socket { return .success(socket) }
                    if state.isOver { return .failure(LeashError.webSocketSendFailed(.closed)) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }

    private static func opened(_ socket: WebSocket, _ state: LockedState<State>) {
        let waiters = state.withLock { state in
            state.socket = socket
            defer { state.waiters = [:] }
            return state.waiters
        }
        for waiter in waiters.values { waiter.resume(returning: socket) }
    }

    private static func ended(_ state: LockedState<State>) {
        let waiters = state.withLock { state in
            state.isOver = true
            state.socket = nil
            defer { state.waiters = [:] }
            return state.waiters
        }
        for waiter in waiters.values { waiter.resume(throwing: LeashError.webSocketSendFailed(.closed)) }
    }
}

extension Client {
    /// A WebSocket to `endpoint` for `async` code: see `AsyncWebSocket` (and
    /// `client.rx.webSocket(_:options:)` for the connection's behaviour).
    public func webSocket(_ endpoint: Endpoint, options: WebSocketOptions = WebSocketOptions()) -> AsyncWebSocket {
        AsyncWebSocket(webSocketStream(endpoint, options: options))
    }
}
