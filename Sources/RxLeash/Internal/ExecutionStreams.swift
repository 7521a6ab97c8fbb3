import Dispatch
import Leash
import Rx

/// The shapes `client.rx` gives an execution's event stream (`Client.execution`): each is
/// one operator over that stream, so that `client.rx` adds no pipeline of its own.
enum ExecutionStreams {
    /// The values alone.
    static func values<Value>(of events: Observable<ExecutionEvent<Value>>) -> Observable<Value> {
        events.compactMap { event in
            guard case .value(let value, _) = event else { return nil }
            return value
        }
    }

    /// The values with their details.
    static func responses<Value>(of events: Observable<ExecutionEvent<Value>>) -> Observable<ReactiveResponse<Value>> {
        events.compactMap { event in
            guard case .value(let value, let extra) = event else { return nil }
            return ReactiveResponse(value: value, extra: extra)
        }
    }

    /// The last value, once the execution completes.
    ///
    /// The closures are made here, where `Value` has no constraints: made in a function
    /// where `Value: Decodable`, they would capture that conformance, which is not
    /// `Sendable`.
    static func lastValue<Value>(of events: Observable<ExecutionEvent<Value>>) -> Single<Value> {
        last(of: events) { value, _ in value }
    }

    /// The last value and its details, once the execution completes.
    static func lastResponse<Value>(of events: Observable<ExecutionEvent<Value>>) -> Single<ReactiveResponse<Value>> {
        last(of: events) { value, extra in ReactiveResponse(value: value, extra: extra) }
    }

    /// The last value, made into `Output` by `transform`, once the execution completes.
    private static func last<Value, Output>(
        of events: Observable<ExecutionEvent<Value>>, _ transform: @escaping @Sendable (Value, ResponseExtra) -> Output
    ) -> Single<Output> {
        Single<Output>.create { observer in
            events.subscribe(LastValueObserver(transform: transform, observer: observer))
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
