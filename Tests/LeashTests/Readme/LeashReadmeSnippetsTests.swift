// Every Swift snippet of Leash's README (reference/leash-readme.md), compiled against our
// types and, where it can run, run against `StubTransport`. Snippet code is copied as
// written, comments included; what had to change is listed here, and the README cites
// this list.
//
// Adaptations (snippet → change → why):
//  1. All snippets → every top-level declaration of this file is `private`
//     → other test files of the target must not see (or clash with) `APIEndpoint`,
//       `User`, `Error`, `LoggerInterceptor`…; inside this file they read as written.
//  2. Setup, Authenticator, Interceptors (`Manager.Builder()…build()`) → `try …build()`
//     → `build()` throws `LeashError.invalidURL` instead of crashing on a bad URL.
//  3. Authenticator, Interceptors (`Manager.Builder() { ... }`) → the `{ ... }`
//     placeholder becomes `.url("http://localhost:8080/api")` and `.transport(stub)`
//     → the README elides the configuration; the stub lets the snippet run.
//  4. Encoding (`enum APIEndpoint`) → a fifth case, `readAllUsers`, with its arms in
//     `method` (`.get`) and `parameters` (`nil`) → the other snippets execute
//     `APIEndpoint.readAllUsers`, which the README never declares.
//  5. Decoding, JSON serializer (`extension Client { func execute(_:completion:) }`) →
//     `try request(for: endpoint)` and `LeashError.encoding(reason:underlying:)` in place
//     of `request(for: endpoint)` and `Error.encoding(error)` → `request(for:)` throws
//     (the snippet's own `do`/`catch` expects it); the encoding error is Leash's own.
//  6. Authenticator (`static var header = "Authorization"`) → `static let header`
//     → Swift 6 rejects mutable global state (a `static var`) that is not isolated.
//  7. Interceptors, Execution + Completion (two `class LoggerInterceptor`) → one class
//     adopting both protocols, each method verbatim → two types cannot share a name in
//     one file; a logger that is both kinds is also what apps write.
//  8. Interceptors, Execution + Serialization (two `class CacheInterceptor`) → one class
//     adopting both, sharing the one `controller` → as 7; sharing the controller is what
//     makes the cache work (serialization stores, execution answers).
//  9. Serialization (`func intercept<T: DataResponseSerializerProtocol>`) →
//     `<T: ResponseSerializer>` → Leash's serializer protocol stands in for Alamofire's.
// 10. RxSwift (`client.rx.execute(_:type:)`, `usersClient.rx.readAll()`) → not here:
//     `Tests/RxLeashTests/ClientRxReadmeSnippetsTests.swift` compiles them against RxLeash
//     → this target does not link RxLeash.
// 11. Snippets whose body is a comment (`// Handle the response here.`) → a line after
//     the comment records what arrived → so that the test can check it.
// Whitespace follows the repository's swift-format rules (`200...299` for `200 ... 299`,
// two spaces before a trailing comment, `guard` continuation indents); nothing else differs.
// Not compiled: the installation snippets (a `Package.swift` manifest, a Podfile, a
// Cartfile), which are not code against the API. The app types the snippets assume but
// the README does not show (`User`, `APIError`, the app's `Error`, `Logger`,
// `CacheController`, `RefreshTokenManager`, `UsersClient`, `CustomInterceptor`) are
// test doubles declared below.

import Dispatch
import Foundation
import Leash
import LeashTesting
import Rx
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// MARK: - Snippet: Encoding (with adaptation 4)

private enum APIEndpoint {
    case first(QueryEncodable)
    case second([String: CustomStringConvertible])
    case third(Encodable)
    case fourth([String: Any])
    case readAllUsers
}

extension APIEndpoint: Endpoint {

    var path: String {
        "/it/does/not/matter/"
    }

    var method: HTTPMethod {
        switch self {
        case .first: return .get
        case .second: return .get
        case .third: return .post
        case .fourth: return .post
        case .readAllUsers: return .get
        }
    }

