import Dispatch
import Foundation
import Rx

/// An `Observable` as an `AsyncThrowingStream` that the loop pulls from: the observable is
/// subscribed at the first `next()`, at most `limit` elements wait for the loop (the
/// observable's thread waits beyond that, which is how a slow loop slows a network stream
/// instead of filling memory), and cancelling the task or dropping the stream disposes
/// the subscription.
enum AsyncPull {
    /// The most elements waiting for the loop.
    static let limit = 16

    static func stream<Element: Sendable>(of observable: Observable<Element>) -> AsyncThrowingStream<
        Element, Swift.Error
    > {
        let handle = PullHandle(PullBuffer(observable))
        return AsyncThrowingStream(unfolding: { try await handle.buffer.next() })
    }
}

/// Held only by the stream's `unfolding` closure: when the stream and its iterator are
/// gone (the loop left early), it stops the subscription, even one whose thread waits
/// for room.
private final class PullHandle<Element: Sendable>: Sendable {
    let buffer: PullBuffer<Element>

    init(_ buffer: PullBuffer<Element>) {
        self.buffer = buffer
    }

    deinit {
        buffer.cancel()
    }
}

/// The elements between the observable and the loop.
///
/// Not a `DeliveryLine`: the loop pulls (a line's deliverer is whichever thread submits
/// while it is idle), and a full buffer makes the observable's thread wait on `room`
/// until the loop takes an element, which a line does not do.
private final class PullBuffer<Element: Sendable>: @unchecked Sendable {
    // @unchecked: the mutable state is behind `state`'s lock (`waiting` and `consumer`
    // too, though kept outside the struct); `source` and `room` are only read.
    //
    // Generic code from here runs unspecialised (the element type is the app's): every
    // generic type it touches is a look-up at run time, so the locked state (`PullState`)
    // is not generic, the elements and the loop's continuation are kept beside it, and no
    // `withLock` returns a generic value (they are swapped out into locals instead).
    private let source: Observable<Element>
    private let state = LockedState(PullState())
    /// At most `AsyncPull.limit` (and a few more while subscribing): `removeFirst` is cheap.
    /// Behind `state`'s lock.
    private var waiting: [Element] = []
    /// The loop, while it waits for an element. Behind `state`'s lock.
    private var consumer: CheckedContinuation<Element?, Swift.Error>?
    private let room = DispatchSemaphore(value: 0)

    init(_ source: Observable<Element>) {
        self.source = source
    }

    /// The next element, nil at the end (or once cancelled); throws the stream's failure.
    func next() async throws -> Element? {
        startIfNeeded()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Element?, Swift.Error>) in
                var element: Element?
                let answer = state.withLock { state -> PullAnswer in
                    if !waiting.isEmpty {
                        element = waiting.removeFirst()
                        defer { state.producerWaits = false }
                        return .element(wakesProducer: state.producerWaits)
                    }
                    if state.isCancelled { return .end(nil) }
                    if let end = state.end { return .end(end) }
                    consumer = continuation
                    return .wait
                }
                switch answer {
                case .element(let wakes):
                    if wakes { room.signal() }
                    continuation.resume(returning: element)
                case .end(let error):
                    if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: nil) }
                case .wait:
                    break
                }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Stops: the subscription is disposed, a waiting loop gets the end, a waiting
    /// producer goes on.
    func cancel() {
        var waitingConsumer: CheckedContinuation<Element?, Swift.Error>?
        var dropped: [Element] = []
        let (toDispose, wakes) = state.withLock { state -> (Disposable?, Bool) in
            if state.isCancelled { return (nil, false) }
            state.isCancelled = true
            swap(&dropped, &waiting)
            swap(&waitingConsumer, &consumer)
            defer {
                state.subscription = nil
                state.producerWaits = false
            }
            return (state.subscription, state.producerWaits)
        }
        // Released here, outside the lock: freeing them may run the app's deinits.
        withExtendedLifetime(dropped) {}
        if wakes { room.signal() }
        toDispose?.dispose()
        waitingConsumer?.resume(returning: nil)
    }

    private func startIfNeeded() {
        let starts = state.withLock { state -> Bool in
            if state.isStarted || state.isCancelled { return false }
            state.isStarted = true
            state.isSubscribing = true
            return true
        }
        guard starts else { return }
        let made = source.subscribe { [weak self] event in self?.on(event) }
        let keep = state.withLock { state -> Bool in
            state.isSubscribing = false
            if state.isCancelled || state.end != nil { return false }
            state.subscription = made
            return true
        }
        if !keep { made.dispose() }
    }

    private func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            var waitingConsumer: CheckedContinuation<Element?, Swift.Error>?
            let waits = state.withLock { state -> Bool in
                if state.isCancelled { return false }
                // The loop waits: the element goes to it, not into `waiting`.
                swap(&waitingConsumer, &consumer)
                if waitingConsumer != nil { return false }
                waiting.append(element)
                let full = waiting.count >= AsyncPull.limit && !state.isSubscribing
                if full { state.producerWaits = true }
                return full
            }
            waitingConsumer?.resume(returning: element)
            if waits { room.wait() }
        case .error(let error):
            finish(error)
        case .completed:
            finish(nil)
        }
    }

    private func finish(_ error: Swift.Error?) {
        var waitingConsumer: CheckedContinuation<Element?, Swift.Error>?
        let (ends, subscription) = state.withLock { state -> (Bool, Disposable?) in
            if state.isCancelled || state.end != nil { return (false, nil) }
            state.end = .some(error)
            swap(&waitingConsumer, &consumer)
            defer { state.subscription = nil }
            return (true, state.subscription)
        }
        // The ended subscription is let go of here, outside the lock.
        withExtendedLifetime(subscription) {}
        guard ends, let waitingConsumer else { return }
        if let error { waitingConsumer.resume(throwing: error) } else { waitingConsumer.resume(returning: nil) }
    }
}

/// The flags of a `PullBuffer`, decided under its lock: outside the generic class, so
/// that the lock over them is not generic.
private struct PullState {
    /// The observable's end: `.some(nil)` once it completed, `.some(error)` once it failed.
    var end: Swift.Error??
    var subscription: Disposable?
    var isStarted = false
    var isCancelled = false
    /// Whether the subscription is being made: an element then is never waited for (it
    /// may come on the loop's own thread).
    var isSubscribing = false
    /// Whether the observable's thread waits for room.
    var producerWaits = false
}

/// What a `PullBuffer`'s `next()` found (the element itself is swapped out beside it).
private enum PullAnswer {
    case element(wakesProducer: Bool)
    case end(Swift.Error?)
    case wait
}
