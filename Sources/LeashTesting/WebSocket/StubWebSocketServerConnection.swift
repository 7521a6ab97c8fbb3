import Foundation
import Leash
import LeashDigest
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The server's end of a scripted WebSocket connection: reads the upgrade request, answers
/// it as the stub says (a refusal, or `101` and the conversation), then speaks RFC 6455 as a
/// server does (unmasked frames out, masked frames in) with Leash's own codec.
final class StubWebSocketServerConnection: Sendable {
    private struct State {
        var handshake = Data()
        var isOpen = false
        var decoder = WebSocketFrameDecoder(role: .server, maximumFrameSize: 64 * 1024 * 1024)
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 64 * 1024 * 1024)
        var sentClose = false
        var isClosed = false
        var peer: StubWebSocketPeer?
        /// Itself, while the connection lasts (the client's stream holds it weakly).
        var keepAlive: StubWebSocketServerConnection?
    }

    let transport: StubTransport
    let address: WebSocketAddress
    let runner: StubRunner
    private let client: StubByteStream
    private let state = LockedState(State())

    init(transport: StubTransport, address: WebSocketAddress, client: StubByteStream, runner: StubRunner) {
        self.transport = transport
        self.address = address
        self.client = client
        self.runner = runner
    }

    func retainUntilClosed() {
        state.withLock { $0.keepAlive = self }
    }

    // MARK: From the client

    func receivedFromClient(_ bytes: Data) {
        enum Next {
            case nothing
            case handshake(Data)
            case frames([WebSocketMessageAssembler.Message], violated: Bool)
        }
        let next = state.withLock { state -> Next in
            guard !state.isClosed else { return .nothing }
            if !state.isOpen {
                state.handshake.append(bytes)
                guard let end = state.handshake.range(of: Data("\r\n\r\n".utf8)) else { return .nothing }
                return .handshake(state.handshake.prefix(upTo: end.lowerBound))
            }
            let output = state.decoder.decode(bytes)
            var messages: [WebSocketMessageAssembler.Message] = []
            for frame in output.frames {
                do {
                    if let message = try state.assembler.append(frame) { messages.append(message) }
                } catch {
                    return .frames(messages, violated: true)
                }
            }
            return .frames(messages, violated: output.violation != nil)
        }
        switch next {
        case .nothing: return
        case .handshake(let head): answer(head)
        case .frames(let messages, let violated):
            for message in messages { handle(message) }
            if violated { close(code: .protocolError, reason: "") }
        }
    }

    func clientClosed() {
        let peer = state.withLock { state -> StubWebSocketPeer? in
            state.isClosed = true
            state.keepAlive = nil
            return state.peer
        }
        peer?.recordClientClosedConnection()
    }

    private func handle(_ message: WebSocketMessageAssembler.Message) {
        let peer = state.withLock { $0.peer }
        guard let peer else { return }
        switch message {
        case .text(let text): peer.received(.text(text))
        case .binary(let data): peer.received(.binary(data))
        case .ping(let payload):
            if peer.answersPings { write(.pong, payload) }
        case .pong:
            break
        case .close(let code, let reason):
            peer.recordClientClose(code: code, reason: reason)
            let answered = state.withLock { state -> Bool in
                defer { state.sentClose = true }
                return state.sentClose
            }
            // The server echoes the close unless it started it; then it closes TCP first.
            if !answered, peer.answersClose { write(.close, Self.closePayload(code, reason: "")) }
            if peer.answersClose { closeConnection() }
        }
    }

    // MARK: The handshake

    private func answer(_ headBytes: Data) {
        let text = String(decoding: headBytes, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        let requestLine = lines.isEmpty ? "" : lines.removeFirst()
        let target = requestLine.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let scheme = address.isSecure ? "https" : "http"
        let url = URL(string: "\(scheme)://\(address.host):\(address.port)\(target)")
        var request = URLRequest(url: url ?? URL(fileURLWithPath: "/"))
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        switch transport.webSocketAnswer(for: request) {
        case .refuse(let response):
            let refuse: @Sendable () -> Void
            if let failure = response.failure {
                // A server that cannot be reached: the connection fails, with no answer.
                refuse = { [self] in
                    client.fail(failure)
                    closeConnection()
                }
            } else {
                var head = "HTTP/1.1 \(response.status) Stub\r\nContent-Length: \(response.body.count)\r\n"
                for (name, value) in response.headers where name.lowercased() != "content-length" {
                    head += "\(name): \(value)\r\n"
                }
                let bytes = Data((head + "\r\n").utf8) + response.body
                refuse = { [self] in
                    client.write(bytes)
                    closeConnection()
                }
            }
            // A delayed refusal plays a server slow to answer (the handshake's timeout).
            if let delay = response.delay { runner.after(delay, refuse) } else { refuse() }
        case .accept(let conversation, let subprotocol):
            let key = headers["Sec-WebSocket-Key"] ?? ""
            var head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            head += "Sec-WebSocket-Accept: \(WebSocketAccept.value(forKey: key))\r\n"
            if let subprotocol { head += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
            let peer = StubWebSocketPeer(connection: self, request: request)
            state.withLock { state in
                state.isOpen = true
                state.peer = peer
            }
            client.write(Data((head + "\r\n").utf8))
            conversation(peer)
        }
    }

    // MARK: To the client

    /// Writes a frame as a server does: unmasked. A frame the protocol does not allow (a
    /// control frame over 125 bytes) is not written; `sendRaw` writes broken frames.
    func write(_ opcode: WebSocketFrame.Opcode, _ payload: Data) {
        let closed = state.withLock { $0.isClosed }
        guard !closed,
            let bytes = try? WebSocketFrameEncoder.encode(
                WebSocketFrame(opcode: opcode, payload: payload), maskingKey: nil)
        else { return }
        client.write(bytes)
    }

    /// Writes `bytes` as they are.
    func writeRaw(_ bytes: Data) {
        let closed = state.withLock { $0.isClosed }
        if !closed { client.write(bytes) }
    }

    /// Sends a close frame (once).
    func close(code: WebSocketCloseCode?, reason: String) {
        let first = state.withLock { state -> Bool in
            defer { state.sentClose = true }
            return !state.sentClose && !state.isClosed
        }
        if first { write(.close, Self.closePayload(code, reason: reason)) }
    }

    /// Closes the TCP connection from the server's side.
    func closeConnection() {
        state.withLock { state in
            state.isClosed = true
            state.keepAlive = nil
        }
        client.closeFromServer()
    }

    static func closePayload(_ code: WebSocketCloseCode?, reason: String) -> Data {
        guard let code else { return Data() }
        return Data([UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xff)]) + Data(reason.utf8)
    }
}