    var parameters: Any? {
        switch self {
        case let .first(request): return request  // This is `QueryEncodable`.
        case let .second(request): return request  // This is `[String: CustomStringConvertible]`.
        case let .third(request): return request  // This is `Encodable`.
        case let .fourth(request): return request  // This is `[String: Any]`.
        case .readAllUsers: return nil
        }
    }

}

// MARK: - Snippet: Decoding, JSON response serializer (with adaptations 1 and 5)

extension DataRequest {

    @discardableResult
    fileprivate func responseJSON(
        client: Client,
        endpoint: Endpoint,
        completion: @escaping (Response<Any>) -> Void
    ) -> Self {
        response(
            client: client,
            endpoint: endpoint,
            serializer: JSONResponseSerializer(),
            completion: completion
        )
    }

}

extension Client {

    @discardableResult
    fileprivate func execute(
        _ endpoint: Endpoint,
        completion: @escaping (Response<Any>) -> Void
    ) -> DataRequest? {
        do {
            return try request(for: endpoint)
                .responseJSON(
                    client: self,
                    endpoint: endpoint,
                    completion: completion
                )
        } catch {
            completion(
                .failure(
                    LeashError.encoding(reason: "the request could not be built", underlying: error)
                )
            )
            return nil
        }
    }

}

// MARK: - Snippet: Authenticator (with adaptation 6)

private class APIAuthenticator {

    var accessToken: String?

}

extension APIAuthenticator: Authenticator {

    static let header = "Authorization"

    var authentication: String? {
        guard let accessToken = accessToken
        else { return nil }
        return "Bearer \(accessToken)"
    }

}

// MARK: - Snippets: Interceptors, Execution and Completion loggers (adaptation 7)

private class LoggerInterceptor: ExecutionInterceptor, CompletionInterceptor {

    func intercept(
        chain: InterceptorChain<Data>
    ) {
        defer { chain.proceed() }

        guard let request = try? chain.request.convertible.asURLRequest(),
            let method = request.httpMethod,
            let url = request.url?.absoluteString
        else { return }

        Logger.shared.logDebug("👉👉👉 \(method) \(url)")
    }

    func intercept(
        chain: InterceptorChain<Data>,
        response: Response<Data>
    ) {
        defer { chain.proceed() }

        guard let request = try? chain.request.convertible.asURLRequest(),
            let method = request.httpMethod,
            let url = request.url?.absoluteString
        else { return }

        switch response {
        case .success:
            Logger.shared.logDebug("✔✔✔ \(method) \(url)")
        case .failure(let error):
            Logger.shared.logDebug("✖✖✖ \(method) \(url)")
            Logger.shared.logError(error)
        }
    }

}

// MARK: - Snippets: Interceptors, Execution and Serialization caches (adaptations 8, 9)

private class CacheInterceptor: ExecutionInterceptor, SerializationInterceptor {

    let controller = CacheController()

    func intercept(
        chain: InterceptorChain<Data>
    ) {
        // In this scenario, the cache controller decides whether to complete
        // the operation based on predefined policies.
        // This allows us to instruct the chain to either finish or continue the operation.
        defer { chain.proceed() }

        guard
            let cachedResponse = try? controller.cachedResponse(
                for: chain.endpoint
            )
        else { return }

        chain.complete(
            with: cachedResponse.data,
            finish: cachedResponse.finish
        )
    }

    func intercept<T: ResponseSerializer>(
        chain: InterceptorChain<T.SerializedObject>,
        response: Response<Data>,
        result: Result<T.SerializedObject, Swift.Error>,
        serializer: T
    ) {
        defer { chain.proceed() }

        guard let value = response.value,
            (try? result.get()) != nil
        else { return }

        controller.updateCacheIfNeeded(
            for: chain.endpoint,
            value: value
        )
    }

}

// MARK: - Snippet: Interceptors, Failure

private class ErrorValidator: FailureInterceptor {

