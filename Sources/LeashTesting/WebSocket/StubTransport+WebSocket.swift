import Foundation
import Leash
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension StubTransport: WebSocketConnectorProviding {
    /// How a scripted server answers an upgrade request.
    enum WebSocketAnswer {
        /// With this response instead of upgrading.
        case refuse(StubResponse)
        /// With `101`, choosing `subprotocol`, then the conversation.
        case accept(@Sendable (StubWebSocketPeer) -> Void, subprotocol: String?)
    }

    /// A scripted WebSocket at `path`: each connect is answered with the next of `refusals`
    /// while there are any (`.status(401)` makes the client refresh its token;
    /// `.error(.cannotConnectToHost)` plays a server that cannot be reached: the connection
    /// fails with that error before any answer), then accepted, choosing the client's first
    /// subprotocol, with `conversation` run on the server's side of the new connection.
    ///
    /// The upgrade request goes through the client's whole pipeline and is logged in
    /// `requests` like any other.
    ///
    /// ```swift
    /// let transport = StubTransport(scheduler: testScheduler)
    /// transport.stubWebSocket(path: "/chat", refusing: .status(401)) { peer in
    ///     peer.onMessage { peer.send($0) }
    /// }
    /// ```
    @discardableResult
    public func stubWebSocket(
        path: String, refusing refusals: StubResponse..., conversation: @escaping @Sendable (StubWebSocketPeer) -> Void
    ) -> Self {
        addWebSocketStub(path: path, refusals: refusals, conversation: conversation)
        return self
    }

    package var webSocketConnector: any WebSocketByteStreamConnector {
        StubWebSocketConnector(transport: self)
    }
}
