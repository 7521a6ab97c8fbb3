import BenchmarkSupport
import Foundation
import Leash
import LoopbackServer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one fault known to end the process: a clean close inside a response's head, which
/// FoundationNetworking answers with a fatal error on Linux. It runs in a child process of
/// the soak's own executable (`soak --probe close-in-head`), once per cut position, and is
/// reported as a known crash, never hidden and never counted as a pass.
enum KnownCrashProbe {
    /// Where the cut falls: right after the status line's first bytes, mid-header, and
    /// just before the blank line.
    static let cuts = [5, 17, 60, 10_000]

    struct Result {
        let cut: Int
        /// The signal that ended the child, or nil if it exited.
        let signal: Int32?
        /// The child's exit status, if it exited.
        let exitStatus: Int32?
        /// The child's output (its standard error goes there too).
        let output: String

        var crashed: Bool { signal != nil }
    }

    /// Runs every cut in a child; the results in order.
    static func runAll() -> [Result] {
        cuts.map(run)
    }

    private static func run(cut: Int) -> Result {
        let input = Pipe()
        let output = Pipe()
        guard
            case .success(let pid) = ChildProcess.spawnSelf(
                arguments: ["--probe", "close-in-head=\(cut)"], stdin: input, stdout: output)
        else {
            return Result(cut: cut, signal: nil, exitStatus: -1, output: "could not start the child")
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        try? input.fileHandleForWriting.close()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signalled = status & 0x7F
        if signalled != 0 && signalled != 0x7F {
            return Result(cut: cut, signal: signalled, exitStatus: nil, output: text)
        }
        return Result(cut: cut, signal: nil, exitStatus: (status >> 8) & 0xFF, output: text)
    }

    /// The child: one request through a proxy that closes the connection after `cut` bytes
    /// of the response's head; prints how it ended (if the process survives).
    static func child(_ argument: String) -> Int32 {
        dup2(1, 2)
        guard argument.hasPrefix("close-in-head="), let cut = Int(argument.dropFirst("close-in-head=".count)) else {
            print("unknown probe \(argument)")
            return 2
        }
        do {
            let server = try LoopbackServer()
            server.start()
            let proxy = try FaultProxy(in: server, plan: .always(.closeInHead(after: cut)))
            let client = Client(manager: try Manager.Builder().url(proxy.baseURL).timeout(5).build())
            let done = DispatchSemaphore(value: 0)
            client.execute(ProbeEndpoint(), serializer: DataResponseSerializer()) { response in
                print("survived: \(response.error.map { "\($0)" } ?? "a value")")
                done.signal()
            }
            guard done.wait(timeout: .now() + 20) == .success else {
                print("survived: no end within 20 s")
                return 1
            }
            return 0
        } catch {
            print("probe failed: \(error)")
            return 2
        }
    }
}

private struct ProbeEndpoint: Endpoint {
    var path: String { "/json" }
    var method: HTTPMethod { .get }
}
