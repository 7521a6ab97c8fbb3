import Foundation
import LeashTestSupport
import LoopbackServer
import Rx
import RxTesting
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the `HTTP1Transport` integration tests share: a transport that reads nothing from the
/// process (no cookies, no environment proxies), a run of one execution that counts how it
/// ended, and a bounded wait for a condition that no callback announces.
enum HTTP1Integration {
    /// A transport with its own pool, no cookie storage and no environment proxies (a CI
    /// runner's `http_proxy` must not reroute loopback requests), configured by `configure`.
    static func transport(_ configure: (inout HTTP1Transport.Configuration) -> Void = { _ in }) -> HTTP1Transport {
        var configuration = HTTP1Transport.Configuration()
        configuration.cookieStorage = nil
        configuration.usesEnvironmentProxies = false
        configure(&configuration)
        return HTTP1Transport(configuration: configuration)
    }

    /// How one execution ended: how many terminal events it had (an error or a completion:
    /// exactly one is right), how many requests it sent and retries it made, and its value or
    /// error.
    struct Run<Value> {
        let ends: Int
        let sent: Int
        let retries: Int
        let value: Value?
        let error: Error?

        /// The `URLError` of a `LeashError.transport` ending, or a test failure.
        func transportError(file: StaticString = #filePath, line: UInt = #line) -> URLError? {
            guard case .transport(let urlError)? = error as? LeashError else {
                XCTFail("expected LeashError.transport, got \(String(describing: error))", file: file, line: line)
                return nil
            }
            return urlError
        }
    }

    /// Runs `endpoint` once through `client` to its end (at most `timeout` seconds) and
    /// reports how it ended (see `Run`).
    static func run<Serializer: ResponseSerializer>(
        _ client: Client, _ endpoint: Endpoint, _ serializer: Serializer, timeout: TimeInterval = 10
    ) -> Run<Serializer.SerializedObject> {
        let ends = SpecLocked(0)
        let outcome = client.eventStream(endpoint, serializer: serializer)
            .do(onError: { _ in ends.withLock { $0 += 1 } }, onCompleted: { ends.withLock { $0 += 1 } })
            .toBlocking(timeout: timeout).materialize()
        let events: [ExecutionEvent<Serializer.SerializedObject>]
        let error: Error?
        switch outcome {
        case .completed(let elements):
            events = elements
            error = nil
        case .failed(let elements, let failure):
            events = elements
            error = failure
        }
        let sent = events.filter { if case .requestSent = $0 { true } else { false } }.count
        let retries = events.filter { if case .retrying = $0 { true } else { false } }.count
        return Run(
            ends: ends.value, sent: sent, retries: retries, value: events.lazy.compactMap(\.value).first, error: error)
    }

    /// Sends `request` straight through `transport` and waits (at most `timeout` seconds) for
    /// its one answer.
    static func send(_ transport: HTTP1Transport, _ request: URLRequest, timeout: TimeInterval = 10) -> Result<
        TransportResponse, Error
    > {
        switch transport.send(request).toBlocking(timeout: timeout).materialize() {
        case .completed(let elements):
            guard elements.count == 1, let response = elements.first else {
                return .failure(LeashError.invalidResponse(reason: "\(elements.count) answers"))
            }
            return .success(response)
        case .failed(_, let error):
            return .failure(error)
        }
    }

    /// Checks `condition` every 5 ms until it holds or `timeout` seconds pass; returns whether
    /// it held (for state no callback announces, such as the pool's counts).
    static func eventually(timeout: TimeInterval = 5, _ condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !condition() {
            guard Date() < deadline else { return false }
            RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.005))
        }
        return true
    }
}
