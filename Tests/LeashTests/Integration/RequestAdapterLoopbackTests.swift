import Dispatch
import Foundation
import Leash
import LeashDigest
import LeashTestSupport
import LoopbackServer
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Request adapters (`RequestAdapter`, `Manager.Builder.adapt`, `InterceptorChain.proceed(with:)`)
/// and `Client.urlRequest(for:)` overrides, against `LoopbackServer`'s `/echo`, which
/// answers with the request as it arrived.
final class RequestAdapterLoopbackTests: LoopbackIntegrationCase {
    /// Signs method, path, body and date with an HMAC-SHA256, as an API that checks
    /// signatures would.
    private struct Signer: RequestAdapter {
        let key: [UInt8]
        let date: @Sendable () -> String

        func adapt(_ request: URLRequest, for context: ExecutionContext) throws -> URLRequest {
            var signed = request
            let date = date()
            signed.setValue(date, forHTTPHeaderField: "X-Date")
            let message = Self.message(
                method: request.httpMethod ?? "GET", path: request.url?.path ?? "", body: request.httpBody ?? Data(),
                date: date)
            signed.setValue(hmacSHA256(key: key, message: message), forHTTPHeaderField: "X-Signature")
            return signed
        }

        static func message(method: String, path: String, body: Data, date: String) -> [UInt8] {
            Array("\(method)\n\(path)\n\(date)\n".utf8) + Array(body)
        }
    }

    /// The test's HMAC against RFC 4231's test case 2, so that a signature check means something.
    func testHMAC_matchesRFC4231() {
        XCTAssertEqual(
            hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    func testAnAdapter_signsTheRequest_theServerCanCheckTheSignature() throws {
        let key = Array("secret".utf8)
        let client = try makeClient { $0.add(interceptor: Signer(key: key, date: { "Tue, 24 Nov 2026 19:00:00 GMT" })) }

        let echoed = try echo(client, SpecEndpoint("/echo/orders", method: .post, parameters: ["id": 7]))

        let date = try XCTUnwrap(echoed.headers["x-date"])
        XCTAssertEqual(date, "Tue, 24 Nov 2026 19:00:00 GMT")
        let body = try XCTUnwrap(Data(base64Encoded: echoed.bodyBase64))
        XCTAssertFalse(body.isEmpty, "the body was signed as sent")
        let expected = hmacSHA256(
            key: key, message: Signer.message(method: "POST", path: "/echo/orders", body: body, date: date))
        XCTAssertEqual(echoed.headers["x-signature"], expected)
    }

    /// Each attempt builds its request anew and adapts it again: a retried request carries
    /// the second attempt's header and a fresh signature, not the first attempt's.
    func testARetriedRequest_isAdaptedAgain() throws {
        let dates = Counter()
        let client = try makeClient {
            $0.add(interceptor: Signer(key: [1, 2, 3], date: { "date-\(dates.next())" }))
                .adapt { request, context in
                    var request = request
                    request.setValue(String(context.attempt), forHTTPHeaderField: "X-Attempt")
                    return request
                }
                .add(interceptor: RetryFirstAttempt())
        }

        let events = try client.specExecute(
            SpecEndpoint("/echo"), serializer: DecodableResponseSerializer<LoopbackServer.EchoedRequest>()
        )
        .events.toBlocking(timeout: 10).toArray()

        let sent = events.compactMap { event -> (URLRequest, Int)? in
            if case .requestSent(let request, let attempt) = event { return (request, attempt) }
            return nil
        }
        XCTAssertEqual(sent.map(\.1), [1, 2])
        XCTAssertEqual(sent.map { $0.0.value(forHTTPHeaderField: "X-Attempt") }, ["1", "2"])
        XCTAssertEqual(sent.map { $0.0.value(forHTTPHeaderField: "X-Date") }, ["date-1", "date-2"])
        let echoed = try XCTUnwrap(events.compactMap(\.response).first?.value)
        XCTAssertEqual(echoed.headers["x-attempt"], "2")
        XCTAssertEqual(echoed.headers["x-date"], "date-2")
        XCTAssertEqual(server.counters.requestCount, 2)
    }

    /// A credential in the query, and the interceptors after the adapter (and the later
    /// stages) see the adapted request.
    func testLaterInterceptorsSeeTheAdaptedRequest() throws {
        let seen = SeenRequests()
        let client = try makeClient {
            $0.adapt { request, _ in
                var request = request
                var components = URLComponents(url: request.url!, resolvingAgainstBaseURL: false)!
                components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "api_key", value: "k&1")]
                request.url = components.url
                return request
            }
            .add(interceptor: seen)
        }

        let echoed = try echo(client, SpecEndpoint("/echo", parameters: ["q": "leash"]))

        XCTAssertEqual(
            echoed.queryItems,
            [.init(name: "q", value: "leash"), .init(name: "api_key", value: "k&1")])
        XCTAssertEqual(seen.executionQueries, ["q=leash&api_key=k%261"])
        XCTAssertEqual(seen.successQueries, ["q=leash&api_key=k%261"], "the success stage sees the request sent")
    }

