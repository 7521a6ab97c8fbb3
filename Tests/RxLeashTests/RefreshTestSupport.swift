import Foundation
import LeashTestSupport
import LeashTesting
import RxLeash
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Helpers of the token refresh tests. Names start with `Refresh` so that they never clash
// with the helpers of other test files in this target.

/// Base class of the virtual-time refresh tests: fails a test that leaves `Rx` resources
/// alive once its executions have ended.
class RefreshTestCase: VirtualTimeTestCase {
    var authenticator: SpecAuthenticator!

    override func setUp() {
        super.setUp()
        authenticator = SpecAuthenticator(token: "stale")
    }

    override func tearDown() {
        authenticator = nil
        super.tearDown()
    }

    /// A client on the stub transport with virtual timers, configured by `configure`.
    func makeClient(_ configure: (Manager.Builder) -> Manager.Builder) throws -> Client {
        let builder = Manager.Builder().url("https://api.example.com/v1").transport(transport).scheduler(scheduler)
        return Client(manager: try configure(builder).build())
    }

    /// A refresher on the virtual clock whose refreshes follow `script`.
    func makeRefresher(
        _ script: RefreshScript, maximumRefreshes: Int = 3, window: TimeInterval = 60,
        excluding: @escaping @Sendable (Endpoint) -> Bool = { _ in false }
    ) -> TokenRefresher {
        let authenticator = self.authenticator!
        return TokenRefresher(
            authenticator: authenticator, maximumRefreshes: maximumRefreshes, window: window, scheduler: scheduler,
            excluding: excluding
        ) { script.next(storingIn: authenticator) }
    }

    /// `GET /v1/<path>` answers 401 after `delay` ticks, unless the request carries
    /// `Bearer <token>` for one of `acceptedTokens`: then the item, after `delay` ticks.
    func stubProtected(_ path: String, accepting acceptedTokens: Set<String>, delay: Int = 10) {
        let fullPath = "/v1/" + path
        transport.stub(path: fullPath, .status(401, delay: TimeInterval(delay)))
        transport.stub(
            matching: { request in
                guard request.url?.path == fullPath,
                    let header = request.value(forHTTPHeaderField: "Authorization"), header.hasPrefix("Bearer ")
                else { return false }
                return acceptedTokens.contains(String(header.dropFirst("Bearer ".count)))
            }, [.json(refreshItemJSON, delay: TimeInterval(delay))])
    }

    /// The Authorization headers the transport saw for `path`, in order.
    func credentialsSent(to path: String) -> [String] {
        transport.requests.filter { $0.url?.path == "/v1/" + path }
            .map { $0.value(forHTTPHeaderField: "Authorization") ?? "none" }
    }
}

/// The refreshes of a test, in order: each a cold observable on the test scheduler (so its
/// subscriptions are logged) and the token it stores when it completes.
final class RefreshScript: @unchecked Sendable {
    // @unchecked: `calls` is locked; the rest is immutable.
    let steps: [(stream: TestableObservable<Never>, token: String)]
    private let calls = SpecLocked(0)

    init(_ steps: [(stream: TestableObservable<Never>, token: String)]) {
        self.steps = steps
    }

    /// The next refresh: the next step's stream (the last one again once they run out),
    /// storing its token in `authenticator` when it completes.
    func next(storingIn authenticator: SpecAuthenticator) -> Completable {
        let index = calls.withLock { count -> Int in
            count += 1
            return count - 1
        }
        guard let step = steps.isEmpty ? nil : steps[min(index, steps.count - 1)] else {
            return .error(RefreshTestError.noScript)
        }
        let token = step.token
        return step.stream.do(onCompleted: { authenticator.accessToken = token }).asCompletable()
    }

    /// How many times a refresh was asked for.
    var callCount: Int { calls.value }

    /// Every subscription to the refresh streams, in order.
    var subscriptions: [Subscription] { steps.flatMap { $0.stream.subscriptions } }
}

/// Errors of the tests' own.
enum RefreshTestError: Swift.Error, Equatable {
    case revoked
    case noScript
}

struct RefreshItem: Codable, Equatable, Sendable {
    let id: Int
}

let refreshItemJSON = #"{"id":7}"#

/// An endpoint at `path`, GET.
struct RefreshEndpoint: Endpoint, @unchecked Sendable {
    // @unchecked: `parameters` is set once, by the test, and only read.
    var path: String
    var method: HTTPMethod = .get
    var timeout: TimeInterval?
    var parameters: Any?

