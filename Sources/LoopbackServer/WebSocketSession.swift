import Foundation

/// A WebSocket connection from its `101` on, served on the connection's own thread with
/// blocking I/O: it runs its `WebSocketScript`, then reads frames and answers them until
/// the connection ends, logging what it sees in the connection's `WebSocketLog`.
///
/// One thread does everything (periodic pings are `poll` timeouts), so nothing here is
/// shared; the log is written through `ServerCore`'s lock. A malformed frame fails the
/// connection (a close frame, then TCP closes); nothing a client sends can crash it.
final class WebSocketSession {
    /// The largest message the server accepts (1009 beyond).
    private static let maxMessageBytes = 256 << 20
    /// The most bytes a write of a message sends at once (and the scratch buffer's size).
    private static let pieceBytes = 64 * 1024
    /// How long the server waits for the client to close its side once the server has.
    private static let lingerNanoseconds: UInt64 = 10_000_000_000
    /// `a`…`z` cycling, long enough to copy any piece of a text message from.
    private static let textTable: [UInt8] = (0..<(pieceBytes + 26)).map { UInt8(ascii: "a") + UInt8($0 % 26) }

    private let fd: Int32
    private let id: Int
    private let core: ServerCore
    private let script: WebSocketScript
    /// Bytes received and not yet read as frames.
    private var input: InputBuffer
    private let readChunk: UnsafeMutableRawBufferPointer
    /// Where outgoing message frames are assembled.
    private let scratch: UnsafeMutableRawBufferPointer
    /// Whether the server has sent a close frame.
    private var closeSent = false
    /// Whether the client has sent a close frame.
    private var closeReceived = false
    /// The message being received in fragments: whether it is text, and its payload so far.
    private var partial: (isText: Bool, payload: [UInt8])?
    /// When the next scripted ping is due (monotonic nanoseconds).
    private var nextPing: UInt64?
    /// Scripted pings sent so far (their payloads count them).
    private var scheduledPings = 0

