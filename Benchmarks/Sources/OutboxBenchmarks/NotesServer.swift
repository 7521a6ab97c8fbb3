import BenchmarkSupport
import Foundation
import LoopbackServer

// The server runs in a child process (this executable with `--serve`), as net-benchmarks'
// does, so that this process's CPU time and resident memory are the client's alone. The
// two talk over pipes: the child prints its port, then answers each command line on its
// stdin (`stats`, `reset`, `keys`), and exits when its stdin closes, which also happens if
// the parent dies.

/// What the `POST /notes` route saw since the last reset.
struct NotesStats: Equatable, CustomStringConvertible {
    /// Requests received.
    var requests = 0
    /// Requests that carried an `Idempotency-Key` header.
    var keyed = 0
    /// Different keys among them.
    var distinctKeys = 0
    /// Notes whose `seq` was not above the previous note's (sent out of order, or twice).
    var outOfOrder = 0
    /// Bodies that were not the note the benchmark sends (`Note.numbered(seq)`).
    var badBodies = 0

    var description: String {
        "\(requests) requests, \(keyed) with a key, \(distinctKeys) distinct keys, \(outOfOrder) out of order, "
            + "\(badBodies) bad bodies"
    }

    /// What is wrong if `count` notes, each with a key of its own, did not arrive whole and in order.
    func problem(expecting count: Int) -> String? {
        let expected = NotesStats(requests: count, keyed: count, distinctKeys: count)
        return self == expected ? nil : "the server saw \(self), expected \(expected)"
    }
}

/// The child's record of the notes route; handlers run on the server's connection threads.
final class NotesLog: @unchecked Sendable {
    // @unchecked: everything is only touched under `lock`.
    private let lock = NSLock()
    private var stats = NotesStats()
    private var keys = Set<String>()
    private var lastSeq = Int.min

    func record(_ request: LoopbackRequest) {
        let note = try? JSONDecoder().decode(Note.self, from: request.body)
        let key = request.headers["Idempotency-Key"]
        lock.withLock {
            stats.requests += 1
            if let key {
                stats.keyed += 1
                if keys.insert(key).inserted { stats.distinctKeys += 1 }
            }
            guard let note, note == Note.numbered(note.seq) else {
                stats.badBodies += 1
                return
            }
            if note.seq <= lastSeq { stats.outOfOrder += 1 }
            lastSeq = note.seq
        }
    }

    func reset() {
        lock.withLock {
            stats = NotesStats()
            keys = []
            lastSeq = .min
        }
    }

    var snapshot: NotesStats { lock.withLock { stats } }

    var allKeys: [String] { lock.withLock { Array(keys) } }
}

/// The `--serve` mode: serves `POST /notes` (201, `{"id":1}`) until stdin closes.
func serveNotesUntilInputCloses() -> Never {
    let log = NotesLog()
    let server: LoopbackServer
    do {
        server = try LoopbackServer()
    } catch {
        fail("cannot start the loopback server: \(error)")
    }
    let answer = Data(#"{"id":1}"#.utf8)
    server.route("POST", "/notes") { request in
        log.record(request)
        return .json(answer, status: 201)
    }
    server.start()
    // Unbuffered writes: the parent waits for each line.
    let output = FileHandle.standardOutput
    output.write(Data("\(server.port)\n".utf8))
    while let line = readLine() {
        switch line {
        case "stats":
            let stats = log.snapshot
            output.write(
                Data(
                    "\(stats.requests) \(stats.keyed) \(stats.distinctKeys) \(stats.outOfOrder) \(stats.badBodies)\n"
                        .utf8))
        case "reset":
            log.reset()
            output.write(Data("ok\n".utf8))
        case "keys":
            output.write(Data((log.allKeys.map { $0 + "\n" }.joined() + "end\n").utf8))
        default:
            output.write(Data("unknown command\n".utf8))
        }
    }
    server.stop()
    exit(0)
}

/// The server child seen from the benchmark process.
///
/// Spawned with `posix_spawn` rather than `Process`, as net-benchmarks' `ServerProcess`
/// (whose note says why: Foundation's `Process` on Linux fails under valgrind, and
/// callgrind is how this benchmark's CPU is looked into).
final class NotesServerProcess {
    private let input = Pipe()
    private let output = Pipe()
    private let reader: LineReader
    private let pid: pid_t
    /// `http://127.0.0.1:PORT`.
    let baseURL: URL

    init() {
        switch ChildProcess.spawnSelf(arguments: ["--serve"], stdin: input, stdout: output) {
        case .success(let pid): self.pid = pid
        case .failure(let error): fail("cannot start the server child: \(error)")
        }
        let reader = LineReader(descriptor: output.fileHandleForReading.fileDescriptor)
        self.reader = reader
        guard let line = reader.readLine(), let port = Int(line), let url = URL(string: "http://127.0.0.1:\(port)")
        else {
            fail("the server child did not print its port")
        }
        baseURL = url
    }

    /// What the route saw since the last `reset()`.
    func stats() -> NotesStats {
        let fields = command("stats").split(separator: " ").compactMap { Int($0) }
        guard fields.count == 5 else { fail("the server child answered stats with \(fields)") }
        return NotesStats(
            requests: fields[0], keyed: fields[1], distinctKeys: fields[2], outOfOrder: fields[3],
            badBodies: fields[4])
    }

    /// Forgets every request so far.
    func reset() {
        guard command("reset") == "ok" else { fail("the server child did not reset") }
    }

    /// The distinct `Idempotency-Key` values received since the last `reset()`.
    func keys() -> Set<String> {
        send("keys")
        var keys = Set<String>()
        while let line = reader.readLine(), line != "end" { keys.insert(line) }
        return keys
    }

    /// Closes the child's stdin and waits for it to exit.
    func stop() {
        try? input.fileHandleForWriting.close()
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    /// Sends `line` and returns the answer's first line.
    private func command(_ line: String) -> String {
        send(line)
        guard let answer = reader.readLine() else { fail("the server child did not answer \(line)") }
        return answer
    }

    /// Sends `line`; the caller reads the answer.
    private func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }
}

/// Lines read from a pipe, in blocks (a key list is thousands of lines).
private final class LineReader {
    private let descriptor: Int32
    /// What was read and no `readLine()` took yet, from `readIndex` on.
    private var buffered: [UInt8] = []
    private var readIndex = 0

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Reads up to a newline, keeping what follows it for the next call; `nil` at the end.
    func readLine() -> String? {
        while true {
            if let newline = buffered[readIndex...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[readIndex..<newline], as: UTF8.self)
                readIndex = newline + 1
                return line
            }
            buffered.removeSubrange(..<readIndex)
            readIndex = 0
            var block = [UInt8](repeating: 0, count: 65_536)
            let count = read(descriptor, &block, block.count)
            guard count > 0 else { return nil }
            buffered.append(contentsOf: block[..<count])
        }
    }
}
