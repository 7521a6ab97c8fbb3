import Foundation
import LeashDigest

extension LoopbackServer {
    /// The WebSocket route, also among `builtInRoutes` (install this list on a server made
    /// without the built-ins to have it alone): a faithful RFC 6455 server scripted by its
    /// query so that client tests need no server code.
    ///
    /// `GET /ws/echo` with `Upgrade: websocket`, `Connection: Upgrade`,
    /// `Sec-WebSocket-Version: 13` and a `Sec-WebSocket-Key` (16 bytes in base64) is answered
    /// `101 Switching Protocols` with the `Sec-WebSocket-Accept` the key calls for; the
    /// connection then speaks frames. Without `Upgrade: websocket` the answer is
    /// `426 Upgrade Required`, as it is (with `Sec-WebSocket-Version: 13`) for another version;
    /// another method, a missing `Connection: Upgrade` or a bad key get a 400. No
    /// subprotocol and no extension is chosen unless the query asks. The handshake request
    /// is in `requestLog` like any other; each upgraded connection gets a `WebSocketLog`
    /// (see `webSocketLogs`, `waitForWebSocket(timeout:where:)`).
    ///
    /// Once open, the server echoes each text or binary message as one frame (text stays
    /// text; fragments are joined first), answers a ping with a pong carrying its payload,
    /// and answers a close frame with a close frame carrying the same code (an empty one
    /// for an empty one), then closes TCP. It checks what the client sends as RFC 6455 asks
    /// a server to: an unmasked frame, RSV bits, a reserved opcode, a fragmented or long
    /// (over 125 bytes) control frame, a length not in its shortest form, a continuation
    /// with no message to continue, a new message inside a fragmented one, a one-byte close
    /// payload or a close code not allowed on the wire fail the connection with 1002; text
    /// or a close reason that is not UTF-8 with 1007; a message over 256 MB with 1009 (the
    /// close frame says why; see `WebSocketLog.violation`).
    ///
    /// Handshake options, checked in this order:
    /// - `authorization=VALUE`: a 401 with `WWW-Authenticate: Bearer` unless the request's
    ///   `Authorization` equals VALUE.
    /// - `status=N` (200…599): that status with a small JSON body instead of the upgrade.
    /// - `hang`: no answer until the client disconnects or the server stops.
    /// - `accept=wrong`: a `Sec-WebSocket-Accept` for another key; `accept=missing`: none.
    /// - `protocols=A,B`: the server speaks these subprotocols and picks the first that the
    ///   client offers in `Sec-WebSocket-Protocol` (none if it offers none of them).
    /// - `protocol=NAME`: answers `Sec-WebSocket-Protocol: NAME` whatever the client offered.
    /// - `extensions=VALUE`: answers `Sec-WebSocket-Extensions: VALUE` (the server still
    ///   implements no extension).
    ///
    /// After the `101`, the server sends what these ask for, in this order, then echoes:
    /// - Violations, each one frame: `masked` (a masked text frame, `masked`), `rsv=N` (1…7;
    ///   a text frame `rsv` with those RSV bits, 4 being RSV1, 2 RSV2, 1 RSV3), `opcode=N`
    ///   (0…15; a final frame with that opcode and the payload `opcode`), `invalidUTF8` (a
    ///   text frame `hi` followed by bytes that are not UTF-8).
    /// - `message=BYTES` (up to 1 GiB): one message of that many bytes, as one frame.
    /// - `send=N&size=S` (S up to 1 GiB, default 16): N messages of S bytes. Text unless
    ///   `binary=1`; byte i of a text message is `a`…`z` cycling (`"a"` + i % 26), of a
    ///   binary one `patternByte(at: i)`. `message` follows the same rules.
    /// - `fragments=K`: each message of `message` and `send` goes out in K frames (the
    ///   first K − 1 of S / K bytes, the last with the rest), with a ping (`fragment 1`, …)
    ///   between two fragments.
    /// - `flood=BYTES` (up to 4 TiB): binary messages of 64 KiB (the last one shorter), written
    ///   as fast as the socket takes them, counted in `WebSocketLog.floodBytesWritten`; the
    ///   server echoes nothing until all are written.
    /// - `close=CODE&reason=R` (1000…4999): a close frame with CODE and the UTF-8 of R (R
    ///   is sent whole, even past the 123 bytes a control frame allows); `close=none`: an
    ///   empty close frame. The server then echoes nothing, waits for the client's close
    ///   frame and closes TCP.
    /// - `closeCode=N` (0…65535): like `close`, with the raw code N, valid or not (999,
    ///   1005, 5000); `reason=R` applies.
    /// - `badCloseReason`: like `close=1000`, with a reason that is not UTF-8.
    /// - `dropMidFrame`: the header of a 64-byte text frame and half its payload, then TCP
    ///   closes.
    /// - `drop`: TCP closes, with no close frame.
    ///
    /// And these change how it echoes:
    /// - `ping=MS` (1…600,000): a ping every MS milliseconds, with the payload `1`, `2`, …
    ///   (pongs are in `WebSocketLog.pongs`).
    /// - `ignorePings`: pings are never answered, though TCP stays open (a dead peer).
    /// - `ignoreClose`: the client's close frame is never answered, and the server never
    ///   closes TCP: the client has to.
    ///
    /// Whenever the server closes TCP it first sends end of stream, then reads (and logs)
    /// what the client still sends, up to 10 s, to see the client close its side. A flag
    /// (`hang`, `masked`, …) is on when present with no value or with `1`; a malformed
    /// option (`send=x`, `close=1`, `rsv=8`) answers 400.
    package static let webSocketRoutes: [Route] = [
        Route(method: nil, path: "/ws/echo", handler: webSocketEcho)
    ]

