// The README's cache and validator snippets, compiled and run against the loopback server.
// Each `// Snippet` block is copied into the document as is; `baseURL` is the server's
// URL, and `show(_:stale:)` records what a screen would show.

import Foundation
import Leash
import LeashInterceptors
import LeashTestSupport
import LoopbackServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// MARK: - Snippet: types

private struct Expense: Decodable, Equatable {
    let id: Int
    let amount: Int
}

private struct GetExpense: TypedEndpoint {
    typealias Response = Expense
    let id: Int
    var path: String { "/expenses/\(id)" }
    var method: HTTPMethod { .get }
}

// MARK: - Snippet: logger

private struct ConsoleLogger: Logger {
    func log(_ message: String, level: LogLevel) {
        print(level == .error ? "error: \(message)" : message)
    }
}

// MARK: - Snippet: API error

private struct APIError: Decodable, Error {
    let code: String
    let message: String
}

// MARK: - Snippet: cache

private final class APICache: CacheInterceptor, @unchecked Sendable {
    init() {
        super.init(dataStore: InMemoryDataStore())
        register(policy: CachePolicy.CacheAndRenew(), to: "/expenses/[0-9]+")
        register(policy: CachePolicy.CacheOnlyOnError(), to: "/expenses")
    }
}

final class CacheReadmeSnippetTests: LoopbackIntegrationCase {
    private let shown = CacheSpecList<String>()

    private var networkValueShown: XCTestExpectation?

    private func show(_ expense: Expense?, stale: Bool) {
        shown.append("\(expense?.amount ?? -1)\(stale ? " stale" : "")")
        if !stale { networkValueShown?.fulfill() }
    }

    func testReadmeSnippets_loggerValidatorsAndCache() async throws {
        server.routeSequence(
            method: "GET", path: "/expenses/1",
            [.json(Data(cacheSpecOldJSON.utf8)), .json(Data(cacheSpecNewJSON.utf8))])
        server.route(
            "GET", "/expenses/2",
            response: LoopbackResponse.json(Data(#"{"code":"gone","message":"Deleted"}"#.utf8), status: 410))
        let baseURL = server.baseURL

        // Snippet: manager
        let manager = try Manager.Builder()
            .url(baseURL)
            .add(interceptor: LoggerInterceptor(logger: ConsoleLogger()))
            .add(interceptor: BodyValidator<APIError>())
            .add(interceptor: APICache())
            .build()
        let client = Client(manager: manager)
        // End snippet

        let first = try await client.execute(GetExpense(id: 1))
        XCTAssertEqual(first, Expense(id: 1, amount: 10))

        let done = expectation(description: "network value")
        networkValueShown = done
        // Snippet: cache then network
        client.execute(GetExpense(id: 1)) { (response: Response<Expense>) in
            switch response.source {
            case .cache?: self.show(response.value, stale: true)  // the last known value, at once
            default: self.show(response.value, stale: false)  // then the server's
            }
        }
        // End snippet
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(shown.all, ["10 stale", "25"])

        var caught: APIError?
        // Snippet: API error
        do {
            _ = try await client.execute(GetExpense(id: 2))
        } catch let error as APIError {
            // The API's own error, decoded from the body: error.code, error.message.
            caught = error
        }
        // End snippet
        XCTAssertEqual(caught?.code, "gone")
    }

    func testReadmeSnippet_diskStore() throws {
        // Snippet: disk store
        let caches = try FileManager.default.url(
            for: .cachesDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
        let store = DiskDataStore(directory: caches.appendingPathComponent("api-cache"))
        // End snippet
        XCTAssertEqual(store.directory.lastPathComponent, "api-cache")
    }
}
