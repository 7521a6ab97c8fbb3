import Foundation
import Leash
import LeashInterceptors
import LeashTestSupport
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Helpers of the retry and sharing tests. Names start with `Retry` or `Sharing` so that
// they never clash with the helpers of the other interceptor tests in this target.

/// Base class of these tests: the shared leak check.
typealias RetryTestCase = LeakCheckedTestCase

/// An endpoint whose path, method and timeout a test sets.
struct RetryEndpoint: Endpoint {
    var path = "/items"
    var method: HTTPMethod = .get
    var headers: [String: String]?
    var timeout: TimeInterval?
}

/// The body the stubs answer with.
let retryBody = #"{"ok":true}"#

/// A client over `transport` with `interceptors`; `scheduler` (if any) runs Leash's timers.
func makeRetryClient(
    _ transport: Transport, scheduler: SchedulerType? = nil, interceptors: [Interceptor] = [],
    configure: (Manager.Builder) -> Void = { _ in }
) throws -> Client {
    let builder = Manager.Builder().url("https://api.example.com").transport(transport).interceptors(interceptors)
    if let scheduler { builder.scheduler(scheduler) }
    configure(builder)
    return Client(manager: try builder.build())
}

/// A policy with exact delays (no jitter) unless a test says otherwise.
func exactRetryPolicy(
    maximumAttempts: Int = 3, baseDelay: TimeInterval = 2, multiplier: Double = 3, maximumDelay: TimeInterval = 60
) -> RetryPolicy {
    RetryPolicy(
        maximumAttempts: maximumAttempts, baseDelay: baseDelay, multiplier: multiplier, maximumDelay: maximumDelay,
        jitter: .none)
}

/// An execution's events as short strings with their ticks: `sent(2) @ 202`,
/// `retrying(2) @ 202`, `value(200) @ 202`, `error(503) @ 240`, `completed @ 202`.
func retryTimeline(_ observer: TestableObserver<ExecutionEvent<String>>) -> [String] {
    observer.events.compactMap { recorded -> String? in
        switch recorded.value {
        case .next(.requestSent(_, let attempt)): return "sent(\(attempt)) @ \(recorded.time)"
        case .next(.retrying(let attempt)): return "retrying(\(attempt)) @ \(recorded.time)"
        case .next(.value(_, let extra)): return "value(\(extra.statusCode ?? 0)) @ \(recorded.time)"
        case .next: return nil
        case .error(let error): return "error(\(retryErrorName(error))) @ \(recorded.time)"
        case .completed: return "completed @ \(recorded.time)"
        }
    }
}

/// A short name for an execution's error: its status, transport code or case.
func retryErrorName(_ error: Swift.Error) -> String {
    switch error as? LeashError {
    case .unacceptableStatusCode(let failure)?: return "\(failure.statusCode)"
    case .transport(let urlError)?: return "transport \(urlError.code.rawValue)"
    case .retryLimitExceeded?: return "retryLimitExceeded"
    case .timeout?: return "timeout"
    case .cancelled?: return "cancelled"
    default: return "\(error)"
    }
}

/// The error an observer recorded, if any.
func retryError<Value>(_ observer: TestableObserver<ExecutionEvent<Value>>) -> Swift.Error? {
    observer.events.lazy.compactMap { $0.value.error }.first
}

/// A transport that counts the subscriptions to (requests sent through) the transport it
/// wraps, and their disposals.
final class SharingCountingTransport: Transport, @unchecked Sendable {
    // @unchecked: the counts are behind `lock`; `base` is immutable.
    private let base: Transport
    private let lock = NSLock()
    private var subscribed = 0
    private var disposed = 0

    init(_ base: Transport) { self.base = base }

    /// Requests sent through the wrapped transport.
    var sendCount: Int { lock.withLock { subscribed } }
    /// Requests whose subscription ended (answered or cancelled).
    var disposeCount: Int { lock.withLock { disposed } }

    func send(_ request: URLRequest) -> Observable<TransportResponse> {
        base.send(request).do(
            onSubscribe: { [self] in lock.withLock { subscribed += 1 } },
            onDispose: { [self] in lock.withLock { disposed += 1 } })
    }
}
