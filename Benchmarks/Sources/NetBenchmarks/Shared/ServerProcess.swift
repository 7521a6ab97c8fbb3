import BenchmarkSupport
import Foundation
import LoopbackServer

// The server runs in a child process (this executable with `--serve`) so that this
// process's CPU time is the client's alone. The two talk over pipes: the child prints its
// port, then answers each `count` line on its stdin with its request count, and exits when
// its stdin closes, which also happens if the parent dies.

/// A started server answering `GET /json` as the built-in route does, but only to requests
/// carrying the benchmark's credential (others get 401), so that a run in which the
/// authenticator's header did not reach the server fails its check.
func makeBenchmarkServer() throws -> LoopbackServer {
    let server = try LoopbackServer()
    let body = Data(LoopbackServer.sampleJSON.utf8)
    server.route("GET", "/json") { request in
        guard request.headers["Authorization"] == benchmarkToken else { return .status(401) }
        return .json(body)
    }
    server.start()
    return server
}

/// The `--serve` mode: serves `GET /json` until stdin closes.
func serveUntilInputCloses() -> Never {
    let server: LoopbackServer
    do {
        server = try makeBenchmarkServer()
    } catch {
        fail("cannot start the loopback server: \(error)")
    }
    // Unbuffered writes: the parent waits for each line.
    FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
    while let line = readLine() {
        if line == "count" {
            FileHandle.standardOutput.write(Data("\(server.requestCount)\n".utf8))
        }
    }
    server.stop()
    exit(0)
}

/// The server child seen from the benchmark process.
///
/// Spawned with `posix_spawn` rather than `Process`: Foundation's `Process` on Linux asks
/// the child to close every inherited descriptor, which fails with `EBADF` under valgrind
/// (whose own descriptors sit at the top of the table), and `valgrind --tool=callgrind`
/// is how client instructions per request are counted, repeatably whatever the load.
final class ServerProcess {
    private let input = Pipe()
    private let output = Pipe()
    private let pid: pid_t
    /// `http://127.0.0.1:PORT`.
    let baseURL: URL

    init() {
        switch ChildProcess.spawnSelf(arguments: ["--serve"], stdin: input, stdout: output) {
        case .success(let pid): self.pid = pid
        case .failure(let error): fail("cannot start the server child: \(error)")
        }
        guard let line = Self.readLine(from: output.fileHandleForReading), let port = Int(line),
            let url = URL(string: "http://127.0.0.1:\(port)")
        else {
            fail("the server child did not print its port")
        }
        baseURL = url
    }

    /// How many requests the server has received so far.
    func requestCount() -> Int {
        input.fileHandleForWriting.write(Data("count\n".utf8))
        guard let line = Self.readLine(from: output.fileHandleForReading), let count = Int(line) else {
            fail("the server child did not answer")
        }
        return count
    }

    /// Closes the child's stdin and waits for it to exit.
    func stop() {
        try? input.fileHandleForWriting.close()
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    /// Reads up to a newline, a byte at a time so that nothing after it is consumed.
    private static func readLine(from handle: FileHandle) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(handle.fileDescriptor, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return nil
    }
}
