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
private final class PullBuffer<Element: Sendable>: @unchecked Sendable {
    // @unchecked: the mutable state is behind `lock`; `source` is only read.
    private let source: Observable<Element>
    private let lock = Lock()
    /// At most `AsyncPull.limit` (and a few more while subscribing): `removeFirst` is cheap.
    private var waiting: [Element] = []
    private var end: Swift.Error??
    private var consumer: CheckedContinuation<Element?, Swift.Error>?
    private var subscription: Disposable?
    private var isStarted = false
    private var isCancelled = false
    /// Whether the subscription is being made: an element then is never waited for (it
    /// may come on the loop's own thread).
    private var isSubscribing = false
    /// Whether the observable's thread waits for room.
    private var producerWaits = false
    private let room = DispatchSemaphore(value: 0)

    init(_ source: Observable<Element>) {
        self.source = source
    }

    /// What `next()` found.
    private enum Answer {
        case element(Element, wakesProducer: Bool)
        case end(Swift.Error?)
        case wait
    }

    /// The next element, nil at the end (or once cancelled); throws the stream's failure.
    func next() async throws -> Element? {
        startIfNeeded()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Element?, Swift.Error>) in
                let answer = lock.withLock { () -> Answer in
                    if !waiting.isEmpty {
                        let element = waiting.removeFirst()
                        let wakes = producerWaits
                        producerWaits = false
                        return .element(element, wakesProducer: wakes)
                    }
                    if isCancelled { return .end(nil) }
                    if let end { return .end(end) }
                    consumer = continuation
                    return .wait
                }
                switch answer {
                case .element(let element, let wakes):
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
        let (waitingConsumer, toDispose, wakes) = lock.withLock {
            () -> (CheckedContinuation<Element?, Swift.Error>?, Disposable?, Bool) in
            if isCancelled { return (nil, nil, false) }
            isCancelled = true
            waiting.removeAll()
            defer {
                consumer = nil
                subscription = nil
                producerWaits = false
            }
            return (consumer, subscription, producerWaits)
        }
        if wakes { room.signal() }
        toDispose?.dispose()
        waitingConsumer?.resume(returning: nil)
    }

    private func startIfNeeded() {
        let starts = lock.withLock { () -> Bool in
            if isStarted || isCancelled { return false }
            isStarted = true
            isSubscribing = true
            return true
        }
        guard starts else { return }
        let made = source.subscribe { [weak self] event in self?.on(event) }
        let keep = lock.withLock { () -> Bool in
            isSubscribing = false
            if isCancelled || end != nil { return false }
            subscription = made
            return true
        }
        if !keep { made.dispose() }
    }

    private func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            let (waitingConsumer, waits) = lock.withLock {
                () -> (CheckedContinuation<Element?, Swift.Error>?, Bool) in
                if isCancelled { return (nil, false) }
                if let consumer {
                    self.consumer = nil
                    return (consumer, false)
                }
                waiting.append(element)
                let full = waiting.count >= AsyncPull.limit && !isSubscribing
                if full { producerWaits = true }
                return (nil, full)
            }
            if let waitingConsumer { waitingConsumer.resume(returning: element) }
            if waits { room.wait() }
        case .error(let error):
            finish(error)
        case .completed:
            finish(nil)
        }
    }

    private func finish(_ error: Swift.Error?) {
        let waitingConsumer = lock.withLock { () -> CheckedContinuation<Element?, Swift.Error>? in
            if isCancelled || end != nil { return nil }
            end = .some(error)
            subscription = nil
            defer { consumer = nil }
            return consumer
        }
        guard let waitingConsumer else { return }
        if let error { waitingConsumer.resume(throwing: error) } else { waitingConsumer.resume(returning: nil) }
    }
}
