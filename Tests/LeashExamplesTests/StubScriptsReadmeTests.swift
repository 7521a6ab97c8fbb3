import Foundation
import LeashExamples  // the example app: API, GetMe, NewPost, Post, RefreshToken, TokenStore, User
import LeashTesting  // StubTransport: scripted answers instead of the network
import RxLeash
import RxTesting  // TestScheduler, and XCTAssertEqual for recorded events
import XCTest

final class StubScriptsReadmeTests: XCTestCase {
    let scheduler = TestScheduler(initialClock: 0)
    let me = User(id: 1, name: "Leanne Graham", username: "Bret", email: "Sincere@april.biz")

    /// A 401, a refresh, and the same request again with the new token: answers matched on
    /// the request's header, in virtual time.
    func testAnExpiredToken_isRefreshedOnce_andTheRequestRetried() throws {
        let stub = StubTransport(scheduler: scheduler)
            .stub(.get, path: "/me", .json(encoding: me))
            .stub(.post, path: "/token", .json(#"{"token":"fresh"}"#, delay: 1))
            // Later stubs take precedence: any request with the expired token gets a 401.
            .stub(matching: { $0.value(forHTTPHeaderField: "Authorization") == "Bearer expired" }, [.status(401)])
        let tokens = TokenStore(token: "expired")
        let tokenClient = Client(
            manager: try Manager.Builder().url("https://api.example.com").transport(stub).scheduler(scheduler).build())
        let refresher = TokenRefresher(authenticator: tokens, scheduler: scheduler) {
            tokenClient.rx.single(RefreshToken()).do(onSuccess: { tokens.token = $0.token }).asCompletable()
        }
        let client = Client(
            manager: try Manager.Builder().url("https://api.example.com").transport(stub).scheduler(scheduler)
                .refreshing(with: refresher).build())

        let observer = scheduler.start { client.rx.execute(GetMe()) }

        XCTAssertEqual(observer.events, [.next(201, me), .completed(201)])
        XCTAssertEqual(
            stub.requests.map { "\($0.httpMethod ?? "") \($0.url?.path ?? "")" }, ["GET /me", "POST /token", "GET /me"])
    }

    /// JSON stubs speak the app's JSON: without an encoder of their own they are encoded
    /// with the manager's (here snake_case keys).
    func testJSONStubs_areEncodedWithTheManagersEncoder() throws {
        struct Settings: Codable, Equatable, Sendable {
            let darkMode: Bool
            let fontSize: Int
        }
        struct GetSettings: TypedEndpoint {
            typealias Response = Settings
            var path: String { "/settings" }
            var method: HTTPMethod { .get }
        }
        let stub = StubTransport(scheduler: scheduler)
            .stub(.get, path: "/settings", .json(encoding: Settings(darkMode: true, fontSize: 14)))
        let manager = try Manager.Builder()
            .url("https://api.example.com")
            .jsonEncoder { $0.keyEncodingStrategy = .convertToSnakeCase }  // {"dark_mode":true,…}
            .jsonDecoder { $0.keyDecodingStrategy = .convertFromSnakeCase }
            .transport(stub)
            .scheduler(scheduler)
            .build()

        let observer = scheduler.start { Client(manager: manager).rx.execute(GetSettings()) }

        XCTAssertEqual(observer.events, [.next(200, Settings(darkMode: true, fontSize: 14)), .completed(200)])
    }

    /// An upload in steps: the stub takes the body in two steps a second apart, each
    /// reported as progress, and sends its answer back the same way.
    func testAnUpload_reportsItsProgress_stepByStep() throws {
        let created = Post(userId: 1, id: 101, title: "Hello", body: "First post")
        let stub = StubTransport(scheduler: scheduler)
            .stub(.post, path: "/posts", StubResponse.json(encoding: created, status: 201).progress(steps: 2, every: 1))
        let client = Client(
            manager: try Manager.Builder().url("https://api.example.com").transport(stub).scheduler(scheduler).build())
        let draft = NewPost(userId: 1, title: "Hello", body: "First post")

        let observer = scheduler.start {
            client.rx.upload(API.createPost(draft), type: Post.self).map { transfer -> String in
                switch transfer {
                case .progress(let progress): return "\(Int((progress.fraction ?? 0) * 100))%"
                case .completed(let post): return "post \(post.id)"
                }
            }
        }

        XCTAssertEqual(
            observer.events, [.next(200, "50%"), .next(201, "100%"), .next(202, "post 101"), .completed(202)])
    }
}
