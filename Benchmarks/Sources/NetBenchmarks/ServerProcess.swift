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
        // `/proc/self/exe` rather than argv[0], which may be relative or a name on PATH.
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        // Close-on-exec, so that no later child (another server, a client process) holds
        // a copy of this child's stdin, which would then never end; the child's own
        // copies (`dup2` to 0 and 1) do not inherit the flag.
        for handle in [
            input.fileHandleForReading, input.fileHandleForWriting, output.fileHandleForReading,
            output.fileHandleForWriting,
        ] {
            _ = fcntl(handle.fileDescriptor, F_SETFD, FD_CLOEXEC)
        }
        pid = Self.spawn(executable, stdin: input, stdout: output)
        // The child's ends are the child's: its stdin ends when the write end here closes.
        try? input.fileHandleForReading.close()
        try? output.fileHandleForWriting.close()
        guard let line = Self.readLine(from: output.fileHandleForReading), let port = Int(line),
            let url = URL(string: "http://127.0.0.1:\(port)")
        else {
            fail("the server child did not print its port")
        }
        baseURL = url
    }

    /// Starts `executable --serve` with `stdin` and `stdout` as its standard input and
    /// output (see `ChildProcess.spawn`).
    private static func spawn(_ executable: String, stdin: Pipe, stdout: Pipe) -> pid_t {
        switch ChildProcess.spawn(executable, arguments: ["--serve"], stdin: stdin, stdout: stdout) {
        case .success(let pid): return pid
        case .failure(let error): fail("cannot start the server child: \(error)")
        }
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
