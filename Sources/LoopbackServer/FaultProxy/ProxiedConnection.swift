import Foundation

/// One connection through the proxy, on its own thread: connects to the server, then
/// forwards both ways with `poll`, passing every piece through the current fault.
///
/// What it knows of HTTP (see `FaultProxy`): a request head starts when the client sends
/// after the server did (or first), and begins with a method; it is held until its blank
/// line to read `X-Leash-Fault` and `X-Leash-Tag`, and starts new byte counts. A response's
/// head ends at its blank line; a `101` makes the rest of the connection raw.
final class ProxiedConnection {
    /// What ends the pump loop.
    private struct Stop: Error {
        let ending: FaultProxy.Ending
        /// Whether the connection closes with a reset.
        let reset: Bool

        /// The connection is over: record `ending`, closing with a reset if `reset`.
        static func ended(_ ending: FaultProxy.Ending, reset: Bool) -> Stop {
            Stop(ending: ending, reset: reset)
        }
    }

    private static let readSize = 64 * 1024
    /// A request head longer than this is forwarded without being read for a fault.
    private static let maxScannedHead = 16 * 1024
    /// How long a clean close waits for the client to close its side, reading and dropping
    /// what it still sends, so that closing does not turn into a reset.
    private static let lingerMilliseconds = 2_000

    let number: Int
    let client: Int32
    let core: ProxyCore
    /// The fault the plan gave the connection (and its first request).
    let connectionFault: Fault
    private var upstream: Int32 = -1
    private var fault: Fault
    private var requestBytes = 0
    private var responseBytes = 0
    /// Bytes of each direction since the current request began.
    private var counts: [Fault.Direction: Int] = [.request: 0, .response: 0]
    private var stalled: Set<Fault.Direction> = []
    /// Whether the client's next bytes begin a request (at the start, and once the server
    /// answered).
    private var expectsRequest = true
    /// A request head being held until its blank line.
    private var heldHead: [UInt8] = []
    private var requestIndex = 0
    /// The current response's head length once its blank line was seen.
    private var responseHeadLength: Int?
    /// The last bytes of the response head so far, to find its blank line across reads.
    private var headTail: [UInt8] = []
    /// After a `101`: no more requests or responses, only bytes.
    private var isRaw = false
    /// A rate limit's debt, in bytes not yet paid for with a pause.
    private var rateDebt = 0

    init(number: Int, client: Int32, fault: Fault, core: ProxyCore) {
        self.number = number
        self.client = client
        self.core = core
        connectionFault = fault
        self.fault = fault
    }

    func run() {
        let ending: FaultProxy.Ending
        var reset = false
        do throws(Stop) {
            try serve()
            ending = .clientClosed
        } catch {
            ending = core.isStopped ? .stopped : error.ending
            reset = error.reset
        }
        core.ended(
            FaultProxy.ConnectionRecord(
                number: number, fault: connectionFault, requestBytes: requestBytes, responseBytes: responseBytes,
                ending: ending),
            reset: reset)
    }

    private func serve() throws(Stop) {
        switch connectionFault {
        case .refuse:
            throw .ended(.faultReset, reset: true)
        case .blackhole:
            try drainClient(milliseconds: -1)
            throw .ended(.clientClosed, reset: false)
        case .delayConnect(let milliseconds):
            guard core.pause(milliseconds: milliseconds) else { throw .ended(.stopped, reset: false) }
        default:
            break
        }
        switch Socket.connect(host: core.upstream.host, port: core.upstream.port) {
        case .success(let fd):
            guard core.connected(number, upstream: fd) else {
                Socket.close(fd)
                throw .ended(.stopped, reset: false)
            }
            upstream = fd
        case .failure:
            throw .ended(.serverUnreachable, reset: true)
        }
        try pump()
    }

    // MARK: - Forwarding

