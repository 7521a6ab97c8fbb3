import Dispatch
import Foundation
import Leash
import Rx

/// `client.rx.stream`, `client.rx.lines` and `client.rx.serverSentEvents`: a response's
/// body as it arrives, as an `Observable` of chunks, of decoded lines (NDJSON), or of
/// Server-Sent Events.
///
/// Cold like every `client.rx` form: subscribing opens the connection, disposing closes
/// it (the server sees it). The same pipeline as every request: authenticator,
/// interceptors (which see the head), token refresh, retries. A stream has no deadline
/// for the whole unless its endpoint sets one; no bytes for the manager's `timeout` (or
/// its idle timeout) ends it with `LeashError.timeout`.
///
/// Elements arrive on the stream's own thread unless a `queue` (or the manager's
/// callback queue) is given. There a slow subscriber holds the connection back once 1 MB
/// waits for it, so memory stays flat; a delivery queue buffers instead, as `observe(on:)`
/// does.
///
/// ```swift
/// client.rx.serverSentEvents(Prices(), reconnecting: true)
///     .subscribe(onNext: { event in print(event.id ?? "-", event.data) })
///     .disposed(by: disposeBag)
/// ```
extension Reactive where Base: Client {
    /// The body of `endpoint`'s response, chunk by chunk as it arrives; completes when
    /// the body ends. (`Client.stream(_:)` is the same for `for try await`.)
    public func stream(_ endpoint: Endpoint, queue: DispatchQueue? = nil) -> Observable<Data> {
        delivered(base.chunkStream(endpoint), queue: queue)
    }

    /// The body of `endpoint`'s response as newline-delimited JSON: one `Line` per line,
    /// as soon as the line is complete (`as: String.self` for the raw lines). See
    /// `Client.lines(_:as:maximumLineLength:)` for line ends, blank lines and errors.
    public func lines<Line: Decodable>(
        _ endpoint: Endpoint, as type: Line.Type = Line.self,
        maximumLineLength: Int = StreamLimits.maximumLineLength, queue: DispatchQueue? = nil
    ) -> Observable<Line> {
        delivered(base.lineStream(endpoint, as: type, maximumLineLength: maximumLineLength), queue: queue)
    }

    /// The Server-Sent Events of `endpoint`, each as soon as it is complete.
    ///
    /// - Parameters:
    ///   - endpoint: The event stream.
    ///   - reconnecting: Whether to connect again after the connection ends or drops,
    ///     after the server's `retry` time (else `reconnectionDelay`), sending
    ///     `Last-Event-ID`; `204 No Content` ends it. Each connection goes through the
    ///     whole pipeline (token refresh included).
    ///   - reconnectionDelay: Seconds to wait before connecting again, until the server
    ///     sets its own.
    ///   - queue: Where to deliver the events (default: as `execute`).
    /// - Returns: A cold observable of the events. See `Client.serverSentEvents(_:options:)`
    ///   for the request, the responses accepted and reconnecting.
    public func serverSentEvents(
        _ endpoint: Endpoint, reconnecting: Bool = false, reconnectionDelay: TimeInterval = 3,
        queue: DispatchQueue? = nil
    ) -> Observable<ServerSentEvent> {
        serverSentEvents(
            endpoint,
            options: ServerSentEventOptions(reconnecting: reconnecting, reconnectionDelay: reconnectionDelay),
            queue: queue)
    }

    /// The Server-Sent Events of `endpoint`, with all the options (a last event ID to
    /// start from, the longest line).
    public func serverSentEvents(
        _ endpoint: Endpoint, options: ServerSentEventOptions, queue: DispatchQueue? = nil
    ) -> Observable<ServerSentEvent> {
        delivered(base.serverSentEventStream(endpoint, options: options), queue: queue)
    }

    /// The Server-Sent Events of `endpoint`, each event's `data` decoded from JSON as
    /// `Value`; an event that does not decode ends the stream with `LeashError.decoding`.
    public func serverSentEvents<Value: Decodable>(
        _ endpoint: Endpoint, decoding type: Value.Type, reconnecting: Bool = false,
        reconnectionDelay: TimeInterval = 3, queue: DispatchQueue? = nil
    ) -> Observable<Value> {
        serverSentEvents(
            endpoint, decoding: type,
            options: ServerSentEventOptions(reconnecting: reconnecting, reconnectionDelay: reconnectionDelay),
            queue: queue)
    }

    /// The Server-Sent Events of `endpoint`, each event's `data` decoded from JSON as
    /// `Value`, with all the options (a last event ID to start from, the longest line).
    public func serverSentEvents<Value: Decodable>(
        _ endpoint: Endpoint, decoding type: Value.Type, options: ServerSentEventOptions, queue: DispatchQueue? = nil
    ) -> Observable<Value> {
        delivered(base.serverSentEventStream(endpoint, decoding: type, options: options), queue: queue)
    }
}
