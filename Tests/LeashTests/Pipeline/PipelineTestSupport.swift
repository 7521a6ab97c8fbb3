import Dispatch
import Foundation
import Leash
import Rx
import RxTesting
import LeashTestSupport
import LeashTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Shared helpers of the pipeline tests. Names start with `Pipeline` so that they never
// clash with the helpers of other test files in this target.

/// Base class of these tests: the shared leak check.
typealias PipelineTestCase = LeakCheckedTestCase

/// Base class of tests over a `StubTransport` in real time (its delays on a background
/// queue): a fresh transport per test, and clients over it; plus the leak check.
class RealTimeStubTestCase: PipelineTestCase {
    var transport: StubTransport!

    override func setUp() {
        super.setUp()
        transport = StubTransport()
    }

    override func tearDown() {
        transport = nil
        super.tearDown()
    }

    /// A client over `transport`, configured by `configure`.
    func client(configure: (Manager.Builder) -> Void = { _ in }) throws -> Client {
        try makePipelineClient(transport, configure: configure)
    }
}

/// Waits up to 5 s for `condition` (for facts reached on another thread without a
/// callback of their own, such as a request reaching the stub transport).
func waitForPipelineCondition(
    _ description: String, file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool
) {
    let deadline = Date().addingTimeInterval(5)
    while !condition() && Date() < deadline {
        RunLoop.current.run(until: Date().addingTimeInterval(0.002))
    }
    XCTAssertTrue(condition(), "timed out waiting for \(description)", file: file, line: line)
}

/// Serial queues that say which one a callback ran on.
extension XCTestCase {
    /// A serial queue marked `mark` under the returned key (`DispatchQueue.getSpecific(key:)`).
    static func markedQueue(_ mark: String) -> (DispatchQueue, DispatchSpecificKey<String>) {
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "leash.tests.\(mark)")
        queue.setSpecific(key: key, value: mark)
        return (queue, key)
    }
}

// MARK: Values and endpoints

/// An endpoint whose every part a test can set.
struct PipelineEndpoint: Endpoint {
    var path = "/users/1"
    var method: HTTPMethod = .get
    var parameters: Any?
    var headers: [String: String]?
    var acceptableStatusCodes: Set<Int>?
    var timeout: TimeInterval?
    var idleTimeout: TimeInterval?
}

/// A typed endpoint: calls infer `SpecUser`.
struct PipelineGetUser: TypedEndpoint {
    typealias Response = SpecUser
    let id: Int
    var path: String { "/users/\(id)" }
    var method: HTTPMethod { .get }
}

/// An error of the app's own, as interceptors produce.
enum PipelineAppError: Swift.Error, Equatable {
    case unauthorized
    case rejected(String)
}

/// Builds a client over `transport`; `scheduler` makes Leash's timers virtual.
func makePipelineClient(
    _ transport: Transport, scheduler: SchedulerType? = nil, configure: (Manager.Builder) -> Void = { _ in }
) throws -> Client {
    let builder = Manager.Builder().url("https://api.example.com/v1").transport(transport)
    if let scheduler { builder.scheduler(scheduler) }
    configure(builder)
    return Client(manager: try builder.build())
}

// MARK: Recording

/// A thread-safe list of what happened, in order.
final class PipelineLog: @unchecked Sendable {
    // @unchecked: the entries are behind `lock`.
    private let lock = NSLock()
    private var entries: [String] = []

    func append(_ entry: String) { lock.withLock { entries.append(entry) } }
    var all: [String] { lock.withLock { entries } }
    var count: Int { lock.withLock { entries.count } }
}

/// A thread-safe box for one value that a callback sets and the test reads.
final class PipelineBox<Value>: @unchecked Sendable {
    // @unchecked: the value is behind `lock`.
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    func mutate(_ change: (inout Value) -> Void) { lock.withLock { change(&stored) } }
}

/// A short, comparable name for an execution event.
func pipelineName<Value>(_ event: ExecutionEvent<Value>) -> String {
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

/// What a test observer recorded, as `name @ time` lines; errors by their description.
func pipelineTimeline<Value>(_ observer: TestableObserver<ExecutionEvent<Value>>) -> [String] {
    observer.events.map { recorded in
        switch recorded.value {
        case .next(let event): return "\(pipelineName(event)) @ \(recorded.time)"
        case .error(let error): return "error(\(error)) @ \(recorded.time)"
        case .completed: return "completed @ \(recorded.time)"
        }
    }
}

/// The error an observer recorded, if any.
func pipelineError<Value>(_ observer: TestableObserver<ExecutionEvent<Value>>) -> Swift.Error? {
    observer.events.lazy.compactMap { $0.value.error }.first
}

// MARK: Interceptors built from closures

/// How a test interceptor calls its chain back.
enum PipelineCallBack: @unchecked Sendable {
    // @unchecked: the scheduler is thread-safe.
    /// Before `intercept` returns.
    case inline
    /// From a global queue, after `intercept` returned.
    case globalQueue
    /// From a global queue after `seconds`, in real time.
    case globalQueueAfter(Double)
    /// After `ticks` of virtual time.
    case virtual(TestScheduler, ticks: Int)

    func run(_ action: @escaping @Sendable () -> Void) {
        switch self {
        case .inline: action()
        case .globalQueue: DispatchQueue.global().async(execute: action)
        case .globalQueueAfter(let seconds):
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: action)
        case .virtual(let scheduler, let ticks):
            _ = scheduler.scheduleRelative((), dueTime: .seconds(ticks)) { _ in
                action()
                return Disposables.create()
            }
        }
    }
}

