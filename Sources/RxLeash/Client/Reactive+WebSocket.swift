import Foundation
import Leash
import Rx

/// `client.rx.webSocket`: a WebSocket as an `Observable` of its events.
extension Reactive where Base: Client {
    /// A WebSocket to `endpoint` (its URL under the manager's base URL, `http` becoming `ws`
    /// and `https` `wss`), as a cold stream of `WebSocketEvent`s.
    ///
    /// Subscribing connects: the upgrade request goes through the whole pipeline (the
    /// manager's headers, the authenticator, interceptors, gates; a 401 goes to the token
    /// refresher and the handshake is retried), bounded by the manager's `timeout`. Then
    /// `.opened` hands over the `WebSocket` to send with, `.message`s arrive in the order they
    /// were sent, one at a time (the next bytes are read only once the subscriber took the
    /// last message, so a slow subscriber holds the server back), and `.closed` reports how
    /// the connection ended, whoever ended it, before the observable completes (or, with
    /// `options.reconnect`, `.reconnecting` and a new connection follow). A handshake that
    /// fails (refused, timed out, or not a valid upgrade) fails the observable with its
    /// `LeashError`.
    ///
    /// Disposing closes the socket with 1000 (the server sees the closing handshake, then
    /// the TCP close); `Manager.cancelAll()` closes it with 1001 and fails the observable
    /// with `LeashError.cancelled`. Nothing is delivered after either.
    ///
    /// ```swift
    /// client.rx.webSocket(Chat())
    ///     .subscribe(onNext: { event in
    ///         switch event {
    ///         case .opened(let socket): socket.send(.text("hello"))
    ///         case .message(.text(let text)): print(text)
    ///         default: break
    ///         }
    ///     })
    ///     .disposed(by: disposeBag)
    /// ```
    public func webSocket(_ endpoint: Endpoint, options: WebSocketOptions = WebSocketOptions())
        -> Observable<WebSocketEvent>
    {
        base.webSocketStream(endpoint, options: options)
    }
}
