import Dispatch
import Foundation
import Leash
import LeashTesting
import LoopbackServer
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The cost of Leash's pipeline alone: executions on `StubTransport` (no network), which
/// answers `GET /json` with the loopback server's body.
struct PipelineSetup {
    let client: Client
    /// Interceptor invocations so far (five per execution with the interceptors installed).
    let interceptorCalls: () -> Int
    private let transport = StubTransport()

    /// A client with five interceptors, one of each kind that runs on a successful
    /// execution (execution, success, completion, serialization, and an operator), plus
    /// the authenticator; or, with `interceptors: false`, neither.
    init(interceptors: Bool) {
        Self.script(transport)
        let builder = Manager.Builder().url("http://stub.invalid").transport(transport)
        if interceptors {
            let logger = LoggerInterceptor()
            let validator = StatusValidator()
            let checker = SerializedValueChecker()
            let passThrough = PassThroughOperator()
            let requestOnly = RequestLogger(logger)
            let completionOnly = CompletionLogger(logger)
            builder.authenticator(BenchmarkAuthenticator())
                .interceptors([requestOnly, validator, completionOnly, checker, passThrough])
            interceptorCalls = {
                logger.requests.count + validator.calls.count + logger.completions.count + checker.calls.count
                    + passThrough.calls.count
            }
        } else {
            interceptorCalls = { 0 }
        }
        do {
            client = Client(manager: try builder.build())
        } catch {
            fail("cannot build the stub manager: \(error)")
        }
    }

    /// Empties the stub's log of requests (it keeps every request, ~0.5 KB each, for tests
    /// to inspect), so that memory does not grow from run to run; called between runs.
    func forgetRequests() {
        transport.reset()
        Self.script(transport)
    }

    private static func script(_ transport: StubTransport) {
        transport.stub(.get, path: "/json", .json(LoopbackServer.sampleJSON))
    }
}

/// A transport that answers every request at once with the same response, as cheaply as
/// possible: with it, the network benchmark's own client setup (`LeashSetup`: logger,
/// validator, authenticator) costs exactly Leash's pipeline and nothing else.
final class ReplayTransport: Transport, @unchecked Sendable {
    // @unchecked: immutable.
    private let answer: Observable<TransportResponse>

    init() {
        let url = URL(string: "http://stub.invalid/json")
        let response = url.flatMap {
            HTTPURLResponse(
                url: $0, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "application/json"])
        }
        guard let response else { fail("cannot build the replayed response") }
        answer = .just(TransportResponse(httpResponse: response, data: Data(LoopbackServer.sampleJSON.utf8)))
    }

    func send(_ request: URLRequest) -> Observable<TransportResponse> { answer }
}

/// The logger's request half, as an interceptor of its own (so the five are five objects).
final class RequestLogger: ExecutionInterceptor {
    private let logger: LoggerInterceptor
    init(_ logger: LoggerInterceptor) { self.logger = logger }
    func intercept(chain: InterceptorChain<Data>) { logger.intercept(chain: chain) }
}

/// The logger's completion half, as an interceptor of its own.
final class CompletionLogger: CompletionInterceptor {
    private let logger: LoggerInterceptor
    init(_ logger: LoggerInterceptor) { self.logger = logger }
    func intercept(chain: InterceptorChain<Data>, response: Response<Data>) {
        logger.intercept(chain: chain, response: response)
    }
}

enum PipelineScenarios {
    /// `total` executions one after another, each awaited before the next starts (on the
    /// stub they complete on the calling thread, but nothing here relies on it).
    static func executions(_ client: Client, total: Int) -> Tally {
        let result = SharedTally()
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<total {
            client.execute(BenchmarkAPI.json) { (response: Response<Sample>) in
                result.record(response.value)
                done.signal()
            }
            done.wait()
        }
        return result.value
    }

    /// `total` executions through `try await client.execute(_:as:)`, one after another,
    /// in one task.
    static func awaitedExecutions(_ client: Client, total: Int) -> Tally {
        asyncLanes(total: total, inFlight: 1) { try? await client.execute(BenchmarkAPI.json, as: Sample.self) }
    }

    /// The floor of the same work: decoding the body `total` times with a `JSONDecoder`.
    static func decodeOnly(total: Int) -> Tally {
        let decoder = JSONDecoder()
        let body = Data(LoopbackServer.sampleJSON.utf8)
        var tally = Tally()
        for _ in 0..<total {
            tally.record(try? decoder.decode(Sample.self, from: body))
        }
        return tally
    }
}
