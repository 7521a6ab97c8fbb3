import Dispatch
import Leash
import Rx

/// The shapes `client.rx` gives an execution's values (`Client.responseStream`, the
/// pipeline's values-only stream): each is one operator over that stream, so that
/// `client.rx` adds no pipeline of its own. (The values alone come from
/// `Client.bareValues`, which unwraps them without an operator.)
enum ExecutionStreams {
    /// The values with their details.
    static func responses<Value>(of responses: Observable<Response<Value>>) -> Observable<ResponseValue<Value>> {
        responses.map { response in
            switch response {
            case .success(let value, let extra): return ResponseValue(value: value, extra: .of(extra))
            case .failure(let error): throw error
            }
        }
    }

    /// The last value, once the execution completes.
    ///
    /// The closures are made here, where `Value` has no constraints: made in a function
    /// where `Value: Decodable`, they would capture that conformance, which is not
    /// `Sendable`.
    static func lastValue<Value>(of responses: Observable<Response<Value>>) -> Single<Value> {
        last(of: responses) { value, _ in value }
    }

    /// The last value and its details, once the execution completes (for the deprecated
    /// `singleResponse`).
    static func lastResponse<Value>(of responses: Observable<Response<Value>>) -> Single<ResponseValue<Value>> {
        last(of: responses) { value, extra in ResponseValue(value: value, extra: extra) }
    }

    /// The last value, made into `Output` by `transform`, once the execution completes.
    private static func last<Value, Output>(
        of responses: Observable<Response<Value>>, _ transform: @escaping @Sendable (Value, ResponseExtra) -> Output
    ) -> Single<Output> {
        Single<Output>.create { observer in
            responses.subscribe(LastValueObserver(transform: transform, observer: observer))
        }
    }
}

extension Reactive where Base: Client {
    /// `stream`, delivered on `queue`, else on the manager's `callbackQueue`, else where
    /// the execution produces it (no extra operator then).
    func delivered<Element>(_ stream: Observable<Element>, queue: DispatchQueue?) -> Observable<Element> {
        guard let scheduler = deliveryScheduler(queue) else { return stream }
        return stream.observe(on: scheduler)
    }

    /// `single`, delivered as `delivered(_:queue:)` says.
    func delivered<Element>(_ single: Single<Element>, queue: DispatchQueue?) -> Single<Element> {
        guard let scheduler = deliveryScheduler(queue) else { return single }
        return single.observe(on: scheduler)
    }

    /// One scheduler per call (not per subscription): a serial queue targeting `queue`,
    /// so that events keep their order even on a concurrent queue.
    private func deliveryScheduler(_ queue: DispatchQueue?) -> ImmediateSchedulerType? {
        guard let queue = queue ?? base.manager.callbackQueue else { return nil }
        return SerialDispatchQueueScheduler(queue: queue, internalSerialQueueName: "leash.rx.delivery")
    }
}
