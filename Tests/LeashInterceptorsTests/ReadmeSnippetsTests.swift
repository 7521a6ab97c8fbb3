// The README's own snippets (the ones not taken from another test or from the tour),
// compiled and run against the loopback server. Each block between `// README:` and
// `// README end` (or each declaration marked `// README:`) is copied into README.md as
// it is; `ReadmeCodeBlocksTests` checks that the copies stay identical.
//
// In the README, `baseURL` is the API's URL; here it is the loopback server's. `print`
// is recorded (see `Printed` below) so that each test can check what the README prints.
// This target is the one that links every product (Leash, RxLeash, LeashInterceptors,
// RxTesting), and no other file of it declares `User`, `APIEndpoint`, `GetUser`…, so the
// declarations read here exactly as in the README.

import Foundation
import LeashInterceptors
import LeashTestSupport
import LoopbackServer
import RxLeash
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// MARK: - README: endpoints

struct User: Codable, Equatable, Sendable {
    let id: Int
    let name: String
}

enum APIEndpoint: Endpoint {
    case readAllUsers
    case searchUsers(term: String)
    case createUser(User)

    var path: String { "/users" }

    var method: HTTPMethod {
        switch self {
        case .readAllUsers, .searchUsers: return .get
        case .createUser: return .post
        }
    }

    var parameters: Any? {
        switch self {
        case .readAllUsers: return nil
        case .searchUsers(let term): return ["q": term]  // GET: sent in the query, ?q=…
        case .createUser(let user): return user  // Encodable: sent as a JSON body
        }
    }
}

struct GetUser: TypedEndpoint {
    typealias Response = User
    let id: Int
    var path: String { "/users/\(id)" }
    var method: HTTPMethod { .get }
}

// MARK: - README: authenticator

final class TokenStore: Authenticator, @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    static let header = "Authorization"
    private let lock = NSLock()
    private var stored: String?

    var token: String? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    var authentication: String? { token.map { "Bearer \($0)" } }
}

// MARK: - README: token endpoint

struct NewToken: Decodable, Sendable {
    let token: String
}

struct RefreshToken: TypedEndpoint {
    typealias Response = NewToken
    var path: String { "/token" }
    var method: HTTPMethod { .post }
}

// MARK: - README: serializer

struct CSVSerializer: ResponseSerializer {
    func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: Error?) throws -> [[String]] {
        if let error { throw error }
        let text = String(decoding: data ?? Data(), as: UTF8.self)
        return text.split(separator: "\n").map { line in line.split(separator: ",").map(String.init) }
    }
}

// MARK: - README: interceptors

struct Maintenance: Error {}

final class MaintenanceInterceptor: SuccessInterceptor {
    func intercept(chain: InterceptorChain<Data>, response: HTTPURLResponse, data: Data) {
        if response.statusCode == 503 {
            chain.complete(with: Maintenance())  // reaches the caller as it is
        } else {
            chain.proceed()
        }
    }
}

struct RetryOnceOn503: OperatorInterceptor {
    func intercept(_ upstream: Observable<Response<Data>>, context: ExecutionContext) -> Observable<Response<Data>> {
        upstream.flatMap { response -> Observable<Response<Data>> in
            response.statusCode == 503 && context.attempt == 1 ? context.retry() : .just(response)
        }
    }
}

// MARK: - README: changing the request

struct RequestSigner: RequestAdapter {
    let key: String

    func adapt(_ request: URLRequest, for context: ExecutionContext) throws -> URLRequest {
        var signed = request
        signed.setValue(httpDate(), forHTTPHeaderField: "X-Date")
        signed.setValue(signature(of: signed, key: key), forHTTPHeaderField: "X-Signature")
        return signed
    }
}

final class TracingClient: Client, @unchecked Sendable {
    // @unchecked: no state of its own (Client is immutable).
    override func urlRequest(for endpoint: Endpoint) throws -> URLRequest {
        var request = try super.urlRequest(for: endpoint)
        request.setValue(UUID().uuidString, forHTTPHeaderField: "X-Request-ID")
        return request
    }
}

/// The app's clock and signature, which the README's signer assumes.
private func httpDate() -> String { "Tue, 24 Nov 2026 19:00:00 GMT" }
private func signature(of request: URLRequest, key: String) -> String {
    "\(key):\(request.httpMethod ?? ""):\(request.url?.path ?? ""):\(request.value(forHTTPHeaderField: "X-Date") ?? "")"
}

