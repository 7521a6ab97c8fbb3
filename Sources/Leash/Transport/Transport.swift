import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends requests: the seam under Leash's pipeline.
///
/// `send` returns a cold observable: subscribing sends the request, which emits one
/// `TransportResponse` and completes, or fails with a `LeashError` (`.transport`,
/// `.cancelled`, `.invalidResponse`); disposing cancels the request. Leash ships
/// `URLSessionTransport` (the default) and `StubTransport` (scripted, for tests and
/// previews); any other client (AsyncHTTPClient on a server, say) can be adapted by
/// implementing this one method.
public protocol Transport: Sendable {
    /// Sends `request`.
    func send(_ request: URLRequest) -> Observable<TransportResponse>
}

/// A transport Leash's pipeline starts directly, without the observable `send` wraps
/// around each request, and which can hand its answer to the execution's task
/// (`URLSessionTransport`).
protocol DirectTransport: Transport {
    /// Sends `request`; reports to `observer` once, through `handoff` if there is one.
    /// The returned disposable cancels the request.
    func start<Observer: ObserverType & SendableMetatype>(
        _ request: URLRequest, handoff: ResponseHandoff?, observer: Observer
    ) -> Disposable where Observer.Element == TransportResponse
}

/// What a transport received: the HTTP response head and the whole body.
public struct TransportResponse: @unchecked Sendable {
    // @unchecked: `HTTPURLResponse` is immutable but not Sendable on every platform.

    /// The response head.
    public let httpResponse: HTTPURLResponse
    /// The body.
    public let data: Data

    /// Creates a response.
    public init(httpResponse: HTTPURLResponse, data: Data) {
        self.httpResponse = httpResponse
        self.data = data
    }
}
