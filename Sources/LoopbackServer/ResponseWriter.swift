/// Bytes of a response assembled before they are written: the head and body pieces go out
/// together, up to the buffer's size, in one `send`.
struct OutputBuffer {
    let storage: UnsafeMutableRawBufferPointer
    private(set) var count = 0

    /// The room left.
    var free: Int { storage.count - count }

    /// What has been assembled.
    var filled: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[0..<count]) }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { source in
            reserve(source.count).copyMemory(from: source)
        }
    }

    /// The next `byteCount` bytes of the buffer, counted as filled.
    mutating func reserve(_ byteCount: Int) -> UnsafeMutableRawBufferPointer {
        defer { count += byteCount }
        return UnsafeMutableRawBufferPointer(rebasing: storage[count..<count + byteCount])
    }

    mutating func removeAll() {
        count = 0
    }
}

extension Connection {
    /// Writes a planned response: the head, then the body pieces the plan asks for, framed,
    /// paced and cut short as it says.
    func write(_ plan: ResponsePlan, isHead: Bool, keepAlive: Bool) -> Outcome {
        var output = OutputBuffer(storage: writeBuffer)
        // Body bytes in `output` not yet written.
        var pendingBody = 0
        func flush() -> Bool {
            guard output.count > 0 else { return true }
            guard writeAll(output.filled) else { return false }
            output.removeAll()
            if pendingBody > 0 { core.responseBodyWritten(pendingBody) }
            pendingBody = 0
            return true
        }

        let head = responseHead(of: plan, keepAlive: keepAlive)
        if head.count <= output.free / 2 {
            output.append(head)
        } else if !writeAll(head) {
            return disconnected()
        }
        let chunkSize: Int?
        switch plan.framing {
        case .none:
            return flush() ? (keepAlive ? .keepAlive : .close) : disconnected()
        case .length:
            chunkSize = nil
        case .chunked(let size):
            chunkSize = size
        }
        guard !isHead else { return flush() ? (keepAlive ? .keepAlive : .close) : disconnected() }

        let limit = plan.dropAfter ?? plan.bodyRange.count
        let framingRoom = chunkSize == nil ? 0 : 24
        var sent = 0
        while sent < limit {
            var piece = limit - sent
            if let trickle = plan.trickle { piece = min(piece, trickle.byteCount - sent % trickle.byteCount) }
            if let chunkSize { piece = min(piece, chunkSize) }
            if output.free < framingRoom + min(piece, 4096) {
                guard flush() else { return disconnected() }
            }
            piece = min(piece, output.free - framingRoom)
            if chunkSize != nil { output.append(Array("\(String(piece, radix: 16))\r\n".utf8)) }
            plan.fill(plan.bodyRange.lowerBound + sent, output.reserve(piece))
            if chunkSize != nil { output.append([0x0D, 0x0A]) }
            sent += piece
            pendingBody += piece
            if let trickle = plan.trickle, sent % trickle.byteCount == 0, sent < limit {
                guard flush() else { return disconnected() }
                if trickle.interval > 0 {
                    guard waitForClient(seconds: trickle.interval) else { return .gone }
                }
            }
        }
        if plan.dropAfter != nil {
            // Cut off: the client sees the connection end before the announced body did.
            return flush() ? .close : disconnected()
        }
        if chunkSize != nil { output.append(Array("0\r\n\r\n".utf8)) }
        guard flush() else { return disconnected() }
        return keepAlive ? .keepAlive : .close
    }

    /// The status line and header fields of `plan`, framing fields included.
    func responseHead(of plan: ResponsePlan, keepAlive: Bool) -> [UInt8] {
        var text = "HTTP/1.1 \(plan.status) \(LoopbackResponse.reasonPhrase(for: plan.status))\r\n"
        for field in plan.headers
        where !["Content-Length", "Transfer-Encoding", "Connection"].contains(where: {
            LoopbackHeaders.namesMatch($0, field.name)
        }) {
            text += "\(Self.sanitized(field.name)): \(Self.sanitized(field.value))\r\n"
        }
        switch plan.framing {
        case .length(let length): text += "Content-Length: \(length)\r\n"
        case .chunked: text += "Transfer-Encoding: chunked\r\n"
        case .none: break
        }
        text += keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n"
        return Array(text.utf8)
    }

    /// A header name or value without CR or LF, so a handler cannot break the framing.
    private static func sanitized(_ text: String) -> String {
        text.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" })
            ? String(text.filter { $0 != "\r" && $0 != "\n" && $0 != "\r\n" }) : text
    }
}