/// `/echo`, which answers with the request as the server saw it.
struct EchoRequest: TypedEndpoint {
    typealias Response = LoopbackServer.EchoedRequest
    var path: String { "/echo" }
    var method: HTTPMethod { .get }
}

// MARK: - README: ready-made interceptors

struct APIProblem: Decodable, Error {
    let code: String
    let message: String
}

final class UsersCache: CacheInterceptor, @unchecked Sendable {
    // @unchecked: no state of its own (CacheInterceptor guards its registrations).
    init() {
        super.init(dataStore: InMemoryDataStore())
        register(policy: CachePolicy.CacheAndRenew(), to: "/users/[0-9]+")
    }
}

// README: http cache
final class HTTPUsersCache: CacheInterceptor, @unchecked Sendable {
    // @unchecked: no state of its own (CacheInterceptor guards its registrations).
    init() {
        super.init(dataStore: InMemoryDataStore())
        // Fresh as long as Cache-Control or Expires say (else 60 s), then revalidated.
        register(policy: CachePolicy.CacheElseNetwork(freshness: .http(defaultTimeToLive: 60)), to: "/users/[0-9]+")
        // Fresh for 5 minutes after it was stored, whatever the headers say.
        register(policy: CachePolicy.CacheAndRenew(freshness: .timeToLive(300)), to: "/users")
    }
}
// README end

// README: redirect policies
// Follow only within the API's own host, telling the next hop where it came from.
let withinTheAPI = RedirectPolicy.custom { redirect in
    guard redirect.proposedRequest.url?.host == redirect.request.url?.host else { return nil }
    var next = redirect.proposedRequest
    next.setValue("hop-\(redirect.hop)", forHTTPHeaderField: "X-Redirect-Hop")
    return next
}

struct StartCheckout: Endpoint {
    var path: String { "/checkout" }
    var method: HTTPMethod { .post }
    var redirectPolicy: RedirectPolicy? { .doNotFollow }  // the 303 is the answer
}
// README end

// README: metrics
func logConnectionReuse(_ response: Response<User>) {
    if let transaction = response.details?.metrics?.transactions.last {
        print("reused connection: \(transaction.isReusedConnection), \(transaction.responseBodyBytes) bytes")
    }
}
// README end

/// `GET /users/old`, which the redirect tests move.
struct MovedUsers: Endpoint {
    var path: String { "/users/old" }
    var method: HTTPMethod { .get }
}

// MARK: - What the snippets print

/// The lines the snippets print, in order; a test waits for a number of them.
private let printed = Printed()

/// The README's `print`, recorded (and still printed).
private func print(_ item: Any) {
    Swift.print(item)
    printed.append("\(item)")
}

private final class Printed: @unchecked Sendable {
    // @unchecked: `lines` is only touched under `lock`.
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    func reset() { lock.withLock { lines.removeAll() } }
    var all: [String] { lock.withLock { lines } }

    /// Waits until `count` lines were printed; returns them.
    func wait(for count: Int, timeout: TimeInterval = 10) -> [String] {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while all.count < count && Date() < deadline { usleep(2_000) }
        return all
    }
}

final class ReadmeSnippetsTests: LoopbackIntegrationCase {
    private let alice = User(id: 1, name: "Alice")
    private let bob = User(id: 2, name: "Bob")

    override func setUpWithError() throws {
        try super.setUpWithError()
        printed.reset()
        let everyone = [alice, bob]
        server.route("GET", "/users") { request in
            let term = request.queryValue("q")
            return .json(everyone.filter { term == nil || $0.name.contains(term ?? "") })
        }
        server.route("GET", "/users/1", response: .json(alice))
    }

    private var baseURL: String { server.baseURL.absoluteString }

    func testQuickStart() throws {
        let disposeBag = DisposeBag()
        let manager = try Manager.Builder().url(baseURL).build()

        // README: quick start
        let client = Client(manager: manager)

        client.rx.execute(GetUser(id: 1))  // an Observable<User>: subscribing sends GET /users/1
            .subscribe(onNext: { user in print(user.name) }, onError: { error in print(error) })
            .disposed(by: disposeBag)
        // README end

        XCTAssertEqual(printed.wait(for: 1), ["Alice"])
    }