    /// An adapter that waits (a key fetched elsewhere) proceeds later, from another thread.
    func testAnExecutionInterceptor_proceedsWithARequest_later() throws {
        let client = try makeClient { $0.add(interceptor: LateHeader()) }

        let echoed = try echo(client, SpecEndpoint("/echo"))

        XCTAssertEqual(echoed.headers["x-late"], "yes")
    }

    /// An adapter that throws: nothing is sent and the caller gets the error as thrown.
    func testAnAdapterThatThrows_endsTheExecution_withItsError_nothingSent() throws {
        struct NoKey: Error, Equatable {}
        let client = try makeClient { $0.adapt { _, _ in throw NoKey() } }

        let response = try outcome(client, SpecEndpoint("/echo"), DataResponseSerializer())

        XCTAssertEqual(response.error as? NoKey, NoKey())
        XCTAssertEqual(server.counters.requestCount, 0)
    }

    /// `Client.urlRequest(for:)` overridden on top of Leash's own building: the URL, the
    /// parameters and the authenticator's credential come from `super`, the override adds
    /// only what it changes.
    func testAClientOverride_reusesLeashsBuilding() throws {
        final class Token: Authenticator, @unchecked Sendable {
            static var header: String { "Authorization" }
            var authentication: String? { "Bearer abc" }
        }
        final class TracingClient: Client, @unchecked Sendable {
            override func urlRequest(for endpoint: Endpoint) throws -> URLRequest {
                var request = try super.urlRequest(for: endpoint)
                request.setValue("trace-1", forHTTPHeaderField: "X-Trace")
                return request
            }
        }
        let manager = try Manager.Builder().url(server.baseURL).authenticator(Token()).build()
        let client = TracingClient(manager: manager)

        let echoed = try echo(client, SpecEndpoint("/echo/items", parameters: ["page": 2]))

        XCTAssertEqual(echoed.path, "/echo/items")
        XCTAssertEqual(echoed.queryItems, [.init(name: "page", value: "2")])
        XCTAssertEqual(echoed.headers["authorization"], "Bearer abc")
        XCTAssertEqual(echoed.headers["x-trace"], "trace-1")
    }
}

/// Retries the first attempt once, from the completion stage.
private struct RetryFirstAttempt: CompletionInterceptor {
    func intercept(chain: InterceptorChain<Data>, response: Response<Data>) {
        if chain.attempt == 1, (try? chain.retry()) != nil { return }
        chain.proceed()
    }
}

/// Proceeds with a header added, later, from another queue.
private struct LateHeader: ExecutionInterceptor {
    func intercept(chain: InterceptorChain<Data>) {
        let request = chain.request.urlRequest
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) {
            guard var request else { return chain.proceed() }
            request.setValue("yes", forHTTPHeaderField: "X-Late")
            chain.proceed(with: request)
        }
    }
}

/// Records the query of the request each stage sees.
private final class SeenRequests: ExecutionInterceptor, SuccessInterceptor, @unchecked Sendable {
    // @unchecked: the arrays are behind `lock`.
    private let lock = NSLock()
    private var execution: [String] = []
    private var success: [String] = []
    var executionQueries: [String] { lock.withLock { execution } }
    var successQueries: [String] { lock.withLock { success } }

    func intercept(chain: InterceptorChain<Data>) {
        let query = chain.request.urlRequest?.url?.query ?? ""
        lock.withLock { execution.append(query) }
        chain.proceed()
    }

    func intercept(chain: InterceptorChain<Data>, response: HTTPURLResponse, data: Data) {
        let query = chain.request.urlRequest?.url?.query ?? ""
        lock.withLock { success.append(query) }
        chain.proceed()
    }
}

/// Numbers from 1, from any thread.
private final class Counter: @unchecked Sendable {
    // @unchecked: `value` is behind `lock`.
    private let lock = NSLock()
    private var value = 0
    func next() -> Int {
        lock.withLock {
            value += 1; return value
        }
    }
}

/// HMAC-SHA256 of `message` under `key` (RFC 2104), as 64 hexadecimal digits.
func hmacSHA256(key: [UInt8], message: [UInt8]) -> String {
    let blockSize = 64
    var block = key.count > blockSize ? SHA256.digest(key) : key
    block += [UInt8](repeating: 0, count: blockSize - block.count)
    let inner = SHA256.digest(block.map { $0 ^ 0x36 } + message)
    return SHA256.hexDigest(block.map { $0 ^ 0x5c } + inner)
}
