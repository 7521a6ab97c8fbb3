import Foundation
import Leash
import LoopbackServer
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The body of `GET /json` on the loopback server, decoded.
struct Sample: Decodable, Equatable, Sendable {
    let id: Int
    let name: String
    let tags: [String]

    /// What every request must decode to: `LoopbackServer.sampleJSON`.
    static let expected = Sample(id: 1, name: "Leash", tags: ["a", "b"])
}

/// The endpoint every scenario executes.
enum BenchmarkAPI: Endpoint {
    case json

    var path: String { "/json" }
    var method: HTTPMethod { .get }
}

/// The bearer token both the raw client and Leash's authenticator send, so that both put
/// the same bytes on the wire.
let benchmarkToken = "Bearer benchmark-token-0123456789"

/// A counter several threads bump; read between runs to verify that every interceptor ran
/// once per request.
final class CallCounter: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = 0

    func increment() {
        lock.withLock { value += 1 }
    }

    var count: Int { lock.withLock { value } }
}

/// An authenticator as the README writes one; counts how often Leash asks for the credential.
final class BenchmarkAuthenticator: Authenticator {
    static var header: String { "Authorization" }
    let reads = CallCounter()

    var authentication: String? {
        reads.increment()
        return benchmarkToken
    }
}

/// The README's logger, without the I/O: it formats both lines as a logger would, keeps the
/// length (so the work cannot be optimised away) and counts the calls.
final class LoggerInterceptor: ExecutionInterceptor, CompletionInterceptor {
    let requests = CallCounter()
    let completions = CallCounter()
    private let lock = NSLock()
    private var characters = 0

    func intercept(chain: InterceptorChain<Data>) {
        defer { chain.proceed() }
        requests.increment()
        guard let request = try? chain.request.convertible.asURLRequest(), let method = request.httpMethod,
            let url = request.url?.absoluteString
        else { return }
        record("👉👉👉 \(method) \(url)")
    }

    func intercept(chain: InterceptorChain<Data>, response: Response<Data>) {
        defer { chain.proceed() }
        completions.increment()
        guard let request = try? chain.request.convertible.asURLRequest(), let method = request.httpMethod,
            let url = request.url?.absoluteString
        else { return }
        switch response {
        case .success: record("✔✔✔ \(method) \(url)")
        case .failure(let error): record("✖✖✖ \(method) \(url) \(error)")
        }
    }

    private func record(_ line: String) {
        let length = line.utf8.count
        lock.withLock { characters &+= length }
    }
}

/// The README's status validator: anything outside 2xx ends the execution with an error.
final class StatusValidator: SuccessInterceptor {
    let calls = CallCounter()

    struct UnexpectedStatus: Error {
        let code: Int
    }

    func intercept(chain: InterceptorChain<Data>, response: HTTPURLResponse, data: Data) {
        calls.increment()
        guard (200..<300).contains(response.statusCode) else {
            chain.complete(with: UnexpectedStatus(code: response.statusCode))
            return
        }
        chain.proceed()
    }
}

/// A serialization interceptor that checks that a value was produced (as a cache would
/// before storing it).
final class SerializedValueChecker: SerializationInterceptor {
    let calls = CallCounter()

    func intercept<Serializer: ResponseSerializer>(
        chain: InterceptorChain<Serializer.SerializedObject>, response: Response<Data>,
        result: Result<Serializer.SerializedObject, Error>, serializer: Serializer
    ) {
        calls.increment()
        chain.proceed()
    }
}

/// An interceptor written as a stream operator that passes every outcome through.
final class PassThroughOperator: OperatorInterceptor {
    let calls = CallCounter()

    func intercept(_ upstream: Observable<Response<Data>>, context: ExecutionContext) -> Observable<Response<Data>> {
        let calls = self.calls
        return upstream.map { response in
            calls.increment()
            return response
        }
    }
}
