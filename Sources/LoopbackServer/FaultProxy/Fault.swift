/// What a `FaultProxy` does to one connection (or, named in a request's `X-Leash-Fault`
/// header, to that request and its response): forward untouched, delay, throttle, cut, stall
/// or corrupt.
///
/// Byte counts start at the request the fault applies to: `.request` counts what the client
/// sends from that request's first byte, `.response` what the server sends back from the
/// response's first byte. After a WebSocket upgrade the counts run on for the life of the
/// connection.
///
/// Every fault has a text form (`description`, and `init?(_:)` to read it back), used in
/// the `X-Leash-Fault` header and in a soak's report:
///
/// | Fault | Text |
/// |---|---|
/// | `.none` | `none` |
/// | `.refuse` | `refuse` |
/// | `.blackhole` | `blackhole` |
/// | `.delayConnect(milliseconds: 200)` | `delay-connect=200` |
/// | `.delayFirstByte(milliseconds: 200)` | `delay-first-byte=200` |
/// | `.pace(bytes: 512, pauseMilliseconds: 5)` | `pace=512/5` |
/// | `.bandwidth(bytesPerSecond: 65536)` | `bandwidth=65536` |
/// | `.reset(after: 100, .response)` | `reset=response:100` |
/// | `.close(after: 0, .response)` | `close=response:0` |
/// | `.stall(after: 100, .request)` | `stall=request:100` |
/// | `.corrupt(at: 40, .response)` | `corrupt=response:40` |
/// | `.slowHead(pauseMilliseconds: 2)` | `slow-head=2` |
/// | `.closeInHead(after: 20)` | `close-in-head=20` |
/// | `.truncateBody(after: 100)` | `truncate-body=100` |
/// | `.resetInBody(after: 100)` | `reset-in-body=100` |
package enum Fault: Sendable, Hashable, CustomStringConvertible {
    /// Which way bytes go through the proxy.
    package enum Direction: String, Sendable, Hashable, CaseIterable {
        /// From the client to the server.
        case request
        /// From the server to the client.
        case response
    }

    /// Everything is forwarded as it comes.
    case none
    /// The connection is reset (RST) as soon as it is accepted, before any byte: what a
    /// client sees of a port nobody listens on, once connected.
    case refuse
    /// The connection is accepted and what the client sends is read and dropped; nothing
    /// ever answers, and the server is never contacted.
    case blackhole
    /// The proxy waits this long before it connects to the server.
    case delayConnect(milliseconds: Int)
    /// The response's first byte is held this long.
    case delayFirstByte(milliseconds: Int)
    /// The response goes out in pieces of `bytes`, with a pause after each.
    case pace(bytes: Int, pauseMilliseconds: Int)
    /// Both directions are limited to this rate.
    case bandwidth(bytesPerSecond: Int)
    /// After `after` bytes in the direction, the connection is reset (RST) both ways.
    case reset(after: Int, Direction)
    /// After `after` bytes in the direction, the connection is closed cleanly (FIN) both ways.
    case close(after: Int, Direction)
    /// After `after` bytes in the direction, nothing more goes that way; the connection
    /// stays open until the client closes it.
    case stall(after: Int, Direction)
    /// The byte at offset `at` in the direction has its bits flipped.
    case corrupt(at: Int, Direction)
    /// The response's head goes out one byte at a time, with a pause after each.
    case slowHead(pauseMilliseconds: Int)
    /// After `after` bytes of the response's head (at most all but its last byte), the
    /// connection is closed cleanly: an answer cut inside its headers.
    case closeInHead(after: Int)
    /// The response's head and `after` bytes of its body go out, then the connection is
    /// closed cleanly: a body cut short, whatever its framing (a chunked one loses its end).
    case truncateBody(after: Int)
    /// The response's head and `after` bytes of its body go out, then the connection is
    /// reset (RST): a body cut short by a failure rather than by a close.
    case resetInBody(after: Int)

    /// The kinds of faults, for drawing one at random (see `random(from:using:)`).
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        case none, refuse, blackhole, delayConnect, delayFirstByte, pace, bandwidth, reset, close, stall
        case corrupt, slowHead, closeInHead, truncateBody, resetInBody
    }

    /// This fault's kind.
    package var kind: Kind {
        switch self {
        case .none: .none
        case .refuse: .refuse
        case .blackhole: .blackhole
        case .delayConnect: .delayConnect
        case .delayFirstByte: .delayFirstByte
        case .pace: .pace
        case .bandwidth: .bandwidth
        case .reset: .reset
        case .close: .close
        case .stall: .stall
        case .corrupt: .corrupt
        case .slowHead: .slowHead
        case .closeInHead: .closeInHead
        case .truncateBody: .truncateBody
        case .resetInBody: .resetInBody
        }
    }

    /// Whether the fault leaves every byte intact and in order (only delays or throttles
    /// them), so that an exchange through it must succeed.
    package var isHarmless: Bool {
        switch self {
        case .none, .delayConnect, .delayFirstByte, .pace, .bandwidth, .slowHead: true
        default: false
        }
    }

    /// A fault of one of `kinds`, with its numbers drawn from `generator`: the same
    /// generator state gives the same fault. Delays stay under 300 ms and byte counts under
    /// 4 KiB (an offset may fall past a short message's end: the fault then never fires).
    package static func random(from kinds: [Kind] = Kind.allCases, using generator: inout SplitMix64) -> Fault {
        guard !kinds.isEmpty else { return .none }
        let kind = kinds[Int(generator.next() % UInt64(kinds.count))]
        func number(_ range: ClosedRange<Int>) -> Int {
            range.lowerBound + Int(generator.next() % UInt64(range.count))
        }
        func direction() -> Direction { generator.next() % 2 == 0 ? .request : .response }
        switch kind {
        case .none: return .none
        case .refuse: return .refuse
        case .blackhole: return .blackhole
        case .delayConnect: return .delayConnect(milliseconds: number(1...300))
        case .delayFirstByte: return .delayFirstByte(milliseconds: number(1...300))
        case .pace: return .pace(bytes: number(1...4096), pauseMilliseconds: number(0...5))
        case .bandwidth: return .bandwidth(bytesPerSecond: number(64 * 1024...4 * 1024 * 1024))
        case .reset: return .reset(after: number(0...4096), direction())
        case .close: return .close(after: number(0...4096), direction())
        case .stall: return .stall(after: number(0...4096), direction())
        case .corrupt: return .corrupt(at: number(0...4096), direction())
        case .slowHead: return .slowHead(pauseMilliseconds: number(0...2))
        case .closeInHead: return .closeInHead(after: number(0...200))
        case .truncateBody: return .truncateBody(after: number(0...4096))
        case .resetInBody: return .resetInBody(after: number(0...4096))
        }
    }

    /// The fault's text form (see the table above).
    package var description: String {
        switch self {
        case .none: "none"
        case .refuse: "refuse"
        case .blackhole: "blackhole"
        case .delayConnect(let milliseconds): "delay-connect=\(milliseconds)"
        case .delayFirstByte(let milliseconds): "delay-first-byte=\(milliseconds)"
        case .pace(let bytes, let pause): "pace=\(bytes)/\(pause)"
        case .bandwidth(let rate): "bandwidth=\(rate)"
        case .reset(let after, let direction): "reset=\(direction.rawValue):\(after)"
        case .close(let after, let direction): "close=\(direction.rawValue):\(after)"
        case .stall(let after, let direction): "stall=\(direction.rawValue):\(after)"
        case .corrupt(let at, let direction): "corrupt=\(direction.rawValue):\(at)"
        case .slowHead(let pause): "slow-head=\(pause)"
        case .closeInHead(let after): "close-in-head=\(after)"
        case .truncateBody(let after): "truncate-body=\(after)"
        case .resetInBody(let after): "reset-in-body=\(after)"
        }
    }

    /// Reads a fault's text form (see the table above); nil if `text` is none.
    package init?(_ text: String) {
        let parts = text.trimmingWhitespace.split(separator: "=", maxSplits: 1).map(String.init)
        guard let name = parts.first else { return nil }
        let argument = parts.count == 2 ? parts[1] : nil
        func count(_ text: String?) -> Int? {
            guard let text, let value = Int(text), value >= 0 else { return nil }
            return value
        }
        func directed(_ make: (Int, Direction) -> Fault) -> Fault? {
            let pieces = argument?.split(separator: ":").map(String.init) ?? []
            guard pieces.count == 2, let direction = Direction(rawValue: pieces[0]), let value = count(pieces[1])
            else { return nil }
            return make(value, direction)
        }
        let parsed: Fault?
        switch (name, argument) {
        case ("none", nil): parsed = Fault.none
        case ("refuse", nil): parsed = .refuse
        case ("blackhole", nil): parsed = .blackhole
        case ("delay-connect", let value?): parsed = count(value).map { .delayConnect(milliseconds: $0) }
        case ("delay-first-byte", let value?): parsed = count(value).map { .delayFirstByte(milliseconds: $0) }
        case ("pace", let value?):
            let pieces = value.split(separator: "/").map(String.init)
            if pieces.count == 2, let bytes = count(pieces[0]), bytes > 0, let pause = count(pieces[1]) {
                parsed = .pace(bytes: bytes, pauseMilliseconds: pause)
            } else {
                parsed = nil
            }
        case ("bandwidth", let value?): parsed = count(value).flatMap { $0 > 0 ? .bandwidth(bytesPerSecond: $0) : nil }
        case ("reset", _): parsed = directed { .reset(after: $0, $1) }
        case ("close", _): parsed = directed { .close(after: $0, $1) }
        case ("stall", _): parsed = directed { .stall(after: $0, $1) }
        case ("corrupt", _): parsed = directed { .corrupt(at: $0, $1) }
        case ("slow-head", let value?): parsed = count(value).map { .slowHead(pauseMilliseconds: $0) }
        case ("close-in-head", let value?): parsed = count(value).map { .closeInHead(after: $0) }
        case ("truncate-body", let value?): parsed = count(value).map { .truncateBody(after: $0) }
        case ("reset-in-body", let value?): parsed = count(value).map { .resetInBody(after: $0) }
        default: parsed = nil
        }
        guard let parsed else { return nil }
        self = parsed
    }
}

extension String {
    fileprivate var trimmingWhitespace: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
