import Foundation
import Leash
import LoopbackServer
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The body of the server's `GET /json`.
package struct LoopbackSample: Codable, Equatable, Sendable {
    /// The sample's id (1).
    package let id: Int
    /// The sample's name.
    package let name: String
    /// The sample's tags.
    package let tags: [String]

    /// A sample with these fields.
    package init(id: Int, name: String, tags: [String]) {
        self.id = id
        self.name = name
        self.tags = tags
    }
}

/// Base class of the integration tests: a started `LoopbackServer` per test, clients on
/// the default `URLSessionTransport`, and a check that every Rx resource a test created
/// is freed by its end.
open class LoopbackIntegrationCase: XCTestCase {
    /// The server of the running test.
    package private(set) var server: LoopbackServer!
    private var resourcesAtStart: Int32 = 0
    /// Where the clients of `makeClient` keep their transfers' files in progress: a folder
    /// of the test's own (made by Leash when first needed, removed when the test ends), not
    /// the temporary directory's `leash-transfers`, which other processes' tests share
    /// (what `transferFiles()` counts must be this test's files only).
    package private(set) var transfersFolder: URL!

    override open func setUpWithError() throws {
        try super.setUpWithError()
        server = try LoopbackServer()
        server.start()
        resourcesAtStart = Resources.total
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "leash-transfers-\(type(of: self))-\(UUID().uuidString)", isDirectory: true)
        transfersFolder = folder
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
    }

    override open func tearDown() {
        assertResourcesReturn(to: resourcesAtStart)
        server.stop()
        server = nil
        super.tearDown()
    }

    /// A client for the server (default transport unless `configure` sets one).
    package func makeClient(configure: (Manager.Builder) -> Manager.Builder = { $0 }) throws -> Client {
        Client(manager: try configure(Manager.Builder().url(server.baseURL).transferDirectory(transfersFolder)).build())
    }

    /// The names of the files in the test's folder of transfers in progress
    /// (`transfersFolder`), to check that the test left none behind (compare with the set
    /// before).
    package func transferFiles() -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: transfersFolder.path)) ?? [])
    }

    /// Runs one execution to its end and returns its first outcome.
    package func outcome<Serializer: ResponseSerializer>(
        _ client: Client, _ endpoint: Endpoint, _ serializer: Serializer, timeout: TimeInterval = 10
    ) throws -> Response<Serializer.SerializedObject> {
        try client.specExecute(endpoint, serializer: serializer).toBlockingResult(timeout: timeout)
    }

    /// The request as the server's `/echo` saw it.
    package func echo(_ client: Client, _ endpoint: Endpoint) throws -> LoopbackServer.EchoedRequest {
        try outcome(client, endpoint, DecodableResponseSerializer<LoopbackServer.EchoedRequest>()).justValue()
    }

    /// Waits until the server has counted `condition`, failing the test otherwise.
    package func waitForServer(
        _ description: String, timeout: TimeInterval = 5, file: StaticString = #filePath, line: UInt = #line,
        _ condition: (LoopbackServer.Counters) -> Bool
    ) {
        let held = server.waitUntil(timeout: timeout, condition)
        XCTAssertTrue(held, "server never saw: \(description); counters \(server.counters)", file: file, line: line)
    }
}

/// The transport error inside a response, or a test failure.
package func transportError<Value>(_ response: Response<Value>, file: StaticString = #filePath, line: UInt = #line)
    -> URLError?
{
    guard case .transport(let urlError) = response.error as? LeashError else {
        XCTFail("expected LeashError.transport, got \(response)", file: file, line: line)
        return nil
    }
    return urlError
}

/// Whether the process runs under ThreadSanitizer (its runtime is linked in).
package let specIsThreadSanitized: Bool = {
    guard let handle = dlopen(nil, RTLD_NOW) else { return false }
    defer { dlclose(handle) }
    return dlsym(handle, "__tsan_init") != nil
}()

/// Waits up to 2 s for `Resources.total` to come back to `baseline` (objects may be freed
/// on other threads a moment after the work finished), then asserts it did.
package func assertResourcesReturn(to baseline: Int32, file: StaticString = #filePath, line: UInt = #line) {
    let deadline = Date(timeIntervalSinceNow: 2)
    while Resources.total != baseline && Date() < deadline {
        RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.005))
    }
    XCTAssertEqual(Resources.total, baseline, "Rx resources still alive", file: file, line: line)
}

/// A value shared with callbacks on other threads; every access holds the lock.
package final class SpecLocked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    /// A box holding `value`.
    package init(_ value: Value) {
        stored = value
    }

    /// The value now.
    package var value: Value { lock.withLock { stored } }

    /// Runs `body` with the value, under the lock.
    @discardableResult
    package func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&stored) }
    }
}

extension Client {
    /// Executes `endpoint` once and waits for its (single) outcome; for tests only.
    package func specExecute<Serializer: ResponseSerializer>(_ endpoint: Endpoint, serializer: Serializer)
        -> SpecExecution<
            Serializer.SerializedObject
        >
    {
        SpecExecution(events: eventStream(endpoint, serializer: serializer))
    }
}

/// One execution, waited for with `toBlockingResult()`.
package struct SpecExecution<Value> {
    /// The execution's events.
    package let events: Observable<ExecutionEvent<Value>>

    /// An execution whose events are `events` (an execution's, with operators added).
    package init(events: Observable<ExecutionEvent<Value>>) {
        self.events = events
    }

    /// The first value as a `Response`, or the failure.
    package func toBlockingResult(timeout: TimeInterval = 10) throws -> Response<Value> {
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

// MARK: Values the stub-transport tests share

/// A user, as the stubbed API returns it.
package struct SpecUser: Codable, Equatable, Sendable {
    package let id: Int
    package let name: String

    /// A user.
    package init(id: Int, name: String) {
        self.id = id
        self.name = name
    }
}

/// User 1 and its JSON body.
package let specAlice = SpecUser(id: 1, name: "Alice")
/// User 2 and its JSON body.
package let specBob = SpecUser(id: 2, name: "Bob")
/// The body of `specAlice`.
package let specAliceJSON = #"{"id":1,"name":"Alice"}"#
/// The body of `specBob`.
package let specBobJSON = #"{"id":2,"name":"Bob"}"#

/// The app's authenticator, sending `Authorization: Bearer <token>`; the token may change
/// between attempts (a refresh replaces it).
package final class SpecAuthenticator: Authenticator, @unchecked Sendable {
    // @unchecked: the token is behind `lock`.
    package static let header = "Authorization"
    private let lock = NSLock()
    private var token: String?

    /// An authenticator holding `token` (`nil`: no credential).
    package init(token: String?) { self.token = token }

    /// The current token.
    package var accessToken: String? {
        get { lock.withLock { token } }
        set { lock.withLock { token = newValue } }
    }

    /// `Bearer <token>`, or `nil` without a token.
    package var authentication: String? { accessToken.map { "Bearer \($0)" } }
}