    /// A session for the connection `id` on `fd`, starting with `input`, the bytes the
    /// client sent after its handshake.
    init(fd: Int32, id: Int, core: ServerCore, script: WebSocketScript, input: InputBuffer) {
        self.fd = fd
        self.id = id
        self.core = core
        self.script = script
        self.input = input
        readChunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.pieceBytes, alignment: 16)
    }

    deinit {
        readChunk.deallocate()
        scratch.deallocate()
    }

    /// Sends the `101`, runs the script, then serves frames until the connection ends.
    func run() {
        core.webSocketOpened(
            LoopbackServer.WebSocketLog(
                connectionID: id, request: script.request, selectedProtocol: script.selectedProtocol))
        defer { log { $0.isFinished = true } }
        guard write(handshakeAnswer()), runScript() else { return }
        serveFrames()
    }

    /// The `101 Switching Protocols` head.
    private func handshakeAnswer() -> [UInt8] {
        var text = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        let fields = [
            ("Sec-WebSocket-Accept", script.accept), ("Sec-WebSocket-Protocol", script.selectedProtocol),
            ("Sec-WebSocket-Extensions", script.extensions),
        ]
        for case (let name, let value?) in fields {
            text += "\(name): \(value.filter { $0 != "\r" && $0 != "\n" && $0 != "\r\n" })\r\n"
        }
        return Array((text + "\r\n").utf8)
    }

    // MARK: - The script

    /// Sends what the script asks for right after opening.
    /// - Returns: false once the connection has ended.
    private func runScript() -> Bool {
        typealias Writer = WebSocketFrameWriter
        var frames: [[UInt8]] = []
        if script.sendsMaskedFrame {
            frames.append(Writer.frame(opcode: Writer.text, payload: Array("masked".utf8), maskingKey: [1, 2, 3, 4]))
        }
        if let rsv = script.reservedBits {
            frames.append(Writer.frame(rsv: rsv, opcode: Writer.text, payload: Array("rsv".utf8)))
        }
        if let opcode = script.rawOpcode {
            frames.append(Writer.frame(opcode: opcode, payload: Array("opcode".utf8)))
        }
        if script.sendsInvalidUTF8 {
            frames.append(Writer.frame(opcode: Writer.text, payload: [0x68, 0x69, 0xC3, 0x28, 0xFF]))
        }
        for frame in frames {
            guard write(frame) else { return false }
        }
        if let length = script.messageLength {
            guard pushMessage(length: length) else { return false }
        }
        for _ in 0..<script.pushCount {
            guard pushMessage(length: script.pushSize) else { return false }
        }
        if let total = script.floodBytes {
            guard flood(total) else { return false }
        }
        switch script.close {
        case .code(let code, let reason)?:
            guard sendClose(code: code, reason: reason) else { return false }
        case .invalidReason?:
            guard sendClose(code: 1000, reason: [0x62, 0x61, 0x64, 0xFF, 0xFE]) else { return false }
        case nil:
            break
        }
        if script.dropsMidFrame {
            let header = Writer.header(opcode: Writer.text, length: 64)
            guard write(header + Self.textTable[0..<32]) else { return false }
            closeTCP()
            return false
        }
        if script.drops {
            closeTCP()
            return false
        }
        if let interval = script.pingInterval {
            nextPing = Socket.monotonicNanoseconds() + UInt64(interval) * 1_000_000
        }
        return true
    }

    /// Sends one scripted message of `length` bytes, in `script.fragments` frames with a
    /// ping between two.
    private func pushMessage(length: Int) -> Bool {
        let opcode = script.pushesBinary ? WebSocketFrameWriter.binary : WebSocketFrameWriter.text
        let count = script.fragments
        let fragmentLength = length / count
        for index in 0..<count {
            let start = index * fragmentLength
            let end = index == count - 1 ? length : start + fragmentLength
            let isLast = index == count - 1
            guard
                writeMessageFrame(
                    fin: isLast, opcode: index == 0 ? opcode : WebSocketFrameWriter.continuation, range: start..<end)
            else { return false }
            if !isLast {
                guard sendPing(Array("fragment \(index + 1)".utf8)) else { return false }
            }
        }
        return true
    }

    /// Writes `total` bytes of binary messages of 64 KiB, counting them in the log.
    private func flood(_ total: Int) -> Bool {
        var written = 0
        while written < total {
            let length = min(Self.pieceBytes, total - written)
            guard writeMessageFrame(fin: true, opcode: WebSocketFrameWriter.binary, range: 0..<length) else {
                return false
            }
            written += length
            log { $0.floodBytesWritten += length }
        }
        return true
    }

    /// Writes one frame holding bytes `range` of a scripted message (see `webSocketRoutes`
    /// for its contents), in pieces of at most 64 KiB.
    private func writeMessageFrame(fin: Bool, opcode: UInt8, range: Range<Int>) -> Bool {
        let header = WebSocketFrameWriter.header(fin: fin, opcode: opcode, length: range.count)
        scratch.copyBytes(from: header)
        var used = header.count
        var offset = range.lowerBound
        repeat {
            let piece = min(range.upperBound - offset, Self.pieceBytes - used)
            let destination = UnsafeMutableRawBufferPointer(rebasing: scratch[used..<used + piece])
            if script.pushesBinary || opcode == WebSocketFrameWriter.binary {
                LoopbackServer.fillPattern(destination, from: offset)
            } else {
                let start = offset % 26
                Self.textTable.withUnsafeBytes { table in
                    destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: table[start..<start + piece]))
                }
            }
            guard write(UnsafeRawBufferPointer(rebasing: scratch[0..<used + piece])) else { return false }
            offset += piece
            used = 0
        } while offset < range.upperBound
        return true
    }

    // MARK: - Serving frames

    /// Reads frames and answers them until the connection ends.
    private func serveFrames() {
        while true {
            while true {
                switch WebSocketFrameReader.next(from: &input, maxPayloadLength: Self.maxMessageBytes) {
                case .needMore:
                    break
                case .failure(let code, let reason):
                    fail(code, reason)
                    return
                case .frame(let frame):
                    guard handle(frame) else { return }
                    continue
                }
                break
            }
            guard awaitInput() else { return }
        }
    }

    /// Waits for bytes from the client, sending scripted pings as they fall due.
    /// - Returns: false once the connection has ended.
    private func awaitInput() -> Bool {
        while true {
            var timeout: Int32 = -1
            if let nextPing, !closeSent {
                let now = Socket.monotonicNanoseconds()
                if now >= nextPing {
                    scheduledPings += 1
                    guard sendPing(Array(String(scheduledPings).utf8)) else { return false }
                    self.nextPing = now + UInt64(script.pingInterval ?? 1000) * 1_000_000
                    continue
                }
                timeout = Int32(clamping: (nextPing - now + 999_999) / 1_000_000)
            }
            switch Socket.waitReadable(fd, timeout: timeout) {
            case .timedOut:
                continue
            case .failed:
                return false
            case .readable:
                return readMore()
            }
        }
    }

    /// Reads what the client sent; false (and logged) when it has closed TCP.
    private func readMore() -> Bool {
        switch Socket.read(fd, into: readChunk) {
        case .data(let count):
            input.append(UnsafeRawBufferPointer(rebasing: readChunk[0..<count]))
            return true
        case .closed, .failed:
            clientGone()
            return false
        }
    }

    /// Logs and answers one frame.
    /// - Returns: false once the connection has ended.
    private func handle(_ frame: WebSocketWireFrame) -> Bool {
        logFrame(frame)
        // After a close the server ignores (`ignoreClose`), it answers nothing more.
        if closeReceived { return true }
        guard frame.maskingKey != nil else { return fail(1002, "unmasked frame") }
        guard frame.rsv == 0 else { return fail(1002, "RSV bits \(frame.rsv) set with no extension") }
        guard frame.hasMinimalLength else { return fail(1002, "payload length not in its shortest form") }
        switch frame.opcode {
        case WebSocketFrameWriter.continuation, WebSocketFrameWriter.text, WebSocketFrameWriter.binary:
            return handleData(frame)
        case WebSocketFrameWriter.close, WebSocketFrameWriter.ping, WebSocketFrameWriter.pong:
            guard frame.fin else { return fail(1002, "fragmented control frame") }
            guard frame.payload.count <= 125 else { return fail(1002, "control frame over 125 bytes") }
            if frame.opcode == WebSocketFrameWriter.close { return handleClose(frame.payload) }
            if frame.opcode == WebSocketFrameWriter.ping, !script.ignoresPings, !closeSent {
                return write(WebSocketFrameWriter.frame(opcode: WebSocketFrameWriter.pong, payload: frame.payload))
            }
            return true
        default:
            return fail(1002, "reserved opcode \(frame.opcode)")
        }
    }

    /// A text, binary or continuation frame: joins fragments, then echoes the message.
    private func handleData(_ frame: WebSocketWireFrame) -> Bool {
        var message: (isText: Bool, payload: [UInt8])
        if frame.opcode == WebSocketFrameWriter.continuation {
            guard let started = partial else { return fail(1002, "continuation frame with no message to continue") }
            guard started.payload.count + frame.payload.count <= Self.maxMessageBytes else {
                return fail(1009, "message over \(Self.maxMessageBytes) bytes")
            }
            message = started
            partial = nil
            message.payload += frame.payload
        } else {
            guard partial == nil else { return fail(1002, "new message inside a fragmented one") }
            message = (frame.opcode == WebSocketFrameWriter.text, frame.payload)
        }
        guard frame.fin else {
            partial = message
            return true
        }
        if message.isText, !Self.isUTF8(message.payload) { return fail(1007, "text message not UTF-8") }
        log {
            $0.messages.append(LoopbackServer.WebSocketLog.Message(isText: message.isText, payload: message.payload))
        }
        guard !closeSent else { return true }
        let opcode = message.isText ? WebSocketFrameWriter.text : WebSocketFrameWriter.binary
        return write(WebSocketFrameWriter.frame(opcode: opcode, payload: message.payload))
    }

    /// A close frame: logs it, then answers it and closes TCP (unless told to ignore it).
    private func handleClose(_ payload: [UInt8]) -> Bool {
        let record = Self.closeRecord(payload)
        log { $0.closeReceived = $0.closeReceived ?? record }
        guard payload.count != 1 else { return fail(1002, "close payload of one byte") }
        if let code = record.code, !Self.isValidOnTheWire(code) { return fail(1002, "close code \(code)") }
        guard Self.isUTF8(record.reason) else { return fail(1007, "close reason not UTF-8") }
        closeReceived = true
        if script.ignoresClose { return true }
        if !closeSent {
            guard sendClose(code: record.code, reason: []) else { return false }
        }
        closeTCP()
        return false
    }

    /// Fails the connection: a close frame with `code` and `reason` (unless one was sent),
    /// then TCP closes.
    /// - Returns: false, the connection having ended.
    @discardableResult
    private func fail(_ code: UInt16, _ reason: String) -> Bool {
        log { $0.violation = $0.violation ?? reason }
        if !closeSent {
            guard sendClose(code: code, reason: Array(reason.utf8.prefix(123))) else { return false }
        }
        closeTCP()
        return false
    }

    // MARK: - Closing

    /// Sends a close frame and logs it.
    private func sendClose(code: UInt16?, reason: [UInt8]) -> Bool {
        closeSent = true
        log { $0.closeSent = LoopbackServer.WebSocketLog.Close(code: code, reason: reason) }
        let payload = WebSocketFrameWriter.closePayload(code: code, reason: reason)
        return write(WebSocketFrameWriter.frame(opcode: WebSocketFrameWriter.close, payload: payload))
    }

    /// Closes TCP from the server's side: end of stream, then reads (logging frames, answering
    /// none) until the client closes its side, for up to 10 s.
    private func closeTCP() {
        Socket.shutdownWrite(fd)
        let deadline = Socket.monotonicNanoseconds() + Self.lingerNanoseconds
        var isReadable = true
        while true {
            while isReadable {
                switch WebSocketFrameReader.next(from: &input, maxPayloadLength: Self.maxMessageBytes) {
                case .frame(let frame):
                    logFrame(frame)
                    if frame.opcode == WebSocketFrameWriter.close {
                        log { $0.closeReceived = $0.closeReceived ?? Self.closeRecord(frame.payload) }
                    }
                    continue
                case .failure:
                    isReadable = false
                case .needMore:
                    break
                }
                break
            }
            // Past a frame that cannot be read, what follows is dropped unread.
            if !isReadable { input = InputBuffer() }
            let now = Socket.monotonicNanoseconds()
            guard now < deadline else { return }
            switch Socket.waitReadable(fd, timeout: Int32(clamping: (deadline - now) / 1_000_000 + 1)) {
            case .timedOut:
                continue
            case .failed:
                return
            case .readable:
                guard readMore() else { return }
            }
        }
    }

    /// Logs that the client closed TCP, unless the server stopped (and closed it itself).
    private func clientGone() {
        guard !core.isStopped else { return }
        log { $0.clientClosedTCP = true }
    }

    // MARK: - Helpers

    /// Sends a ping with `payload` and counts it.
    private func sendPing(_ payload: [UInt8]) -> Bool {
        log { $0.pingsSent += 1 }
        return write(WebSocketFrameWriter.frame(opcode: WebSocketFrameWriter.ping, payload: payload))
    }

    private func write(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Writes `bytes` whole; false (and logged) when the client is gone.
    private func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard Socket.writeAll(fd, bytes) == nil else {
            clientGone()
            return false
        }
        return true
    }

    private func logFrame(_ frame: WebSocketWireFrame) {
        let record = LoopbackServer.WebSocketLog.Frame(
            opcode: frame.opcode, fin: frame.fin, rsv: frame.rsv, maskingKey: frame.maskingKey, payload: frame.payload)
        log { $0.frames.append(record) }
    }

    /// A close frame's code (nil when the payload is shorter than two bytes) and reason.
    private static func closeRecord(_ payload: [UInt8]) -> LoopbackServer.WebSocketLog.Close {
        let code = payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
        return LoopbackServer.WebSocketLog.Close(code: code, reason: Array(payload.dropFirst(2)))
    }

    private func log(_ change: (inout LoopbackServer.WebSocketLog) -> Void) {
        core.updateWebSocketLog(id, change)
    }

    /// Whether `bytes` are UTF-8: decoding them, which repairs what is not, changes nothing.
    static func isUTF8(_ bytes: [UInt8]) -> Bool {
        var text = String(decoding: bytes, as: UTF8.self)
        return text.withUTF8 { decoded in
            bytes.withUnsafeBufferPointer { original in
                guard decoded.count == original.count else { return false }
                guard let left = decoded.baseAddress, let right = original.baseAddress else { return true }
                return memcmp(left, right, original.count) == 0
            }
        }
    }

    /// Whether a close frame may carry `code` (RFC 6455 §7.4 and the IANA registry).
    static func isValidOnTheWire(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }
}

extension Connection {
    /// Serves a WebSocket connection after its upgrade request; the connection ends with it.
    func serveWebSocket(_ script: WebSocketScript) -> Outcome {
        WebSocketSession(fd: fd, id: id, core: core, script: script, input: takeBufferedInput()).run()
        return .gone
    }
}
