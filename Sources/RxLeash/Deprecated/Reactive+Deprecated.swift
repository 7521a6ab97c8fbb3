import Dispatch
import Leash
import Rx

/// The name 1.0 replaced, kept for one release: a value and the response it came from is
/// not reactive.
@available(*, deprecated, renamed: "ResponseValue")
public typealias ReactiveResponse = ResponseValue

/// The `client.rx` spellings 1.0 replaced, kept for one release so that code written
/// against them still compiles, with a warning that says what to write instead. Each is
/// the new form under its old name.
extension Reactive where Base: Client {
    /// Executes `endpoint` and emits its values with their details; now
    /// `response(_:type:queue:)`, which takes the value's type itself.
    @available(
        *, deprecated, renamed: "response(_:type:queue:)",
        message: "Pass the value's type: client.rx.response(endpoint, type: Value.self)"
    )
    public func execute<Value: Decodable>(
        _ endpoint: Endpoint, type: ResponseValue<Value>.Type, queue: DispatchQueue? = nil
    ) -> Observable<ResponseValue<Value>> {
        response(endpoint, type: Value.self, queue: queue)
    }

    /// Executes `endpoint` and succeeds with its last value, decoded as `Value`, and its
    /// details; now `response(…)` and `.takeLast(1).asSingle()`.
    @available(
        *, deprecated,
        message: "Use client.rx.response(endpoint, type: Value.self).takeLast(1).asSingle(), or client.rx.single"
    )
    public func singleResponse<Value: Decodable>(
        _ endpoint: Endpoint, type: Value.Type = Value.self, queue: DispatchQueue? = nil
    ) -> Single<ResponseValue<Value>> {
        delivered(ExecutionStreams.lastResponse(of: base.responseStream(endpoint, as: type)), queue: queue)
    }

    /// Executes a typed endpoint and succeeds with its last value and its details; now
    /// `response(…)` and `.takeLast(1).asSingle()`.
    @available(
        *, deprecated, message: "Use client.rx.response(endpoint).takeLast(1).asSingle(), or client.rx.single"
    )
    public func singleResponse<Typed: TypedEndpoint>(_ endpoint: Typed, queue: DispatchQueue? = nil)
        -> Single<ResponseValue<Typed.Response>>
    {
        delivered(
            ExecutionStreams.lastResponse(of: base.responseStream(endpoint, as: Typed.Response.self)), queue: queue)
    }

    /// Executes `endpoint` and succeeds with its last value as `serializer` makes it, and
    /// its details; now `response(…)` and `.takeLast(1).asSingle()`.
    @available(
        *, deprecated,
        message: "Use client.rx.response(endpoint, serializer: s).takeLast(1).asSingle(), or client.rx.single"
    )
    public func singleResponse<Serializer: ResponseSerializer>(
        _ endpoint: Endpoint, serializer: Serializer, queue: DispatchQueue? = nil
    ) -> Single<ResponseValue<Serializer.SerializedObject>> {
        delivered(
            ExecutionStreams.lastResponse(of: base.responseStream(endpoint, serializer: serializer)), queue: queue)
    }
}
