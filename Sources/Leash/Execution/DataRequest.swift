import Dispatch
import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Something that can produce a `URLRequest` (Alamofire's protocol of the same name).
public protocol URLRequestConvertible {
    /// The request.
    func asURLRequest() throws -> URLRequest
}

extension URLRequest: URLRequestConvertible {
    /// The request itself.
    public func asURLRequest() throws -> URLRequest { self }
}

/// A prepared request and, once executed, the handle that cancels it; Leash's stand-in
/// for Alamofire's `DataRequest`.
///
/// ```swift
/// let request = try client.request(for: APIEndpoint.readAllUsers)
/// request.response(client: client, endpoint: APIEndpoint.readAllUsers, serializer: JSONResponseSerializer()) {
///     (response: Response<Any>) in print(response)
/// }
/// request.cancel()
/// ```
public final class DataRequest: Cancelable, @unchecked Sendable {
    // @unchecked: `urlRequest` is immutable; the subscription is a thread-safe disposable.

    /// The request, as Alamofire exposed it.
    public let convertible: URLRequestConvertible
    private let subscription = SerialDisposable()

    /// Wraps a built request.
    public init(_ request: URLRequest) {
        self.convertible = request
    }

    /// The `URLRequest`.
    public var urlRequest: URLRequest? { try? convertible.asURLRequest() }

    /// Executes `endpoint` on `client`, serializing with `serializer`, and calls
    /// `completion` for each outcome (twice for cache-then-network).
    @discardableResult
    public func response<Serializer: ResponseSerializer>(
        client: Client, endpoint: Endpoint, serializer: Serializer, queue: DispatchQueue? = nil,
        completion: @escaping (Response<Serializer.SerializedObject>) -> Void
    ) -> Self {
        let execution = client.execute(endpoint, serializer: serializer, queue: queue, completion: completion)
        attach(execution)
        return self
    }

    func attach(_ disposable: Disposable) {
        subscription.disposable = disposable
    }

    /// Cancels the execution: the transport's task is cancelled, no callback follows.
    public func cancel() {
        subscription.dispose()
    }

    /// Whether `cancel()` was called.
    public var isCancelled: Bool { subscription.isDisposed }

    /// Same as `cancel()`.
    public func dispose() {
        cancel()
    }

    /// Same as `isCancelled`.
    public var isDisposed: Bool { isCancelled }
}
