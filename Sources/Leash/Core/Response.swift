import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The outcome of an execution: a value, or an error.
///
/// As in Leash, `extra` accompanies a value. Leash put Alamofire's `DataResponse` there;
/// Leash here puts a `ResponseExtra`, which says where the value came from (the network,
/// an interceptor, or a cache), with the status code, headers and body of a
/// network response and the `extra` an interceptor passed.
public enum Response<Value> {
    /// A value, with details of where it came from.
    case success(value: Value, extra: Any?)
    /// An error; for a Leash execution a `LeashError` (or an interceptor's own error).
    case failure(Swift.Error)
}

extension Response: @unchecked Sendable where Value: Sendable {}

extension Response {
    /// The value, if this is a success.
    public var value: Value? {
        if case .success(let value, _) = self { return value }
        return nil
    }

    /// The extra of a success (a `ResponseExtra` for Leash executions).
    public var extra: Any? {
        if case .success(_, let extra) = self { return extra }
        return nil
    }

    /// The error, if this is a failure.
    public var error: Swift.Error? {
        if case .failure(let error) = self { return error }
        return nil
    }

    /// Whether this is a success.
    public var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }

    /// Whether this is a failure.
    public var isFailure: Bool { error != nil }

    /// The value; throws the error of a failure.
    public func justValue() throws -> Value {
        switch self {
        case .success(let value, _): return value
        case .failure(let error): throw error
        }
    }

    /// The outcome as a `Result`.
    public var result: Result<Value, Swift.Error> {
        switch self {
        case .success(let value, _): return .success(value)
        case .failure(let error): return .failure(error)
        }
    }

    /// The details of a success (`extra` as `ResponseExtra`).
    public var details: ResponseExtra? { extra as? ResponseExtra }

    /// Where a success's value came from.
    public var source: ResponseSource? { details?.source }

    /// The HTTP status code of the response, for successes and status failures.
    public var statusCode: Int? {
        details?.httpResponse?.statusCode ?? (error as? LeashError)?.statusCode
    }

    /// The response headers of a network success (names compare ignoring case); empty
    /// otherwise.
    public var headers: HTTPHeaders { details?.headers ?? [:] }

    /// The raw body of a network success.
    public var data: Data? { details?.data }

    /// The same outcome with the value transformed.
    public func map<NewValue>(_ transform: (Value) throws -> NewValue) -> Response<NewValue> {
        switch self {
        case .success(let value, let extra):
            do { return .success(value: try transform(value), extra: extra) } catch { return .failure(error) }
        case .failure(let error): return .failure(error)
        }
    }
}

/// Where the value of a response came from.
public enum ResponseSource: Equatable, Sendable {
    /// A response from the server.
    case network
    /// An interceptor completed the execution.
    case interceptor
    /// A cache answered with a body it stored earlier (an interceptor sets this by
    /// completing with a `ResponseExtra` whose source is `.cache`).
    case cache
}

/// The details that come with a value: its source and, for network responses, the
/// request, the HTTP response and its raw body.
///
/// One reference wide: a `Response`'s `extra` is an `Any?`, whose inline buffer holds three
/// words, and seven fields there would be boxed, one allocation each time a value is
/// wrapped (twice per execution). The fields live in one immutable object instead.
public struct ResponseExtra: @unchecked Sendable {
    // @unchecked: `storage` is immutable, and `URLRequest`/`HTTPURLResponse` are not
    // changed through it; `interceptorExtra` is what an interceptor chose to attach,
    // read-only.

    /// The fields, shared by the copies.
    private final class Storage {
        let source: ResponseSource
        let request: URLRequest?
        let httpResponse: HTTPURLResponse?
        let data: Data?
        let interceptorExtra: Any?
        let bodyFile: URL?
        let metrics: TransportMetrics?

        init(
            source: ResponseSource, request: URLRequest?, httpResponse: HTTPURLResponse?, data: Data?,
            interceptorExtra: Any?, bodyFile: URL?, metrics: TransportMetrics?
        ) {
            self.source = source
            self.request = request
            self.httpResponse = httpResponse
            self.data = data
            self.interceptorExtra = interceptorExtra
            self.bodyFile = bodyFile
            self.metrics = metrics
        }
    }

    private let storage: Storage

    /// Where the value came from.
    public var source: ResponseSource { storage.source }
    /// The request that was sent.
    public var request: URLRequest? { storage.request }
    /// The server's response (network values).
    public var httpResponse: HTTPURLResponse? { storage.httpResponse }
    /// The raw body (network values, and interceptor values given as data).
    public var data: Data? { storage.data }
    /// What the interceptor passed as `extra` (interceptor values).
    public var interceptorExtra: Any? { storage.interceptorExtra }
    /// Where the body was written, for a download (its `data` is empty then). Once the
    /// download completes, its value is the file at its destination instead.
    public var bodyFile: URL? { storage.bodyFile }
    /// What the transport measured about the request (timings, bytes, a reused
    /// connection), where it does: `HTTP1Transport`, and `URLSessionTransport` on Apple
    /// platforms. `nil` through `URLSessionTransport` on Linux, whose URLSession measures
    /// nothing, and for values not from the network.
    public var metrics: TransportMetrics? { storage.metrics }

    /// Creates the details.
    public init(
        source: ResponseSource, request: URLRequest? = nil, httpResponse: HTTPURLResponse? = nil,
        data: Data? = nil, interceptorExtra: Any? = nil, bodyFile: URL? = nil, metrics: TransportMetrics? = nil
    ) {
        storage = Storage(
            source: source, request: request, httpResponse: httpResponse, data: data,
            interceptorExtra: interceptorExtra, bodyFile: bodyFile, metrics: metrics)
    }

    /// The status code of the network response.
    public var statusCode: Int? { httpResponse?.statusCode }

    /// The response headers (names compare ignoring case); empty without a response.
    public var headers: HTTPHeaders { httpResponse.map(HTTPHeaders.init) ?? [:] }
}
