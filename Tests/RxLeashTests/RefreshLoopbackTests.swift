import Foundation
import LeashTestSupport
import LoopbackServer
import RxLeash
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The token refresh against a real server: `/items` answers 401 unless the request
/// carries the server's current token; `POST /token` issues a new one (and counts).
final class RefreshLoopbackTests: LoopbackIntegrationCase {
    private struct TokenBody: Codable, Sendable {
        let token: String
    }

    private struct TokenEndpoint: Endpoint {
        var path: String { "/token" }
        var method: HTTPMethod { .post }
    }

    /// The server's side: its current token and how many were issued.
    private final class TokenServer: Sendable {
        let current = SpecLocked("t0")
        let issued = SpecLocked(0)
        let itemRequests = SpecLocked(0)
        let rejected = SpecLocked(0)
        /// Holds `/items` answers until every request of a storm has been started, so that
        /// all of them are built with the expired token (URLSession sends a few at a time).
        let hold = HandlerGate()
    }

    /// `challenge`: the `WWW-Authenticate` header `/items`'s 401 carries, if any.
    private func installRoutes(tokenStatus: Int = 200, challenge: String? = nil) -> TokenServer {
        let tokens = TokenServer()
        server.route("GET", "/items") { request in
            tokens.hold.waitWhileClosed()
            tokens.itemRequests.withLock { $0 += 1 }
            guard request.headers["Authorization"] == "Bearer \(tokens.current.value)" else {
                tokens.rejected.withLock { $0 += 1 }
                guard let challenge else { return .status(401) }
                var response = LoopbackResponse.status(401)
                response.headers.add(name: "WWW-Authenticate", value: challenge)
                return response
            }
            return .json(Data(refreshItemJSON.utf8))
        }
        server.route("POST", "/token") { _ in
            guard tokenStatus == 200 else { return .text("refresh token revoked", status: tokenStatus) }
            let token = tokens.issued.withLock { issued -> String in
                issued += 1
                return "t\(issued)"
            }
            tokens.current.withLock { $0 = token }
            return .json(TokenBody(token: token))
        }
        return tokens
    }

    /// The refresh: `POST /token` through `client`, storing the token in `authenticator`.
    private static func refresh(
        through client: @escaping @Sendable () -> Client?, into authenticator: SpecAuthenticator
    )
        -> Completable
    {
        guard let client = client() else { return .error(RefreshTestError.noScript) }
        return client.eventStream(TokenEndpoint(), as: TokenBody.self)
            .compactMap(\.value)
            .do(onNext: { authenticator.accessToken = $0.token })
            .asCompletable()
    }

    /// Starts `count` executions of `/items` at once with the callback API (the server
    /// answers none before all have started); returns their outcomes once all have ended.
    private func storm(_ client: Client, count: Int, tokens: TokenServer) -> [Response<RefreshItem>] {
        let outcomes = SpecLocked<[Response<RefreshItem>]>([])
        let done = expectation(description: "\(count) outcomes")
        done.expectedFulfillmentCount = count
        tokens.hold.close()
        for _ in 0..<count {
            client.execute(RefreshEndpoint("items")) { (response: Response<RefreshItem>) in
                outcomes.withLock { $0.append(response) }
                done.fulfill()
            }
        }
        tokens.hold.open()
        wait(for: [done], timeout: 180)
        return outcomes.value
    }

    /// An authenticator holding an expired token, and a refresher that asks `POST /token`
    /// (through a client of its own) for a new one.
    private func expiredCredentialRefresher() throws -> (SpecAuthenticator, TokenRefresher) {
        let authenticator = SpecAuthenticator(token: "expired")
        let tokenClient = try makeClient()
        let refresher = TokenRefresher(authenticator: authenticator) {
            tokenClient.eventStream(TokenEndpoint(), as: TokenBody.self)
                .compactMap(\.value)
                .do(onNext: { authenticator.accessToken = $0.token })
                .asCompletable()
        }
        return (authenticator, refresher)
    }

    func testStormOf401s_exactlyOneRefresh_everyRequestSucceeds_nothingLeaks() throws {
        let count = specIsThreadSanitized ? 200 : 1_000
        let tokens = installRoutes()
        let (authenticator, refresher) = try expiredCredentialRefresher()
        let client = try makeClient { $0.refreshing(with: refresher).timeout(120) }

        let outcomes = storm(client, count: count, tokens: tokens)

        XCTAssertEqual(tokens.issued.value, 1, "exactly one refresh")
        XCTAssertEqual(outcomes.filter { $0.value == RefreshItem(id: 7) }.count, count)
        XCTAssertEqual(authenticator.accessToken, "t1")
        // Every request went out with the expired token, was rejected once and retried.
        XCTAssertEqual(tokens.rejected.value, count)
        XCTAssertEqual(tokens.itemRequests.value, 2 * count)
        XCTAssertFalse(refresher.isRefreshing)
    }

