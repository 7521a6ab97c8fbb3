import Dispatch
import Foundation
import RxLeash
import RxTesting
import LeashTestSupport
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Helpers of the `client.rx` tests. Names start with `ClientRx` so that they never clash
// with the helpers of other test files in this target.

/// Base class of these tests: the shared leak check.
typealias ClientRxStubCase = LeakCheckedTestCase

// MARK: Values and endpoints

/// An endpoint whose parts a test can set.
struct ClientRxEndpoint: Endpoint {
    var path = "/users/1"
    var method: HTTPMethod = .get
    var timeout: TimeInterval?

    init(_ path: String = "/users/1", timeout: TimeInterval? = nil) {
        self.path = path
        self.timeout = timeout
    }
}

/// A typed endpoint: calls infer `SpecUser`.
struct ClientRxGetUser: TypedEndpoint {
    typealias Response = SpecUser
    let id: Int
    var path: String { "/users/\(id)" }
    var method: HTTPMethod { .get }
}

/// An error of the app's own, as interceptors produce.
enum ClientRxAppError: Swift.Error, Equatable {
    case unauthorized
}

/// Builds a client over `transport` on `https://api.example.com/v1`; `scheduler` makes
/// Leash's timers virtual.
func makeClientRxClient(
    _ transport: Transport, scheduler: SchedulerType? = nil, configure: (Manager.Builder) -> Void = { _ in }
) throws -> Client {
    let builder = Manager.Builder().url("https://api.example.com/v1").transport(transport)
    if let scheduler { builder.scheduler(scheduler) }
    configure(builder)
    return Client(manager: try builder.build())
}

// MARK: Interceptors

/// Answers from a "cache" first (`finish: false`), then lets the network answer.
final class ClientRxCacheInterceptor: ExecutionInterceptor, @unchecked Sendable {
    // @unchecked: immutable.
    let cached: Data

    init(_ json: String) { cached = Data(json.utf8) }

    func intercept(chain: InterceptorChain<Data>) {
        chain.complete(with: cached, finish: false)
        chain.proceed()
    }
}

/// Turns every failure into the app's own error.
final class ClientRxAppErrorInterceptor: FailureInterceptor, @unchecked Sendable {
    // @unchecked: stateless.
    func intercept(chain: InterceptorChain<Data>, error: Swift.Error) {
        chain.complete(with: ClientRxAppError.unauthorized)
    }
}

/// On a 503, waits `ticks` of `scheduler` and retries the execution.
struct ClientRxRetryAfterDelay: OperatorInterceptor {
    let scheduler: SchedulerType
    let ticks: Int

    func intercept(_ upstream: Observable<Response<Data>>, context: ExecutionContext) -> Observable<Response<Data>> {
        let scheduler = self.scheduler
        let ticks = self.ticks
        return upstream.flatMap { response -> Observable<Response<Data>> in
            guard response.statusCode == 503 else { return .just(response) }
            return Observable<Int>.timer(.seconds(ticks), scheduler: scheduler)
                .flatMap { _ in context.retry(after: response.error) }
        }
    }
}

/// Drops every outcome: the execution completes without a value.
struct ClientRxDropEverything: OperatorInterceptor {
    func intercept(_ upstream: Observable<Response<Data>>, context: ExecutionContext) -> Observable<Response<Data>> {
        upstream.filter { _ in false }
    }
}

// MARK: Recording

/// A short, comparable name for an execution event.
func clientRxName<Value>(_ event: ExecutionEvent<Value>) -> String {
    switch event {
    case .requestPrepared(_, let attempt): return "requestPrepared(\(attempt))"
    case .requestSent(_, let attempt): return "requestSent(\(attempt))"
    case .responseReceived(let response, _, let attempt): return "responseReceived(\(response.statusCode), \(attempt))"
    case .retrying(let attempt): return "retrying(\(attempt))"
    case .uploadProgress(let progress):
        return "uploadProgress(\(progress.completedBytes)/\(progress.expectedBytes ?? -1))"
    case .downloadProgress(let progress):
        return "downloadProgress(\(progress.completedBytes)/\(progress.expectedBytes ?? -1))"
    case .value(let value, let extra): return "value(\(value), \(extra.source))"
    }
}

/// What a test observer recorded, as `name @ time` lines, naming elements with `name`.
func clientRxTimeline<Element>(
    _ observer: TestableObserver<Element>, _ name: (Element) -> String = { "\($0)" }
) -> [String] {
    observer.events.map { recorded in
        switch recorded.value {
        case .next(let element): return "\(name(element)) @ \(recorded.time)"
        case .error(let error): return "error(\(error)) @ \(recorded.time)"
        case .completed: return "completed @ \(recorded.time)"
        }
    }
}

/// The error an observer recorded, if any.
func clientRxError<Element>(_ observer: TestableObserver<Element>) -> Swift.Error? {
    observer.events.lazy.compactMap { $0.value.error }.first
}
