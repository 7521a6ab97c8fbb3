import Foundation

extension LoopbackServer {
    /// `GET /stream/chunks`: chunks of the byte pattern, written over time.
    static func streamChunks(_ request: LoopbackRequest) -> LoopbackResponse {
        var options = QueryOptions(request)
        let count = options.integer("count", in: 0...Int.max) ?? 10
        let size = options.integer("size", in: 1...(16 << 20)) ?? 16
        let interval = options.interval()
        let dropAfter = options.integer("dropAfter", in: 0...Int.max)
        let forever = options.flag("forever")
        guard !options.isMalformed else { return .status(400) }
        let total = forever ? Int.max : count
        let whole = min(total, dropAfter ?? Int.max)
        return .streamed(headers: ["Content-Type": "application/octet-stream"]) { writer in
            var chunk = Data(count: size)
            // The pattern repeats every `patternPeriod` bytes, so the offset is kept reduced
            // (an endless stream never overflows it).
            var offset = 0
            var written = 0
            while written < whole {
                if written > 0, interval > 0, !writer.pause(interval) { return }
                chunk.withUnsafeMutableBytes { fillPattern($0, from: offset) }
                guard writer.write(chunk) else { return }
                offset = (offset + size) % patternPeriod
                written += 1
            }
            if dropAfter != nil { writer.dropConnection() }
        }
    }

    /// `GET /ndjson`: numbered JSON lines, with the options that make them awkward.
    static func ndjson(_ request: LoopbackRequest) -> LoopbackResponse {
        var options = QueryOptions(request)
        let count = options.integer("count", in: 0...Int.max) ?? 10
        let interval = options.interval()
        let split = options.flag("split")
        let terminator = options.flag("crlf") ? "\r\n" : "\n"
        let bad = options.integer("bad", in: 0...Int.max)
        let dropAfter = options.integer("dropAfter", in: 0...Int.max)
        let partialLast = options.flag("partialLast")
        guard !options.isMalformed else { return .status(400) }
        @Sendable func line(_ index: Int) -> [UInt8] {
            var text = index == bad ? #"{"index":\#(index),"# : #"{"index":\#(index),"name":"item-\#(index)"}"#
            if !(partialLast && index == count - 1) { text += terminator }
            return Array(text.utf8)
        }
        let whole = min(count, dropAfter ?? Int.max)
        return .streamed(headers: ["Content-Type": "application/x-ndjson"]) { writer in
            for index in 0..<whole {
                if index > 0, interval > 0, !writer.pause(interval) { return }
                let bytes = line(index)
                if split {
                    let middle = bytes.count / 2
                    guard writer.write(Data(bytes[..<middle])), writer.write(Data(bytes[middle...])) else { return }
                } else {
                    guard writer.write(Data(bytes)) else { return }
                }
            }
            guard dropAfter != nil else { return }
            // Cut mid-line: half of the next line, then no terminating chunk.
            if whole > 0, interval > 0, !writer.pause(interval) { return }
            let next = line(whole)
            guard writer.write(Data(next[..<(next.count / 2)])) else { return }
            writer.dropConnection()
        }
    }

    /// `GET /ndjson/endless`: one JSON line that never ends, until the client goes.
    static func endlessNDJSON(_ request: LoopbackRequest) -> LoopbackResponse {
        .streamed(headers: ["Content-Type": "application/x-ndjson"]) { writer in
            guard writer.write(endlessLineStart) else { return }
            while writer.write(endlessLineRest) {}
        }
    }

    /// The first 64 KB of `GET /ndjson/endless`: `{"a":"` and `x`s.
    private static let endlessLineStart = Data(#"{"a":""#.utf8) + Data(repeating: UInt8(ascii: "x"), count: 65_530)
    /// Every later 64 KB of `GET /ndjson/endless`.
    private static let endlessLineRest = Data(repeating: UInt8(ascii: "x"), count: 65_536)
}
