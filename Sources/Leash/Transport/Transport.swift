import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends requests: the seam under Leash's pipeline.
///
/// Two requirements:
/// - `send` returns a cold observable: subscribing sends the request, which emits one
///   `TransportResponse` (the head and the whole body in memory) and completes, or fails
///   with a `LeashError` (`.transport`, `.cancelled`, `.invalidResponse`); disposing
///   cancels the request. Plain requests go this way.
/// - `transfer` is the general contract, for uploads, downloads and anything whose
///   progress is observed: subscribing starts the request, which reports over time what
///   happens to its bytes (`TransportEvent`: upload progress, the response head, download
///   progress) and ends with `.completed` (the body in memory, or in a file), or fails as
///   `send` does. A transport that implements only `send` gets a `transfer` built on it
///   (bodies in memory, progress only at the end: see `Transport.transfer(_:)`).
///
/// Leash ships `URLSessionTransport` (the default) and `StubTransport` (scripted, for tests
/// and previews); any other client (AsyncHTTPClient on a server, say) can be adapted by
/// implementing `send`, and `transfer` for real streaming.
public protocol Transport: Sendable {
    /// Sends `request`.
    func send(_ request: URLRequest) -> Observable<TransportResponse>

    /// Sends `request`, reporting what happens to its bytes as they move.
    func transfer(_ request: TransportRequest) -> Observable<TransportEvent>
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

/// What a transport received: the HTTP response head and the whole body, in memory or
/// in a file.
public struct TransportResponse: @unchecked Sendable {
    // @unchecked: `HTTPURLResponse` is immutable but not Sendable on every platform.

    /// The response head.
    public let httpResponse: HTTPURLResponse
    /// The body, when it was received in memory (empty when it went to `file`).
    public let data: Data
    /// The file the body was written to, for a request whose destination was a file and
    /// whose status was a success (2xx); `nil` when the body is in `data`.
    public let file: URL?
    /// What URLSession measured about the request, where it does (Apple platforms); `nil`
    /// elsewhere and from other transports.
    public var metrics: TransportMetrics?

    /// Creates a response whose body is in memory.
    public init(httpResponse: HTTPURLResponse, data: Data) {
        self.httpResponse = httpResponse
        self.data = data
        self.file = nil
    }

    /// Creates a response whose body was written to `file`.
    public init(httpResponse: HTTPURLResponse, file: URL) {
        self.httpResponse = httpResponse
        self.data = Data()
        self.file = file
    }
}
