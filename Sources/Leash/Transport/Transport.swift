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
/// Leash ships `URLSessionTransport` (the default), and `LeashTesting` ships `StubTransport`
/// (scripted, for tests and previews); any other client (AsyncHTTPClient on a server, say) can be adapted by
/// implementing `send`, and `transfer` for real streaming.
public protocol Transport: Sendable {
    /// Sends `request`.
    func send(_ request: URLRequest) -> Observable<TransportResponse>

    /// Sends `request`, reporting what happens to its bytes as they move.
    func transfer(_ request: TransportRequest) -> Observable<TransportEvent>
}

/// A transport Leash's pipeline starts directly, without the observable `send` wraps
/// around each request, and which can hand its answer to the execution's task, give its
/// manager's dispatcher place back when the request really ended, and answer challenges
/// as the manager says (`URLSessionTransport`).
protocol DirectTransport: Transport {
    /// Prepares `request`, which reports to `observer` once, through `options.handoff` if
    /// there is one. Nothing is sent until `launch()`; disposing cancels the request (or
    /// makes `launch()` do nothing).
    func prepare<Observer: ObserverType & SendableMetatype>(
        _ request: URLRequest, options: DirectRequestOptions, observer: Observer
    ) -> PreparedRequest where Observer.Element == TransportResponse

    /// Prepares the transfer `request` (see `Transport.transfer(_:)`), as `prepare` does.
    func prepareTransfer(
        _ request: TransportRequest, options: DirectRequestOptions, observer: AnyObserver<TransportEvent>
    ) -> PreparedRequest
}

/// A request a direct transport made ready: `launch()` sends it, once, unless it was
/// disposed first. The pipeline keeps it (for a dispose to reach) before resuming it, so
/// that an execution that ends at any moment either never sends it or cancels it.
protocol PreparedRequest: Disposable {
    /// Sends the request, unless it was disposed.
    func launch()
    /// A stream's pacing (`URLSessionTransport`'s slow-subscriber limits), told of the
    /// chunks the pipeline keeps back; nil for other requests.
    var streamPacing: StreamPacing? { get }
}

extension PreparedRequest {
    var streamPacing: StreamPacing? { nil }
}

/// How a direct transport paces a stream by its subscriber (see `SlowSubscriberPolicy`):
/// it counts a chunk as taken once the pipeline's hand-off returns. A chunk the pipeline
/// keeps instead (its head still being judged by a success interceptor that calls back
/// later, or chunks before it still being handed on from that interceptor's thread) is
/// reported here: its bytes still wait until `handedOn`. Without this, a subscriber stuck
/// on an interceptor's thread would look to the transport like one that takes every chunk:
/// the connection would never be held back or ended, and the chunks would pile up in
/// memory.
protocol StreamPacing: AnyObject, Sendable {
    /// A chunk handed on was kept by the pipeline: its `bytes` still wait.
    func kept(_ bytes: Int)
    /// A kept chunk of `bytes` reached the subscriber.
    func handedOn(_ bytes: Int)
}

/// What the pipeline tells a direct transport about one request besides the request.
struct DirectRequestOptions: Sendable {
    /// Where the answer is handed (an `await`ing execution's task), if anywhere.
    var handoff: ResponseHandoff?
    /// The request's place in its manager's `RequestDispatcher`, given back when the
    /// transport's request really ended.
    var place: DispatcherPlace?
    /// How authentication challenges are answered.
    var credentials: CredentialHandling = .none
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

/// A transport that learns the JSON encoder of each manager it is installed in: the test
/// doubles' `StubTransport` encodes the values of its JSON answers with it, so that a stub
/// speaks the app's JSON (snake_case keys, its date format) unless told otherwise.
package protocol JSONEncoderAdopting: Transport {
    /// Called by `Manager` when it is built with this transport.
    func adopt(jsonEncoder: JSONEncoder)
}
