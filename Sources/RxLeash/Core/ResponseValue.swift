import Foundation
import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A value and the response it came from: what `client.rx.response(…)` emits.
///
/// Leash called it `ReactiveResponse`, although nothing in it is reactive: it is a plain
/// value, with its `value` and `extra` as before (`ReactiveResponse` still names it, for
/// one release).
///
/// `extra` says whether the value came from the network or from an interceptor (a cache
/// answering first, say) and, for network values, carries the request, the HTTP response
/// and its raw body; the properties below read them directly.
///
/// ```swift
/// client.rx.response(APIEndpoint.readAllUsers, type: [User].self)
///     .subscribe(onNext: { response in
///         print(response.source, response.statusCode ?? 0, response.value)
///     })
/// ```
public struct ResponseValue<Value> {
    /// The value.
    public let value: Value
    /// Where the value came from, and the network response it was read from, if any.
    public let extra: ResponseExtra

    /// `value`, with where it came from.
    public init(value: Value, extra: ResponseExtra) {
        self.value = value
        self.extra = extra
    }

    /// Where the value came from: `.network`, or `.interceptor` (a cache, say).
    public var source: ResponseSource { extra.source }

    /// The HTTP status code of the network response; `nil` for interceptor values.
    public var statusCode: Int? { extra.statusCode }

    /// The headers of the network response (names compare ignoring case); empty for
    /// interceptor values.
    public var headers: HTTPHeaders { extra.headers }

    /// The raw body the value was read from (network values, and interceptor values
    /// given as data).
    public var data: Data? { extra.data }

    /// The request that was sent, for network values.
    public var request: URLRequest? { extra.request }

    /// The HTTP response, for network values.
    public var httpResponse: HTTPURLResponse? { extra.httpResponse }

    /// The same value as Leash's callback `Response` (`.success(value:extra:)`).
    public var response: Response<Value> { .success(value: value, extra: extra) }
}

extension ResponseValue: Sendable where Value: Sendable {}
