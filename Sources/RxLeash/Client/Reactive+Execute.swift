import Dispatch
import Leash
import Rx

/// `client.rx.execute`: an execution's values as an `Observable`.
///
/// Every form here is cold: each subscription executes the endpoint anew, through the one
/// pipeline (the execution's own stream of values), and disposing cancels whatever is in
/// flight (the URLSession task, a pending retry, an interceptor's timer). It emits each
/// value (two for a cache answering before the network) and completes after the last;
/// it fails with the `LeashError` that ends the execution, or with an interceptor's own
/// error, unchanged.
///
/// Values are delivered on `queue` if given, else on the manager's `callbackQueue`, else
/// where the execution produces them: the transport's queue (or the thread an
/// interceptor called back on). Never on the main queue unless you ask for it, with
/// `queue: .main`, the manager's `callbackQueue`, or `observe(on: MainScheduler.instance)`.
///
/// ```swift
/// client.rx.execute(APIEndpoint.readAllUsers, type: [User].self)
///     .subscribe(onNext: { users in print(users) }, onError: { error in print(error) })
///     .disposed(by: disposeBag)
/// ```
extension Reactive where Base: Client {
    /// Executes `endpoint` and emits its values, decoded as `Value` with the endpoint's
    /// `JSONDecoder` (else the manager's).
    ///
    /// - Parameters:
    ///   - endpoint: What to execute.
    ///   - type: The type the body decodes to; inferred from the context when omitted.
    ///   - queue: Where to deliver the events (default: see above).
    /// - Returns: A cold observable of the values.
    public func execute<Value: Decodable>(
        _ endpoint: Endpoint, type: Value.Type = Value.self, queue: DispatchQueue? = nil
    ) -> Observable<Value> {
        execute(endpoint, serializer: base.decodableSerializer(for: endpoint, as: type), queue: queue)
    }

    /// Executes a typed endpoint and emits its values, decoded as the endpoint's
    /// `Response`: `client.rx.execute(GetUser(id: 1))` is an `Observable<User>`.
    ///
    /// - Parameters:
    ///   - endpoint: What to execute.
    ///   - queue: Where to deliver the events (default: see above).
    /// - Returns: A cold observable of the values.
    public func execute<Typed: TypedEndpoint>(_ endpoint: Typed, queue: DispatchQueue? = nil)
        -> Observable<Typed.Response>
    {
        execute(endpoint as Endpoint, type: Typed.Response.self, queue: queue)
    }

    /// Executes `endpoint` and emits its values as `serializer` makes them (JSON objects,
    /// strings, raw data, or a format of your own).
    ///
    /// - Parameters:
    ///   - endpoint: What to execute.
    ///   - serializer: Turns each response into a value; its errors end the stream as
    ///     `LeashError.serialization` (a `LeashError` it throws is kept as it is).
    ///   - queue: Where to deliver the events (default: see above).
    /// - Returns: A cold observable of the values.
    public func execute<Serializer: ResponseSerializer>(
        _ endpoint: Endpoint, serializer: Serializer, queue: DispatchQueue? = nil
    ) -> Observable<Serializer.SerializedObject> {
        delivered(base.bareValues(endpoint, serializer: serializer), queue: queue)
    }
}
