import Foundation
import Leash
import LeashTesting
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
    var redirectPolicy: RedirectPolicy?

    init(
        _ path: String, method: HTTPMethod = .get, parameters: Any? = nil, headers: [String: String]? = nil,
        acceptableStatusCodes: Set<Int>? = nil, timeout: TimeInterval? = nil, jsonEncoder: JSONEncoder? = nil,
        jsonDecoder: JSONDecoder? = nil, redirectPolicy: RedirectPolicy? = nil
    ) {
        self.redirectPolicy = redirectPolicy
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

extension URLRequest {
    /// The URL's query as sent, still percent-encoded.
    var specEncodedQuery: String? {
        url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.percentEncodedQuery }
    }
}
