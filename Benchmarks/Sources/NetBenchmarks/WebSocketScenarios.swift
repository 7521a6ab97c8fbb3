import Dispatch
import Foundation
import Leash
import LoopbackServer
import RxLeash

// WebSockets (issue: "WebSocket benchmarks"): `/ws/echo` of a LoopbackServer in a child
// process, through one connection per run, by three clients in the same run:
// - leash: `client.rx.webSocket` with the default options;
// - the floor: the same bytes over a plain TCP socket (`RawWebSocketClient`): the upgrade
//   written by hand with a fixed key, frames masked once before the run, and what arrives
//   only counted, never decoded;
// - Python's `websockets` (asyncio client), a child process timing itself without its
//   start-up; skipped when python3 or the module is missing.
//
// Echo: 1 KB binary messages, each sent once the previous one's echo arrived (closed loop),
// and with 16 in flight (pipelined): messages/s. One-way: the server pushes 1 MiB binary
// messages (`send=M&size=1048576&binary=1`), the client counts them: MB/s. 1 GB: the same
// with 1,024 messages, with the peak RSS growth (target < 10 MB for Leash). Echo of 1 MiB:
// the client masks, the server unmasks and echoes, one at a time: MB/s both ways.

/// One WebSocket scenario: what runs, and which client.
enum WebSocketMode: String, CaseIterable {
    case leashEcho = "websocket-echo-1k: leash client.rx.webSocket"
    case rawEcho = "websocket-echo-1k: raw socket (floor)"
    case pythonEcho = "websocket-echo-1k: python websockets"
    case leashPipelined = "websocket-echo-1k-pipelined: leash client.rx.webSocket"
    case rawPipelined = "websocket-echo-1k-pipelined: raw socket (floor)"
    case pythonPipelined = "websocket-echo-1k-pipelined: python websockets"
    case leashOneWay = "websocket-oneway-1m: leash client.rx.webSocket"
    case rawOneWay = "websocket-oneway-1m: raw socket (floor)"
    case pythonOneWay = "websocket-oneway-1m: python websockets"
    case leashEchoLarge = "websocket-echo-1m: leash client.rx.webSocket"
    case rawEchoLarge = "websocket-echo-1m: raw socket (floor)"
    case pythonEchoLarge = "websocket-echo-1m: python websockets"
    case leashGigabyte = "websocket-1gb-rss: leash client.rx.webSocket"
    case rawGigabyte = "websocket-1gb-rss: raw socket (floor)"

    /// What the scenario does.
    enum Kind: CaseIterable {
        case echo, pipelined, oneWay, echoLarge, gigabyte
    }

    /// The client.
    enum Client {
        case leash, raw, python
    }

    /// The scenario's name, as in the table and for `--only`.
    var name: String { rawValue }

    var kind: Kind {
        switch self {
        case .leashEcho, .rawEcho, .pythonEcho: return .echo
        case .leashPipelined, .rawPipelined, .pythonPipelined: return .pipelined
        case .leashOneWay, .rawOneWay, .pythonOneWay: return .oneWay
        case .leashEchoLarge, .rawEchoLarge, .pythonEchoLarge: return .echoLarge
        case .leashGigabyte, .rawGigabyte: return .gigabyte
        }
    }

    var client: Client {
        switch self {
        case .leashEcho, .leashPipelined, .leashOneWay, .leashEchoLarge, .leashGigabyte: return .leash
        case .rawEcho, .rawPipelined, .rawOneWay, .rawEchoLarge, .rawGigabyte: return .raw
        case .pythonEcho, .pythonPipelined, .pythonOneWay, .pythonEchoLarge: return .python
        }
    }

    /// Whether the scenario is rated in messages a second (else megabytes).
    var countsMessages: Bool { kind == .echo || kind == .pipelined }
}

