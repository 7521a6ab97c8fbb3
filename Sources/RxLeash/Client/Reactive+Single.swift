import Dispatch
import Leash
import Rx

/// `client.rx.single`: an execution as a `Single`, for one-shot calls.
///
/// The single succeeds with the execution's last value once the execution completes:
/// for a cache answering before the network, that is the network's value (observe
/// `execute` to get both). It fails with the execution's `LeashError` (or an
/// interceptor's own error), or with `LeashError.invalidResponse` if the execution ended
/// without a value. Cold, cancelled by disposing, delivered as `execute` is.
///
/// ```swift
/// client.rx.single(GetUser(id: 1))
///     .map(\.name)
///     .subscribe(onSuccess: { name in print(name) }, onFailure: { error in print(error) })
///     .disposed(by: disposeBag)
/// ```
extension Reactive where Base: Client {
    /// Executes `endpoint` and succeeds with its last value, decoded as `Value`.
    ///
    /// - Parameters:
    ///   - endpoint: What to execute.
    ///   - type: The type the body decodes to; inferred from the context when omitted.
    ///   - queue: Where to deliver the outcome (default: as `execute`).
    /// - Returns: A cold single of the value.
    public func single<Value: Decodable>(
        _ endpoint: Endpoint, type: Value.Type = Value.self, queue: DispatchQueue? = nil
    ) -> Single<Value> {
        delivered(ExecutionStreams.lastValue(of: base.responseStream(endpoint, as: type)), queue: queue)
    }

    /// Executes a typed endpoint and succeeds with its last value, decoded as the
    /// endpoint's `Response`: `client.rx.single(GetUser(id: 1))` is a `Single<User>`.
    ///
    /// - Parameters:
    ///   - endpoint: What to execute.
    ///   - queue: Where to deliver the outcome (default: as `execute`).
    /// - Returns: A cold single of the value.
    public func single<Typed: TypedEndpoint>(_ endpoint: Typed, queue: DispatchQueue? = nil) -> Single<Typed.Response> {
        single(endpoint as Endpoint, type: Typed.Response.self, queue: queue)
    }

    /// Executes `endpoint` and succeeds with its last value as `serializer` makes it.
    ///
    /// - Parameters:
    ///   - endpoint: What to execute.
    ///   - serializer: Turns the response into a value.
    ///   - queue: Where to deliver the outcome (default: as `execute`).
    /// - Returns: A cold single of the value.
    public func single<Serializer: ResponseSerializer>(
        _ endpoint: Endpoint, serializer: Serializer, queue: DispatchQueue? = nil
    ) -> Single<Serializer.SerializedObject> {
        let events = base.responseStream(endpoint, serializer: serializer)
        return delivered(ExecutionStreams.lastValue(of: events), queue: queue)
    }
}
