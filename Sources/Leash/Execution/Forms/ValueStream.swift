import Foundation
import Rx

/// An execution's values (`ExecutionPipeline.values`) as a typed observable, which the
/// callback and `async` forms subscribe to directly.
///
/// One observer (`SerializingObserver`) ends every execution of these forms: it stands
/// where a general-purpose `map` and the wrappers around it would, each of which costs
/// allocations and, being generic code from another module, look-ups of generic metadata,
/// per execution. Without serialization interceptors (the common case) it serializes the
/// data stages' outcomes itself; with them, which may retry, it takes the values of the
/// composed pipeline. Either way it is what the deadline and `cancelAll()` end.
struct ValueStream<Serializer: ResponseSerializer>: ObservableType, @unchecked Sendable {
    // @unchecked: immutable (see `ExecutionPipeline`).
    typealias Element = Response<Serializer.SerializedObject>

    let pipeline: ExecutionPipeline<Serializer>
    /// Where the transport hands its answers, if not on its own queue.
    let handoff: ResponseHandoff?

    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        let pipeline = self.pipeline
        let registry = pipeline.client.manager.executions
        guard let deadline = pipeline.makeDeadline() else {
            let stages = pipeline.stages(progress: .none, handoff: handoff, deadline: nil)
            let serializing = SerializingObserver(
                pipeline: pipeline, stages: stages, downstream: observer, registry: registry, isSerial: false)
            registry.add(serializing)
            serializing.attach(Self.subscribeUpstream(of: serializing, stages: stages))
            return serializing
        }
        // The deadline fires on a thread of its own, possibly while an outcome is being
        // delivered: the observer is then fed through a `SerialObserver`.
        let stages = pipeline.stages(progress: .none, handoff: handoff, deadline: deadline)
        let serializing = SerializingObserver(
            pipeline: pipeline, stages: stages, downstream: SerialObserver(AnyObserver(observer)), registry: registry,
            isSerial: true)
        registry.add(serializing)
        serializing.startDeadline(deadline)
        serializing.attach(Self.subscribeUpstream(of: serializing, stages: stages))
        return serializing
    }

    /// Subscribes `serializing` to the stages before it. Without serialization
    /// interceptors (the common case) nothing after the completion stage can retry: the
    /// data stages retry in place and `serializing` serializes each outcome at once.
    /// With them, which may retry, it takes the composed pipeline's serialized values.
    private static func subscribeUpstream(
        of serializing: SerializingObserver<Serializer, some ObserverType>, stages: DataStages
    ) -> Disposable {
        let pipeline = serializing.pipeline
        guard pipeline.interceptors.serialization.isEmpty else {
            return pipeline.run(attempt: 1, stages: stages).subscribe(AnyObserver { serializing.onSerialized($0) })
        }
        return stages.subscribeOutcomes(outcomeObserver(serializing))
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

/// Serializes each outcome of the data stages (or takes the composed pipeline's values,
/// serialized already) and hands the value on; the first failure (an outcome's, or the
/// serializer's) ends the stream and cancels what is still running upstream (a network
/// request after a cached value, say).
///
/// Upstream calls it one event at a time (`AttemptRun` delivers through a
/// `SerialObserver`, and the composed pipeline follows Rx's grammar). Two things end the stream from other threads: the execution's
/// deadline, if it has one (with `LeashError.timeout`; the downstream is then a
/// `SerialObserver`, so it may be called at any time), and the manager's `cancelAll()`
/// (with `LeashError.cancelled`), which, without a `SerialObserver` to call through,
/// leaves the error to the thread delivering a value if there is one, so that the
/// downstream is never called concurrently. Whatever ends the stream first (and only that)
/// tells the manager's end observers, before the downstream hears of it. The deadline is
/// let go as soon as the stream ends; the manager's registry holds this observer until
/// then.
private final class SerializingObserver<Serializer: ResponseSerializer, Downstream: ObserverType>: ObserverType,
    Disposable, DeadlineTarget, OutcomeObserver, ManagedExecution, @unchecked Sendable
where Downstream.Element == Response<Serializer.SerializedObject> {
    // @unchecked: `upstream` and `deadline` are behind `lock`, `phase` is atomic; the rest
    // is immutable.
    let pipeline: ExecutionPipeline<Serializer>
    /// The subscription's stages, whose files are removed when the stream ends.
    private let stages: DataStages
    private let downstream: Downstream
    /// Whether `downstream` may be called from any thread (it is a `SerialObserver`).
    private let isSerial: Bool
    /// Where this execution is listed while it is in flight.
    private let registry: ExecutionRegistry
    private let lock = Lock()
    private var upstream: Disposable?
    private var deadline: ExecutionDeadline?
    /// `Phase`: whether an event is being delivered, the stream stopped, or a cancel waits
    /// for the delivery in progress.
    private let phase = AtomicInt(Phase.idle)

    var registryKey: ObjectIdentifier { ObjectIdentifier(stages) }

    init(
        pipeline: ExecutionPipeline<Serializer>, stages: DataStages, downstream: Downstream,
        registry: ExecutionRegistry, isSerial: Bool
    ) {
        self.pipeline = pipeline
        self.stages = stages
        self.downstream = downstream
        self.registry = registry
        self.isSerial = isSerial
    }

    func on(_ event: Event<Response<Data>>) {
        handle(event) { data, extra in try pipeline.serializedValue(of: data, extra: extra) }
    }

    /// One event of the composed pipeline (with serialization interceptors), whose values
    /// are serialized already.
    func onSerialized(_ event: Event<Response<Serializer.SerializedObject>>) {
        handle(event) { value, _ in value }
    }

    /// Hands on upstream's `event`, each value as `serialized` makes it.
    private func handle<Upstream>(
        _ event: Event<Response<Upstream>>,
        serialized: (Upstream, Any?) throws -> Serializer.SerializedObject
    ) {
        guard phase.compareExchange(expected: Phase.idle, desired: Phase.delivering) else { return }
        switch event {
        case .next(.success(let upstream, let extra)):
            let value: Serializer.SerializedObject
            do {
                value = try serialized(upstream, extra)
            } catch {
                fail(error)
                return
            }
            downstream.onNext(.success(value: value, extra: pipeline.details(of: extra)))
            endDelivery()
        case .next(.failure(let error)):
            fail(error)
        case .error(let error):
            fail(error, disposingUpstream: false)
        case .completed:
            complete()
        }
    }

    /// Upstream completed.
    private func complete() {
        guard stop() else { return }
        stages.ended(.completed)
        downstream.onCompleted()
        release(disposingUpstream: false)
    }

    /// A value was handed on: the next event may come, unless a cancel came meanwhile,
    /// which this thread now delivers.
    private func endDelivery() {
        if phase.compareExchange(expected: Phase.delivering, desired: Phase.idle) { return }
        if phase.compareExchange(expected: Phase.cancelPending, desired: Phase.stopped) { endCancelled() }
    }

    /// A failed outcome ends the execution: nothing more upstream matters (and upstream
    /// that failed itself is over already: `disposingUpstream` false).
    private func fail(_ error: Swift.Error, disposingUpstream: Bool = true) {
        guard stop() else { return }
        stages.release()
        stages.ended(.failed(error))
        // Upstream first: once the subscriber hears of the end, no request of this
        // execution can still start.
        release(disposingUpstream: disposingUpstream)
        downstream.onError(error)
    }

    /// Ends the stream with `LeashError.timeout` when `deadline` passes, unless the stream
    /// ended or the deadline was met before.
    func startDeadline(_ deadline: ExecutionDeadline) {
        let disposeNow = lock.withLock { () -> Bool in
            if phase.load() == Phase.stopped { return true }
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
            if phase.load() == Phase.stopped { return true }
            upstream = subscription
            return false
        }
        if disposeNow { subscription.dispose() }
    }

    func deadlinePassed(_ seconds: TimeInterval) {
        // Only with a deadline, whose downstream is a `SerialObserver`: safe from here.
        guard stop() else { return }
        stages.release()
        let error = LeashError.timeout(seconds: seconds)
        stages.ended(.failed(error))
        release(disposingUpstream: true)
        downstream.onError(error)
    }

    func cancelFromManager() {
        if isSerial {
            guard stop() else { return }
            return endCancelled()
        }
        // Without a `SerialObserver`, a value being delivered is let finish first.
        while true {
            switch phase.load() {
            case Phase.idle:
                if phase.compareExchange(expected: Phase.idle, desired: Phase.stopped) { return endCancelled() }
            case Phase.delivering:
                if phase.compareExchange(expected: Phase.delivering, desired: Phase.cancelPending) { return }
            default:
                return
            }
        }
    }

    /// Ends the stream with `LeashError.cancelled` and cancels upstream.
    private func endCancelled() {
        registry.remove(self)
        stages.release()
        stages.ended(.failed(LeashError.cancelled))
        // Upstream first: once the subscriber hears of the end, no request of this
        // execution can still start (a queued one is removed, a prepared one not sent).
        release(disposingUpstream: true)
        downstream.onError(LeashError.cancelled)
    }

    func dispose() {
        let stopped = stop()
        release(disposingUpstream: true)
        if stopped { stages.ended(.disposed) }
    }

    /// Marks the stream stopped and takes it out of the registry; false if it already was
    /// stopped.
    private func stop() -> Bool {
        guard phase.exchange(Phase.stopped) != Phase.stopped else { return false }
        registry.remove(self)
        return true
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

/// The values of `SerializingObserver.phase`.
private enum Phase {
    /// Running, no event being delivered.
    static let idle = 0
    /// Upstream's event being handled (by one thread at a time).
    static let delivering = 1
    /// After a terminal event or `dispose()`: later events are dropped.
    static let stopped = 2
    /// `cancelAll()` came during a delivery: the delivering thread ends the stream.
    static let cancelPending = 3
}

/// Something that takes the data stages' outcomes.
private protocol OutcomeObserver: AnyObject, Sendable {
    /// One outcome, or the end.
    func on(_ event: Event<Response<Data>>)
}
