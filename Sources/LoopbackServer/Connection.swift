import Foundation

/// One accepted connection, served on its own thread with blocking reads: parse a head,
/// read or stream its body, call the route's handler, write the response, repeat while the
/// connection is kept alive. Only this thread touches the connection's buffers (while a
/// streamed response's code runs, its `LoopbackStreamWriter` does, under its own lock); the
/// descriptor is closed through `ServerCore.connectionEnded(_:)`.
final class Connection {
    enum Outcome {
        /// The response went out and the connection stays open.
        case keepAlive
        /// The response went out and the server closes the connection.
        case close
        /// The client is gone (or the server stopped): nothing more to write.
        case gone
    }

    /// The body of a request being read, and how reading it went.
    private struct BodyState {
        var decoder: RequestBodyDecoder
        /// Whether the client waits for `100 Continue` before sending the body.
        var awaitsContinue: Bool
        /// Why reading stopped, if it failed.
        var failure: BodyFailure?
    }

    private enum BodyFailure {
        case disconnected
        case malformed(ParseFailure)
    }

    private static let readSize = 64 * 1024
    /// The size of the buffer responses are assembled in (head and body pieces together).
    static let writeSize = 256 * 1024
    /// While a response waits (`delay`, trickle pauses), at most this much of what the
    /// client sends meanwhile is buffered; the rest is dropped (see `inputDiscarded`).
    private static let maxBufferedWhileWaiting = 4 * 1024 * 1024
    /// The largest body an ordinary (not streaming) route receives (413 beyond).
    static let maxBufferedBodyBytes = 512 * 1024 * 1024

    let fd: Int32
    let id: Int
    let core: ServerCore
    private var buffer = InputBuffer()
    private var parser = HTTPRequestParser()
    private var body = BodyState(decoder: RequestBodyDecoder(framing: .length(0)), awaitsContinue: false)
    /// Whether bytes from the client were dropped while waiting: the connection then closes
    /// after the response.
    private var inputDiscarded = false
    private let readChunk: UnsafeMutableRawBufferPointer
    /// Where responses are assembled; allocated on the first response (of its pages, only
    /// those that responses reach are ever touched).
    private var writeStorage: UnsafeMutableRawBufferPointer?