    /// `ws://127.0.0.1:PORT` and `path` (percent-encoded as needed) with `queryItems`; an
    /// item with a nil value is a flag (`URLQueryItem(name: "hang", value: nil)` gives `?hang`).
    package func webSocketURL(path: String = "/ws/echo", queryItems: [URLQueryItem] = []) -> URL {
        var components = URLComponents(url: url(path: path, queryItems: queryItems), resolvingAgainstBaseURL: false)
        components?.scheme = "ws"
        return components?.url ?? url(path: path, queryItems: queryItems)
    }

    /// `/ws/echo`: validates the handshake and answers with the upgrade, or the fault its
    /// query asks for.
    static func webSocketEcho(_ request: LoopbackRequest) -> LoopbackResponse {
        var options = QueryOptions(request)
        let status = options.integer("status", in: 200...599)
        let hangs = options.switchedOn("hang")
        var script = WebSocketScript(request: LoggedRequest(request))
        script.sendsMaskedFrame = options.switchedOn("masked")
        script.reservedBits = options.integer("rsv", in: 1...7).map { UInt8($0) }
        script.rawOpcode = options.integer("opcode", in: 0...15).map { UInt8($0) }
        script.sendsInvalidUTF8 = options.switchedOn("invalidUTF8")
        script.messageLength = options.integer("message", in: 0...(1 << 30))
        script.pushCount = options.integer("send", in: 0...1_000_000) ?? 0
        script.pushSize = options.integer("size", in: 0...(1 << 30)) ?? 16
        script.pushesBinary = options.switchedOn("binary")
        script.fragments = options.integer("fragments", in: 1...1_000_000) ?? 1
        script.floodBytes = options.integer("flood", in: 0...(1 << 42))
        script.drops = options.switchedOn("drop")
        script.dropsMidFrame = options.switchedOn("dropMidFrame")
        script.ignoresClose = options.switchedOn("ignoreClose")
        script.ignoresPings = options.switchedOn("ignorePings")
        script.pingInterval = options.integer("ping", in: 1...600_000)
        let reason = Array((request.queryValue("reason") ?? "").utf8)
        if request.queryValue("close") == "none" {
            script.close = .code(nil, reason: [])
        } else if let code = options.integer("close", in: 1000...4999) {
            script.close = .code(UInt16(code), reason: reason)
        }
        if let code = options.integer("closeCode", in: 0...65535) {
            script.close = .code(UInt16(code), reason: reason)
        }
        if options.switchedOn("badCloseReason") { script.close = .invalidReason }
        let acceptOption = request.queryValue("accept")
        guard !options.isMalformed, acceptOption == nil || acceptOption == "wrong" || acceptOption == "missing"
        else { return .status(400) }

        if let expected = request.queryValue("authorization"), request.headers["Authorization"] != expected {
            var response = LoopbackResponse.status(401)
            response.headers["WWW-Authenticate"] = "Bearer"
            return response
        }
        if let status { return .status(status) }
        if let refusal = handshakeRefusal(request) { return refusal }
        if hangs { return .hang }

        let key = request.headers["Sec-WebSocket-Key"] ?? ""
        switch acceptOption {
        case "wrong": script.accept = WebSocketAccept.value(forKey: key + "x")
        case "missing": script.accept = nil
        default: script.accept = WebSocketAccept.value(forKey: key)
        }
        script.selectedProtocol = request.queryValue("protocol") ?? negotiatedProtocol(request)
        script.extensions = request.queryValue("extensions")
        return .webSocket(script)
    }

    /// The answer to a request that is not a valid opening handshake (RFC 6455 §4.2.1), or nil.
    private static func handshakeRefusal(_ request: LoopbackRequest) -> LoopbackResponse? {
        let headers = request.headers
        guard headers.containsToken("websocket", in: "Upgrade") else {
            var response = LoopbackResponse.status(426)
            response.headers["Upgrade"] = "websocket"
            return response
        }
        guard request.method == "GET", request.httpVersion == "HTTP/1.1",
            headers.containsToken("Upgrade", in: "Connection")
        else { return .status(400) }
        guard headers["Sec-WebSocket-Version"] == "13" else {
            var response = LoopbackResponse.status(426)
            response.headers["Sec-WebSocket-Version"] = "13"
            return response
        }
        guard let key = headers["Sec-WebSocket-Key"], Data(base64Encoded: key)?.count == 16 else {
            return .status(400)
        }
        return nil
    }

    /// With `protocols=A,B`: the first subprotocol the client offers that is in the list.
    private static func negotiatedProtocol(_ request: LoopbackRequest) -> String? {
        guard let supported = request.queryValue("protocols")?.split(separator: ",").map({ $0.trimmingSpaces() })
        else { return nil }
        let offered = request.headers.values(for: "Sec-WebSocket-Protocol").flatMap { value in
            value.split(separator: ",").map { $0.trimmingSpaces() }
        }
        return offered.first { supported.contains($0) }.map(String.init)
    }
}

extension LoopbackResponse {
    /// A `101 Switching Protocols` after which the connection runs `script`.
    static func webSocket(_ script: WebSocketScript) -> LoopbackResponse {
        var response = LoopbackResponse(status: 101)
        response.webSocket = script
        return response
    }
}
