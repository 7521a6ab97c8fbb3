import Foundation

extension LoopbackResponse {
    /// A response body that code writes as it goes, through a `LoopbackStreamWriter`.
    package struct StreamedBody: Sendable {
        /// Writes the body. Runs on the connection's own thread once the head has been sent;
        /// when it returns, the stream ends (cleanly, unless it dropped the connection or the
        /// client left).
        package let write: @Sendable (LoopbackStreamWriter) -> Void

        /// A body written by `write`.
        package init(_ write: @escaping @Sendable (LoopbackStreamWriter) -> Void) {
            self.write = write
        }
    }

    /// A response whose body `write` produces over time, sent with
    /// `Transfer-Encoding: chunked`: each write is one chunk, flushed at once, and the
    /// terminating chunk follows when `write` returns (see `LoopbackStreamWriter`).
    ///
    /// The head goes out before `write` runs. `delayed(by:)` and `closingConnection()`
    /// still apply; `body`, `generatedBody`, `delivery`, ranges, `dropAfterBodyBytes` and
    /// `trickle` do not. A `HEAD` request, or a status that cannot carry a body (1xx, 204,
    /// 304), gets the head alone and `write` never runs.
    package static func streamed(
        status: Int = 200, headers: LoopbackHeaders = [:],
        _ write: @escaping @Sendable (LoopbackStreamWriter) -> Void
    ) -> LoopbackResponse {
        var response = LoopbackResponse(status: status, headers: headers)
        response.streamedBody = StreamedBody(write)
        return response
    }
}

extension Connection {
    /// Writes a streamed response: the head, then whatever the body's code writes, then
    /// the terminating chunk unless the stream was cut.
    func writeStreamed(
        _ response: LoopbackResponse, _ body: LoopbackResponse.StreamedBody, for head: RequestHead, keepAlive: Bool
    ) -> Outcome {
        let framing = LoopbackResponse(
            status: response.status, headers: response.headers, delivery: .chunked(chunkSize: 1))
        let plan = ResponsePlan(framing, method: head.method, requestHeaders: head.headers)
        if head.method == "HEAD" || plan.framing == .none {
            return write(plan, isHead: true, keepAlive: keepAlive)
        }
        // The head goes out alone and at once: a client waiting for it (an event source, say)
        // must not wait for the first chunk.
        guard writeAll(responseHead(of: plan, keepAlive: keepAlive)) else { return disconnected() }
        let writer = LoopbackStreamWriter(connection: self)
        body.write(writer)
        return writer.finish(keepAlive: keepAlive)
    }

    /// Writes `bytes` as one chunk (size line, bytes, CRLF), in one `send` when it fits the
    /// write buffer.
    /// - Returns: false when the client is gone.
    func writeChunk(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var output = OutputBuffer(storage: writeBuffer)
        appendChunkSize(bytes.count, to: &output)
        if bytes.count + 2 <= output.free {
            output.reserve(bytes.count).copyMemory(from: bytes)
            output.reserve(2).copyBytes(from: Self.crlf)
            return writeAll(output.filled)
        }
        return writeAll(output.filled) && writeAll(bytes) && writeAll(Self.crlf)
    }

    /// A chunk's size line: the size in hexadecimal, then CRLF (written digit by digit, as
    /// streams write often).
    private func appendChunkSize(_ size: Int, to output: inout OutputBuffer) {
        var digits = 1
        while digits < 16, size >> (4 * digits) != 0 { digits += 1 }
        let line = output.reserve(digits + 2)
        for index in 0..<digits {
            let nibble = (size >> (4 * (digits - 1 - index))) & 0xF
            line[index] = Self.hexDigits[nibble]
        }
        line[digits] = 0x0D
        line[digits + 1] = 0x0A
    }

    /// The line end that closes each chunk.
    private static let crlf: [UInt8] = [0x0D, 0x0A]
    /// The digits of a chunk size, lowercase.
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
