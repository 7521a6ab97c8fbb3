import Foundation
import LeashExamples  // the example app: API, TokenStore, User
import LeashInterceptors  // LoggerInterceptor, RetryInterceptor
import LeashTesting
import RxLeash
import RxTesting
import XCTest

/// The README's worked migration from RxSwift + Moya + RxMoya, compiled and run on stubs.
final class MigrationReadmeTests: XCTestCase {
    func testTheMigratedProvider_answersAsTheMoyaOneDid() throws {
        let stub = StubTransport()
            .stub(.get, path: "/users/1", .json(#"{"id":1,"name":"Leanne","username":"Bret","email":"a@b.c"}"#))
        let tokens = TokenStore(token: "secret")
        let user = try GitHubLikeService(tokens: tokens, transport: stub).user(id: 1).toBlocking(timeout: 5).single()
        XCTAssertEqual(user.username, "Bret")
        XCTAssertEqual(stub.requests.first?.value(forHTTPHeaderField: "Authorization"), "Bearer secret")
    }
}

// MoyaProvider<API>(plugins: [NetworkLoggerPlugin(), AccessTokenPlugin { _ in token }]),
// callbackQueue: .main by default, becomes a Client built once:
final class GitHubLikeService: Sendable {
    let client: Client

    init(tokens: TokenStore, transport: Transport = URLSessionTransport.shared) throws {
        let manager = try Manager.Builder()
            .url("https://jsonplaceholder.typicode.com")  // TargetType.baseURL, now the manager's
            .authenticator(tokens)  // AccessTokenPlugin
            .add(interceptor: LoggerInterceptor())  // NetworkLoggerPlugin
            .add(interceptor: RetryInterceptor(policy: .default))  // the retry(3) after each call
            .callbackQueue(.main)  // RxMoya delivered on the main queue; Leash does only if asked
            .transport(transport)  // StubTransport in tests: TargetType.sampleData, scripted
            .build()
        client = Client(manager: manager)
    }

    // provider.rx.request(.user(id: id)).filterSuccessfulStatusCodes().map(User.self)
    func user(id: Int) -> Single<User> {
        client.rx.single(API.user(id: id), type: User.self)
    }
}