/// The clients of the WebSocket scenarios and their parameters.
final class WebSocketBench {
    /// 1 KB echoes per run.
    let echoes: Int
    /// 1 MiB messages per one-way run.
    let oneWayMessages: Int
    /// 1 MiB echoes per run.
    let largeEchoes: Int
    /// 1 MiB messages of the 1 GB run.
    static let gigabyteMessages = 1_024
    static let smallSize = 1_024
    static let largeSize = 1_048_576
    static let pipelineDepth = 16
    /// Why the Python client cannot run, or `nil` when it can.
    let pythonMissing: String?

    private let server = WebSocketServer()
    private let smallPayload = LoopbackServer.patternBytes(in: 0..<WebSocketBench.smallSize)
    private let largePayload = LoopbackServer.patternBytes(in: 0..<WebSocketBench.largeSize)

    init(echoes: Int, oneWayMessages: Int, largeEchoes: Int) {
        self.echoes = echoes
        self.oneWayMessages = oneWayMessages
        self.largeEchoes = largeEchoes
        pythonMissing = PythonWebSocketClient.missing()
    }

    /// Stops the server child.
    func stop() {
        server.stop()
    }

    /// How many messages a run of `kind` moves (echoes count once).
    func messages(_ kind: WebSocketMode.Kind) -> Int {
        switch kind {
        case .echo, .pipelined: return echoes
        case .oneWay: return oneWayMessages
        case .echoLarge: return largeEchoes
        case .gigabyte: return Self.gigabyteMessages
        }
    }

    /// The payload bytes a run of `kind` moves, both ways for the echoes.
    func payloadBytes(_ kind: WebSocketMode.Kind) -> Int {
        switch kind {
        case .echo, .pipelined: return 2 * echoes * Self.smallSize
        case .oneWay, .gigabyte: return messages(kind) * Self.largeSize
        case .echoLarge: return 2 * largeEchoes * Self.largeSize
        }
    }

    /// A run's rate: messages or payload megabytes a second.
    func rate(_ mode: WebSocketMode, _ timing: Timing) -> String {
        mode.countsMessages
            ? "\(format(Double(messages(mode.kind)) / timing.seconds)) messages/s"
            : "\(format(Double(payloadBytes(mode.kind)) / 1e6 / timing.seconds, 1)) MB/s"
    }

    /// A run's client CPU: per message, or per payload megabyte.
    func cpu(_ mode: WebSocketMode, _ timing: Timing) -> String {
        let seconds = timing.cpuPerOperation * Double(messages(mode.kind))
        return mode.countsMessages
            ? "\(format(seconds / Double(messages(mode.kind)) * 1e6, 1)) µs CPU/message"
            : "\(format(seconds / (Double(payloadBytes(mode.kind)) / 1e6) * 1e3, 2)) ms CPU/MB"
    }

    /// The throughput of `timing` (a scenario) over that of `client`'s scenario of the
    /// same kind among `timings`, if there.
    static func ratio(_ timing: Timing, to client: WebSocketMode.Client, in timings: [Timing]) -> Double? {
        guard let mode = WebSocketMode(rawValue: timing.scenario.name),
            let base = timings.first(where: {
                let other = WebSocketMode(rawValue: $0.scenario.name)
                return other?.kind == mode.kind && other?.client == client
            })
        else { return nil }
        return base.seconds / timing.seconds
    }

    /// For `--only`: a line per Leash scenario among `timings` with its throughput over
    /// the floor's and Python's, where they ran too.
    func ratios(_ timings: [Timing]) -> [String] {
        timings.compactMap { timing in
            guard let mode = WebSocketMode(rawValue: timing.scenario.name), mode.client == .leash else { return nil }
            let parts = [(WebSocketMode.Client.raw, "floor"), (.python, "python")].compactMap { client, label in
                Self.ratio(timing, to: client, in: timings).map { String(format: "leash / \(label) %.2f", $0) }
            }
            return parts.isEmpty ? nil : "\(mode.name): " + parts.joined(separator: ", ")
        }
    }

