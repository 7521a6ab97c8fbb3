import Dispatch
import Leash
import Rx

/// `client.rx.response`: an execution's values, each as a `ResponseValue`: the value with
/// where it came from (the network or an interceptor, such as a cache) and the status
/// code, headers and body of the network response. Cold, cancelled by disposing,
/// delivered as `execute` is.
///
/// For the last value alone with its details, as a `Single`:
/// `client.rx.response(…).takeLast(1).asSingle()`.
///
/// ```swift
/// client.rx.response(APIEndpoint.readAllUsers, type: [User].self)
///     .subscribe(onNext: { response in
///         if response.source == .interceptor { print("cached:", response.value) }
///     })
///     .disposed(by: disposeBag)
/// ```
extension Reactive where Base: Client {
    /// Executes `endpoint` and emits its values, decoded as `Value`, with their details.
    ///
    /// - Parameters:
    ///   - endpoint: What to execute.
    ///   - type: The type the body decodes to; inferred from the context when omitted.
    ///   - queue: Where to deliver the events (default: as `execute`).
    /// - Returns: A cold observable of the values and their details.
    public func response<Value: Decodable>(
        _ endpoint: Endpoint, type: Value.Type = Value.self, queue: DispatchQueue? = nil
    ) -> Observable<ResponseValue<Value>> {
        delivered(ExecutionStreams.responses(of: base.responseStream(endpoint, as: type)), queue: queue)
    }

    /// Executes a typed endpoint and emits its values, decoded as the endpoint's
    /// `Response`, with their details.
    ///
    /// - Parameters:
    ///   - endpoint: What to execute.
    ///   - queue: Where to deliver the events (default: as `execute`).
    /// - Returns: A cold observable of the values and their details.
    public func response<Typed: TypedEndpoint>(_ endpoint: Typed, queue: DispatchQueue? = nil)
        -> Observable<ResponseValue<Typed.Response>>
    {
        response(endpoint as Endpoint, type: Typed.Response.self, queue: queue)
    }

    /// Executes `endpoint` and emits its values as `serializer` makes them, with their
    /// details.
    ///
    /// - Parameters:
    ///   - endpoint: What to execute.
    ///   - serializer: Turns each response into a value.
    ///   - queue: Where to deliver the events (default: as `execute`).
    /// - Returns: A cold observable of the values and their details.
    public func response<Serializer: ResponseSerializer>(
        _ endpoint: Endpoint, serializer: Serializer, queue: DispatchQueue? = nil
    ) -> Observable<ResponseValue<Serializer.SerializedObject>> {
        delivered(ExecutionStreams.responses(of: base.responseStream(endpoint, serializer: serializer)), queue: queue)
    }
}