    func testStormOf401sWithABasicChallenge_reachesTheRefresher_onceForAll() throws {
        // FoundationNetworking used to hold such a 401 forever, waiting for a credential.
        let count = 50
        let tokens = installRoutes(challenge: #"Basic realm="Fake Realm""#)
        let (authenticator, refresher) = try expiredCredentialRefresher()
        let client = try makeClient { $0.refreshing(with: refresher) }

        let outcomes = storm(client, count: count, tokens: tokens)

        XCTAssertEqual(tokens.issued.value, 1, "exactly one refresh")
        XCTAssertEqual(outcomes.filter { $0.value == RefreshItem(id: 7) }.count, count)
        XCTAssertEqual(authenticator.accessToken, "t1")
        XCTAssertEqual(tokens.rejected.value, count)
    }

    func testUploadGetting401_isRefreshedOnce_andSentAgainWholeFromItsFile() throws {
        let tokens = installRoutes()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("leash-refresh-\(UUID()).bin")
        let bytes = Data((0..<1_500_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let received = SpecLocked<[Data]>([])
        server.route(
            .post("/photos") { request in
                received.withLock { $0.append(request.body) }
                guard request.headers["Authorization"] == "Bearer \(tokens.current.value)" else { return .status(401) }
                return .json(Data(refreshItemJSON.utf8))
            })
        let (_, refresher) = try expiredCredentialRefresher()
        let client = try makeClient { $0.refreshing(with: refresher) }

        let elements = try client.rx.upload(
            RefreshEndpoint("photos", method: .post, parameters: UploadFile(file)), type: RefreshItem.self
        ).toBlocking(timeout: 30).toArray()

        XCTAssertEqual(elements.last, .completed(RefreshItem(id: 7)))
        XCTAssertEqual(tokens.issued.value, 1, "one refresh")
        XCTAssertEqual(received.value, [bytes, bytes], "both attempts sent the whole file")
        XCTAssertEqual(elements.compactMap(\.progress).last?.completedBytes, 1_500_000)
    }

    func testRefreshThroughTheSameManager_withTheTokenEndpointExcluded() throws {
        let tokens = installRoutes()
        let authenticator = SpecAuthenticator(token: "expired")
        let clientBox = SpecLocked<Client?>(nil)
        let refresher = TokenRefresher(authenticator: authenticator, excluding: { $0 is TokenEndpoint }) {
            Self.refresh(through: { clientBox.value }, into: authenticator)
        }
        let client = try makeClient { $0.refreshing(with: refresher).timeout(30) }
        clientBox.withLock { $0 = client }
        defer { clientBox.withLock { $0 = nil } }

        let outcomes = storm(client, count: 50, tokens: tokens)

        XCTAssertEqual(tokens.issued.value, 1)
        XCTAssertEqual(outcomes.filter(\.isSuccess).count, 50)
    }

    func testFailedRefresh_failsTheRequestsTyped_andIsPublished() throws {
        let tokens = installRoutes(tokenStatus: 500)
        let authenticator = SpecAuthenticator(token: "expired")
        let tokenClient = try makeClient()
        let refresher = TokenRefresher(authenticator: authenticator, maximumRefreshes: 1) {
            Self.refresh(through: { tokenClient }, into: authenticator)
        }
        let published = SpecLocked<[LeashError]>([])
        let subscription = refresher.refreshFailures.subscribe(onNext: { error in
            published.withLock { $0.append(error) }  // e.g. show the login screen
        })
        defer { subscription.dispose() }
        let client = try makeClient { $0.refreshing(with: refresher).timeout(30) }

        let outcomes = storm(client, count: 20, tokens: tokens)

        XCTAssertEqual(tokens.issued.value, 0)
        XCTAssertEqual(server.counters.requestCount - tokens.itemRequests.value, 1, "one request to /token")
        for outcome in outcomes {
            guard case .authenticationFailed? = outcome.error as? LeashError else {
                return XCTFail("expected .authenticationFailed, got \(outcome)")
            }
        }
        let first = try XCTUnwrap(published.value.first)
        guard case .authenticationFailed(let underlying) = first else { return XCTFail("\(first)") }
        XCTAssertEqual((underlying as? LeashError)?.statusCode, 500, "the token endpoint's answer is kept")
        XCTAssertTrue("\(first)".contains("refresh token revoked"), "\(first)")
    }

    func testClientRxEvents_refreshOnceAndSucceed() throws {
        let tokens = installRoutes()
        let authenticator = SpecAuthenticator(token: "expired")
        let tokenClient = try makeClient()
        let refresher = TokenRefresher(authenticator: authenticator) {
            Self.refresh(through: { tokenClient }, into: authenticator)
        }
        let client = try makeClient { $0.refreshing(with: refresher).timeout(30) }

        let values = try Observable.merge(
            (0..<10).map { _ in client.rx.events(RefreshEndpoint("items"), type: RefreshItem.self) }
        )
        .compactMap(\.value)
        .toArray()
        .toBlocking(timeout: 30)
        .single()

        XCTAssertEqual(values, Array(repeating: RefreshItem(id: 7), count: 10))
        XCTAssertEqual(tokens.issued.value, 1)
    }

    // MARK: The README's AuthenticationValidator

    private enum AppError: Swift.Error {
        case unauthorized
        case unknown
        case unableToAuthenticate
        case unableToRetry
    }

    private final class APIAuthenticator: Authenticator, @unchecked Sendable {
        // @unchecked: the token is behind `lock`.
        static let header = "Authorization"
        private let lock = NSLock()
        private var token: String?
        var accessToken: String? {
            get { lock.withLock { token } }
            set { lock.withLock { token = newValue } }
        }
        var authentication: String? { accessToken.map { "Bearer \($0)" } }
    }

    /// The README's `RefreshTokenManager`: a callback API over the token endpoint.
    private final class RefreshTokenManager: Sendable {
        let client: Client
        init(client: Client) { self.client = client }

        func refreshTokenIfNeeded(completion: @escaping @Sendable (Bool, String?) -> Void) {
            client.execute(TokenEndpoint()) { (response: Response<TokenBody>) in
                completion(response.isSuccess, response.value?.token)
            }
        }
    }

    private final class ResponseValidator: SuccessInterceptor {
        func intercept(chain: InterceptorChain<Data>, response: HTTPURLResponse, data: Data) {
            defer { chain.proceed() }
            let error: AppError
            switch response.statusCode {
            case 200...299: return
            case 401, 403: error = .unauthorized
            default: error = .unknown
            }
            chain.complete(with: error)
        }
    }

    private final class AuthenticationValidator: CompletionInterceptor, @unchecked Sendable {
        // @unchecked: immutable.
        let refreshTokenManager: RefreshTokenManager
        init(refreshTokenManager: RefreshTokenManager) { self.refreshTokenManager = refreshTokenManager }

        func intercept(chain: InterceptorChain<Data>, response: Response<Data>) {
            guard let error = response.error,
                case AppError.unauthorized = error,
                let authenticator = chain.client.manager.authenticator as? APIAuthenticator
            else {
                chain.proceed()
                return
            }
            refreshTokenManager.refreshTokenIfNeeded { authenticated, accessToken in
                guard authenticated else {
                    chain.complete(with: AppError.unableToAuthenticate)
                    return
                }
                authenticator.accessToken = accessToken
                do {
                    try chain.retry()
                } catch {
                    chain.complete(with: AppError.unableToRetry)
                }
            }
        }
    }

    func testReadmeAuthenticationValidator_completionInterceptorWithChainRetry_stillWorks() throws {
        let tokens = installRoutes()
        let authenticator = APIAuthenticator()
        authenticator.accessToken = "expired"
        let refreshTokenManager = RefreshTokenManager(client: try makeClient())
        let client = try makeClient {
            $0.authenticator(authenticator)
                .add(interceptor: ResponseValidator())
                .add(interceptor: AuthenticationValidator(refreshTokenManager: refreshTokenManager))
                .timeout(30)
        }

        let response = try outcome(client, RefreshEndpoint("items"), DecodableResponseSerializer<RefreshItem>())

        XCTAssertEqual(response.value, RefreshItem(id: 7))
        XCTAssertEqual(tokens.issued.value, 1)
        XCTAssertEqual(tokens.rejected.value, 1)
        XCTAssertEqual(authenticator.accessToken, "t1")
    }
}