    private struct Echo: Endpoint {
        let query: [String: String]
        var path: String { "/ws/echo" }
        var method: HTTPMethod { .get }
        var parameters: Any? { query.isEmpty ? nil : query }
    }

    private static func pushQuery(_ count: Int) -> [String: String] {
        ["send": "\(count)", "size": "\(largeSize)", "binary": "1"]
    }

    func scenario(_ mode: WebSocketMode) -> Scenario {
        let kind = mode.kind
        let count = messages(kind)
        let inFlight = kind == .pipelined ? Self.pipelineDepth : 1
        let payload = kind == .echoLarge ? largePayload : smallPayload
        var scenario = Scenario(
            name: mode.name, operations: count, expect: Tally(values: 1), measuresPeakMemory: true, run: { Tally() })
        let server = self.server
        switch (mode.client, kind) {
        case (.leash, .echo), (.leash, .pipelined), (.leash, .echoLarge):
            scenario = withRun(scenario) { completion in
                LeashEcho(total: count, inFlight: inFlight, payload: payload, completion: completion)
                    .start(server.current.client)
            }
        case (.leash, _):
            scenario = withRun(scenario) { completion in
                let consumer = LeashConsumer(expected: count, size: Self.largeSize, completion: completion)
                consumer.start(server.current.client, Echo(query: Self.pushQuery(count)))
            }
        case (.raw, .echo), (.raw, .pipelined), (.raw, .echoLarge):
            let frames = RawWebSocketClient.echoFrames(payload: payload, inFlight: inFlight)
            scenario = withProblem(scenario) {
                RawWebSocketClient(baseURL: server.current.baseURL)
                    .echo(total: count, inFlight: inFlight, payloadSize: payload.count, frames: frames)
            }
        case (.raw, _):
            scenario = withProblem(scenario) {
                RawWebSocketClient(baseURL: server.current.baseURL)
                    .consume(target: "/ws/echo?send=\(count)&size=\(Self.largeSize)&binary=1", messages: count)
            }
        case (.python, _):
            let own = OwnTime()
            scenario.ownTime = own
            // Another process: this one's peak RSS says nothing about it.
            scenario.measuresPeakMemory = false
            let size = kind == .echoLarge ? Self.largeSize : Self.smallSize
            scenario = withProblem(scenario) {
                let python = PythonWebSocketClient(baseURL: server.current.baseURL)
                return kind == .oneWay
                    ? python.run(
                        [
                            "oneway", "/ws/echo?send=\(count)&size=\(Self.largeSize)&binary=1", "\(count)",
                            "\(Self.largeSize)", "1",
                        ], into: own)
                    : python.run(["echo", "/ws/echo", "\(count)", "\(size)", "\(inFlight)"], into: own)
            }
        }
        if kind == .echo || kind == .pipelined || kind == .echoLarge {
            // The server logs every frame and message it receives, payloads included, for
            // good: a fresh server after each run keeps its memory (and its page faults)
            // from growing run after run. Outside the timed interval.
            scenario.verify = {
                server.recycle()
                return nil
            }
        }
        return scenario
    }

    /// `scenario` running `start` once, which calls its completion with what went wrong, if anything.
    private func withRun(_ scenario: Scenario, start: @escaping (@escaping @Sendable (String?) -> Void) -> Void)
        -> Scenario
    {
        withProblem(scenario) { awaitCompletion(start) }
    }

    private func withProblem(_ scenario: Scenario, run: @escaping () -> String?) -> Scenario {
        let name = scenario.name
        return Scenario(
            name: name, operations: scenario.operations, expect: scenario.expect, verify: scenario.verify,
            measuresPeakMemory: scenario.measuresPeakMemory, ownTime: scenario.ownTime
        ) {
            if let problem = run() {
                FileHandle.standardError.write(Data("\(name): \(problem)\n".utf8))
                return Tally(failures: 1)
            }
            return Tally(values: 1)
        }
    }
}