    func testSetup() throws {
        let seen = SpecLocked<[String]>([])
        server.route("GET", "/users") { request in
            seen.withLock { $0.append(request.headers["Authorization"] ?? "-") }
            return .json([User(id: 1, name: "Alice")])
        }
        let tokens = TokenStore()
        tokens.token = "abc"

        // README: setup
        let manager = try Manager.Builder()
            .url(baseURL)  // "https://api.example.com/v1": scheme, host, port and base path
            .header("Accept", "application/json")
            .authenticator(tokens)  // adds `Authorization: Bearer <token>` to every request
            .timeout(15)  // seconds, for the whole execution, retries included
            .build()
        let client = Client(manager: manager)
        // README end

        XCTAssertEqual(manager.baseURL, server.baseURL)
        XCTAssertEqual(manager.timeout, 15)
        XCTAssertEqual(manager.defaultHeaders["Accept"], "application/json")
        let users = try client.rx.execute(APIEndpoint.readAllUsers, type: [User].self).toBlocking(timeout: 10).single()
        XCTAssertEqual(users, [alice])
        XCTAssertEqual(seen.value, ["Bearer abc"])
    }

    func testInvalidURL() {
        // README: invalid url
        do {
            _ = try Manager.Builder().url("api.example.com/v1").build()
        } catch {
            print(error)  // LeashError.invalidURL, saying what is missing
        }
        // README end

        XCTAssertEqual(printed.all.count, 1)
        XCTAssertTrue(printed.all.first?.contains("scheme") == true, "\(printed.all)")
    }

    func testExecutingThreeWays() async throws {
        let client = try makeClient()

        // README: three ways
        // A callback, called once per value, or once with the error:
        client.execute(APIEndpoint.readAllUsers) { (response: Response<[User]>) in
            switch response {
            case .success(let users, _): print("\(users.count) users")
            case .failure(let error): print(error)  // a LeashError that says what went wrong
            }
        }

        // async/await: the value, or a thrown error. Cancelling the task cancels the request.
        let user = try await client.execute(GetUser(id: 1))

        // Rx: a cold Observable. Subscribing sends the request; disposing cancels it.
        let users: Observable<[User]> = client.rx.execute(APIEndpoint.readAllUsers, type: [User].self)
        // README end

        XCTAssertEqual(printed.wait(for: 1), ["2 users"])
        XCTAssertEqual(user, alice)
        var received: [[User]] = []
        for try await value in users.values { received.append(value) }
        XCTAssertEqual(received, [[alice, bob]])
    }

    func testEndpointsEncodeQueryAndBody() async throws {
        server.route("POST", "/users") { request in .json(request.body, status: 201) }
        let client = try makeClient()

        let search = try client.urlRequest(for: APIEndpoint.searchUsers(term: "Al ice"))
        XCTAssertEqual(search.url?.query, "q=Al%20ice")
        XCTAssertNil(search.httpBody)
        let found = try await client.execute(APIEndpoint.searchUsers(term: "Bo"), as: [User].self)
        XCTAssertEqual(found, [bob])

        let create = try client.urlRequest(for: APIEndpoint.createUser(bob))
        XCTAssertEqual(create.value(forHTTPHeaderField: "Content-Type"), "application/json")
        let created = try await client.execute(APIEndpoint.createUser(bob), as: User.self)
        XCTAssertEqual(created, bob)
    }

    func testDecoderAndSerializers() async throws {
        server.route("GET", "/report", response: .text("a,1\nb,2"))
        struct Report: Endpoint {
            var path: String { "/report" }
            var method: HTTPMethod { .get }
        }

        // README: decoder
        let manager = try Manager.Builder()
            .url(baseURL)
            .jsonDecoder { $0.keyDecodingStrategy = .convertFromSnakeCase }
            .build()
        // README end
        let client = Client(manager: manager)

        guard case .convertFromSnakeCase = manager.jsonDecoder.keyDecodingStrategy else {
            return XCTFail("the decoder was not configured")
        }
        // README: serializers
        let text = try await client.execute(APIEndpoint.readAllUsers, serializer: StringResponseSerializer())
        let rows = try await client.execute(Report(), serializer: CSVSerializer())  // [["a", "1"], ["b", "2"]]
        // README end

        XCTAssertTrue(text.contains("Alice"))
        XCTAssertEqual(rows, [["a", "1"], ["b", "2"]])
    }

