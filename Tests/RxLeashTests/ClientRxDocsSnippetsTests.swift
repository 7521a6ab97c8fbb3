// The code of the README's `client.rx` snippets, compiled and
// run here against `LoopbackServer` (the testing snippet, a whole file, is
// `ReadmeTestingSnippetTests.swift`). Each snippet sits between `// snippet:` and `// end snippet` and is
// copied verbatim into the proposal; the lines around it only set up `client`,
// `disposeBag` and the test doubles, and check what the snippet showed.

import Dispatch
import Foundation
import LeashTestSupport
import LoopbackServer
import RxLeash
import RxTesting
import XCTest

private struct User: Codable, Equatable {
    let id: Int
    let name: String
}

private enum APIEndpoint: Endpoint {
    case readAllUsers
    case searchUsers(term: String)

    var path: String {
        switch self {
        case .readAllUsers: return "/users"
        case .searchUsers: return "/users/search"
        }
    }

    var method: HTTPMethod { .get }

    var parameters: Any? {
        switch self {
        case .readAllUsers: return nil
        case .searchUsers(let term): return ["term": term]
        }
    }
}

private struct GetUser: TypedEndpoint {
    typealias Response = User
    let id: Int
    var path: String { "/users/\(id)" }
    var method: HTTPMethod { .get }
}

/// What the snippets "show", in order; a test waits for a number of lines.
private final class Screen: @unchecked Sendable {
    // @unchecked: every stored property is behind `lock`.
    private let lock = NSLock()
    private var shown: [String] = []
    private var waiter: (expectation: XCTestExpectation, count: Int)?

    func record(_ line: String) {
        let fulfilled = lock.withLock { () -> XCTestExpectation? in
            shown.append(line)
            guard let waiter, shown.count >= waiter.count else { return nil }
            self.waiter = nil
            return waiter.expectation
        }
        fulfilled?.fulfill()
    }

    func expectation(lines count: Int) -> XCTestExpectation {
        let expectation = XCTestExpectation(description: "\(count) lines shown")
        let already = lock.withLock { () -> Bool in
            if shown.count >= count { return true }
            waiter = (expectation, count)
            return false
        }
        if already { expectation.fulfill() }
        return expectation
    }

    var lines: [String] { lock.withLock { shown } }
    func reset() { lock.withLock { shown.removeAll() } }
}

private let screen = Screen()
private func show<Value>(_ value: Value) { screen.record("\(value)") }
private func showError(_ error: Swift.Error) { screen.record("error: \(error)") }

final class ClientRxDocsSnippetsTests: LoopbackIntegrationCase {
    private let alice = User(id: 1, name: "Alice")
    private let bob = User(id: 2, name: "Bob")

    override func setUpWithError() throws {
        try super.setUpWithError()
        screen.reset()
        server.route("GET", "/users", response: .json([alice, bob]))
        server.route("GET", "/users/1", response: .json(alice))
        let everyone = [alice, bob]
        server.route("GET", "/users/search") { request in
            let term = request.queryValue("term") ?? ""
            return .json(everyone.filter { $0.name.contains(term) })
        }
    }

    private func waitForScreen(lines count: Int) {
        wait(for: [screen.expectation(lines: count)], timeout: 10)
    }

    func testSnippet_execute() throws {
        let client = try makeClient()

        // snippet: execute
        let disposeBag = DisposeBag()

        client.rx.execute(APIEndpoint.readAllUsers, type: [User].self)
            .subscribe(onNext: { users in show(users) }, onError: { error in showError(error) })
            .disposed(by: disposeBag)
        // end snippet

        waitForScreen(lines: 1)
        XCTAssertEqual(screen.lines, ["\([alice, bob])"])
    }

    func testSnippet_single() throws {
        let client = try makeClient()
        let disposeBag = DisposeBag()

        // snippet: single
        client.rx.single(GetUser(id: 1))  // a Single<User>: the type comes from the endpoint
            .map { $0.name }
            .subscribe(onSuccess: { name in show(name) }, onFailure: { error in showError(error) })
            .disposed(by: disposeBag)
        // end snippet

        waitForScreen(lines: 1)
        XCTAssertEqual(screen.lines, ["Alice"])
    }

    func testSnippet_response() throws {
        let client = try makeClient()
        let disposeBag = DisposeBag()

        // snippet: response
        client.rx.response(APIEndpoint.readAllUsers, type: [User].self)
            .subscribe(onNext: { response in
                // `.cache` for a cached value, `.interceptor` for another interceptor's, else `.network`.
                show("\(response.source) \(response.statusCode ?? 0): \(response.value.count) users")
            })
            .disposed(by: disposeBag)
        // end snippet

        waitForScreen(lines: 1)
        XCTAssertEqual(screen.lines, ["network 200: 2 users"])
    }

    func testSnippet_events() throws {
        let client = try makeClient()
        let disposeBag = DisposeBag()

        // snippet: events
        client.rx.events(GetUser(id: 1))
            .subscribe(onNext: { event in
                switch event {
                case .requestSent(let request, let attempt): show("attempt \(attempt): \(request.url?.path ?? "")")
                case .value(let user, _): show(user.name)
                default: break
                }
            })
            .disposed(by: disposeBag)
        // end snippet

        waitForScreen(lines: 2)
        XCTAssertEqual(screen.lines, ["attempt 1: /users/1", "Alice"])
    }

    func testSnippet_searchWithFlatMapLatest() throws {
        let client = try makeClient()
        let disposeBag = DisposeBag()
        let searchText = PublishSubject<String>()

        // snippet: search
        searchText
            .flatMapLatest { term in
                // A new term disposes the previous search, which cancels its request.
                client.rx.execute(APIEndpoint.searchUsers(term: term), type: [User].self)
                    .catchAndReturn([])
            }
            .observe(on: MainScheduler.instance)
            .subscribe(onNext: { users in show(users.map(\.name)) })
            .disposed(by: disposeBag)
        // end snippet

        searchText.onNext("Bo")
        waitForScreen(lines: 1)
        XCTAssertEqual(screen.lines, ["[\"Bob\"]"])
    }

    func testSnippet_zip() throws {
        let client = try makeClient()
        let disposeBag = DisposeBag()

        // snippet: zip
        Observable.zip(
            client.rx.execute(GetUser(id: 1)), client.rx.execute(APIEndpoint.readAllUsers, type: [User].self)
        )
        .subscribe(onNext: { user, everyone in show("\(user.name) is one of \(everyone.count)") })
        .disposed(by: disposeBag)
        // end snippet

        waitForScreen(lines: 1)
        XCTAssertEqual(screen.lines, ["Alice is one of 2"])
    }

    func testSnippet_queue() throws {
        let client = try makeClient()
        let disposeBag = DisposeBag()
        let onMain = SpecLocked<Bool?>(nil)

        // snippet: queue
        client.rx.single(GetUser(id: 1), queue: .main)
            .subscribe(onSuccess: { user in show(user.name) })
            .disposed(by: disposeBag)
        // end snippet
        let delivered = expectation(description: "delivered")
        client.rx.single(GetUser(id: 1), queue: .main)
            .subscribe(onSuccess: { _ in
                onMain.withLock { $0 = Thread.isMainThread }
                delivered.fulfill()
            })
            .disposed(by: disposeBag)

        waitForScreen(lines: 1)
        wait(for: [delivered], timeout: 10)
        XCTAssertEqual(screen.lines, ["Alice"])
        XCTAssertEqual(onMain.value, true)
    }
}