/// The WebSocket scenarios' server: a LoopbackServer in a child process (see
/// `ServerProcess`), replaced by a fresh one on `recycle()`, with a Leash client for it.
final class WebSocketServer: @unchecked Sendable {
    // @unchecked: `process` and `current` are only touched under `lock`.
    private let lock = NSLock()
    private var process: ServerProcess
    private var running: (baseURL: URL, client: Client)

    init() {
        process = ServerProcess()
        running = Self.connected(to: process)
    }

    /// The running server's URL, and a client for it.
    var current: (baseURL: URL, client: Client) { lock.withLock { running } }

    /// Stops the server and starts another.
    func recycle() {
        lock.withLock {
            process.stop()
            process = ServerProcess()
            running = Self.connected(to: process)
        }
    }

    func stop() {
        lock.withLock { process }.stop()
    }

    private static func connected(to process: ServerProcess) -> (baseURL: URL, client: Client) {
        do {
            let manager = try Manager.Builder().url(process.baseURL).timeout(60).build()
            return (process.baseURL, Client(manager: manager))
        } catch {
            fail("cannot build the WebSocket client: \(error)")
        }
    }
}

// MARK: - Leash

/// Sends `total` messages of `payload` through `client.rx.webSocket`, `inFlight` at a
/// time, each echo starting the next; closes once the last echo is back.
private final class LeashEcho: @unchecked Sendable {
    // @unchecked: touched only from the socket's events, which come one at a time.
    private let total: Int
    private let inFlight: Int
    private let payload: Data
    private let completion: @Sendable (String?) -> Void
    private var socket: WebSocket?
    private var sent = 0
    private var received = 0
    private var problem: String?

    init(total: Int, inFlight: Int, payload: Data, completion: @escaping @Sendable (String?) -> Void) {
        self.total = total
        self.inFlight = inFlight
        self.payload = payload
        self.completion = completion
    }

    func start(_ client: Client) {
        _ = client.rx.webSocket(WebSocketEchoPath()).subscribe(
            onNext: { [self] in handle($0) }, onError: { [completion] in completion("\($0)") })
    }

    private func handle(_ event: WebSocketEvent) {
        switch event {
        case .opened(let socket):
            self.socket = socket
            while sent < min(inFlight, total) { send(socket) }
        case .message(let message):
            received += 1
            if problem == nil, message != .binary(payload) { problem = "echo \(received) differs" }
            guard let socket else { return }
            if sent < total {
                send(socket)
            } else if received == total {
                socket.close()
            }
        case .closed(let close):
            let counted = received == total ? nil : "\(received) echoes of \(total)"
            completion(problem ?? counted ?? (close.wasClean ? nil : "closed: \(close)"))
        case .pong, .reconnecting:
            break
        }
    }

    private func send(_ socket: WebSocket) {
        sent += 1
        socket.send(.binary(payload))
    }
}

/// `/ws/echo` with no script: echoes.
private struct WebSocketEchoPath: Endpoint {
    var path: String { "/ws/echo" }
    var method: HTTPMethod { .get }
}

/// Counts the messages the server pushes and closes after the last.
private final class LeashConsumer: @unchecked Sendable {
    // @unchecked: touched only from the socket's events, which come one at a time.
    private let expected: Int
    private let size: Int
    private let completion: @Sendable (String?) -> Void
    private var socket: WebSocket?
    private var received = 0
    private var bytes = 0

    init(expected: Int, size: Int, completion: @escaping @Sendable (String?) -> Void) {
        self.expected = expected
        self.size = size
        self.completion = completion
    }

    func start(_ client: Client, _ endpoint: Endpoint) {
        _ = client.rx.webSocket(endpoint).subscribe(
            onNext: { [self] in handle($0) }, onError: { [completion] in completion("\($0)") })
    }

    private func handle(_ event: WebSocketEvent) {
        switch event {
        case .opened(let socket):
            self.socket = socket
        case .message(let message):
            received += 1
            bytes += message.byteCount
            if received == expected { socket?.close() }
        case .closed(let close):
            let counted = received == expected && bytes == expected * size
            completion(
                counted ? (close.wasClean ? nil : "closed: \(close)") : "\(received) messages, \(bytes) bytes")
        case .pong, .reconnecting:
            break
        }
    }
}

