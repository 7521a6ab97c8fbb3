import Foundation

/// One accepted connection, served on its own thread with blocking reads: parse a
/// request, call its handler, write the response, repeat while the connection is kept alive.
/// Only this thread touches the connection's buffers; the descriptor is closed through
/// `ServerCore.connectionEnded(_:)`.
final class Connection {
    private enum Outcome {
        /// The response went out and the connection stays open.
        case keepAlive
        /// The response went out and the server closes the connection.
        case close
        /// The client is gone (or the server stopped): nothing more to write.
        case gone
    }

    /// The body of the answer to a malformed request.
    private struct FailureBody: Encodable {
        let error: String
        let reason: String
        let status: Int
    }

    private static let readSize = 64 * 1024
    /// Responses up to this size go out in one write with their head.
    private static let coalesceLimit = 64 * 1024

    private let fd: Int32
    private let id: Int
    private let core: ServerCore
    private var buffer = InputBuffer()
    private var parser = HTTPRequestParser()
    private let readChunk: UnsafeMutableRawBufferPointer

    init(fd: Int32, id: Int, core: ServerCore) {
        self.fd = fd
        self.id = id
        self.core = core
        readChunk = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readSize, alignment: 16)
    }

    deinit {
        readChunk.deallocate()
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
                    if parser.hasPartialRequest(buffer) { core.clientDisconnected() }
                    return
                }
            case .sendContinue:
                guard write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else {
                    core.clientDisconnected()
                    return
                }
            case .failure(let failure):
                core.badRequest()
                let response = LoopbackResponse.json(
                    FailureBody(
                        error: LoopbackResponse.reasonPhrase(for: failure.status), reason: failure.reason,
                        status: failure.status),
                    status: failure.status)
                if writeResponse(response, isHead: false, keepAlive: false) {
                    lingeringClose()
                }
                return
            case .request(let head, let body):
                let request = LoopbackRequest(
                    method: head.method, target: head.target, headers: head.headers, body: body,
                    httpVersion: head.version, connectionID: id)
                let handler = core.beginRequest(request)
                let response = handler(request)
                switch deliver(response, for: head) {
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

    private func deliver(_ response: LoopbackResponse, for head: RequestHead) -> Outcome {
        if response.delay > 0 {
            guard waitForClient(seconds: response.delay) else { return .gone }
        }
        let keepAlive = head.wantsKeepAlive && !response.closeAfterResponse
        let isHead = head.method == "HEAD"
        switch response.delivery {
        case .hang:
            _ = waitForClient(seconds: nil)
            return .gone
        case .garbage:
            let bytes = response.body.isEmpty ? LoopbackResponse.defaultGarbage : response.body
            return write(Array(bytes)) ? .close : disconnected()
        case .closeMidBody:
            var truncated = response
            if truncated.body.count < 2 { truncated.body = Data(repeating: UInt8(ascii: "x"), count: 1024) }
            var bytes = responseHead(of: truncated, framing: .length(truncated.body.count), keepAlive: false)
            bytes.append(contentsOf: truncated.body.prefix(truncated.body.count / 2))
            return write(bytes) ? .close : disconnected()
        case .chunked(let chunkSize):
            guard writeChunked(response, chunkSize: chunkSize, isHead: isHead, keepAlive: keepAlive) else {
                return disconnected()
            }
            return keepAlive ? .keepAlive : .close
        case .contentLength:
            guard writeResponse(response, isHead: isHead, keepAlive: keepAlive) else { return disconnected() }
            return keepAlive ? .keepAlive : .close
        }
    }

    private func disconnected() -> Outcome {
        core.clientDisconnected()
        return .gone
    }

    // MARK: - Waiting

    /// Waits `seconds` (forever if nil) while watching the connection, buffering anything
    /// the client pipelines meanwhile.
    /// - Returns: true when the time passed; false when the client disconnected (counted)
    ///   or the server stopped.
    private func waitForClient(seconds: TimeInterval?) -> Bool {
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

    // MARK: - Writing

    private enum Framing {
        case length(Int)
        case chunked
        case none
    }

    private func writeResponse(_ response: LoopbackResponse, isHead: Bool, keepAlive: Bool) -> Bool {
        let hasBody = Self.statusAllowsBody(response.status)
        var bytes = responseHead(
            of: response, framing: hasBody ? .length(response.body.count) : .none, keepAlive: keepAlive)
        guard hasBody, !isHead, !response.body.isEmpty else { return write(bytes) }
        if response.body.count <= Self.coalesceLimit {
            bytes.append(contentsOf: response.body)
            return write(bytes)
        }
        return write(bytes) && write(response.body)
    }

    private func writeChunked(_ response: LoopbackResponse, chunkSize: Int, isHead: Bool, keepAlive: Bool) -> Bool {
        let hasBody = Self.statusAllowsBody(response.status)
        var bytes = responseHead(of: response, framing: hasBody ? .chunked : .none, keepAlive: keepAlive)
        guard hasBody, !isHead else { return write(bytes) }
        var offset = response.body.startIndex
        while offset < response.body.endIndex {
            let end = response.body.index(offset, offsetBy: max(1, chunkSize), limitedBy: response.body.endIndex)
            let chunk = response.body[offset..<(end ?? response.body.endIndex)]
            bytes.append(contentsOf: Array("\(String(chunk.count, radix: 16))\r\n".utf8))
            bytes.append(contentsOf: chunk)
            bytes.append(contentsOf: [0x0D, 0x0A])
            guard write(bytes) else { return false }
            bytes.removeAll(keepingCapacity: true)
            offset = end ?? response.body.endIndex
        }
        bytes.append(contentsOf: Array("0\r\n\r\n".utf8))
        return write(bytes)
    }

    private func responseHead(of response: LoopbackResponse, framing: Framing, keepAlive: Bool) -> [UInt8] {
        var text = "HTTP/1.1 \(response.status) \(LoopbackResponse.reasonPhrase(for: response.status))\r\n"
        for field in response.headers
        where !["Content-Length", "Transfer-Encoding", "Connection"].contains(where: {
            LoopbackHeaders.namesMatch($0, field.name)
        }) {
            text += "\(Self.sanitized(field.name)): \(Self.sanitized(field.value))\r\n"
        }
        switch framing {
        case .length(let length): text += "Content-Length: \(length)\r\n"
        case .chunked: text += "Transfer-Encoding: chunked\r\n"
        case .none: break
        }
        text += keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n"
        return Array(text.utf8)
    }

    /// Whether a response with `status` may carry a body (not 1xx, 204 or 304).
    private static func statusAllowsBody(_ status: Int) -> Bool {
        !(100..<200).contains(status) && status != 204 && status != 304
    }

    /// A header name or value without CR or LF, so a handler cannot break the framing.
    private static func sanitized(_ text: String) -> String {
        text.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" })
            ? String(text.filter { $0 != "\r" && $0 != "\n" && $0 != "\r\n" }) : text
    }

    private func write(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Socket.writeAll(fd, $0) == nil }
    }

    private func write(_ data: Data) -> Bool {
        data.withUnsafeBytes { Socket.writeAll(fd, $0) == nil }
    }
}
