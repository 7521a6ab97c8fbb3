import Foundation
import Rx

/// An execution's values (`ExecutionPipeline.values`) as a typed observable, which the
/// callback and `async` forms subscribe to directly.
///
/// Without serialization interceptors (the common case) one observer serializes the data
/// stages' outcomes and hands the values on: it stands where a general-purpose `map` and
/// the wrappers around it would, each of which costs allocations and, being generic code
/// from another module, look-ups of generic metadata, per execution. With serialization
/// interceptors, which may retry, the composed pipeline is used.
struct ValueStream<Serializer: ResponseSerializer>: ObservableType, @unchecked Sendable {
    // @unchecked: immutable (see `ExecutionPipeline`).
    typealias Element = Response<Serializer.SerializedObject>

    let pipeline: ExecutionPipeline<Serializer>
    let stages: DataStages

    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        guard stages.interceptors.serialization.isEmpty else {
            let pipeline = self.pipeline
            return pipeline.withDeadline(
                pipeline.run(attempt: 1, stages: stages).map { try pipeline.successfulResponse($0) }
            ).subscribe(observer)
        }
        // Nothing after the completion stage can retry: the data stages retry in place,
        // and the deadline (if any) may as well bound them, since serializing follows at
        // once.
        let serializing = SerializingObserver(pipeline: pipeline, downstream: observer)
        let outcomes = pipeline.withDeadline(stages.outcomesWithRetries(from: 1))
        serializing.attach(outcomes.subscribe(serializing))
        return serializing
    }
}

/// Serializes each outcome of the data stages and hands the value on; the first failure
/// (an outcome's, or the serializer's) ends the stream and cancels what is still running
/// upstream (a network request after a cached value, say).
///
/// Upstream calls it one event at a time (`AttemptRun` delivers through a
/// `SerialObserver`), so only stopping needs to be thread-safe.
private final class SerializingObserver<Serializer: ResponseSerializer, Downstream: ObserverType>: ObserverType,
    Disposable, @unchecked Sendable
where Downstream.Element == Response<Serializer.SerializedObject> {
    // @unchecked: `upstream` is behind `lock`, `isStopped` is atomic; the rest is immutable.
    private let pipeline: ExecutionPipeline<Serializer>
    private let downstream: Downstream
    private let lock = Lock()
    private var upstream: Disposable?
    /// 1 after a terminal event or `dispose()`: later events are dropped.
    private let isStopped = AtomicInt(0)

    init(pipeline: ExecutionPipeline<Serializer>, downstream: Downstream) {
        self.pipeline = pipeline
        self.downstream = downstream
    }

    func on(_ event: Event<Response<Data>>) {
        guard isStopped.load() == 0 else { return }
        switch event {
        case .next(let response):
            switch pipeline.serialize(response) {
            case .success(let value):
                downstream.onNext(.success(value: value, extra: pipeline.details(of: response.extra)))
            case .failure(let error):
                // The failure ends the execution: nothing more upstream matters.
                guard stop() else { return }
                downstream.onError(error)
                takeUpstream()?.dispose()
            }
        case .error(let error):
            guard stop() else { return }
            downstream.onError(error)
            withExtendedLifetime(takeUpstream()) {}
        case .completed:
            guard stop() else { return }
            downstream.onCompleted()
            withExtendedLifetime(takeUpstream()) {}
        }
    }

    /// Holds the upstream subscription, to cancel it; disposes it at once if the stream
    /// already ended (it may end while subscribing).
    func attach(_ subscription: Disposable) {
        let disposeNow = lock.withLock { () -> Bool in
            if isStopped.load() != 0 { return true }
            upstream = subscription
            return false
        }
        if disposeNow { subscription.dispose() }
    }

    func dispose() {
        _ = stop()
        takeUpstream()?.dispose()
    }

    /// Marks the stream stopped; false if it already was.
    private func stop() -> Bool {
        isStopped.compareExchange(expected: 0, desired: 1)
    }

    private func takeUpstream() -> Disposable? {
        lock.withLock {
            defer { upstream = nil }
            return upstream
        }
    }
}
