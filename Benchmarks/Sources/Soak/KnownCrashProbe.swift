import BenchmarkSupport
import Foundation
import Leash
import LoopbackServer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one fault known to end the process with URLSession: a clean close inside a
/// response's head, which FoundationNetworking answers with a fatal error on Linux. It runs
/// in a child process of the soak's own executable
/// (`soak --probe close-in-head=N --transport T`), once per cut position and transport:
///
/// - through `URLSessionTransport`, the known crash, reported, never hidden and never
///   counted as a pass (nor as a failure of the soak: it is FoundationNetworking's);
/// - through `HTTP1Transport`, the opposite is expected: the child survives and the request
///   ends once with `LeashError.transport(URLError(.networkConnectionLost))`. A child that
///   dies, or a request that ends otherwise (with a value, another error, twice, or not
///   at all), fails the soak.
enum KnownCrashProbe {
    /// Where the cut falls: right after the status line's first bytes, mid-header, and
    /// just before the blank line.
    static let cuts = [5, 17, 60, 10_000]

    /// The transports probed, in the report's order.
    static let transports: [SoakTransport] = [.urlSession, .http1]

    /// How the child ended its request, as its exit status says.
    enum Ending: Int32 {
        /// Once, with `LeashError.transport` of `.networkConnectionLost`.
        case connectionLost = 0
        /// No end within 20 s.
        case none = 1
        /// The child could not run the probe.
        case notRun = 2
        /// A value.
        case value = 3
        /// Another error, typed or not.
        case otherError = 4
        /// More than one end.
        case endedTwice = 5
    }

    struct Result {
        let transport: SoakTransport
        let cut: Int
        /// The signal that ended the child, or nil if it exited.
        let signal: Int32?
        /// The child's exit status, if it exited.
        let exitStatus: Int32?
        /// The child's output (its standard error goes there too).
        let output: String

        var crashed: Bool { signal != nil }

        /// How the request ended, as the child said (`ended: …`).
        var ending: String? {
            output.split(separator: "\n").first { $0.hasPrefix("ended: ") }.map { String($0.dropFirst(7)) }
        }

        /// Whether the child did what its transport is expected to do: through
        /// `HTTP1Transport`, survive with the typed error; through `URLSessionTransport`
        /// (the known crash, FoundationNetworking's), anything.
        var held: Bool {
            transport != .http1 || (signal == nil && exitStatus == Ending.connectionLost.rawValue)
        }

        /// One line for the report.
        var summary: String {
            let fatal = output.split(separator: "\n").first { $0.contains("Fatal error") }.map { ": \($0)" } ?? ""
            let ending = self.ending ?? "no end reported"
            switch transport {
            case .urlSession:
                if let signal { return "killed (known) by signal \(signal)\(fatal)" }
                return "survived (not killed at this cut), \(ending)"
            case .http1:
                if let signal { return "FAILED: killed by signal \(signal)\(fatal)" }
                if held { return "survived, typed error \(ending)" }
                return "FAILED: survived (exit \(exitStatus ?? -1)) but \(ending)"
            }
        }
    }

    /// Runs every cut through every transport, each in a child; the results in order.
    static func runAll() -> [Result] {
        transports.flatMap { transport in cuts.map { run(cut: $0, transport: transport) } }
    }

    private static func run(cut: Int, transport: SoakTransport) -> Result {
        let input = Pipe()
        let output = Pipe()
        guard
            case .success(let pid) = ChildProcess.spawnSelf(
                arguments: ["--probe", "close-in-head=\(cut)", "--transport", transport.rawValue], stdin: input,
                stdout: output)
        else {
            return Result(
                transport: transport, cut: cut, signal: nil, exitStatus: Ending.notRun.rawValue,
                output: "ended: not at all, the child could not be started")
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        try? input.fileHandleForWriting.close()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signalled = status & 0x7F
        if signalled != 0 && signalled != 0x7F {
            return Result(transport: transport, cut: cut, signal: signalled, exitStatus: nil, output: text)
        }
        return Result(transport: transport, cut: cut, signal: nil, exitStatus: (status >> 8) & 0xFF, output: text)
    }

    /// The child: one request through `transport` and a proxy that closes the connection
    /// after `cut` bytes of the response's head; prints how it ended (`ended: …`, if the
    /// process survives) and exits with its `Ending`.
    static func child(_ argument: String, transport: SoakTransport) -> Int32 {
        dup2(1, 2)
        guard argument.hasPrefix("close-in-head="), let cut = Int(argument.dropFirst("close-in-head=".count)) else {
            print("ended: not at all, unknown probe \(argument)")
            return Ending.notRun.rawValue
        }
        do {
            let server = try LoopbackServer()
            server.start()
            let proxy = try FaultProxy(in: server, plan: .always(.closeInHead(after: cut)))
            let client = Client(
                manager: try Manager.Builder().url(proxy.baseURL).transport(transport.make()).timeout(5).build())
            let endings = LockedBox<[(text: String, ending: Ending)]>([])
            let done = DispatchSemaphore(value: 0)
            client.execute(ProbeEndpoint(), serializer: DataResponseSerializer()) { response in
                endings.withLock { $0.append(describe(value: response.value, error: response.error)) }
                done.signal()
            }
            guard done.wait(timeout: .now() + 20) == .success else {
                print("ended: not within 20 s")
                return Ending.none.rawValue
            }
            // A second end, if one comes, comes soon after the first.
            Thread.sleep(forTimeInterval: 0.5)
            let all = endings.withLock { $0 }
            guard all.count == 1 else {
                print("ended: \(all.count) times (\(all.map(\.text).joined(separator: "; ")))")
                return Ending.endedTwice.rawValue
            }
            print("ended: \(all[0].text)")
            return all[0].ending.rawValue
        } catch {
            print("ended: not at all, the probe could not start: \(error)")
            return Ending.notRun.rawValue
        }
    }

    /// What a request's end was, and which `Ending` it is.
    private static func describe(value: Data?, error: Error?) -> (text: String, ending: Ending) {
        guard let error else { return ("with a value (\(value?.count ?? 0) bytes)", .value) }
        guard let leashError = error as? LeashError else {
            return ("with an untyped error \(type(of: error)): \(error)", .otherError)
        }
        guard case .transport(let urlError) = leashError else { return ("with LeashError \(leashError)", .otherError) }
        let lost = urlError.code == .networkConnectionLost
        let code = lost ? ".networkConnectionLost (\(urlError.code.rawValue))" : "code \(urlError.code.rawValue)"
        return (
            "LeashError.transport(URLError \(code)): \(urlError.localizedDescription)",
            lost ? .connectionLost : .otherError
        )
    }
}

private struct ProbeEndpoint: Endpoint {
    var path: String { "/json" }
    var method: HTTPMethod { .get }
}