    init(_ path: String, method: HTTPMethod = .get, parameters: Any? = nil, timeout: TimeInterval? = nil) {
        self.path = "/" + path
        self.method = method
        self.parameters = parameters
        self.timeout = timeout
    }
}

/// Subscriptions made at given virtual times, each recorded by its own observer.
final class RefreshSubscriptions {
    private let scheduler: TestScheduler
    private var disposables: [Disposable] = []

    init(_ scheduler: TestScheduler) {
        self.scheduler = scheduler
    }

    /// Subscribes `make()` at `time` (disposing it at `disposedAt`, if given).
    func subscribe<Element>(at time: Int, disposedAt: Int? = nil, _ make: @escaping () -> Observable<Element>)
        -> TestableObserver<Element>
    {
        let observer = scheduler.createObserver(Element.self)
        let slot = SerialDisposable()
        scheduler.scheduleAt(time) { [self] in
            slot.disposable = make().subscribe(observer)
            disposables.append(slot)
        }
        if let disposedAt { scheduler.scheduleAt(disposedAt) { slot.dispose() } }
        return observer
    }

    /// Runs the scheduler to its end, then disposes every subscription.
    func run() {
        scheduler.start()
        disposables.forEach { $0.dispose() }
        disposables.removeAll()
    }
}

/// A short, comparable name for an execution event (requests with their credential).
func refreshName<Value>(_ event: ExecutionEvent<Value>) -> String {
    switch event {
    case .requestPrepared(_, let attempt): return "prepared(\(attempt))"
    case .requestSent(let request, let attempt):
        return "sent(\(attempt), \(request.value(forHTTPHeaderField: "Authorization") ?? "none"))"
    case .responseReceived(let response, _, let attempt): return "received(\(response.statusCode), \(attempt))"
    case .retrying(let attempt): return "retrying(\(attempt))"
    case .uploadProgress(let progress):
        return "uploadProgress(\(progress.completedBytes)/\(progress.expectedBytes ?? -1))"
    case .downloadProgress(let progress):
        return "downloadProgress(\(progress.completedBytes)/\(progress.expectedBytes ?? -1))"
    case .value(let value, _): return "value(\(value))"
    }
}

/// What an observer recorded, as `name @ time` lines; errors by a short description.
/// Transfer progress is left out: these tests are about refreshing (progress has its own).
func refreshTimeline<Value>(_ observer: TestableObserver<ExecutionEvent<Value>>) -> [String] {
    observer.events.filter { $0.value.element?.transferProgress == nil }.map { recorded in
        switch recorded.value {
        case .next(let event): return "\(refreshName(event)) @ \(recorded.time)"
        case .error(let error): return "error(\(refreshErrorName(error))) @ \(recorded.time)"
        case .completed: return "completed @ \(recorded.time)"
        }
    }
}

/// The last lines of a timeline (the outcome), for tests that check only how it ended.
func refreshOutcome<Value>(_ observer: TestableObserver<ExecutionEvent<Value>>) -> [String] {
    Array(
        refreshTimeline(observer).filter { $0.hasPrefix("value") || $0.hasPrefix("error") || $0.hasPrefix("completed") }
    )
}

/// `401`, `authenticationFailed(<cause>)`, `timeout`, or the error's description.
func refreshErrorName(_ error: Swift.Error) -> String {
    guard let leashError = error as? LeashError else { return "\(error)" }
    switch leashError {
    case .unacceptableStatusCode(let failure): return "\(failure.statusCode)"
    case .authenticationFailed(let underlying):
        if let refreshError = underlying as? TokenRefreshError,
            case .refreshLimitReached(let maximum, let window) = refreshError
        {
            return "authenticationFailed(limit \(maximum) per \(Int(window)))"
        }
        return "authenticationFailed(\(underlying.map(refreshErrorName) ?? "nil"))"
    case .timeout: return "timeout"
    case .retryLimitExceeded(_, let lastError): return "retryLimitExceeded(\(lastError.map(refreshErrorName) ?? "nil"))"
    default: return "\(leashError)"
    }
}

/// A flag set at a virtual time and read after the run.
final class RefreshFlag: @unchecked Sendable {
    // @unchecked: behind `lock`.
    private let lock = NSLock()
    private var stored = false
    var value: Bool {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// A thread-safe list of what happened, in order.
final class RefreshLog: @unchecked Sendable {
    // @unchecked: the entries are behind `lock`.
    private let lock = NSLock()
    private var entries: [String] = []

    func append(_ entry: String) { lock.withLock { entries.append(entry) } }
    var all: [String] { lock.withLock { entries } }
}
