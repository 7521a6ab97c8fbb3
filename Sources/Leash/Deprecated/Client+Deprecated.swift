import Dispatch
import Foundation
import Rx

/// The spellings 1.0 replaced, kept for one release so that code written against them
/// still compiles, with a warning that says what to write instead. Each is the new form
/// under its old name: nothing here behaves differently.
///
/// The observable forms moved to `client.rx` (`import RxLeash`), so that `Client` itself
/// keeps the callback and `async` forms and each thing has one way to do it.
extension Client {
    // MARK: Observables, now on client.rx

    /// The execution of `endpoint` as a stream of events; now `client.rx.events`.
    @available(
        *, deprecated, renamed: "rx.events(_:serializer:queue:)",
        message: "Now on client.rx (import RxLeash): client.rx.events(endpoint, serializer: s)"
    )
    public func execution<Serializer: ResponseSerializer>(_ endpoint: Endpoint, serializer: Serializer)
        -> Observable<ExecutionEvent<Serializer.SerializedObject>>
    {
        eventStream(endpoint, serializer: serializer)
    }

    /// The execution of `endpoint` as a stream of events, decoding `Value`; now
    /// `client.rx.events`.
    @available(
        *, deprecated, renamed: "rx.events(_:type:queue:)",
        message: "Now on client.rx (import RxLeash): client.rx.events(endpoint, type: Value.self)"
    )
    public func execution<Value: Decodable>(_ endpoint: Endpoint, as type: Value.Type = Value.self)
        -> Observable<ExecutionEvent<Value>>
    {
        eventStream(endpoint, as: type)
    }

    /// The values of an execution of `endpoint`, serialized with `serializer`; now
    /// `client.rx.response`, which gives each as a `ResponseValue`.
    @available(
        *, deprecated, renamed: "rx.response(_:serializer:queue:)",
        message: "Now on client.rx (import RxLeash): client.rx.response(endpoint, serializer: s)"
    )
    public func responses<Serializer: ResponseSerializer>(_ endpoint: Endpoint, serializer: Serializer)
        -> Observable<Response<Serializer.SerializedObject>>
    {
        responseStream(endpoint, serializer: serializer)
    }

    /// The values of an execution of `endpoint`, decoded as `Value`; now
    /// `client.rx.response`, which gives each as a `ResponseValue`.
    @available(
        *, deprecated, renamed: "rx.response(_:type:queue:)",
        message: "Now on client.rx (import RxLeash): client.rx.response(endpoint, type: Value.self)"
    )
    public func responses<Value: Decodable>(_ endpoint: Endpoint, as type: Value.Type = Value.self)
        -> Observable<Response<Value>>
    {
        responseStream(endpoint, as: type)
    }

    /// The body of `endpoint`'s response, chunk by chunk; now `client.rx.stream`.
    @available(
        *, deprecated, renamed: "rx.stream(_:queue:)",
        message: "Now on client.rx (import RxLeash): client.rx.stream(endpoint)"
    )
    public func streamExecution(_ endpoint: Endpoint) -> Observable<Data> {
        chunkStream(endpoint)
    }

    /// The lines of `endpoint`'s response, each decoded as `Line`; now `client.rx.lines`.
    @available(
        *, deprecated, renamed: "rx.lines(_:as:maximumLineLength:queue:)",
        message: "Now on client.rx (import RxLeash): client.rx.lines(endpoint, as: Line.self)"
    )
    public func linesExecution<Line: Decodable>(
        _ endpoint: Endpoint, as type: Line.Type = Line.self,
        maximumLineLength: Int = StreamLimits.maximumLineLength
    ) -> Observable<Line> {
        lineStream(endpoint, as: type, maximumLineLength: maximumLineLength)
    }

    /// The Server-Sent Events of `endpoint`; now `client.rx.serverSentEvents`.
    @available(
        *, deprecated, renamed: "rx.serverSentEvents(_:options:queue:)",
        message: "Now on client.rx (import RxLeash): client.rx.serverSentEvents(endpoint, options: o)"
    )
    public func serverSentEventsExecution(
        _ endpoint: Endpoint, options: ServerSentEventOptions = ServerSentEventOptions()
    ) -> Observable<ServerSentEvent> {
        serverSentEventStream(endpoint, options: options)
    }

    /// The Server-Sent Events of `endpoint`, each event's `data` decoded as `Value`; now
    /// `client.rx.serverSentEvents`.
    @available(
        *, deprecated, renamed: "rx.serverSentEvents(_:decoding:options:queue:)",
        message:
            "Now on client.rx (import RxLeash): client.rx.serverSentEvents(endpoint, decoding: Value.self, options: o)"
    )
    public func serverSentEventsExecution<Value: Decodable>(
        _ endpoint: Endpoint, decoding type: Value.Type, options: ServerSentEventOptions = ServerSentEventOptions()
    ) -> Observable<Value> {
        serverSentEventStream(endpoint, decoding: type, options: options)
    }

    /// The download of `endpoint` to `destination`, as a stream of events; now
    /// `client.rx.download`, which gives its progress and then the file.
    @available(
        *, deprecated, renamed: "rx.download(_:to:resumingFrom:queue:)",
        message: "Now on client.rx (import RxLeash): client.rx.download(endpoint, to: destination)"
    )
    public func downloadExecution(_ endpoint: Endpoint, to destination: URL, resumingFrom partialFile: URL? = nil)
        -> Observable<ExecutionEvent<URL>>
    {
        downloadEventStream(endpoint, to: destination, resumingFrom: partialFile)
    }

    /// The upload of `endpoint`'s body, as a stream of events; now `client.rx.upload`,
    /// which gives its progress and then the value.
    @available(
        *, deprecated, renamed: "rx.upload(_:serializer:queue:)",
        message: "Now on client.rx (import RxLeash): client.rx.upload(endpoint, serializer: s)"
    )
    public func uploadExecution<Serializer: ResponseSerializer>(_ endpoint: Endpoint, serializer: Serializer)
        -> Observable<ExecutionEvent<Serializer.SerializedObject>>
    {
        uploadEventStream(endpoint, serializer: serializer)
    }

    /// The upload of `endpoint`'s body, decoding the response as `Value`; now
    /// `client.rx.upload`.
    @available(
        *, deprecated, renamed: "rx.upload(_:type:queue:)",
        message: "Now on client.rx (import RxLeash): client.rx.upload(endpoint, type: Value.self)"
    )
    public func uploadExecution<Value: Decodable>(_ endpoint: Endpoint, as type: Value.Type = Value.self)
        -> Observable<ExecutionEvent<Value>>
    {
        uploadEventStream(endpoint, as: type)
    }

    // MARK: Callbacks

    /// Executes `endpoint`, decoding `Value`; calls `completion` with each outcome as a
    /// `Result`. Now the `Response<Value>` callback, whose `result` is that `Result`.
    @available(
        *, deprecated,
        message: "Take a Response<Value> and read its result: { (response: Response<Value>) in response.result }"
    )
    @discardableResult
    public func execute<Value: Decodable>(
        _ endpoint: Endpoint, queue: DispatchQueue? = nil, completion: @escaping (Result<Value, Swift.Error>) -> Void
    ) -> DataRequest {
        execute(endpoint, queue: queue) { (response: Response<Value>) in completion(response.result) }
    }
}