    func intercept(
        chain: InterceptorChain<Data>,
        error: Swift.Error
    ) {
        defer { chain.proceed() }

        guard case Error.some = error
        else { return }

        chain.complete(
            with: Error.another
        )
    }

}

// MARK: - Snippets: Interceptors, Success

private class BodyValidator: SuccessInterceptor {

    func intercept(
        chain: InterceptorChain<Data>,
        response: HTTPURLResponse,
        data: Data
    ) {
        defer { chain.proceed() }

        guard
            let error = try? chain.client.manager.jsonDecoder.decode(
                APIError.self,
                from: data
            )
        else { return }

        chain.complete(
            with: Error.server(error)
        )
    }

}

private class ResponseValidator: SuccessInterceptor {

    func intercept(
        chain: InterceptorChain<Data>,
        response: HTTPURLResponse,
        data: Data
    ) {
        defer { chain.proceed() }

        let error: Error

        switch response.statusCode {
        case 200...299: return
        case 401, 403: error = .unauthorized
        default: error = .unknown
        }

        chain.complete(
            with: error
        )
    }

}

// MARK: - Snippet: Interceptors, Completion, AuthenticationValidator

private class AuthenticationValidator: CompletionInterceptor {

    func intercept(
        chain: InterceptorChain<Data>,
        response: Response<Data>
    ) {
        guard let error = response.error,
            case Error.unauthorized = error,
            let authenticator = chain.client.manager.authenticator as? APIAuthenticator
        else {
            chain.proceed()
            return
        }

        RefreshTokenManager.shared.refreshTokenIfNeeded { authenticated, accessToken in
            guard authenticated
            else {
                chain.complete(
                    with: Error.unableToAuthenticate
                )
                return
            }

            authenticator.accessToken = accessToken

            do {
                try chain.retry()
            } catch {
                // Typically, retrying does not throw an error.
                // However, for maximum safety and to handle unexpected scenarios,
                // we wrap it in a do-catch block.
                chain.complete(
                    with: Error.unableToRetry
                )
            }
        }
    }

}

// MARK: - App types the README assumes

private struct User: Codable, Equatable {
    let id: Int
    let name: String
}

private struct APIError: Decodable {
    let message: String
}

/// The app's own error type, named `Error` as in the README's snippets.
private enum Error: Swift.Error {
    case some
    case another
    case server(APIError)
    case unauthorized
    case unknown
    case unableToAuthenticate
    case unableToRetry
}

/// A client grouping the users calls, as the README's example project does.
private final class UsersClient: Client, @unchecked Sendable {
    @discardableResult
    func readAll(completion: @escaping (Response<[User]>) -> Void) -> DataRequest {
        execute(APIEndpoint.readAllUsers, completion: completion)
    }
}

private final class CustomInterceptor: ExecutionInterceptor {
    func intercept(chain: InterceptorChain<Data>) { chain.proceed() }
}

/// Records what the logger snippets log.
private final class Logger: @unchecked Sendable {
    // @unchecked: the lines are behind `lock`.
    static let shared = Logger()
    private let lock = NSLock()
    private var stored: [String] = []

    func logDebug(_ message: String) { lock.withLock { stored.append(message) } }
    func logError(_ error: Swift.Error) { lock.withLock { stored.append("error: \(error)") } }
    var lines: [String] { lock.withLock { stored } }
    func reset() { lock.withLock { stored.removeAll() } }
}

/// A cache of response bodies per endpoint, with the policy the README's
/// `CacheInterceptor` reads: `finish` ends the execution with the cached body.
private final class CacheController: @unchecked Sendable {
    // @unchecked: the entries are behind `lock`.
    struct CachedResponse {
        let data: Data
        let finish: Bool
    }

    struct Miss: Swift.Error {}

    private let lock = NSLock()
    private var entries: [String: Data] = [:]
    var finishWithCachedValue = false

    private func key(_ endpoint: Endpoint) -> String { "\(endpoint.method) \(endpoint.path)" }

