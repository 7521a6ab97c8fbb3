import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An execution interceptor that changes the request before it is sent: signs it (an
/// HMAC of method, path, body and date), adds a header computed at send time, puts a
/// credential in its query.
///
/// It runs where execution interceptors run, in the order added, on every attempt: a
/// retried request is built anew and adapted again (a signature over a new date, a token
/// refreshed meanwhile). Interceptors added after it, the transport and the later stages
/// see the adapted request. An error it throws ends the attempt like an error an
/// interceptor completes with: the completion interceptors see it, and it reaches the
/// caller unchanged.
///
/// ```swift
/// struct Signer: RequestAdapter {
///     let key: String
///     func adapt(_ request: URLRequest, for context: ExecutionContext) throws -> URLRequest {
///         var signed = request
///         signed.setValue(signature(of: request, key: key), forHTTPHeaderField: "X-Signature")
///         return signed
///     }
/// }
/// ```
///
/// For adaptation that waits (a key from a store that answers later), write an
/// `ExecutionInterceptor` that calls `chain.proceed(with:)` when ready.
public protocol RequestAdapter: ExecutionInterceptor {
    /// Returns the request to send in place of `request`.
    ///
    /// - Parameters:
    ///   - request: The request as built (and adapted by the interceptors before this one).
    ///   - context: The execution: its client, endpoint and attempt (1, then 2… after each
    ///     retry).
    func adapt(_ request: URLRequest, for context: ExecutionContext) throws -> URLRequest
}

extension RequestAdapter {
    /// Adapts the chain's request and proceeds with it, or completes with the error the
    /// adaptation threw.
    public func intercept(chain: InterceptorChain<Data>) {
        guard let request = chain.request.urlRequest else { return chain.proceed() }
        do {
            chain.proceed(with: try adapt(request, for: chain.context))
        } catch {
            chain.complete(with: error)
        }
    }
}

/// A `RequestAdapter` made of a closure (`Manager.Builder.adapt(_:)`).
public struct ClosureRequestAdapter: RequestAdapter, Sendable {
    private let body: @Sendable (URLRequest, ExecutionContext) throws -> URLRequest

    /// An adapter that calls `body`.
    public init(_ body: @escaping @Sendable (URLRequest, ExecutionContext) throws -> URLRequest) {
        self.body = body
    }

    /// Calls the closure.
    public func adapt(_ request: URLRequest, for context: ExecutionContext) throws -> URLRequest {
        try body(request, context)
    }
}
