import Dispatch
import Leash
import Rx

/// `client.rx.events`: everything an execution does, as it happens: `requestPrepared`,
/// `requestSent`, `responseReceived`, `retrying` and each `value` (see `ExecutionEvent`).
/// The execution's own stream of events, delivered as `execute` is: for progress
/// indicators, logging, or tests that check what was sent.
///
/// ```swift
/// client.rx.events(APIEndpoint.readAllUsers, type: [User].self)
///     .subscribe(onNext: { event in
///         if case .retrying(let attempt) = event { print("attempt", attempt) }
///     })
///     .disposed(by: disposeBag)
/// ```
extension Reactive where Base: Client {
    /// The events of executing `endpoint`, decoding values as `Value`.
    ///
    /// - Parameters:
    ///   - endpoint: What to execute.
    ///   - type: The type the body decodes to; inferred from the context when omitted.
    ///   - queue: Where to deliver the events (default: as `execute`).
    /// - Returns: A cold observable of the execution's events.
    public func events<Value: Decodable>(
        _ endpoint: Endpoint, type: Value.Type = Value.self, queue: DispatchQueue? = nil
    ) -> Observable<ExecutionEvent<Value>> {
        delivered(base.eventStream(endpoint, as: type), queue: queue)
    }

    /// The events of executing a typed endpoint, decoding values as its `Response`.
    ///
    /// - Parameters:
    ///   - endpoint: What to execute.
    ///   - queue: Where to deliver the events (default: as `execute`).
    /// - Returns: A cold observable of the execution's events.
    public func events<Typed: TypedEndpoint>(_ endpoint: Typed, queue: DispatchQueue? = nil)
        -> Observable<ExecutionEvent<Typed.Response>>
    {
        events(endpoint as Endpoint, type: Typed.Response.self, queue: queue)
    }

    /// The events of executing `endpoint`, serializing values with `serializer`.
    ///
    /// - Parameters:
    ///   - endpoint: What to execute.
    ///   - serializer: Turns each response into a value.
    ///   - queue: Where to deliver the events (default: as `execute`).
    /// - Returns: A cold observable of the execution's events.
    public func events<Serializer: ResponseSerializer>(
        _ endpoint: Endpoint, serializer: Serializer, queue: DispatchQueue? = nil
    ) -> Observable<ExecutionEvent<Serializer.SerializedObject>> {
        delivered(base.eventStream(endpoint, serializer: serializer), queue: queue)
    }
}
