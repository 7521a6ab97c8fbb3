import Foundation
import Leash
import LoopbackServer
import Rx
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
struct LoopbackSample: Codable, Equatable, Sendable {
    let id: Int
    let name: String
    let tags: [String]
}

/// Base class of the integration tests: a started `LoopbackServer` per test, clients on
/// the default `URLSessionTransport`, and a check that every Rx resource a test created
/// is freed by its end.
class LoopbackIntegrationCase: XCTestCase {
    /// The server of the running test.
    private(set) var server: LoopbackServer!
    private var resourcesAtStart: Int32 = 0

    override func setUpWithError() throws {
        try super.setUpWithError()
        server = try LoopbackServer()
        server.start()
        resourcesAtStart = Resources.total
    }

    override func tearDown() {
        assertResourcesReturn(to: resourcesAtStart)
        server.stop()
        server = nil
        super.tearDown()
    }

    /// A client for the server (default transport unless `configure` sets one).
    func makeClient(configure: (Manager.Builder) -> Manager.Builder = { $0 }) throws -> Client {
        Client(manager: try configure(Manager.Builder().url(server.baseURL)).build())
    }

    /// Runs one execution to its end and returns its first outcome.
    func outcome<Serializer: ResponseSerializer>(
        _ client: Client, _ endpoint: Endpoint, _ serializer: Serializer, timeout: TimeInterval = 10
    ) throws -> Response<Serializer.SerializedObject> {
        try client.specExecute(endpoint, serializer: serializer).toBlockingResult(timeout: timeout)
    }

    /// The request as the server's `/echo` saw it.
    func echo(_ client: Client, _ endpoint: Endpoint) throws -> LoopbackServer.EchoedRequest {
        try outcome(client, endpoint, DecodableResponseSerializer<LoopbackServer.EchoedRequest>()).justValue()
    }

    /// Waits until the server has counted `condition`, failing the test otherwise.
    func waitForServer(
        _ description: String, timeout: TimeInterval = 5, file: StaticString = #filePath, line: UInt = #line,
        _ condition: (LoopbackServer.Counters) -> Bool
    ) {
        let held = server.waitUntil(timeout: timeout, condition)
        XCTAssertTrue(held, "server never saw: \(description); counters \(server.counters)", file: file, line: line)
    }
}

/// The transport error inside a response, or a test failure.
func transportError<Value>(_ response: Response<Value>, file: StaticString = #filePath, line: UInt = #line)
    -> URLError?
{
    guard case .transport(let urlError) = response.error as? LeashError else {
        XCTFail("expected LeashError.transport, got \(response)", file: file, line: line)
        return nil
    }
    return urlError
}

/// Whether the process runs under ThreadSanitizer (its runtime is linked in).
let specIsThreadSanitized: Bool = {
    guard let handle = dlopen(nil, RTLD_NOW) else { return false }
    defer { dlclose(handle) }
    return dlsym(handle, "__tsan_init") != nil
}()