    private func pump() throws(Stop) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readSize, alignment: 16)
        defer { buffer.deallocate() }
        var clientOpen = true
        var serverOpen = true
        while true {
            let ready = Socket.waitReadable(
                [clientOpen ? client : -1, serverOpen ? upstream : -1, core.wakeRead], timeout: -1)
            if ready[2] { throw .ended(.stopped, reset: false) }
            if ready[0] {
                switch Socket.read(client, into: buffer) {
                case .data(let count):
                    try fromClient(Array(buffer[..<count]))
                case .closed:
                    // The client is done sending: the server learns it (and gets the part of
                    // a head that was held), and its answer still goes back.
                    clientOpen = false
                    let held = heldHead
                    heldHead = []
                    try forward(held, .request)
                    if !serverOpen { throw .ended(.clientClosed, reset: false) }
                    Socket.shutdownWrite(upstream)
                case .failed:
                    throw .ended(.clientReset, reset: true)
                }
            }
            if ready[1] {
                switch Socket.read(upstream, into: buffer) {
                case .data(let count):
                    try fromServer(Array(buffer[..<count]))
                case .closed where stalled.contains(.response) && clientOpen,
                    .failed where stalled.contains(.response) && clientOpen:
                    // A stalled answer never ends: the client waits until it gives up.
                    serverOpen = false
                case .closed:
                    if clientOpen { try closeCleanly() }
                    throw .ended(clientOpen ? .serverClosed : .clientClosed, reset: false)
                case .failed:
                    throw .ended(.serverReset, reset: true)
                }
            }
        }
    }

    private func fromClient(_ bytes: [UInt8]) throws(Stop) {
        guard !isRaw, expectsRequest || !heldHead.isEmpty else { return try forward(bytes, .request) }
        if heldHead.isEmpty && !Self.beginsRequest(bytes) {
            // A body sent after an interim answer (`100 Continue`), not a new request.
            expectsRequest = false
            return try forward(bytes, .request)
        }
        heldHead += bytes
        guard let end = Self.headEnd(in: heldHead) else {
            if heldHead.count > Self.maxScannedHead {
                let held = heldHead
                heldHead = []
                expectsRequest = false
                try forward(held, .request)
            }
            return
        }
        let held = heldHead
        heldHead = []
        expectsRequest = false
        beginRequest(head: held[..<end])
        try forward(held, .request)
    }

    private func fromServer(_ bytes: [UInt8]) throws(Stop) {
        if !isRaw {
            expectsRequest = true
            if counts[.response] == 0, Self.isSwitchingProtocols(bytes) { isRaw = true }
        }
        try forward(bytes, .response)
    }

    /// A new request: its fault (named in it, else the plan's), counts from zero, and a
    /// sighting.
    private func beginRequest(head: ArraySlice<UInt8>) {
        // Split as bytes: in a `String`, "\r\n" is one character.
        let lines = head.split(separator: 10).map { line in
            String(decoding: line.last == 13 ? line.dropLast() : line, as: UTF8.self)
        }.filter { !$0.isEmpty }
        let requestLine = lines.first.map { $0.split(separator: " ").map(String.init) } ?? []
        var named: Fault?
        var tag: String?
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            if name == FaultProxy.faultHeader.lowercased() { named = Fault(value) }
            if name == FaultProxy.tagHeader.lowercased() { tag = value }
        }
        if let named {
            fault = named
        } else if requestIndex == 0 {
            fault = connectionFault
        } else {
            switch core.plannedFault(connection: number, request: requestIndex) {
            case .refuse, .blackhole, .delayConnect: fault = .none
            case let planned: fault = planned
            }
        }
        counts = [.request: 0, .response: 0]
        stalled = []
        responseHeadLength = nil
        headTail = []
        let sighting = FaultProxy.RequestSighting(
            connection: number, indexOnConnection: requestIndex, method: requestLine.first ?? "",
            target: requestLine.count > 1 ? requestLine[1] : "", tag: tag, fault: fault,
            uptimeNanoseconds: Socket.monotonicNanoseconds())
        requestIndex += 1
        core.saw(sighting)
    }

    /// Passes `bytes` going `direction` through the fault, and writes what is left.
    private func forward(_ bytes: [UInt8], _ direction: Fault.Direction) throws(Stop) {
        guard !stalled.contains(direction) else { return }
        var bytes = bytes
        let before = counts[direction, default: 0]
        // Where the response's head ends, if it does in these bytes (relative to them).
        var headEndHere: Int?
        if direction == .response, responseHeadLength == nil {
            headEndHere = findResponseHeadEnd(bytes)
        }
        switch fault {
        case .reset(let after, let faulted) where faulted == direction:
            if before + bytes.count > after {
                try write(Array(bytes.prefix(after - before)), direction)
                throw .ended(.faultReset, reset: true)
            }
        case .close(let after, let faulted) where faulted == direction:
            if before + bytes.count > after {
                try write(Array(bytes.prefix(after - before)), direction)
                try closeCleanly()
                throw .ended(.faultClosed, reset: false)
            }
        case .stall(let after, let faulted) where faulted == direction:
            if before + bytes.count > after {
                try write(Array(bytes.prefix(after - before)), direction)
                stalled.insert(direction)
                counts[direction] = after
                return
            }
        case .corrupt(let at, let faulted) where faulted == direction:
            if at >= before && at < before + bytes.count { bytes[at - before] ^= 0xFF }
        case .delayFirstByte(let milliseconds) where direction == .response && before == 0:
            guard core.pause(milliseconds: milliseconds) else { throw .ended(.stopped, reset: false) }
        case .closeInHead(let after) where direction == .response && responseHeadLength == nil:
            // The cut falls inside the head: at `after`, or before the head's last byte.
            let headLength = headEndHere.map { before + $0 }
            let cut = min(after, (headLength ?? Int.max) - 1)
            if before + bytes.count > cut {
                try write(Array(bytes.prefix(max(0, cut - before))), direction)
                try closeCleanly()
                throw .ended(.faultClosed, reset: false)
            }
        case .truncateBody(let after) where direction == .response,
            .resetInBody(let after) where direction == .response:
            let headLength = responseHeadLength ?? headEndHere.map { before + $0 }
            if let headLength, before + bytes.count > headLength + after {
                try write(Array(bytes.prefix(headLength + after - before)), direction)
                if case .resetInBody = fault { throw .ended(.faultReset, reset: true) }
                try closeCleanly()
                throw .ended(.faultClosed, reset: false)
            }
        default:
            break
        }
        counts[direction] = before + bytes.count
        if let headEndHere { responseHeadLength = before + headEndHere }
        switch fault {
        case .pace(let size, let pause) where direction == .response:
            try writeInPieces(bytes, direction, size: size, pause: pause)
        case .bandwidth(let rate):
            // Pieces of a hundredth of a second's worth, each paid for after it goes.
            try writeInPieces(bytes, direction, size: max(1, rate / 100), pause: 0, rate: rate)
        case .slowHead(let pause) where direction == .response:
            let headPart = headEndHere ?? (responseHeadLength == nil ? bytes.count : 0)
            try writeInPieces(Array(bytes.prefix(headPart)), direction, size: 1, pause: pause)
            try write(Array(bytes.dropFirst(headPart)), direction)
        default:
            try write(bytes, direction)
        }
    }

    private func writeInPieces(
        _ bytes: [UInt8], _ direction: Fault.Direction, size: Int, pause: Int, rate: Int? = nil
    ) throws(Stop) {
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + size)
            try write(Array(bytes[start..<end]), direction)
            var wait = pause
            if let rate {
                rateDebt += end - start
                wait = rateDebt * 1000 / rate
                rateDebt -= wait * rate / 1000
            }
            guard core.pause(milliseconds: wait) else { throw .ended(.stopped, reset: false) }
            start = end
        }
    }

    private func write(_ bytes: [UInt8], _ direction: Fault.Direction) throws(Stop) {
        guard !bytes.isEmpty else { return }
        let fd = direction == .request ? upstream : client
        let failed = bytes.withUnsafeBytes { Socket.writeAll(fd, $0) }
        if failed != nil { throw .ended(direction == .request ? .serverReset : .clientReset, reset: true) }
        if direction == .request { requestBytes += bytes.count } else { responseBytes += bytes.count }
    }

    /// Ends the connection with an orderly close: the client gets an end of stream, and
    /// what it still sends is read and dropped (closing with unread bytes would reset).
    private func closeCleanly() throws(Stop) {
        if upstream >= 0 { Socket.shutdownBoth(upstream) }
        Socket.shutdownWrite(client)
        try drainClient(milliseconds: Self.lingerMilliseconds)
    }

    /// Reads and drops what the client sends until it closes, for up to `milliseconds`
    /// (`-1`: no limit) or until the proxy stops.
    private func drainClient(milliseconds: Int) throws(Stop) {
        let deadline = Socket.monotonicNanoseconds() + UInt64(max(0, milliseconds)) * 1_000_000
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            var timeout: Int32 = -1
            if milliseconds >= 0 {
                let now = Socket.monotonicNanoseconds()
                guard now < deadline else { return }
                timeout = Int32(clamping: (deadline - now) / 1_000_000 + 1)
            }
            let ready = Socket.waitReadable([client, core.wakeRead], timeout: timeout)
            if ready[1] { throw .ended(.stopped, reset: false) }
            guard ready[0] else { continue }
            let result = scratch.withUnsafeMutableBytes { Socket.read(client, into: $0) }
            switch result {
            case .data: continue
            case .closed, .failed: return
            }
        }
    }

    // MARK: - Reading HTTP

    /// Whether `bytes` begin like a request line: an upper-case method and a space.
    private static func beginsRequest(_ bytes: [UInt8]) -> Bool {
        for (index, byte) in bytes.prefix(16).enumerated() {
            if byte == UInt8(ascii: " ") { return index > 0 }
            guard byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") else { return false }
        }
        return bytes.count < 16 && !bytes.isEmpty
    }

    /// The length of the head in `bytes` (up to and including its blank line), if complete.
    private static func headEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count
        where bytes[index] == 10 && bytes[index - 1] == 13 && bytes[index - 2] == 10 && bytes[index - 3] == 13 {
            return index + 1
        }
        return nil
    }

    /// Where the response head ends within `bytes` (their offset just past its blank
    /// line), carrying the last bytes seen across reads.
    private func findResponseHeadEnd(_ bytes: [UInt8]) -> Int? {
        let carried = headTail.count
        let joined = headTail + bytes
        if let end = Self.headEnd(in: joined) {
            headTail = []
            return end - carried
        }
        headTail = Array(joined.suffix(3))
        return nil
    }

    private static func isSwitchingProtocols(_ bytes: [UInt8]) -> Bool {
        let prefix = String(decoding: bytes.prefix(12), as: UTF8.self)
        return prefix.hasPrefix("HTTP/1.1 101") || prefix.hasPrefix("HTTP/1.0 101")
    }
}
