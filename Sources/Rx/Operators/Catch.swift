extension ObservableType {
    /// Continues a sequence that fails with the sequence that `handler` makes from the error.
    ///
    /// The source's elements pass through; if it fails, `handler` is called with the error
    /// and its sequence is subscribed in place of the source. An error thrown by `handler`
    /// ends the sequence with that error.
    ///
    /// - Parameter handler: Makes the sequence that continues after an error.
    /// - Returns: The source's elements, then, after an error, those of the handler's sequence.
    public func `catch`(_ handler: @escaping @Sendable (Swift.Error) throws -> Observable<Element>)
        -> Observable<Element>
    {
        let source = asObservable()
        return Observable<Element>.make { observer in
            let sink = CatchSink(handler: handler, downstream: observer)
            sink.run(source)
            return sink
        }
    }

    /// Continues a sequence that fails with a sequence of one element, `element`.
    ///
    /// - Parameter element: The last element, emitted in place of the error.
    /// - Returns: The source's elements, then `element` and `completed` if it fails.
    public func catchAndReturn(_ element: Element) -> Observable<Element> {
        let box = UncheckedSendable(element)
        return self.catch { _ in Observable<Element>.just(box.value) }
    }

    /// Continues a sequence that fails with the sequence that `handler` makes from the error.
    @available(*, deprecated, renamed: "catch(_:)")
    public func catchError(_ handler: @escaping @Sendable (Swift.Error) throws -> Observable<Element>)
        -> Observable<Element>
    {
        self.catch(handler)
    }

    /// Continues a sequence that fails with a sequence of one element, `element`.
    @available(*, deprecated, renamed: "catchAndReturn(_:)")
    public func catchErrorJustReturn(_ element: Element) -> Observable<Element> {
        catchAndReturn(element)
    }

    /// Subscribes to the sequences of `sequence` one after another, moving on whenever one
    /// fails, until one completes.
    ///
    /// Completes when a source completes, or when `sequence` has no source at all; fails
    /// with the last error when every source failed.
    ///
    /// - Parameter sequence: The sources, iterated anew for each subscription.
    public static func `catch`<Sequence: Swift.Sequence>(sequence: Sequence) -> Observable<Element>
    where Sequence.Element == Observable<Element> {
        // The sequence is a value the caller handed over; each subscription iterates its own
        // iterator, on one thread at a time. The subscription is built by a closure made here,
        // so that the sequence's conformance is used outside the `@Sendable` closure.
        let subscribe = UncheckedSendable { (observer: AnyObserver<Element>) -> Disposable in
            let sink = CatchSequenceSink(iterator: sequence.makeIterator(), downstream: observer)
            sink.moveNext()
            return sink
        }
        return Observable<Element>.make { observer in subscribe.value(observer) }
    }

    /// Subscribes to the sequences of `sequence` one after another, moving on whenever one
    /// fails, until one completes.
    @available(*, deprecated, renamed: "catch(sequence:)")
    public static func catchError<Sequence: Swift.Sequence>(_ sequence: Sequence) -> Observable<Element>
    where Sequence.Element == Observable<Element> {
        self.catch(sequence: sequence)
    }

    /// Resubscribes to the source each time it fails, until it completes.
    ///
    /// **This can be an infinite sequence.** A source that fails synchronously is
    /// resubscribed on the current thread's trampoline, so the stack does not grow with the
    /// attempts, and disposing the subscription stops the attempts.
    ///
    /// - Returns: The source's elements, over every attempt, until one completes.
    public func retry() -> Observable<Element> {
        retrying(maxAttemptCount: nil)
    }

    /// Subscribes to the source up to `maxAttemptCount` times in all, moving on to the next
    /// attempt when it fails.
    ///
    /// `retry(1)` subscribes once and lets the error through; to retry once after an error,
    /// use `retry(2)`. `retry(0)` completes at once without subscribing. A negative count
    /// fails with `RxError.argumentOutOfRange`.
    ///
    /// - Parameter maxAttemptCount: The number of subscriptions to the source, at most.
    /// - Returns: The source's elements until an attempt completes; the last error if every
    ///   attempt failed.
    public func retry(_ maxAttemptCount: Int) -> Observable<Element> {
        guard maxAttemptCount >= 0 else { return Observable<Element>.error(RxError.argumentOutOfRange) }
        return retrying(maxAttemptCount: maxAttemptCount)
    }

    private func retrying(maxAttemptCount: Int?) -> Observable<Element> {
        let source = asObservable()
        return Observable<Element>.make { observer in
            let iterator = RetryIterator(source: source, remaining: maxAttemptCount)
            let sink = CatchSequenceSink(iterator: iterator, downstream: observer)
            sink.moveNext()
            return sink
        }
    }
}