// MARK: - The floor

/// The same bytes over a plain TCP socket: the upgrade by hand with a fixed key, then
/// only writes of frames masked before the run and reads counted, with no frame decoding.
/// Blocking I/O on the calling thread.
struct RawWebSocketClient {
    let baseURL: URL

    /// The key of RFC 6455's example; the server's answer is not checked beyond its `101`.
    private static let key = "dGhlIHNhbXBsZSBub25jZQ=="
    private static let readSize = 256 * 1024

    /// `inFlight` frames of `payload` back to back, masked, for `echo`: made before the
    /// run, so that one write sends up to all of them.
    static func echoFrames(payload: Data, inFlight: Int) -> Data {
        let frame = maskedBinaryFrame(payload)
        var frames = Data()
        for _ in 0..<inFlight { frames.append(frame) }
        return frames
    }

    /// Echoes `total` messages of `payload.count` bytes, `inFlight` at a time, writing
    /// `frames` (see `echoFrames`); what went wrong, if anything.
    func echo(total: Int, inFlight: Int, payloadSize: Int, frames: Data) -> String? {
        let frameLength = frames.count / inFlight
        // The server's frames: unmasked, with a 2, 4 or 10-byte header.
        let echoLength = Self.headerLength(payloadSize) + payloadSize
        return withConnection(target: "/ws/echo") { fd, buffer in
            let expected = total * echoLength
            var sent = 0
            var received = 0
            while received < expected {
                let echoed = received / echoLength
                let batch = min(total - sent, inFlight - (sent - echoed))
                if batch > 0 {
                    if let problem = Self.writeAll(fd, frames.prefix(batch * frameLength)) { return problem }
                    sent += batch
                }
                let count = read(fd, buffer.baseAddress, buffer.count)
                guard count > 0 else { return "read: \(count == 0 ? "end of stream" : "errno \(errno)")" }
                received += count
            }
            return received == expected ? nil : "\(received) bytes, not \(expected)"
        }
    }

    /// Reads `messages` server messages of 1 MiB, only counting their frames' bytes.
    func consume(target: String, messages: Int) -> String? {
        withConnection(target: target) { fd, buffer in
            let expected = messages * (Self.headerLength(WebSocketBench.largeSize) + WebSocketBench.largeSize)
            var received = 0
            while received < expected {
                let count = read(fd, buffer.baseAddress, buffer.count)
                guard count > 0 else { return "read: \(count == 0 ? "end of stream" : "errno \(errno)")" }
                received += count
            }
            return received == expected ? nil : "\(received) bytes, not \(expected)"
        }
    }

    /// Connects, upgrades, runs `body` with the socket and a read buffer (bytes that came
    /// with the `101` are counted out by the caller, so there must be none: the server
    /// writes its frames after the head), then closes.
    private func withConnection(
        target: String, _ body: (Int32, UnsafeMutableRawBufferPointer) -> String?
    ) -> String? {
        guard let port = baseURL.port else { return "no port in \(baseURL)" }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return "socket: errno \(errno)" }
        defer { close(fd) }
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return "connect: errno \(errno)" }
        let request =
            "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(Self.key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
        if let problem = Self.writeAll(fd, Data(request.utf8)) { return problem }
        // The head, a byte at a time so that no frame byte is taken with it.
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.ends(with: [13, 10, 13, 10]) {
            guard read(fd, &byte, 1) == 1 else { return "no answer to the upgrade" }
            head.append(byte)
        }
        guard head.starts(with: Array("HTTP/1.1 101".utf8)) else {
            return "upgrade answered \(String(decoding: head.prefix(40), as: UTF8.self))"
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readSize, alignment: 16)
        defer { buffer.deallocate() }
        return body(fd, buffer)
    }

    private static func writeAll(_ fd: Int32, _ data: Data) -> String? {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                guard count > 0 else { return "write: errno \(errno)" }
                offset += count
            }
            return nil
        }
    }

    /// A frame's header length for a payload of `count` bytes, unmasked.
    static func headerLength(_ count: Int) -> Int {
        count < 126 ? 2 : count <= 0xFFFF ? 4 : 10
    }

    /// A final binary frame of `payload`, masked with a fixed key.
    static func maskedBinaryFrame(_ payload: Data) -> Data {
        var frame = Data([0x82])
        let count = payload.count
        if count < 126 {
            frame.append(0x80 | UInt8(count))
        } else if count <= 0xFFFF {
            frame.append(contentsOf: [0x80 | 126, UInt8(count >> 8), UInt8(count & 0xFF)])
        } else {
            frame.append(0x80 | 127)
            frame.append(contentsOf: (0..<8).reversed().map { UInt8(truncatingIfNeeded: count >> ($0 * 8)) })
        }
        let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        frame.append(contentsOf: key)
        frame.append(contentsOf: payload.enumerated().map { $0.element ^ key[$0.offset & 3] })
        return frame
    }
}

