import Foundation
import Leash
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An endpoint whose every property a test sets.
///
/// `@unchecked Sendable`: tests create it once and only read it afterwards, from any thread.
struct SpecEndpoint: Endpoint, @unchecked Sendable {
    var path: String
    var method: HTTPMethod = .get
    var parameters: Any?
    var headers: [String: String]?
    var acceptableStatusCodes: Set<Int>?
    var timeout: TimeInterval?
    var jsonEncoder: JSONEncoder?
    var jsonDecoder: JSONDecoder?

    init(
        _ path: String, method: HTTPMethod = .get, parameters: Any? = nil, headers: [String: String]? = nil,
        acceptableStatusCodes: Set<Int>? = nil, timeout: TimeInterval? = nil, jsonEncoder: JSONEncoder? = nil,
        jsonDecoder: JSONDecoder? = nil
    ) {
        self.path = path
        self.method = method
        self.parameters = parameters
        self.headers = headers
        self.acceptableStatusCodes = acceptableStatusCodes
        self.timeout = timeout
        self.jsonEncoder = jsonEncoder
        self.jsonDecoder = jsonDecoder
    }
}

/// Builds the `URLRequest` Leash would send for `endpoint`, with a manager at `base`
/// configured by `configure` (no request is sent: the transport is a stub).
func specRequest(
    _ endpoint: Endpoint, base: String = "http://example.com/api",
    configure: (Manager.Builder) -> Manager.Builder = { $0 }
) throws -> URLRequest {
    let manager = try configure(Manager.Builder().url(base).transport(StubTransport())).build()
    return try Client(manager: manager).urlRequest(for: endpoint)
}

/// The reason and underlying error of the `LeashError.encoding` that `body` throws;
/// fails the test (and returns nil) for anything else.
func specEncodingError(
    file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void
) -> (reason: String, underlying: Swift.Error?)? {
    do {
        try body()
        XCTFail("expected LeashError.encoding, nothing was thrown", file: file, line: line)
    } catch LeashError.encoding(let reason, let underlying) {
        return (reason, underlying)
    } catch {
        XCTFail("expected LeashError.encoding, got \(error)", file: file, line: line)
    }
    return nil
}

/// Waits up to 2 s for `Resources.total` to come back to `baseline` (objects may be freed
/// on other threads a moment after the work finished), then asserts it did.
func assertResourcesReturn(to baseline: Int32, file: StaticString = #filePath, line: UInt = #line) {
    let deadline = Date(timeIntervalSinceNow: 2)
    while Resources.total != baseline && Date() < deadline {
        RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.005))
    }
    XCTAssertEqual(Resources.total, baseline, "Rx resources still alive", file: file, line: line)
}

/// A value shared with callbacks on other threads; every access holds the lock.
final class SpecLocked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value { lock.withLock { stored } }

    @discardableResult
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&stored) }
    }
}

extension URLRequest {
    /// The URL's query as sent, still percent-encoded.
    var specEncodedQuery: String? {
        url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.percentEncodedQuery }
    }
}

extension Client {
    /// Executes `endpoint` once and waits for its (single) outcome; for tests only.
    func specExecute<Serializer: ResponseSerializer>(_ endpoint: Endpoint, serializer: Serializer) -> SpecExecution<
        Serializer.SerializedObject
    > {
        SpecExecution(events: execution(endpoint, serializer: serializer))
    }
}

/// One execution, waited for with `toBlockingResult()`.
struct SpecExecution<Value> {
    let events: Observable<ExecutionEvent<Value>>

    /// The first value as a `Response`, or the failure.
    func toBlockingResult(timeout: TimeInterval = 10) throws -> Response<Value> {
        switch events.toBlocking(timeout: timeout).materialize() {
        case .completed(let elements):
            guard let response = elements.lazy.compactMap(\.response).first else {
                throw LeashError.invalidResponse(reason: "no value")
            }
            return response
        case .failed(let elements, let error):
            return elements.lazy.compactMap(\.response).first ?? .failure(error)
        }
    }
}
