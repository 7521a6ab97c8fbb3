import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Streams: a response's body handed on as it arrives, as chunks, as lines (NDJSON), or as
/// Server-Sent Events, through the same pipeline as every request (authenticator,
/// interceptors, token refresh, retries).
///
/// - The success and failure interceptors see the head (a stream's success with an empty
///   body, an error status with its whole body); the chunks then go straight to the
///   subscriber. An interceptor that answers in place of the network (a cache) gives
///   its body as one chunk.
/// - A stream has no whole-execution deadline unless its endpoint sets a `timeout`: the
///   manager's `timeout` (or the idle timeout, if set) bounds each stall, no bytes for
///   that long ending it with `LeashError.timeout`.
/// - Backpressure: the subscriber runs on the stream's own thread, and while at most 1 MB
///   waits for it the connection carries on; beyond that the connection is held back
///   (TCP tells the server to wait), so a slow subscriber slows the stream, not memory.
///   Delivering on another queue (`client.rx`'s `queue:`, `observe(on:)`) moves that wait
///   into the queue, which buffers without bound, as `observe(on:)` always does.
/// - Disposing closes the connection (the server sees it).
extension Client {
    // MARK: async

    /// The body of `endpoint`'s response, chunk by chunk as it arrives: `for try await chunk
    /// in client.stream(endpoint)`. Ends when the body ends; cancelling the task (or
    /// leaving the loop) closes the connection. At most a few elements wait for the loop:
    /// the stream waits for it beyond that. (`client.rx.stream` is the same as an
    /// `Observable`.)
    public func stream(_ endpoint: Endpoint) -> AsyncThrowingStream<Data, Swift.Error> {
        AsyncPull.stream(of: chunkStream(endpoint))
    }

    /// The body of `endpoint`'s response as newline-delimited JSON (NDJSON, JSON Lines):
    /// each line decoded as `Line` as soon as it is complete (see `stream(_:)` for the
    /// loop; `client.rx.lines` is the same as an `Observable`).
    ///
    /// Lines end with `\n` or `\r\n`; a line split across chunks is joined; a last line
    /// without its line end counts. Blank lines are skipped, except `as: String.self`,
    /// which gives every line as text. A line that does not decode (or is not UTF-8 text)
    /// ends the stream with `LeashError.decoding`, naming its line number and showing
    /// its beginning; a line longer than `maximumLineLength` bytes ends it with
    /// `LeashError.invalidResponse`. The lines complete before a failure are delivered
    /// first.
    public func lines<Line: Decodable & Sendable>(
        _ endpoint: Endpoint, as type: Line.Type = Line.self,
        maximumLineLength: Int = StreamLimits.maximumLineLength
    ) -> AsyncThrowingStream<Line, Swift.Error> {
        AsyncPull.stream(of: lineStream(endpoint, as: type, maximumLineLength: maximumLineLength))
    }

    /// The Server-Sent Events of `endpoint` (`text/event-stream`), each as soon as the
    /// blank line that ends it arrives, parsed as the HTML standard says: `for try await
    /// event in client.serverSentEvents(endpoint)` (see `stream(_:)` for the loop;
    /// `client.rx.serverSentEvents` is the same as an `Observable`).
    ///
    /// The request asks for `text/event-stream` (unless the endpoint sets its own
    /// `Accept`) and sends `Last-Event-ID` once an event set one. A response of another
    /// content type ends the stream with `LeashError.invalidResponse`; `204 No Content`
    /// completes it. With `options.reconnecting`, a connection that ends or drops is
    /// followed by another after the server's `retry` time (else
    /// `options.reconnectionDelay`), on the manager's scheduler, resuming after the last
    /// event ID; each connection is a whole execution (the authenticator and token
    /// refresh apply to each). Without it, the stream completes with its connection.
    public func serverSentEvents(
        _ endpoint: Endpoint, options: ServerSentEventOptions = ServerSentEventOptions()
    ) -> AsyncThrowingStream<ServerSentEvent, Swift.Error> {
        AsyncPull.stream(of: serverSentEventStream(endpoint, options: options))
    }

    /// The Server-Sent Events of `endpoint`, each event's `data` decoded from JSON as
    /// `Value` (see `serverSentEvents(_:options:)`). An event whose data does not decode
    /// ends the stream with `LeashError.decoding`, naming the event.
    public func serverSentEvents<Value: Decodable & Sendable>(
        _ endpoint: Endpoint, decoding type: Value.Type, options: ServerSentEventOptions = ServerSentEventOptions()
    ) -> AsyncThrowingStream<Value, Swift.Error> {
        AsyncPull.stream(of: serverSentEventStream(endpoint, decoding: type, options: options))
    }