    func testErrors() async throws {
        server.route("GET", "/users/42", response: .json(["error": "not found"], status: 404))
        server.route("GET", "/users/7", response: .json(["id": "seven"]))
        let client = try makeClient()

        for id in [42, 7] {
            // README: errors
            do {
                let user = try await client.execute(GetUser(id: id))
                print(user.name)
            } catch LeashError.unacceptableStatusCode(let failure) where failure.statusCode == 404 {
                print("no such user")  // failure also has the headers, the body and the request
            } catch LeashError.decoding(let type, _, let bodyExcerpt) {
                print("not a \(type): \(bodyExcerpt)")
            } catch {
                print(error)  // offline, timed out, cancelled…: the LeashError says which
            }
            // README end
        }

        let lines = printed.all
        XCTAssertEqual(lines.first, "no such user")
        XCTAssertEqual(lines.count, 2)
        XCTAssertTrue(lines.last?.hasPrefix("not a User: ") == true, "\(lines)")
    }

    func testErrorDetailsOnAnyError() async throws {
        server.route("GET", "/users/401", response: .json(["error": "expired"], status: 401))
        server.route("GET", "/users/500", response: .json(["error": "down"], status: 500))
        server.route("GET", "/users/9", response: .json(["id": "nine"]))
        let client = try makeClient()

        for id in [401, 500, 9] {
            // README: error details
            do {
                _ = try await client.execute(GetUser(id: id))
            } catch {
                // `error` is `any Error`; `leashError` is it as a LeashError, nil for your own.
                if error.leashError?.isUnauthorized == true {
                    print("sign in again")
                } else if let status = error.leashError?.statusCode {
                    print("the server answered \(status)")
                } else if let cause = error.leashError?.underlyingError {
                    print("because: \(type(of: cause))")
                }
            }
            // README end
        }

        XCTAssertEqual(printed.all, ["sign in again", "the server answered 500", "because: DecodingError"])
    }

    func testTokenRefresh() throws {
        let tokenRequests = SpecLocked(0)
        server.route("POST", "/token") { _ in
            tokenRequests.withLock { $0 += 1 }
            return .json(["token": "fresh"])
        }
        let alice = self.alice
        server.route("GET", "/users/1") { request in
            request.headers["Authorization"] == "Bearer fresh" ? .json(alice) : .status(401)
        }

        // README: refresh
        let tokens = TokenStore()
        let tokenClient = Client(manager: try Manager.Builder().url(baseURL).build())
        let refresher = TokenRefresher(authenticator: tokens) {
            // Get a new token, and store it where the authenticator reads it.
            tokenClient.rx.single(RefreshToken()).do(onSuccess: { tokens.token = $0.token }).asCompletable()
        }
        let client = Client(manager: try Manager.Builder().url(baseURL).refreshing(with: refresher).build())
        // README end

        tokens.token = "expired"
        let users = try Observable.merge((1...10).map { _ in client.rx.execute(GetUser(id: 1)) })
            .toBlocking(timeout: 10).toArray()
        XCTAssertEqual(users, Array(repeating: alice, count: 10))
        XCTAssertEqual(tokenRequests.value, 1, "ten 401s, one refresh")
        XCTAssertEqual(tokens.token, "fresh")
    }

    func testCustomInterceptors() async throws {
        server.routeSequence(method: "GET", path: "/users/1", [.status(503), .json(alice)])
        let retrying = try makeClient { $0.add(interceptor: RetryOnceOn503()) }
        let user = try await retrying.execute(GetUser(id: 1))
        XCTAssertEqual(user, alice)
        XCTAssertEqual(server.requestCount, 2, "503, then a retry")

        server.route("GET", "/users/1", response: .status(503))
        // README: add interceptor
        let manager = try Manager.Builder()
            .url(baseURL)
            .add(interceptor: MaintenanceInterceptor())
            .build()
        // README end
        do {
            _ = try await Client(manager: manager).execute(GetUser(id: 1))
            XCTFail("a 503 is the app's Maintenance error")
        } catch is Maintenance {
        }
    }