extension Array where Element: Equatable {
    fileprivate func ends(with suffix: [Element]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}

// MARK: - Python's websockets

/// Python's `websockets` (its asyncio client, with compression off and no message size
/// limit), run as `python3 -c SCRIPT` against the same server; the script times itself
/// from before connecting to after the closing handshake and prints
/// `seconds WALL cpu CPU`.
struct PythonWebSocketClient {
    let baseURL: URL

    static let script = """
        import asyncio, sys, time
        from websockets.asyncio.client import connect

        async def main(mode, url, count, size, in_flight):
            payload = bytes((i * 31) & 255 for i in range(size))
            wall, cpu = time.perf_counter(), time.process_time()
            async with connect(url, compression=None, max_size=None, proxy=None) as socket:
                if mode == "echo":
                    sent = received = 0
                    while sent < min(in_flight, count):
                        await socket.send(payload)
                        sent += 1
                    while received < count:
                        message = await socket.recv()
                        received += 1
                        if message != payload:
                            sys.exit(f"echo {received} differs")
                        if sent < count:
                            await socket.send(payload)
                            sent += 1
                else:
                    received = total = 0
                    while received < count:
                        total += len(await socket.recv())
                        received += 1
                    if total != count * size:
                        sys.exit(f"{total} bytes, not {count * size}")
            print(f"seconds {time.perf_counter() - wall} cpu {time.process_time() - cpu}")

        mode, target, count, size, in_flight = sys.argv[1:6]
        asyncio.run(main(mode, sys.argv[6] + target, int(count), int(size), int(in_flight)))
        """

    /// Why the client cannot run here (`skipped: …`), or `nil`.
    static func missing() -> String? {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import websockets.asyncio.client"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        do {
            try probe.run()
        } catch {
            return "python3 cannot be started (\(error))"
        }
        probe.waitUntilExit()
        switch probe.terminationStatus {
        case 0: return nil
        case 127: return "python3 not found"
        default: return "python3 has no module websockets (pip install websockets)"
        }
    }

    /// Runs the script with `arguments` (mode, target, count, size, in flight); records
    /// its times in `own`; what went wrong, if anything.
    func run(_ arguments: [String], into own: OwnTime) -> String? {
        var url = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)
        url?.scheme = "ws"
        guard let base = url?.string else { return "no URL" }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.script] + arguments + [base]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            return "cannot start python3: \(error)"
        }
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let complaint = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let words = String(decoding: printed, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard process.terminationStatus == 0, words.count == 4, let wall = Double(words[1]),
            let cpu = Double(words[3])
        else {
            let said = String(decoding: complaint.suffix(400), as: UTF8.self)
            return "python3 exited with \(process.terminationStatus): \(said)"
        }
        own.record(wall: wall, cpu: cpu)
        return nil
    }
}
