import Foundation
import LoopbackServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A value shared with callbacks on other threads.
final class Locked<Value: Sendable>: @unchecked Sendable {  // Sendable: every access holds `lock`.
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&stored)
    }
}

/// What a URLSession data task delivered.
struct FetchResult: Sendable {
    var data: Data?
    var response: HTTPURLResponse?
    var error: (any Error)?

    var status: Int? { response?.statusCode }
    var text: String? { data.map { String(decoding: $0, as: UTF8.self) } }
    var urlErrorCode: URLError.Code? { (error as? URLError)?.code }
}

/// Base class: a started server and a URLSession per test, both torn down after it.
class LoopbackTestCase: XCTestCase {
    /// A started server with the built-in routes plus `routes`, stopped after the test.
    func makeServer(routes: [LoopbackServer.Route] = [], includeBuiltInRoutes: Bool = true) throws -> LoopbackServer {
        let server = try LoopbackServer(routes: routes, includeBuiltInRoutes: includeBuiltInRoutes)
        server.start()
        addTeardownBlock { server.stop() }
        return server
    }

    /// An ephemeral session without a URL cache (see Docs/URLSession-on-Linux.md), invalidated after the test.
    func makeSession(maximumConnectionsPerHost: Int? = nil) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = 30
        if let maximumConnectionsPerHost {
            configuration.httpMaximumConnectionsPerHost = maximumConnectionsPerHost
        }
        let session = URLSession(configuration: configuration)
        addTeardownBlock { session.invalidateAndCancel() }
        return session
    }

    /// Runs a data task and waits for its completion.
    func fetch(_ request: URLRequest, on session: URLSession, timeout: TimeInterval = 30) -> FetchResult {
        let result = Locked<FetchResult?>(nil)
        let done = expectation(description: "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "")")
        let task = session.dataTask(with: request) { data, response, error in
            result.withLock { $0 = FetchResult(data: data, response: response as? HTTPURLResponse, error: error) }
            done.fulfill()
        }
        task.resume()
        wait(for: [done], timeout: timeout)
        return result.value ?? FetchResult(data: nil, response: nil, error: URLError(.timedOut))
    }

    /// Runs a GET data task and waits for its completion.
    func fetch(_ url: URL, on session: URLSession, timeout: TimeInterval = 30) -> FetchResult {
        fetch(URLRequest(url: url), on: session, timeout: timeout)
    }

    /// Decodes JSON, failing the test with the body's text when it does not decode.
    func decode<Value: Decodable>(
        _ type: Value.Type, from data: Data?, file: StaticString = #filePath, line: UInt = #line
    ) throws -> Value {
        let data = try XCTUnwrap(data, "no body", file: file, line: line)
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            XCTFail("undecodable body: \(String(decoding: data, as: UTF8.self))", file: file, line: line)
            throw error
        }
    }
}