    func testChangingTheRequest() async throws {
        let apiKey = "k1"
        // README: adapters
        let signedManager = try Manager.Builder()
            .url(baseURL)
            .add(interceptor: RequestSigner(key: apiKey))
            .adapt { request, context in
                var request = request
                request.setValue(String(context.attempt), forHTTPHeaderField: "X-Attempt")
                return request
            }
            .build()
        // README end
        let signed = try await Client(manager: signedManager).execute(EchoRequest())
        XCTAssertEqual(signed.headers["x-date"], "Tue, 24 Nov 2026 19:00:00 GMT")
        XCTAssertEqual(signed.headers["x-signature"], "k1:GET:/echo:Tue, 24 Nov 2026 19:00:00 GMT")
        XCTAssertEqual(signed.headers["x-attempt"], "1")

        let traced = try await TracingClient(manager: signedManager).execute(EchoRequest())
        XCTAssertEqual(traced.headers["x-request-id"]?.count, 36, "the override's header")
        XCTAssertEqual(traced.headers["x-attempt"], "1", "and what the manager adds")
    }

    func testRedirects() async throws {
        server.route("GET", "/users/old", response: LoopbackResponse(status: 301, headers: ["Location": "/echo"]))
        server.route("POST", "/checkout", response: LoopbackResponse(status: 303, headers: ["Location": "/orders/7"]))
        // README: redirects
        let manager = try Manager.Builder()
            .url(baseURL)
            .redirects(.follow(limit: 5))  // by default .follow: up to 20 hops
            .build()
        // README end
        let client = Client(manager: manager)
        let moved = MovedUsers()
        let followed: LoopbackServer.EchoedRequest = try await client.execute(moved)
        XCTAssertEqual(followed.path, "/echo")

        let guarded = Client(manager: try Manager.Builder().url(baseURL).redirects(withinTheAPI).build())
        let hop: LoopbackServer.EchoedRequest = try await guarded.execute(moved)
        XCTAssertEqual(hop.headers["x-redirect-hop"], "hop-1")

        do {
            let _: Data = try await client.execute(StartCheckout())
            XCTFail("the 303 is not an acceptable status")
        } catch {
            XCTAssertEqual(error.leashError?.statusCode, 303)
            guard case .unacceptableStatusCode(let failure)? = error.leashError else { return XCTFail("\(error)") }
            XCTAssertEqual(failure.headers["Location"], "/orders/7")
        }
        XCTAssertEqual(server.requestCount, 5, "two hops each, then the 303 alone")
    }

    #if canImport(Security)
        func testServerTrust() throws {
            let certificateData = Data()
            // README: server trust
            // Apple platforms: the public key of the certificate the API's server presents.
            let pinned = ServerTrustPolicy.pinnedPublicKeys(ServerTrustPolicy.publicKeys(of: [certificateData]))
            let pinnedTransport = URLSessionTransport(serverTrust: ["api.example.com": pinned])
            // README end
            XCTAssertEqual(
                ServerTrustPolicy.publicKeys(of: [certificateData]), [], "data that is not a certificate is skipped")
            XCTAssertNotNil(pinnedTransport.configuration.httpCookieStorage)
        }
    #endif

    func testMetrics() throws {
        #if canImport(FoundationNetworking)
            let measures = Manager.defaultTransport is HTTP1Transport
        #else
            let measures = true
        #endif
        let client = try makeClient()
        let received = expectation(description: "the callback ran")
        client.execute(GetUser(id: 1)) { (response: Response<User>) in
            logConnectionReuse(response)
            XCTAssertEqual(response.value, User(id: 1, name: "Alice"))
            // The default transport measures every request (`HTTP1Transport` on Linux),
            // except URLSession on Linux (the Apple-branches build's default).
            if measures {
                XCTAssertNotNil(response.details?.metrics)
            } else {
                XCTAssertNil(response.details?.metrics, "FoundationNetworking measures nothing")
            }
            received.fulfill()
        }
        wait(for: [received], timeout: 10)
        if measures {
            XCTAssertEqual(printed.all.first?.hasPrefix("reused connection: "), true)
        } else {
            XCTAssertEqual(printed.all, [])
        }
    }

