import Foundation
import Leash
import LeashInterceptors
import LeashTesting
import Rx
import RxTesting
import LeashTestSupport
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Helpers of the logger, validator and cache tests. Names start with `CacheSpec` so that
// they never clash with the helpers of other test files in this target.

/// Base class of the stub-transport tests: a `TestScheduler`, a `StubTransport` on it, and
/// the leak check.
class CacheSpecStubTestCase: VirtualTimeTestCase {
    /// A client on `https://api.example.com/v1` over the stub transport, timers virtual.
    func makeClient(_ interceptors: [Interceptor], configure: (Manager.Builder) -> Void = { _ in }) throws -> Client {
        let builder = Manager.Builder().url(cacheSpecBaseURL).transport(transport).scheduler(scheduler)
            .interceptors(interceptors)
        configure(builder)
        return Client(manager: try builder.build())
    }
}

let cacheSpecBaseURL = "https://api.example.com/v1"

struct CacheSpecExpense: Codable, Equatable, Sendable {
    let id: Int
    let amount: Int
}

let cacheSpecOld = CacheSpecExpense(id: 1, amount: 10)
let cacheSpecNew = CacheSpecExpense(id: 1, amount: 25)
let cacheSpecOldJSON = #"{"id":1,"amount":10}"#
let cacheSpecNewJSON = #"{"id":1,"amount":25}"#

/// An endpoint whose every part a test can set.
struct CacheSpecEndpoint: Endpoint, @unchecked Sendable {
    // @unchecked: `parameters` is only ever a Sendable value in these tests.
    var path: String
    var method: HTTPMethod = .get
    var parameters: Any?
    var acceptableStatusCodes: Set<Int>?
    var jsonDecoder: JSONDecoder?

    init(
        _ path: String, method: HTTPMethod = .get, parameters: Any? = nil, acceptableStatusCodes: Set<Int>? = nil,
        jsonDecoder: JSONDecoder? = nil
    ) {
        self.path = path
        self.method = method
        self.parameters = parameters
        self.acceptableStatusCodes = acceptableStatusCodes
        self.jsonDecoder = jsonDecoder
    }
}

/// A `Logger` that keeps every line, for assertions.
final class CacheSpecRecordingLogger: Logger {
    struct Line: Equatable, CustomStringConvertible {
        let level: LogLevel
        let message: String
        var description: String { "\(level): \(message)" }
    }

    private let lines = LockedLines()

    func log(_ message: String, level: LogLevel) {
        lines.append(Line(level: level, message: message))
    }

    var all: [Line] { lines.all }
    var messages: [String] { all.map(\.message) }

    private final class LockedLines: Sendable {
        private let state = LockedState<[Line]>([])
        func append(_ line: Line) { state.withLock { $0.append(line) } }
        var all: [Line] { state.withLock { $0 } }
    }
}

/// A thread-safe list, for callbacks on other threads.
final class CacheSpecList<Element>: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private let lock = NSLock()
    private var elements: [Element] = []

    func append(_ element: Element) { lock.withLock { elements.append(element) } }
    var all: [Element] { lock.withLock { elements } }
}

/// A short name for an execution event: `value(<value>, <source>)`, `requestSent`…
func cacheSpecName<Value>(_ event: ExecutionEvent<Value>) -> String {
    switch event {
    case .requestPrepared: return "requestPrepared"
    case .requestSent: return "requestSent"
    case .responseReceived(let response, _, _): return "responseReceived(\(response.statusCode))"
    case .retrying(let attempt): return "retrying(\(attempt))"
    case .uploadProgress(let progress):
        return "uploadProgress(\(progress.completedBytes)/\(progress.expectedBytes ?? -1))"
    case .downloadProgress(let progress):
        return "downloadProgress(\(progress.completedBytes)/\(progress.expectedBytes ?? -1))"
    case .value(let value, let extra): return "value(\(value), \(extra.source))"
    }
}

/// What an observer recorded, as `name @ time` lines; errors by their description.
/// Transfer progress is left out: these tests are about caching (progress has its own).
func cacheSpecTimeline<Value>(_ observer: TestableObserver<ExecutionEvent<Value>>) -> [String] {
    observer.events.filter { $0.value.element?.transferProgress == nil }.map { recorded in
        switch recorded.value {
        case .next(let event): return "\(cacheSpecName(event)) @ \(recorded.time)"
        case .error(let error): return "error(\(error)) @ \(recorded.time)"
        case .completed: return "completed @ \(recorded.time)"
        }
    }
}

/// The error an observer recorded, if any.
func cacheSpecError<Value>(_ observer: TestableObserver<ExecutionEvent<Value>>) -> Swift.Error? {
    observer.events.lazy.compactMap { $0.value.error }.first
}

/// The values (with their details) an execution produced, waiting for its end; the
/// error that ended it, if any.
func cacheSpecRun<Value: Decodable>(
    _ client: Client, _ endpoint: Endpoint, as type: Value.Type, timeout: TimeInterval = 10
) -> (responses: [Response<Value>], error: Swift.Error?) {
    switch client.eventStream(endpoint, as: type).toBlocking(timeout: timeout).materialize() {
    case .completed(let events): return (events.compactMap(\.response), nil)
    case .failed(let events, let error): return (events.compactMap(\.response), error)
    }
}

/// A fresh, empty temporary directory (removed by the caller).
func cacheSpecTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("leash-cache-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