    init(fd: Int32, id: Int, core: ServerCore) {
        self.fd = fd
        self.id = id
        self.core = core
        readChunk = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readSize, alignment: 16)
    }

    deinit {
        readChunk.deallocate()
        writeStorage?.deallocate()
    }

    /// The buffer responses are assembled in.
    var writeBuffer: UnsafeMutableRawBufferPointer {
        if let writeStorage { return writeStorage }
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.writeSize, alignment: 16)
        writeStorage = storage
        return storage
    }

    func run() {
        serve()
        core.connectionEnded(id)
    }

    private func serve() {
        while true {
            switch parser.advance(&buffer) {
            case .needMore:
                guard readMore() else {
                    if parser.hasPartialHead(buffer) { core.clientDisconnected() }
                    return
                }
            case .failure(let failure):
                answer(failure)
                return
            case .head(let head, let framing):
                switch handle(head, framing: framing) {
                case .keepAlive:
                    continue
                case .close:
                    lingeringClose()
                    return
                case .gone:
                    return
                }
            }
        }
    }

    /// Reads the body as the route wants it, runs the route and answers.
    private func handle(_ head: RequestHead, framing: BodyFraming) -> Outcome {
        var request = LoopbackRequest(
            method: head.method, target: head.target, headers: head.headers, httpVersion: head.version,
            connectionID: id)
        let route = core.route(method: request.method, path: request.path)
        body = BodyState(
            decoder: RequestBodyDecoder(framing: framing),
            awaitsContinue: head.minorVersion >= 1 && head.headers.containsToken("100-continue", in: "Expect"))
        let response: LoopbackResponse
        if let streamingHandler = route.streamingHandler {
            core.requestStarted(request)
            let reader = LoopbackBodyReader(connection: self, framing: framing)
            response = streamingHandler(request, reader)
            reader.close()
        } else {
            guard let data = readBufferedBody(framing) else { return bodyFailed() }
            request.body = data
            core.requestStarted(request)
            response = route.handler(request)
        }
        guard body.failure == nil else { return bodyFailed() }
        let outcome = deliver(response, for: head, bodyUnread: !body.decoder.isFinished)
        return outcome == .keepAlive && inputDiscarded ? .close : outcome
    }

    /// The whole body for an ordinary route, or nil when reading it failed (see `body.failure`).
    private func readBufferedBody(_ framing: BodyFraming) -> Data? {
        let tooLarge = ParseFailure(status: 413, reason: "request body larger than 512 MB")
        if case .length(let length) = framing, length > Self.maxBufferedBodyBytes {
            body.failure = .malformed(tooLarge)
            return nil
        }
        var data = Data()
        do {
            while try readBodyRun({ run in
                guard data.count + run.count <= Self.maxBufferedBodyBytes else { throw tooLarge }
                data.append(contentsOf: run)
            }) {}
        } catch let failure as ParseFailure {
            body.failure = .malformed(failure)
        } catch {
            // `readBodyRun` recorded why in `body.failure`.
        }
        return body.failure == nil ? data : nil
    }

    /// Ends a request whose body could not be read: a 400 (or 413, 431) for a malformed one,
    /// nothing for a client that left.
    private func bodyFailed() -> Outcome {
        switch body.failure {
        case .malformed(let failure):
            answer(failure)
        case .disconnected, nil:
            core.clientDisconnected()
        }
        return .gone
    }

    /// Answers a request the server cannot serve with `failure`'s status and reason, then
    /// closes the connection.
    private func answer(_ failure: ParseFailure) {
        core.badRequest()
        let response = LoopbackResponse.failure(status: failure.status, reason: failure.reason)
        let plan = ResponsePlan(response, method: "GET", requestHeaders: [:])
        if write(plan, isHead: false, keepAlive: false) == .close {
            lingeringClose()
        }
    }

    // MARK: - Reading

    /// Reads more bytes into the buffer; false once the client is gone.
    private func readMore() -> Bool {
        switch Socket.read(fd, into: readChunk) {
        case .data(let count):
            buffer.append(UnsafeRawBufferPointer(rebasing: readChunk[0..<count]))
            return true
        case .closed, .failed:
            return false
        }
    }

    /// Hands the next run of the current request's body to `consume` (valid during the call).
    /// - Returns: false at the end of the body.
    /// - Throws: `LoopbackBodyError` when the client left or the framing is malformed (and
    ///   records why, for `handle`), or what `consume` throws.
    /// Whether the current request's body has been read to its end.
    var isBodyFinished: Bool { body.decoder.isFinished }

    func readBodyRun(_ consume: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        switch body.failure {
        case .disconnected: throw LoopbackBodyError.clientDisconnected
        case .malformed(let failure): throw LoopbackBodyError.malformed(reason: failure.reason)
        case nil: break
        }
        while true {
            switch body.decoder.next(&buffer) {
            case .bytes(let count):
                core.requestBodyReceived(count)
                defer { buffer.skip(count) }
                try buffer.withFront(count, consume)
                return true
            case .end:
                return false
            case .needMore:
                if body.awaitsContinue && buffer.isEmpty {
                    body.awaitsContinue = false
                    guard writeAll(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else {
                        body.failure = .disconnected
                        throw LoopbackBodyError.clientDisconnected
                    }
                    core.continueSent()
                }
                guard readMore() else {
                    body.failure = .disconnected
                    throw LoopbackBodyError.clientDisconnected
                }
            case .failure(let failure):
                body.failure = .malformed(failure)
                throw LoopbackBodyError.malformed(reason: failure.reason)
            }
        }
    }

    // MARK: - Answering

    private func deliver(_ response: LoopbackResponse, for head: RequestHead, bodyUnread: Bool) -> Outcome {
        if response.delay > 0 {
            guard waitForClient(seconds: response.delay) else { return .gone }
        }
        if let script = response.webSocket {
            return serveWebSocket(script)
        }
        // The client sees its connection end before any byte of an answer.
        if response.closesWithoutAnswer { return .close }
        let keepAlive = head.wantsKeepAlive && !response.closeAfterResponse && !bodyUnread && !inputDiscarded
        if let streamedBody = response.streamedBody {
            return writeStreamed(response, streamedBody, for: head, keepAlive: keepAlive)
        }
        switch response.delivery {
        case .hang:
            _ = waitForClient(seconds: nil)
            return .gone
        case .garbage:
            let bytes = response.body.isEmpty ? LoopbackResponse.defaultGarbage : response.body
            return writeAll(Array(bytes)) ? .close : disconnected()
        case .closeMidBody, .chunked, .contentLength:
            let plan = ResponsePlan(response, method: head.method, requestHeaders: head.headers)
            let isHead = head.method == "HEAD" && response.delivery != .closeMidBody
            return write(plan, isHead: isHead, keepAlive: keepAlive && response.delivery != .closeMidBody)
        }
    }

    func disconnected() -> Outcome {
        core.clientDisconnected()
        return .gone
    }

    // MARK: - Waiting

    /// Waits `seconds` (forever if nil) while watching the connection, buffering (up to a
    /// limit) anything the client sends meanwhile.
    /// - Returns: true when the time passed; false when the client disconnected (counted)
    ///   or the server stopped.
    func waitForClient(seconds: TimeInterval?) -> Bool {
        let deadline = seconds.map { Socket.monotonicNanoseconds() + UInt64(min($0, 1_000_000) * 1e9) }
        while true {
            var timeout: Int32 = -1
            if let deadline {
                let now = Socket.monotonicNanoseconds()
                if now >= deadline { return true }
                timeout = Int32(clamping: (deadline - now + 999_999) / 1_000_000)
            }
            switch Socket.waitReadable(fd, timeout: timeout) {
            case .timedOut:
                continue
            case .failed:
                return false
            case .readable where buffer.count >= Self.maxBufferedWhileWaiting:
                // Enough is buffered: drop the rest (still watching for a disconnect), and close
                // the connection after this response, its input stream being broken.
                guard case .data = Socket.read(fd, into: readChunk) else {
                    core.clientDisconnected()
                    return false
                }
                inputDiscarded = true
            case .readable:
                guard readMore() else {
                    core.clientDisconnected()
                    return false
                }
            }
        }
    }

    /// Closes politely: sends end of stream, then drains what the client still sends (up to
    /// 2 s or 1 MB) so that the kernel does not reset the connection under the last response.
    private func lingeringClose() {
        Socket.shutdownWrite(fd)
        let deadline = Socket.monotonicNanoseconds() + 2_000_000_000
        var drained = 0
        while drained < 1_048_576 {
            let now = Socket.monotonicNanoseconds()
            guard now < deadline else { return }
            switch Socket.waitReadable(fd, timeout: Int32(clamping: (deadline - now) / 1_000_000 + 1)) {
            case .timedOut:
                continue
            case .failed:
                return
            case .readable:
                guard case .data(let count) = Socket.read(fd, into: readChunk) else { return }
                drained += count
            }
        }
    }

    /// Hands over the bytes received and not yet consumed (what a client sent right after a
    /// WebSocket upgrade request), leaving the buffer empty.
    func takeBufferedInput() -> InputBuffer {
        defer { buffer = InputBuffer() }
        return buffer
    }

    // MARK: - Raw writes

    /// Writes `bytes` whole; false when the client is gone.
    func writeAll(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Socket.writeAll(fd, $0) == nil }
    }

    /// Writes `bytes` whole; false when the client is gone.
    func writeAll(_ bytes: UnsafeRawBufferPointer) -> Bool {
        Socket.writeAll(fd, bytes) == nil
    }
}