/// The sink of `catch(_:)`: forwards the source, then the handler's sequence.
final class CatchSink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: the only mutable state is the subscription slot, behind the lock.
    private let handler: @Sendable (Swift.Error) throws -> Observable<Element>
    private let subscription = LockedState(ErrorsDisposableSlot())
    // The source's error does not stop the sink, so the source's end is kept apart.
    private let sourceGate = SourceGate()

    init(handler: @escaping @Sendable (Swift.Error) throws -> Observable<Element>, downstream: AnyObserver<Element>) {
        self.handler = handler
        super.init(downstream: downstream)
    }

    func run(_ source: Observable<Element>) {
        let disposable = source.run(AnyObserver { self.on($0) })
        subscription.withLock { $0.set(disposable, generation: 0) }?.dispose()
    }

    private func on(_ event: Event<Element>) {
        switch event {
        case .next:
            if sourceGate.isOpen { forward(event) }
        case .completed:
            if sourceGate.close() { forwardTerminal(event) }
        case .error(let error):
            guard sourceGate.close(), !isStoppedOrDisposed else { return }
            let fallback: Observable<Element>
            do {
                fallback = try handler(error)
            } catch {
                forwardTerminal(.error(error))
                return
            }
            // As in RxSwift, the failed source is disposed once the fallback is subscribed.
            let generation = subscription.withLock { $0.nextGeneration() }
            let disposable = fallback.subscribe(AnyObserver { self.forwardEvent($0) })
            subscription.withLock { $0.set(disposable, generation: generation) }?.dispose()
        }
    }

    override func didDispose() {
        subscription.withLock { $0.dispose() }?.dispose()
    }
}

/// The sources of `retry`: the same source, a number of times or forever.
struct RetryIterator<Element>: IteratorProtocol {
    let source: Observable<Element>
    /// Attempts left; `nil` for no limit.
    var remaining: Int?

    mutating func next() -> Observable<Element>? {
        guard let left = remaining else { return source }
        guard left > 0 else { return nil }
        remaining = left - 1
        return source
    }
}

/// The sink of `catch(sequence:)` and `retry`: subscribes to one source after another
/// while they fail.
final class CatchSequenceSink<Iterator: IteratorProtocol, Element>: Sink<Element>, @unchecked Sendable
where Iterator.Element == Observable<Element> {
    // Sendable: `iterator` is used only by `moveNext`, and each `moveNext` runs after the
    // previous source failed, so the Rx grammar orders the runs; the rest is behind the lock.
    private var iterator: Iterator

    private struct State {
        var subscription = ErrorsDisposableSlot()
        var lastError: Swift.Error?
    }

    private let shared = LockedState(State())

    init(iterator: Iterator, downstream: AnyObserver<Element>) {
        self.iterator = iterator
        super.init(downstream: downstream)
    }

    /// Subscribes to the next source, or ends the sequence when there is none.
    func moveNext() {
        guard !isDisposed else { return }
        guard let next = iterator.next() else {
            let lastError = shared.withLock { $0.lastError }
            forwardTerminal(lastError.map { .error($0) } ?? .completed)
            return
        }
        let (generation, previous) = shared.withLock { $0.subscription.advance() }
        previous?.dispose()
        // Each source has its own gate: a failed source that keeps sending must not reach
        // downstream nor count as the failure of the source after it.
        let gate = SourceGate()
        let disposable = next.subscribe(AnyObserver { self.on($0, gate: gate) })
        shared.withLock { $0.subscription.set(disposable, generation: generation) }?.dispose()
    }

    private func on(_ event: Event<Element>, gate: SourceGate) {
        switch event {
        case .next:
            if gate.isOpen { forward(event) }
        case .completed:
            if gate.close() { forwardTerminal(event) }
        case .error(let error):
            guard gate.close(), !isStoppedOrDisposed else { return }
            shared.withLock { $0.lastError = error }
            // On the trampoline: a source that fails during its own subscription is
            // resubscribed after that subscription returns, not inside it, so the stack
            // stays flat however many attempts fail in a row, and a disposal made meanwhile
            // (by downstream, now wired up) is seen by the next `moveNext`.
            CurrentThreadScheduler.trampoline { self.moveNext() }
        }
    }

    override func didDispose() {
        shared.withLock { $0.subscription.dispose() }?.dispose()
    }
}
