import Foundation

extension LoopbackServer {
    /// What the server saw on one WebSocket connection, from its opening handshake to the
    /// end of TCP; see `webSocketLogs` and `waitForWebSocket(timeout:where:)`.
    ///
    /// The server updates it as things happen, on the connection's own thread; a test reads
    /// snapshots. Payloads are kept whole (a frame's, and again its message's), for as long
    /// as the server lives.
    package struct WebSocketLog: Sendable, Equatable {
        /// A frame received from the client, as it arrived (a faulty one included).
        package struct Frame: Sendable, Equatable {
            /// The opcode, 0…15: 0 continuation, 1 text, 2 binary, 8 close, 9 ping, 10 pong.
            package var opcode: UInt8
            /// Whether the FIN bit was set.
            package var fin: Bool
            /// The three RSV bits as a number: 4 is RSV1, 2 is RSV2, 1 is RSV3; 0 when none is set.
            package var rsv: UInt8
            /// The masking key, or nil when the frame was not masked (a violation from a client).
            package var maskingKey: [UInt8]?
            /// The payload, unmasked.
            package var payload: [UInt8]

            /// Whether the frame was masked.
            package var isMasked: Bool { maskingKey != nil }

            /// Creates a frame record (the server does; tests compare with one).
            package init(opcode: UInt8, fin: Bool, rsv: UInt8, maskingKey: [UInt8]?, payload: [UInt8]) {
                self.opcode = opcode
                self.fin = fin
                self.rsv = rsv
                self.maskingKey = maskingKey
                self.payload = payload
            }
        }

        /// A whole message received from the client (its fragments joined).
        package struct Message: Sendable, Equatable {
            /// Whether it was a text message (else binary).
            package var isText: Bool
            /// The payload.
            package var payload: [UInt8]

            /// The payload as UTF-8 text (repaired if it is not UTF-8).
            package var text: String { String(decoding: payload, as: UTF8.self) }

            /// Creates a message record.
            package init(isText: Bool, payload: [UInt8]) {
                self.isText = isText
                self.payload = payload
            }
        }

        /// A close frame's contents.
        package struct Close: Sendable, Equatable {
            /// The status code, or nil when the payload was empty.
            package var code: UInt16?
            /// The reason's bytes (after the code), as sent.
            package var reason: [UInt8]

            /// The reason as UTF-8 text (repaired if it is not UTF-8).
            package var reasonText: String { String(decoding: reason, as: UTF8.self) }

            /// Creates a close record.
            package init(code: UInt16?, reason: [UInt8]) {
                self.code = code
                self.reason = reason
            }
        }

        /// The server's id for the connection (as in `LoggedRequest.connectionID`).
        package var connectionID: Int
        /// The handshake request: method, target and header fields as sent.
        package var request: LoggedRequest
        /// The subprotocol the server answered in `Sec-WebSocket-Protocol`, if any.
        package var selectedProtocol: String?
        /// Every frame received, in order (after the server has begun closing TCP too).
        package var frames: [Frame] = []
        /// Every whole text or binary message received, in order.
        package var messages: [Message] = []
        /// The first close frame received, if any.
        package var closeReceived: Close?
        /// The close frame the server sent, if any (its answer, a scripted close, or the one
        /// it failed the connection with).
        package var closeSent: Close?
        /// Why the server failed the connection, when the client broke the protocol
        /// (`"unmasked frame"`, …); the close code it sent is in `closeSent`.
        package var violation: String?
        /// Pings the server sent (`ping=MS` and between `fragments`).
        package var pingsSent = 0
        /// Payload bytes of `flood` messages the socket has taken so far.
        package var floodBytesWritten = 0
        /// Whether the client closed (or reset) TCP. Not set when the server stopped.
        package var clientClosedTCP = false
        /// Whether the server is done with the connection (its descriptor is about to close).
        package var isFinished = false

        /// Pongs received, in order.
        package var pongs: [Frame] { frames.filter { $0.opcode == 0xA } }

        /// Whether the client closed TCP after it had sent a close frame, as a clean closing
        /// handshake has it (frames are logged as they are read, so a close frame logged
        /// before the end of TCP was sent before it).
        package var clientClosedTCPAfterCloseFrame: Bool { clientClosedTCP && closeReceived != nil }

        init(connectionID: Int, request: LoggedRequest, selectedProtocol: String?) {
            self.connectionID = connectionID
            self.request = request
            self.selectedProtocol = selectedProtocol
        }
    }

    /// How many WebSocket connections' logs are kept (the latest).
    package static let webSocketLogCapacity = 1000

    /// The logs of the WebSocket connections, oldest first: one per request answered with
    /// `101 Switching Protocols`, the latest `webSocketLogCapacity` (at least) kept until the
    /// server is released (`resetCounters()` leaves them).
    package var webSocketLogs: [WebSocketLog] {
        core.state.withLock { $0.webSocketLogs }
    }

    /// Blocks until the log of some WebSocket connection satisfies `condition`, or
    /// `timeout` seconds pass, and returns that log (the oldest one that does).
    ///
    /// Sleeps on a condition variable and re-checks after each change to a log; `condition`
    /// runs on the calling thread with no lock held. For example, once a client has closed:
    ///
    /// ```swift
    /// let log = server.waitForWebSocket(timeout: 5) { $0.clientClosedTCP }
    /// XCTAssertEqual(log?.closeReceived?.code, 1000)
    /// ```
    /// - Returns: the log, or nil when none satisfied `condition` before the timeout.
    @discardableResult
    package func waitForWebSocket(timeout: TimeInterval, where condition: (WebSocketLog) -> Bool) -> WebSocketLog? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            let (logs, generation) = core.state.withLock { ($0.webSocketLogs, $0.webSocketGeneration) }
            if let match = logs.first(where: condition) { return match }
            let changed = core.state.wait(until: deadline) { $0.webSocketGeneration != generation }
            if !changed { return webSocketLogs.first(where: condition) }
        }
    }
}

extension ServerCore {
    /// Adds the log of a connection about to answer `101`.
    func webSocketOpened(_ log: LoopbackServer.WebSocketLog) {
        state.update { state in
            state.webSocketLogs.append(log)
            // The latest ones are kept, as requests' are: a long run (the soak) must not
            // grow without bound.
            if state.webSocketLogs.count >= 2 * LoopbackServer.webSocketLogCapacity {
                state.webSocketLogs.removeFirst(state.webSocketLogs.count - LoopbackServer.webSocketLogCapacity)
            }
            state.webSocketGeneration += 1
        }
    }

    /// Changes the log of connection `id`.
    func updateWebSocketLog(_ id: Int, _ change: (inout LoopbackServer.WebSocketLog) -> Void) {
        state.update { state in
            guard let index = state.webSocketLogs.lastIndex(where: { $0.connectionID == id }) else { return }
            change(&state.webSocketLogs[index])
            state.webSocketGeneration += 1
        }
    }

    /// Whether `stop()` has been called (a connection that ends then was not closed by its client).
    var isStopped: Bool {
        state.withLock { $0.phase == .stopped }
    }
}