/// Implements all five kinds: logs `"<kind> <name>"` when called and proceeds after
/// logging `"<kind> <name> proceeds"`, calling back as `callBack` says.
final class PipelineKindRecorder: ExecutionInterceptor, FailureInterceptor, SuccessInterceptor,
    CompletionInterceptor, SerializationInterceptor, @unchecked Sendable
{
    // @unchecked: immutable; the log is thread-safe.
    let name: String
    let log: PipelineLog
    let callBack: PipelineCallBack

    init(_ name: String, log: PipelineLog, callBack: PipelineCallBack) {
        self.name = name
        self.log = log
        self.callBack = callBack
    }

    private func handle(_ kind: String, proceed: @escaping @Sendable () -> Void) {
        log.append("\(kind) \(name)")
        let log = self.log
        let name = self.name
        callBack.run {
            log.append("\(kind) \(name) proceeds")
            proceed()
        }
    }

    func intercept(chain: InterceptorChain<Data>) {
        handle("execution") { chain.proceed() }
    }

    func intercept(chain: InterceptorChain<Data>, error: Swift.Error) {
        handle("failure") { chain.proceed() }
    }

    func intercept(chain: InterceptorChain<Data>, response: HTTPURLResponse, data: Data) {
        handle("success") { chain.proceed() }
    }

    func intercept(chain: InterceptorChain<Data>, response: Response<Data>) {
        handle("completion") { chain.proceed() }
    }

    func intercept<Serializer: ResponseSerializer>(
        chain: InterceptorChain<Serializer.SerializedObject>, response: Response<Data>,
        result: Result<Serializer.SerializedObject, Swift.Error>, serializer: Serializer
    ) {
        handle("serialization") { chain.proceed() }
    }
}

final class PipelineExecutionInterceptor: ExecutionInterceptor, @unchecked Sendable {
    // @unchecked: the closure is the test's; it guards what it touches.
    let body: (InterceptorChain<Data>) -> Void
    init(_ body: @escaping (InterceptorChain<Data>) -> Void) { self.body = body }
    func intercept(chain: InterceptorChain<Data>) { body(chain) }
}

final class PipelineFailureInterceptor: FailureInterceptor, @unchecked Sendable {
    // @unchecked: see `PipelineExecutionInterceptor`.
    let body: (InterceptorChain<Data>, Swift.Error) -> Void
    init(_ body: @escaping (InterceptorChain<Data>, Swift.Error) -> Void) { self.body = body }
    func intercept(chain: InterceptorChain<Data>, error: Swift.Error) { body(chain, error) }
}

final class PipelineSuccessInterceptor: SuccessInterceptor, @unchecked Sendable {
    // @unchecked: see `PipelineExecutionInterceptor`.
    let body: (InterceptorChain<Data>, HTTPURLResponse, Data) -> Void
    init(_ body: @escaping (InterceptorChain<Data>, HTTPURLResponse, Data) -> Void) { self.body = body }
    func intercept(chain: InterceptorChain<Data>, response: HTTPURLResponse, data: Data) {
        body(chain, response, data)
    }
}

final class PipelineCompletionInterceptor: CompletionInterceptor, @unchecked Sendable {
    // @unchecked: see `PipelineExecutionInterceptor`.
    let body: (InterceptorChain<Data>, Response<Data>) -> Void
    init(_ body: @escaping (InterceptorChain<Data>, Response<Data>) -> Void) { self.body = body }
    func intercept(chain: InterceptorChain<Data>, response: Response<Data>) { body(chain, response) }
}

/// A serialization interceptor for executions that decode `SpecUser`: `body` gets the
/// chain typed, or is not called (and the chain proceeds) for other value types.
final class PipelineUserSerializationInterceptor: SerializationInterceptor, @unchecked Sendable {
    // @unchecked: see `PipelineExecutionInterceptor`.
    let body: (InterceptorChain<SpecUser>, Response<Data>, Result<SpecUser, Swift.Error>, Any) -> Void
    init(
        _ body:
            @escaping (InterceptorChain<SpecUser>, Response<Data>, Result<SpecUser, Swift.Error>, Any) ->
            Void
    ) {
        self.body = body
    }

    func intercept<Serializer: ResponseSerializer>(
        chain: InterceptorChain<Serializer.SerializedObject>, response: Response<Data>,
        result: Result<Serializer.SerializedObject, Swift.Error>, serializer: Serializer
    ) {
        guard let typedChain = chain as? InterceptorChain<SpecUser>,
            let typedResult = result as? Result<SpecUser, Swift.Error>
        else {
            chain.proceed()
            return
        }
        body(typedChain, response, typedResult, serializer)
    }
}

/// Holds a chain that a test answers later (or never), and says when it arrived.
final class PipelineHeldChains: @unchecked Sendable {
    // @unchecked: the chains are behind `lock`.
    private let lock = NSLock()
    private var chains: [InterceptorChain<Data>] = []

    func hold(_ chain: InterceptorChain<Data>) { lock.withLock { chains.append(chain) } }
    var count: Int { lock.withLock { chains.count } }
    var last: InterceptorChain<Data>? { lock.withLock { chains.last } }
    func releaseAll() { lock.withLock { chains.removeAll() } }
}

/// Lets every serialized value through (so that the values forms take the composed
/// pipeline).
struct PassingSerializationInterceptor: SerializationInterceptor {
    func intercept<Serializer: ResponseSerializer>(
        chain: InterceptorChain<Serializer.SerializedObject>, response: Response<Data>,
        result: Result<Serializer.SerializedObject, Swift.Error>, serializer: Serializer
    ) {
        chain.proceed()
    }
}
