import Dispatch
import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Executes endpoints with a manager's configuration.
///
/// Every execution is one stream: subscribing starts it, disposing cancels it, and it
/// completes after its last value. The callback and `async` forms below subscribe to that
/// same stream; `import RxLeash` gives it as an `Observable` (`client.rx`).
///
/// ```swift
/// let client = Client(manager: manager)
/// client.execute(APIEndpoint.readAllUsers) { (response: Response<[User]>) in
///     print(response.value ?? [])
/// }
/// let users = try await client.execute(APIEndpoint.readAllUsers, as: [User].self)
/// ```
///
/// Subclass it to group an API's calls (`usersClient.readAll { … }`) or to override
/// `urlRequest(for:)` for a custom encoding.
open class Client: @unchecked Sendable {
    // @unchecked: the manager is immutable; subclasses that add state own its safety.

    /// The configuration of every execution.
    public let manager: Manager

    /// A client for `manager`.
    public init(manager: Manager) {
        self.manager = manager
    }

    /// Builds the `URLRequest` of `endpoint`. Override it for a custom encoding.
    ///
    /// - Throws: `LeashError.invalidURL` or `LeashError.encoding`.
    open func urlRequest(for endpoint: Endpoint) throws -> URLRequest {
        try RequestBuilder.urlRequest(for: endpoint, manager: manager)
    }

    /// Builds the request of `endpoint` without executing it.
    public func request(for endpoint: Endpoint) throws -> DataRequest {
        DataRequest(try urlRequest(for: endpoint))
    }

    // MARK: The stream

    /// The execution of `endpoint` as a stream of events, serializing with `serializer`:
    /// what `client.rx.events` delivers.
    ///
    /// The stream is cold: each subscription executes anew, and disposing cancels what
    /// is in flight (the transport's task too). One attempt emits `requestPrepared`,
    /// `requestSent`, `responseReceived` and its `value`s (an interceptor's value may come
    /// first, as with cache-then-network); `retrying(attempt:)` precedes each retry. The
    /// stream completes after the last value, or fails with the first failure no
    /// interceptor turned around. Events never overlap, whatever threads interceptors
    /// call back on.
    ///
    /// The timeout (the endpoint's, else the manager's) bounds the whole execution, from
    /// subscription to its end, retries included; it fires exactly on time on the
    /// manager's scheduler, as `LeashError.timeout`. It is met once the response is
    /// complete: it never ends an execution that already delivered its last value,
    /// however long the subscriber takes over it. A timeout that is not a positive, finite
    /// number of seconds below 10⁹ means no limit.
    package func eventStream<Serializer: ResponseSerializer>(_ endpoint: Endpoint, serializer: Serializer)
        -> Observable<ExecutionEvent<Serializer.SerializedObject>>
    {
        ObservableForms.Events(recipe: ExecutionRecipe(client: self, endpoint: endpoint), serializer: serializer)
            .asObservable()
    }

    /// The execution of `endpoint` as a stream of events, decoding `Value` (see
    /// `eventStream(_:serializer:)`).
    package func eventStream<Value: Decodable>(_ endpoint: Endpoint, as type: Value.Type = Value.self)
        -> Observable<ExecutionEvent<Value>>
    {
        eventStream(endpoint, serializer: decodableSerializer(for: endpoint, as: type))
    }

    /// The values of an execution of `endpoint`, serialized with `serializer`, without its
    /// progress: each element is a `.success` (the value and its `ResponseExtra`), and the
    /// stream fails with the failure that ends the execution. What `client.rx.response`
    /// and `client.rx.single` build on.
    ///
    /// The same pipeline as `eventStream(_:serializer:)`, as cold and as cancellable; it
    /// skips building the progress events, which makes it the cheaper stream to build on
    /// when only values matter (the callback, `async` and `client.rx` forms run this same
    /// stream, subscribed without the wrappers an `Observable` needs).
    package func responseStream<Serializer: ResponseSerializer>(_ endpoint: Endpoint, serializer: Serializer)
        -> Observable<Response<Serializer.SerializedObject>>
    {
        ObservableForms.Responses(recipe: ExecutionRecipe(client: self, endpoint: endpoint), serializer: serializer)
            .asObservable()
    }