    func cachedResponse(for endpoint: Endpoint) throws -> CachedResponse {
        let finish = finishWithCachedValue
        guard let data = lock.withLock({ entries[key(endpoint)] }) else { throw Miss() }
        return CachedResponse(data: data, finish: finish)
    }

    func updateCacheIfNeeded(for endpoint: Endpoint, value: Data) {
        lock.withLock { entries[key(endpoint)] = value }
    }
}

/// Refreshes the access token, answering later from another thread as a real one would.
private final class RefreshTokenManager: @unchecked Sendable {
    // @unchecked: the script is behind `lock`.
    static let shared = RefreshTokenManager()
    private let lock = NSLock()
    private var result: (Bool, String?) = (true, "fresh")
    private var count = 0

    func script(authenticated: Bool, accessToken: String?) {
        lock.withLock {
            result = (authenticated, accessToken)
            count = 0
        }
    }

    var refreshCount: Int { lock.withLock { count } }

    func refreshTokenIfNeeded(_ completion: @escaping (Bool, String?) -> Void) {
        let answer = lock.withLock { () -> (Bool, String?) in
            count += 1
            return result
        }
        let callback = ReadmeUncheckedCallback(completion)
        DispatchQueue.global().async { callback.call(answer.0, answer.1) }
    }
}

private struct ReadmeUncheckedCallback: @unchecked Sendable {
    // Called once, on another thread, as the app's refresh API would.
    let call: (Bool, String?) -> Void
    init(_ call: @escaping (Bool, String?) -> Void) { self.call = call }
}

/// A transport of the app's own that fails with the app's error (the README's failure
/// interceptor matches `Error.some`, which only an app transport can produce).
private struct FailingTransport: Transport {
    func send(_ request: URLRequest) -> Observable<TransportResponse> {
        .error(Error.some)
    }
}

// MARK: - Tests

final class LeashReadmeSnippetsTests: PipelineTestCase {
    private let usersJSON = #"[{"id":1,"name":"Alice"},{"id":2,"name":"Bob"}]"#
    private let users = [User(id: 1, name: "Alice"), User(id: 2, name: "Bob")]
    private var stub: StubTransport!

    override func setUp() {
        super.setUp()
        stub = StubTransport()
        Logger.shared.reset()
        RefreshTokenManager.shared.script(authenticated: true, accessToken: "fresh")
    }

    override func tearDown() {
        stub = nil
        super.tearDown()
    }

    /// The URL path every `APIEndpoint` resolves to under `http://localhost:8080/api`.
    private let endpointPath = "/api/it/does/not/matter/"

    private func stubAnyMethod(_ responses: StubResponse...) {
        let path = endpointPath
        stub.stub(matching: { $0.url?.absoluteString.hasSuffix(path) == true }, responses)
    }