    // MARK: The streams `client.rx` and the `async` forms deliver

    /// The body of `endpoint`'s response, chunk by chunk as it arrives; completes when the
    /// body ends. What `client.rx.stream` and `stream(_:)` deliver.
    package func chunkStream(_ endpoint: Endpoint) -> Observable<Data> {
        streamElements(endpoint).compactMap { element in
            switch element {
            case .head: return nil
            case .chunk(let data): return data
            case .whole(_, let data): return data.isEmpty ? nil : data
            }
        }
    }

    /// The lines of `endpoint`'s response, each decoded as `Line` (see
    /// `lines(_:as:maximumLineLength:)`). What `client.rx.lines` and `lines` deliver.
    package func lineStream<Line: Decodable>(
        _ endpoint: Endpoint, as type: Line.Type = Line.self,
        maximumLineLength: Int = StreamLimits.maximumLineLength
    ) -> Observable<Line> {
        // Text lines take a path of their own, without generics: unspecialized, each line
        // would look up the metadata of `Line`'s types (half the time of a fast stream).
        if Line.self == String.self, let text = textLines(endpoint, maximumLineLength) as? Observable<Line> {
            return text
        }
        let decode = LineDecoders.decoding(type, with: endpoint.jsonDecoder ?? manager.jsonDecoder)
        return LineDecoding.lines(
            of: streamElements(endpoint), LineDecoding(maximumLineLength: maximumLineLength, decode: decode))
    }

    /// `lineStream(_:as: String.self, maximumLineLength:)`, with every type known.
    private func textLines(_ endpoint: Endpoint, _ maximumLineLength: Int) -> Observable<String> {
        LineDecoding.lines(
            of: streamElements(endpoint),
            LineDecoding(maximumLineLength: maximumLineLength, decode: LineDecoders.text))
    }

    /// The Server-Sent Events of `endpoint` (see `serverSentEvents(_:options:)`). What
    /// `client.rx.serverSentEvents` and `serverSentEvents` deliver.
    package func serverSentEventStream(
        _ endpoint: Endpoint, options: ServerSentEventOptions = ServerSentEventOptions()
    ) -> Observable<ServerSentEvent> {
        let client = self
        let endpoint = Carried(endpoint)
        return Observable.create { observer in
            let session = ServerSentEventSession(
                client: client, endpoint: endpoint.value, options: options, observer: observer)
            session.connect()
            return session
        }
    }

    /// The Server-Sent Events of `endpoint`, each event's `data` decoded from JSON as
    /// `Value` (see `serverSentEvents(_:decoding:options:)`).
    package func serverSentEventStream<Value: Decodable>(
        _ endpoint: Endpoint, decoding type: Value.Type, options: ServerSentEventOptions = ServerSentEventOptions()
    ) -> Observable<Value> {
        let decoder = EventDataDecoder<Value>(endpoint.jsonDecoder ?? manager.jsonDecoder)
        return EventDataMap.decoded(serverSentEventStream(endpoint, options: options), decoder.decode)
    }
}

/// Decodes events' data as `Value`.
private final class EventDataDecoder<Value: Decodable>: @unchecked Sendable {
    // @unchecked: the decoder is only read (JSONDecoder is thread-safe to decode with).
    private let decoder: JSONDecoder

    init(_ decoder: JSONDecoder) {
        self.decoder = decoder
    }

    /// `event`'s data as `Value`, else `LeashError.decoding` naming the event.
    func decode(_ event: ServerSentEvent) throws -> Value {
        do {
            return try decoder.decode(Value.self, from: Data(event.data.utf8))
        } catch {
            let name = event.id.map { "event \($0)" } ?? "an event"
            throw LeashError.decoding(
                type: "\(Value.self) (the data of \(name))", underlying: error,
                bodyExcerpt: String(event.data.prefix(200)))
        }
    }
}

/// The stream's `map`, made where `Value` has no constraints: its closure then captures
/// no conformance of `Value` (which would not be Sendable).
private enum EventDataMap {
    static func decoded<Value>(
        _ events: Observable<ServerSentEvent>, _ decode: @escaping (ServerSentEvent) throws -> Value
    ) -> Observable<Value> {
        let decode = Carried(decode)
        return events.map { try decode.value($0) }
    }
}
