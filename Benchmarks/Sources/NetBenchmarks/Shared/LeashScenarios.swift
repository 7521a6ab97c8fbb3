import Dispatch
import Foundation
import Leash
import RxLeash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A Leash client as an app sets one up: the logger (execution and completion), the
/// status validator and the authenticator installed; everything else default (its own
/// `URLSessionTransport`, callbacks on the transport's queue, no timeout).
struct LeashSetup {
    let client: Client
    let logger = LoggerInterceptor()
    let validator = StatusValidator()
    let authenticator = BenchmarkAuthenticator()

    init(baseURL: URL, transport: Transport, url: String? = nil, timeout: TimeInterval? = nil) {
        do {
            let builder = Manager.Builder()
                .url(url.flatMap(URL.init(string:)) ?? baseURL)
                .authenticator(authenticator)
                .add(interceptor: logger)
                .add(interceptor: validator)
                .transport(transport)
            if let timeout { builder.timeout(timeout) }
            let manager = try builder.build()
            client = Client(manager: manager)
        } catch {
            fail("cannot build the manager: \(error)")
        }
    }

    /// Interceptor invocations so far: each request must pass the logger twice (before
    /// the request, at completion) and the validator once.
    func interceptorCalls() -> Int {
        logger.requests.count + logger.completions.count + validator.calls.count
    }

    /// How often the authenticator was asked for the credential.
    var credentialReads: Int { authenticator.reads.count }
}

enum LeashScenarios {
    /// `total` executions through `client.execute(_:completion:)`, `inFlight` at a time.
    static func callbacks(_ client: Client, total: Int, inFlight: Int) -> Tally {
        closedLoop(total: total, inFlight: inFlight) { completion in
            client.execute(BenchmarkAPI.json) { (response: Response<Sample>) in
                completion(response.value)
            }
        }
    }

    /// `total` executions through `client.rx.execute(_:type:)`, `inFlight` at a time.
    static func rx(_ client: Client, total: Int, inFlight: Int) -> Tally {
        closedLoop(total: total, inFlight: inFlight) { completion in
            _ = client.rx.execute(BenchmarkAPI.json, type: Sample.self)
                .subscribe(onNext: { completion($0) }, onError: { _ in completion(nil) })
        }
    }

    /// `total` executions through `try await client.execute(_:as:)`: `inFlight` tasks,
    /// each awaiting `total / inFlight` executions one after another.
    static func async(_ client: Client, total: Int, inFlight: Int) -> Tally {
        asyncLanes(total: total, inFlight: inFlight) { try? await client.execute(BenchmarkAPI.json, as: Sample.self) }
    }
}

/// `total` calls of `call`: `inFlight` tasks, each awaiting its share one after another.
func asyncLanes(total: Int, inFlight: Int, _ call: @escaping @Sendable () async -> Sample?) -> Tally {
    let lanes = min(inFlight, total)
    let result = SharedTally()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        await withTaskGroup(of: Tally.self) { group in
            for lane in 0..<lanes {
                // Spread any remainder over the first lanes.
                let count = total / lanes + (lane < total % lanes ? 1 : 0)
                group.addTask {
                    var tally = Tally()
                    for _ in 0..<count { tally.record(await call()) }
                    return tally
                }
            }
            for await tally in group { result.add(tally) }
        }
        done.signal()
    }
    done.wait()
    return result.value
}
