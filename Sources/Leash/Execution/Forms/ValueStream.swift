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
    /// Where the transport hands its answers, if not on its own queue.
    let handoff: ResponseHandoff?

    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        let pipeline = self.pipeline
        guard pipeline.interceptors.serialization.isEmpty else {
            return pipeline.withDeadline(progress: .none, handoff: handoff) { stages in
                pipeline.run(attempt: 1, stages: stages).map { try pipeline.successfulResponse($0) }
            }
            .subscribe(observer)
        }
        // Nothing after the completion stage can retry: the data stages retry in place,
        // and serializing follows each outcome at once.
        guard let deadline = pipeline.makeDeadline() else {
            let stages = pipeline.stages(progress: .none, handoff: handoff, deadline: nil)
            let serializing = SerializingObserver(pipeline: pipeline, stages: stages, downstream: observer)
            serializing.attach(stages.subscribeOutcomes(Self.outcomeObserver(serializing)))
            return serializing
        }
        // The deadline fires on a thread of its own, possibly while an outcome is being
        // delivered: the observer is then fed through a `SerialObserver`.
        let stages = pipeline.stages(progress: .none, handoff: handoff, deadline: deadline)
        let serializing = SerializingObserver(
            pipeline: pipeline, stages: stages, downstream: SerialObserver(AnyObserver(observer)))
        serializing.startDeadline(deadline)
        serializing.attach(stages.subscribeOutcomes(Self.outcomeObserver(serializing)))
        return serializing
    }

    /// `target` as the data stages' observer, through a non-generic protocol: wrapping a
    /// generic observer type in `AnyObserver` would look up generic metadata every time.
    private static func outcomeObserver(_ target: OutcomeObserver) -> AnyObserver<Response<Data>> {
        AnyObserver { target.on($0) }
    }
}

/// An execution's values without their details: `ValueStream` with each success
/// unwrapped by one small observer (where a `map` would add a producer, a sink and a
/// closure). What `client.rx.execute` emits.
struct BareValueStream<Serializer: ResponseSerializer>: ObservableType, @unchecked Sendable {
    // @unchecked: immutable (see `ExecutionPipeline`).
    typealias Element = Serializer.SerializedObject

    let values: ValueStream<Serializer>

    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        values.subscribe(ValueUnwrapper(observer))
    }
}

/// Passes each success's value on; the stream already fails rather than emit a failure.
private struct ValueUnwrapper<Downstream: ObserverType>: ObserverType {
    let downstream: Downstream

    init(_ downstream: Downstream) {
        self.downstream = downstream
    }

    func on(_ event: Event<Response<Downstream.Element>>) {
        switch event {
        case .next(.success(let value, _)): downstream.onNext(value)
        case .next(.failure(let error)), .error(let error): downstream.onError(error)
        case .completed: downstream.onCompleted()
        }
    }
}

/// Serializes each outcome of the data stages and hands the value on; the first failure
/// (an outcome's, or the serializer's) ends the stream and cancels what is still running
/// upstream (a network request after a cached value, say).
///
/// Upstream calls it one event at a time (`AttemptRun` delivers through a
/// `SerialObserver`), so only stopping needs to be thread-safe. The execution's deadline,
/// if it has one, is held here too: it ends the stream with `LeashError.timeout` and
/// cancels upstream; it is let go as soon as the stream ends.
private final class SerializingObserver<Serializer: ResponseSerializer, Downstream: ObserverType>: ObserverType,
    Disposable, DeadlineTarget, OutcomeObserver, @unchecked Sendable
where Downstream.Element == Response<Serializer.SerializedObject> {
    // @unchecked: `upstream` is behind `lock`, `isStopped` is atomic; the rest is immutable.
    private let pipeline: ExecutionPipeline<Serializer>
    /// The subscription's stages, whose files are removed when the stream ends.
    private let stages: DataStages
    private let downstream: Downstream
    private let lock = Lock()
    private var upstream: Disposable?
    private var deadline: ExecutionDeadline?
    /// 1 after a terminal event or `dispose()`: later events are dropped.
    private let isStopped = AtomicInt(0)

    init(pipeline: ExecutionPipeline<Serializer>, stages: DataStages, downstream: Downstream) {
        self.pipeline = pipeline
        self.stages = stages
        self.downstream = downstream
    }

    func on(_ event: Event<Response<Data>>) {
        guard isStopped.load() == 0 else { return }
        switch event {
        case .next(.success(let data, let extra)):
            let value: Serializer.SerializedObject
            do {
                value = try pipeline.serializedValue(of: data, extra: extra)
            } catch {
                fail(error)
                return
            }
            downstream.onNext(.success(value: value, extra: pipeline.details(of: extra)))
        case .next(.failure(let error)):
            fail(error)
        case .error(let error):
            guard stop() else { return }
            stages.release()
            downstream.onError(error)
            release(disposingUpstream: false)
        case .completed:
            guard stop() else { return }
            downstream.onCompleted()
            release(disposingUpstream: false)
        }
    }

    /// A failed outcome ends the execution: nothing more upstream matters.
    private func fail(_ error: Swift.Error) {
        guard stop() else { return }
        stages.release()
        downstream.onError(error)
        release(disposingUpstream: true)
    }

    /// Ends the stream with `LeashError.timeout` when `deadline` passes, unless the stream
    /// ended or the deadline was met before.
    func startDeadline(_ deadline: ExecutionDeadline) {
        let disposeNow = lock.withLock { () -> Bool in
            if isStopped.load() != 0 { return true }
            self.deadline = deadline
            return false
        }
        if disposeNow {
            deadline.cancel()
            return
        }
        deadline.start(self)
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

    func deadlinePassed(_ seconds: TimeInterval) {
        guard stop() else { return }
        stages.release()
        downstream.onError(LeashError.timeout(seconds: seconds))
        release(disposingUpstream: true)
    }

    func dispose() {
        _ = stop()
        release(disposingUpstream: true)
    }

    /// Marks the stream stopped; false if it already was.
    private func stop() -> Bool {
        isStopped.compareExchange(expected: 0, desired: 1)
    }

    /// Cancels the deadline and lets go of upstream, cancelling it too if it may still be
    /// running (it ended by itself otherwise).
    private func release(disposingUpstream: Bool) {
        let (upstream, deadline) = lock.withLock { () -> (Disposable?, ExecutionDeadline?) in
            defer {
                self.upstream = nil
                self.deadline = nil
            }
            return (self.upstream, self.deadline)
        }
        deadline?.cancel()
        if disposingUpstream { upstream?.dispose() } else { withExtendedLifetime(upstream) {} }
        stages.release()
    }
}

/// Something that takes the data stages' outcomes.
private protocol OutcomeObserver: AnyObject, Sendable {
    /// One outcome, or the end.
    func on(_ event: Event<Response<Data>>)
}