    func testReadyMadeInterceptors() throws {
        server.routeSequence(
            method: "GET", path: "/users/1", [.json(User(id: 1, name: "Al")), .json(alice)])
        server.route(
            "GET", "/users/2", response: .json(["code": "gone", "message": "User 2 was deleted"], status: 410))

        // README: ready-made
        let manager = try Manager.Builder()
            .url(baseURL)
            .add(interceptor: LoggerInterceptor())  // 👉👉👉 GET …, then ✔✔✔ or ✖✖✖ and the error
            .add(interceptor: BodyValidator<APIProblem>())  // a non-2xx body that decodes: that error
            .add(interceptor: UsersCache())
            .add(interceptor: RetryInterceptor(policy: .default))  // 408, 429, 500, 502–504, transient URLErrors
            .build()
        let client = Client(manager: manager)
        // README end

        // The first execution fills the cache.
        let first = try client.rx.execute(GetUser(id: 1)).toBlocking(timeout: 10).toArray()
        XCTAssertEqual(first.map(\.name), ["Al"])
        let disposeBag = DisposeBag()

        // README: cached
        client.rx.response(GetUser(id: 1))
            .subscribe(onNext: { response in
                // CacheAndRenew: the stored value at once, then the server's.
                print("\(response.source == .cache ? "cached" : "fresh"): \(response.value.name)")
            })
            .disposed(by: disposeBag)
        // README end

        XCTAssertEqual(printed.wait(for: 2), ["cached: Al", "fresh: Alice"])
        do {
            _ = try client.rx.execute(GetUser(id: 2)).toBlocking(timeout: 10).toArray()
            XCTFail("410 is an APIProblem")
        } catch let problem as APIProblem {
            XCTAssertEqual(problem.code, "gone")
        }
    }

    func testHTTPCache() throws {
        server.route("GET", "/users/1") { request in
            // The ETag the cache stored comes back: unchanged, no body.
            if request.headers["If-None-Match"] == "\"7\"" { return LoopbackResponse(status: 304) }
            var response = LoopbackResponse.json(User(id: 1, name: "Alice"))
            response.headers["ETag"] = "\"7\""
            response.headers["Cache-Control"] = "max-age=0"
            return response
        }
        let client = Client(manager: try Manager.Builder().url(baseURL).add(interceptor: HTTPUsersCache()).build())

        let first = try client.rx.response(GetUser(id: 1)).toBlocking(timeout: 10).toArray()
        let second = try client.rx.response(GetUser(id: 1)).toBlocking(timeout: 10).toArray()

        XCTAssertEqual(first.map(\.value), [alice])
        XCTAssertEqual(second.map(\.value), [alice], "the stored body, confirmed by a 304")
        XCTAssertEqual(second.map(\.source), [.cache])
        XCTAssertEqual(second.map(\.statusCode), [304])
        XCTAssertEqual(server.requestCount, 2)
    }

    func testLoggingVerbosityAndRedaction() throws {
        // README: logging verbosity
        let manager = try Manager.Builder()
            .url(baseURL)
            .add(interceptor: LoggerInterceptor(verbosity: .headers, redacting: HeaderRedaction(also: ["X-Api-Key"])))
            .build()
        // README end

        let logger = try XCTUnwrap(manager.interceptors.first as? LoggerInterceptor)
        XCTAssertEqual(logger.verbosity, .headers)
        for secret in ["Authorization", "proxy-authorization", "Cookie", "Set-Cookie", "x-api-key"] {
            XCTAssertTrue(logger.redaction.hides(secret), secret)
        }
        XCTAssertFalse(logger.redaction.hides("Accept"))
    }

    func testCURLDescription() throws {
        let client = try makeClient {
            $0.header("Accept", "application/json").authenticator(SpecAuthenticator(token: "t"))
        }

        // README: curl
        let request = try client.urlRequest(for: APIEndpoint.readAllUsers)
        print(request.cURLDescription)  // curl -v -X GET \ … 'https://api.example.com/v1/users'
        // README end

        XCTAssertEqual(
            printed.all,
            [
                """
                curl -v -X GET \\
                  -H 'Accept: application/json' \\
                  -H 'Authorization: ***' \\
                  -H 'User-Agent: Leash/1.0' \\
                  '\(baseURL)/users'
                """
            ])
    }

    func testAsyncAwait() async throws {
        server.route("GET", "/users", response: LoopbackResponse.json([alice]).delayed(by: 5))
        let client = try makeClient()

        // README: cancel
        let task = Task { try await client.execute(APIEndpoint.readAllUsers, as: [User].self) }
        task.cancel()  // cancels the request; the task throws LeashError.cancelled
        // README end

        do {
            _ = try await task.value
            XCTFail("a cancelled task throws")
        } catch LeashError.cancelled {
        }

        server.route("GET", "/users", response: .json([alice, bob]))
        // README: values
        for try await users in client.rx.execute(APIEndpoint.readAllUsers, type: [User].self).values {
            print("\(users.count) users")  // each value: twice when a cache answers first
        }
        // README end
        XCTAssertEqual(printed.all, ["2 users"])
    }
}