    /// The values of an execution of `endpoint`, decoded as `Value`, without its progress
    /// (see `responseStream(_:serializer:)`).
    package func responseStream<Value: Decodable>(_ endpoint: Endpoint, as type: Value.Type = Value.self)
        -> Observable<Response<Value>>
    {
        responseStream(endpoint, serializer: decodableSerializer(for: endpoint, as: type))
    }

    /// The values alone of an execution of `endpoint` (`responseStream(_:serializer:)`
    /// without the details), for `client.rx.execute`.
    package func bareValues<Serializer: ResponseSerializer>(_ endpoint: Endpoint, serializer: Serializer)
        -> Observable<Serializer.SerializedObject>
    {
        ObservableForms.Values(recipe: ExecutionRecipe(client: self, endpoint: endpoint), serializer: serializer)
            .asObservable()
    }

    /// The decodable serializer for `endpoint`: the endpoint's decoder or the manager's.
    public func decodableSerializer<Value: Decodable>(for endpoint: Endpoint, as type: Value.Type = Value.self)
        -> DecodableResponseSerializer<Value>
    {
        DecodableResponseSerializer(decoder: endpoint.jsonDecoder ?? manager.jsonDecoder)
    }

    // MARK: Callbacks

    /// Executes `endpoint`, serializing with `serializer`; calls `completion` with each
    /// outcome on `queue` (default: the manager's callback queue, else the thread the
    /// outcome arrives on).
    ///
    /// `completion` is called once per value (twice for cache-then-network), or once
    /// with the failure that ends the execution; never after `cancel()`.
    ///
    /// - Returns: A handle whose `cancel()` cancels the execution.
    @discardableResult
    public func execute<Serializer: ResponseSerializer>(
        _ endpoint: Endpoint, serializer: Serializer, queue: DispatchQueue? = nil,
        completion: @escaping (Response<Serializer.SerializedObject>) -> Void
    ) -> DataRequest {
        let handle = DataRequest(client: self, endpoint: endpoint)
        let sink = CallbackSink(queue: queue ?? manager.callbackQueue, handle: handle, completion: completion)
        var recipe = ExecutionRecipe(client: self, endpoint: endpoint)
        recipe.control = handle
        recipe.start(sink, serializer: serializer)
        return handle
    }

    /// Executes `endpoint`, decoding `Value`; calls `completion` with each outcome.
    @discardableResult
    public func execute<Value: Decodable>(
        _ endpoint: Endpoint, queue: DispatchQueue? = nil, completion: @escaping (Response<Value>) -> Void
    ) -> DataRequest {
        execute(
            endpoint, serializer: decodableSerializer(for: endpoint, as: Value.self), queue: queue,
            completion: completion)
    }

    /// Executes a typed endpoint; calls `completion` with each outcome.
    @discardableResult
    public func execute<Typed: TypedEndpoint>(
        _ endpoint: Typed, queue: DispatchQueue? = nil, completion: @escaping (Response<Typed.Response>) -> Void
    ) -> DataRequest {
        execute(endpoint as Endpoint, queue: queue, completion: completion)
    }

    // MARK: async/await

    /// Executes `endpoint` and returns its last value, decoded as `Value`.
    ///
    /// Cancelling the task cancels the execution (the URLSession task too).
    public func execute<Value: Decodable>(_ endpoint: Endpoint, as type: Value.Type = Value.self) async throws
        -> Value
    {
        try await execute(endpoint, serializer: decodableSerializer(for: endpoint, as: type))
    }

    /// Executes a typed endpoint and returns its last value.
    public func execute<Typed: TypedEndpoint>(_ endpoint: Typed) async throws -> Typed.Response {
        try await execute(endpoint as Endpoint, as: Typed.Response.self)
    }

    /// Executes `endpoint` with `serializer` and returns its last value.
    public func execute<Serializer: ResponseSerializer>(_ endpoint: Endpoint, serializer: Serializer) async throws
        -> Serializer.SerializedObject
    {
        // The transport hands its answer to this task, which runs the rest of the
        // pipeline itself: one thread hop per request, as with `URLSession.data(for:)`.
        try await AsyncExecution.value(of: ExecutionRecipe(client: self, endpoint: endpoint), serializer: serializer)
    }
}
