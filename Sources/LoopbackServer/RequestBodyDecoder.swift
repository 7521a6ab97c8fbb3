/// How a request's body is delimited on the wire.
enum BodyFraming: Equatable {
    /// `Content-Length` bytes (0 without the field).
    case length(Int)
    /// `Transfer-Encoding: chunked`.
    case chunked
}

/// Finds a request body's bytes in the connection's buffer, one run at a time, without
/// copying them: fixed-length bodies pass through, chunked ones lose their framing.
struct RequestBodyDecoder {
    /// What the buffer holds next.
    enum Step {
        /// The first `count` bytes of the buffer are body bytes: the caller consumes them.
        case bytes(count: Int)
        /// More bytes are needed from the client.
        case needMore
        /// The body (and any trailer section) has ended.
        case end
        /// The chunked framing is malformed.
        case failure(ParseFailure)
    }

    private enum State {
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case finished
    }

    private var state: State

    /// A decoder for a body framed as `framing`.
    init(framing: BodyFraming) {
        switch framing {
        case .length(let length): state = length > 0 ? .fixed(remaining: length) : .finished
        case .chunked: state = .chunkSize
        }
    }

    /// Whether the whole body has been read.
    var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    /// Decodes what `buffer` holds, consuming framing bytes but leaving body bytes for the
    /// caller (it must skip the `count` a `.bytes` step announces).
    mutating func next(_ buffer: inout InputBuffer) -> Step {
        while true {
            switch state {
            case .finished:
                return .end
            case .fixed(let remaining):
                guard !buffer.isEmpty else { return .needMore }
                let count = min(remaining, buffer.count)
                state = count == remaining ? .finished : .fixed(remaining: remaining - count)
                return .bytes(count: count)
            case .chunkSize:
                guard let lineEnd = buffer.firstIndex(of: 0x0A, from: 0) else {
                    if buffer.count > 4096 {
                        return .failure(ParseFailure(status: 400, reason: "chunk size line too long"))
                    }
                    return .needMore
                }
                guard let size = Self.chunkSize(buffer.take(lineEnd + 1)) else {
                    return .failure(ParseFailure(status: 400, reason: "malformed chunk size"))
                }
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                guard !buffer.isEmpty else { return .needMore }
                let count = min(remaining, buffer.count)
                state = count == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - count)
                return .bytes(count: count)
            case .chunkDataEnd:
                guard buffer.count >= 1 else { return .needMore }
                if buffer[0] == 0x0A {
                    buffer.skip(1)
                } else if buffer[0] == 0x0D {
                    guard buffer.count >= 2 else { return .needMore }
                    guard buffer[1] == 0x0A else {
                        return .failure(ParseFailure(status: 400, reason: "chunk data not followed by CRLF"))
                    }
                    buffer.skip(2)
                } else {
                    return .failure(ParseFailure(status: 400, reason: "chunk data longer than its size"))
                }
                state = .chunkSize
            case .trailers:
                guard let lineEnd = buffer.firstIndex(of: 0x0A, from: 0) else {
                    if buffer.count > HTTPRequestParser.maxHeadBytes {
                        return .failure(ParseFailure(status: 431, reason: "trailer fields too large"))
                    }
                    return .needMore
                }
                let line = buffer.take(lineEnd + 1)
                if line.count == 1 || (line.count == 2 && line.first == 0x0D) {
                    state = .finished
                }
            }
        }
    }

    /// The size in a chunk-size line (extensions ignored), or nil if it is malformed.
    private static func chunkSize(_ line: ArraySlice<UInt8>) -> Int? {
        var size = 0
        var digits = 0
        for byte in line {
            if let value = LoopbackRequest.hexValue(byte) {
                guard digits < 15 else { return nil }
                size = size << 4 | Int(value)
                digits += 1
            } else if byte == UInt8(ascii: ";") || byte == 0x0D || byte == 0x0A || byte == 0x20 || byte == 0x09 {
                break
            } else {
                return nil
            }
        }
        return digits > 0 ? size : nil
    }
}