    /// Waits for the first outcome a callback form delivers.
    private func firstOutcome<Value>(_ execute: (@escaping (Value) -> Void) -> Void) -> Value? {
        let done = expectation(description: "callback")
        done.assertForOverFulfill = false
        let received = PipelineBox<Value?>(nil)
        execute { value in
            if received.value == nil { received.value = value }
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        return received.value
    }

    // MARK: Setup

    func testSetup_detailedManager_buildsTheBaseURLFromItsParts() throws {
        let manager = try Manager.Builder()
            .scheme("http")  // Define the scheme.
            .host("localhost")  // Specify the host.
            .port(8080)  // Set the port.
            .path("api")  // Define the base path.
            .build()  // Build the manager.

        XCTAssertEqual(manager.baseURL.absoluteString, "http://localhost:8080/api")
    }

    func testSetup_quickManager_takesTheWholeURL() throws {
        let manager = try Manager.Builder()
            .url("http://localhost:8080/api")  // Set the entire URL in one go.
            .build()  // Build the manager.

        XCTAssertEqual(manager.baseURL.absoluteString, "http://localhost:8080/api")
    }

    func testSetup_clientExecute_decodesUsers() throws {
        stubAnyMethod(.json(usersJSON))
        let manager = try Manager.Builder().url("http://localhost:8080/api").transport(stub).build()

        let client = Client(
            manager: manager
        )

        let response = firstOutcome { (record: @escaping (Response<[User]>) -> Void) in
            client.execute(
                APIEndpoint.readAllUsers
            ) { (response: Response<[User]>) in
                // Handle the response here.
                record(response)
            }
        }

        XCTAssertEqual(response?.value, users)
        XCTAssertEqual(stub.requests.first?.url?.absoluteString, "http://localhost:8080/api/it/does/not/matter/")
    }

    func testSetup_usersClientReadAll_decodesUsers() throws {
        stubAnyMethod(.json(usersJSON))
        let usersClient = UsersClient(
            manager: try Manager.Builder().url("http://localhost:8080/api").transport(stub).build())

        let response = firstOutcome { (record: @escaping (Response<[User]>) -> Void) in
            usersClient.readAll { response in
                // Handle the response here.
                record(response)
            }
        }

        XCTAssertEqual(response?.value, users)
    }

    // MARK: Encoding

    private struct Search: QueryEncodable {
        let term: String
        let page: Int
    }

    private func sentRequest(for endpoint: APIEndpoint) throws -> URLRequest? {
        stub.reset()
        stubAnyMethod(.json("{}"))
        let client = Client(manager: try Manager.Builder().url("http://localhost:8080/api").transport(stub).build())
        _ = firstOutcome { (record: @escaping (Response<Any>) -> Void) in
            client.execute(endpoint) { (response: Response<Any>) in record(response) }
        }
        return stub.requests.first
    }

    func testEncoding_queryEncodable_goesToTheQuery() throws {
        let request = try sentRequest(for: .first(Search(term: "swift rx", page: 2)))

        XCTAssertEqual(request?.httpMethod, "GET")
        XCTAssertEqual(request?.url?.query, "page=2&term=swift%20rx")
        XCTAssertNil(request?.httpBody)
    }

    func testEncoding_stringConvertibleDictionary_goesToTheQuery() throws {
        let request = try sentRequest(for: .second(["b": 2, "a": "x&y"]))

        XCTAssertEqual(request?.url?.query, "a=x%26y&b=2")
    }

    func testEncoding_encodable_isAJSONBody() throws {
        let request = try sentRequest(for: .third(User(id: 3, name: "Carol")))

        XCTAssertEqual(request?.httpMethod, "POST")
        XCTAssertEqual(request?.value(forHTTPHeaderField: "Content-Type"), "application/json")
        XCTAssertEqual(
            request?.httpBody.flatMap { try? JSONDecoder().decode(User.self, from: $0) }, User(id: 3, name: "Carol"))
    }

    func testEncoding_anyDictionary_isAJSONBody() throws {
        let request = try sentRequest(for: .fourth(["name": "Dave", "tags": ["a", "b"]]))

        let body = request?.httpBody.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        XCTAssertEqual(body?["name"] as? String, "Dave")
        XCTAssertEqual(body?["tags"] as? [String], ["a", "b"])
    }

    // MARK: Decoding

    func testDecoding_typedResponse_isDecodedWithJSONDecoder() throws {
        stubAnyMethod(.json(usersJSON))
        let client = Client(manager: try Manager.Builder().url("http://localhost:8080/api").transport(stub).build())

        let response = firstOutcome { (record: @escaping (Response<[User]>) -> Void) in
            client.execute(
                APIEndpoint.readAllUsers
            ) { (response: Response<[User]>) in
                // On success, `response.value` will be of type `[User]`.
                record(response)
            }
        }

        XCTAssertEqual(response?.value, users)
    }

    func testDecoding_customJSONSerializer_givesJSONObjects() throws {
        stubAnyMethod(.json(usersJSON))
        let client = Client(manager: try Manager.Builder().url("http://localhost:8080/api").transport(stub).build())

        let response = firstOutcome { (record: @escaping (Response<Any>) -> Void) in
            client.execute(
                APIEndpoint.readAllUsers
            ) { (response: Response<Any>) in
                // On success, `response.value` will be of type `Any`.
                record(response)
            }
        }

        let objects = response?.value as? [[String: Any]]
        XCTAssertEqual(objects?.compactMap { $0["name"] as? String }, ["Alice", "Bob"])
        XCTAssertEqual(response?.source, .network)
    }

    func testDecoding_customJSONSerializer_requestThatCannotBeBuilt_failsWithEncodingError() throws {
        let client = Client(manager: try Manager.Builder().url("http://localhost:8080/api").transport(stub).build())
        let received = PipelineBox<Response<Any>?>(nil)

        // JSONSerialization cannot encode a `Date`.
        let request = client.execute(APIEndpoint.fourth(["when": Date()])) { (response: Response<Any>) in
            received.value = response
        }

        XCTAssertNil(request, "the snippet returns nil when the request cannot be built")
        guard case .encoding(let reason, let underlying)? = received.value?.error as? LeashError else {
            return XCTFail("expected .encoding, got \(String(describing: received.value))")
        }
        XCTAssertEqual(reason, "the request could not be built")
        guard case .encoding(let innerReason, _)? = underlying as? LeashError else {
            return XCTFail("expected the builder's own .encoding error inside, got \(String(describing: underlying))")
        }
        XCTAssertTrue(innerReason.contains("cannot be sent as JSON"), innerReason)
        XCTAssertTrue(stub.requests.isEmpty)
    }

    // MARK: Authenticator

    func testAuthenticator_registered_addsTheBearerHeader() throws {
        stubAnyMethod(.json(usersJSON))

        let authenticator = APIAuthenticator()
        let manager = try Manager.Builder()
            .url("http://localhost:8080/api").transport(stub)  // Include other necessary configurations here.
            .authenticator(authenticator)  // Register the authenticator.
            .build()  // Build the manager.

        authenticator.accessToken = "abc"
        let client = Client(manager: manager)
        _ = firstOutcome { (record: @escaping (Response<[User]>) -> Void) in
            client.execute(APIEndpoint.readAllUsers) { (response: Response<[User]>) in record(response) }
        }

        XCTAssertEqual(stub.requests.first?.value(forHTTPHeaderField: "Authorization"), "Bearer abc")
    }

    func testAuthenticator_withoutToken_sendsNoHeader() throws {
        stubAnyMethod(.json(usersJSON))
        let manager = try Manager.Builder().url("http://localhost:8080/api").transport(stub)
            .authenticator(APIAuthenticator()).build()

        _ = firstOutcome { (record: @escaping (Response<[User]>) -> Void) in
            Client(manager: manager).execute(APIEndpoint.readAllUsers) { (response: Response<[User]>) in
                record(response)
            }
        }

        XCTAssertNil(stub.requests.first?.value(forHTTPHeaderField: "Authorization"))
    }

    // MARK: Interceptors

    func testInterceptors_integrating_addsTheInterceptor() throws {
        let manager = try Manager.Builder()
            .url("http://localhost:8080/api").transport(stub)  // Include other necessary configurations here.
            .add(
                interceptor: CustomInterceptor()  // Insert your custom interceptor.
            )
            .build()

        XCTAssertTrue(manager.interceptors.first is CustomInterceptor)
    }

    func testLoggerInterceptor_logsRequestAndOutcome() throws {
        stubAnyMethod(.json(usersJSON), .text("nope", status: 500))
        let client = Client(
            manager: try Manager.Builder().url("http://localhost:8080/api").transport(stub)
                .add(interceptor: LoggerInterceptor()).build())

        for _ in 0..<2 {
            _ = firstOutcome { (record: @escaping (Response<[User]>) -> Void) in
                client.execute(APIEndpoint.readAllUsers) { (response: Response<[User]>) in record(response) }
            }
        }

        let url = "http://localhost:8080/api/it/does/not/matter/"
        let lines = Logger.shared.lines
        XCTAssertEqual(
            Array(lines.prefix(4)), ["👉👉👉 GET \(url)", "✔✔✔ GET \(url)", "👉👉👉 GET \(url)", "✖✖✖ GET \(url)"])
        XCTAssertEqual(lines.count, 5)
        XCTAssertTrue(lines.last?.hasPrefix("error: Unacceptable status code 500") == true, "\(lines)")
    }

    func testCacheInterceptor_finishFalse_answersFromCacheThenNetwork() throws {
        stubAnyMethod(.json(#"[{"id":1,"name":"Alice"}]"#), .json(usersJSON))
        let cache = CacheInterceptor()
        let client = Client(
            manager: try Manager.Builder().url("http://localhost:8080/api").transport(stub)
                .add(interceptor: cache).build())

        // The first execution fills the cache (serialization snippet).
        _ = firstOutcome { (record: @escaping (Response<[User]>) -> Void) in
            client.execute(APIEndpoint.readAllUsers) { (response: Response<[User]>) in record(response) }
        }
        // The second answers from it, then from the network (execution snippet).
        let done = expectation(description: "cached and network values")
        done.expectedFulfillmentCount = 2
        let received = PipelineBox<[Response<[User]>]>([])
        client.execute(APIEndpoint.readAllUsers) { (response: Response<[User]>) in
            received.mutate { $0.append(response) }
            done.fulfill()
        }
        wait(for: [done], timeout: 5)

        XCTAssertEqual(received.value.map(\.source), [.interceptor, .network])
        XCTAssertEqual(received.value.map { $0.value?.count }, [1, 2])
        XCTAssertEqual(stub.requests.count, 2)
    }

    func testCacheInterceptor_finishTrue_answersFromCacheOnly() throws {
        stubAnyMethod(.json(usersJSON))
        let cache = CacheInterceptor()
        let client = Client(
            manager: try Manager.Builder().url("http://localhost:8080/api").transport(stub)
                .add(interceptor: cache).build())
        _ = firstOutcome { (record: @escaping (Response<[User]>) -> Void) in
            client.execute(APIEndpoint.readAllUsers) { (response: Response<[User]>) in record(response) }
        }
        cache.controller.finishWithCachedValue = true

        let response = firstOutcome { (record: @escaping (Response<[User]>) -> Void) in
            client.execute(APIEndpoint.readAllUsers) { (response: Response<[User]>) in record(response) }
        }

        XCTAssertEqual(response?.value, users)
        XCTAssertEqual(response?.source, .interceptor)
        XCTAssertEqual(stub.requests.count, 1, "the second execution never reached the network")
    }

    func testErrorValidator_replacesTheAppTransportError() throws {
        let client = Client(
            manager: try Manager.Builder().url("http://localhost:8080/api").transport(FailingTransport())
                .add(interceptor: ErrorValidator()).build())

        let response = firstOutcome { (record: @escaping (Response<[User]>) -> Void) in
            client.execute(APIEndpoint.readAllUsers) { (response: Response<[User]>) in record(response) }
        }

        guard case Error.another? = response?.error else {
            return XCTFail("expected Error.another, got \(String(describing: response))")
        }
    }

    func testBodyValidator_turnsAnAPIErrorBodyIntoTheAppsError() throws {
        stubAnyMethod(.json(#"{"message":"quota exceeded"}"#))
        let client = Client(
            manager: try Manager.Builder().url("http://localhost:8080/api").transport(stub)
                .add(interceptor: BodyValidator()).build())

        let response = firstOutcome { (record: @escaping (Response<[User]>) -> Void) in
            client.execute(APIEndpoint.readAllUsers) { (response: Response<[User]>) in record(response) }
        }

        guard case Error.server(let apiError)? = response?.error else {
            return XCTFail("expected Error.server, got \(String(describing: response))")
        }
        XCTAssertEqual(apiError.message, "quota exceeded")
    }

    func testBodyValidator_letsARegularBodyThrough() throws {
        stubAnyMethod(.json(usersJSON))
        let client = Client(
            manager: try Manager.Builder().url("http://localhost:8080/api").transport(stub)
                .add(interceptor: BodyValidator()).build())

        let response = firstOutcome { (record: @escaping (Response<[User]>) -> Void) in
            client.execute(APIEndpoint.readAllUsers) { (response: Response<[User]>) in record(response) }
        }

        XCTAssertEqual(response?.value, users)
    }

    func testResponseValidator_classifiesStatusCodes() throws {
        let client = Client(
            manager: try Manager.Builder().url("http://localhost:8080/api").transport(stub)
                .add(interceptor: ResponseValidator()).build())
        var outcomes: [String] = []
        for status in [200, 401, 403, 404] {
            stub.reset()
            stubAnyMethod(.json(usersJSON, status: status))
            let response = firstOutcome { (record: @escaping (Response<[User]>) -> Void) in
                client.execute(APIEndpoint.readAllUsers) { (response: Response<[User]>) in record(response) }
            }
            switch response?.error {
            case nil: outcomes.append("\(status) ok")
            case Error.unauthorized?: outcomes.append("\(status) unauthorized")
            case Error.unknown?: outcomes.append("\(status) unknown")
            case let other?: outcomes.append("\(status) \(other)")
            }
        }

        XCTAssertEqual(outcomes, ["200 ok", "401 unauthorized", "403 unauthorized", "404 unknown"])
    }

    private func authenticatedClient(maximumRetryCount: Int = 3) throws -> (Client, APIAuthenticator) {
        let authenticator = APIAuthenticator()
        authenticator.accessToken = "expired"
        let manager = try Manager.Builder()
            .url("http://localhost:8080/api").transport(stub)
            .authenticator(authenticator)
            .maximumRetryCount(maximumRetryCount)
            .add(interceptor: ResponseValidator())
            .add(interceptor: AuthenticationValidator())
            .build()
        return (Client(manager: manager), authenticator)
    }

    func testAuthenticationValidator_refreshesAndRetriesWithTheNewToken() throws {
        stubAnyMethod(.status(401), .json(usersJSON))
        let (client, authenticator) = try authenticatedClient()

        let response = firstOutcome { (record: @escaping (Response<[User]>) -> Void) in
            client.execute(APIEndpoint.readAllUsers) { (response: Response<[User]>) in record(response) }
        }

        XCTAssertEqual(response?.value, users)
        XCTAssertEqual(authenticator.accessToken, "fresh")
        XCTAssertEqual(
            stub.requests.map { $0.value(forHTTPHeaderField: "Authorization") }, ["Bearer expired", "Bearer fresh"])
        XCTAssertEqual(RefreshTokenManager.shared.refreshCount, 1)
    }

    func testAuthenticationValidator_refreshFails_endsWithUnableToAuthenticate() throws {
        stubAnyMethod(.status(401))
        RefreshTokenManager.shared.script(authenticated: false, accessToken: nil)
        let (client, _) = try authenticatedClient()

        let response = firstOutcome { (record: @escaping (Response<[User]>) -> Void) in
            client.execute(APIEndpoint.readAllUsers) { (response: Response<[User]>) in record(response) }
        }

        guard case Error.unableToAuthenticate? = response?.error else {
            return XCTFail("expected Error.unableToAuthenticate, got \(String(describing: response))")
        }
        XCTAssertEqual(stub.requests.count, 1)
    }

    func testAuthenticationValidator_noRetryLeft_endsWithUnableToRetry() throws {
        stubAnyMethod(.status(401))
        let (client, _) = try authenticatedClient(maximumRetryCount: 1)

        let response = firstOutcome { (record: @escaping (Response<[User]>) -> Void) in
            client.execute(APIEndpoint.readAllUsers) { (response: Response<[User]>) in record(response) }
        }

        guard case Error.unableToRetry? = response?.error else {
            return XCTFail("expected Error.unableToRetry, got \(String(describing: response))")
        }
        XCTAssertEqual(stub.requests.count, 2, "one retry, then the limit")
    }

}
