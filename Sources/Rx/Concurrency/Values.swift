extension ObservableConvertibleType {
    /// The elements of the sequence as an `AsyncThrowingStream`, for `for try await`.
    ///
    /// ```swift
    /// for try await value in observable.values { … }
    /// ```
    ///
    /// Each `values` stream subscribes once, when it is created. The stream buffers
    /// elements without bound (as RxSwift does), finishes when the sequence completes and
    /// throws the sequence's error. Cancelling the consuming task, or dropping the stream,
    /// disposes the subscription; the loop then throws `CancellationError` unless the
    /// sequence had already ended.
    public var values: AsyncThrowingStream<Element, Error> {
        let source = asObservable()
        return AsyncThrowingStream<Element, Error> { ValuesSink.start(source, feeding: $0) }
    }
}

/// A continuation `values` feeds: an `AsyncThrowingStream`'s (`Observable.values`) or an
/// `AsyncStream`'s (`Infallible.values`, whose loop cannot throw).
protocol ValuesContinuation<Element>: Sendable {
    associatedtype Element
    /// Hands `element` to the loop.
    func deliver(_ element: sending Element)
    /// Ends the loop: with `error` if there is one and the stream can throw.
    func end(failing error: Swift.Error?)
    /// Calls `handler` once the stream terminates (finished, cancelled or dropped).
    func whenTerminated(_ handler: @escaping @Sendable () -> Void)
    /// Ends the loop because the subscription was disposed (cancelled, or the stream
    /// dropped); a no-op if it already ended.
    func endCancelled()
}

extension AsyncThrowingStream.Continuation: ValuesContinuation where Failure == Swift.Error {
    func deliver(_ element: sending Element) { yield(element) }
    func end(failing error: Swift.Error?) { finish(throwing: error) }
    func endCancelled() { finish(throwing: CancellationError()) }
    func whenTerminated(_ handler: @escaping @Sendable () -> Void) { onTermination = { _ in handler() } }
}

extension AsyncStream.Continuation: ValuesContinuation {
    func deliver(_ element: sending Element) { yield(element) }
    // An `Infallible` does not fail; should an error still come (from a closure that
    // threw), the stream ends as on completion, since it cannot throw.
    func end(failing error: Swift.Error?) { finish() }
    func endCancelled() { finish() }
    func whenTerminated(_ handler: @escaping @Sendable () -> Void) { onTermination = { _ in handler() } }
}

/// The subscription behind `values`: feeds the continuation and ends when the stream does.
final class ValuesSink<Continuation: ValuesContinuation>: SubscriptionCore, @unchecked Sendable {
    // @unchecked: the mutable state is the atomic in `SubscriptionCore`; events arrive
    // serially; the continuation is Sendable.
    private let continuation: Continuation

    private init(continuation: Continuation) {
        self.continuation = continuation
        super.init()
    }

    /// Subscribes a sink feeding `continuation` to `source`.
    static func start(_ source: Observable<Continuation.Element>, feeding continuation: Continuation) {
        let sink = ValuesSink(continuation: continuation)
        // Set before subscribing: a synchronous source may finish the stream during
        // `subscribe`, and the handler is what breaks the sink ↔ continuation cycle.
        continuation.whenTerminated { sink.dispose() }
        CurrentThreadScheduler.withTrampoline { sink.attach(source.run(AnyObserver { sink.on($0) })) }
    }

    func on(_ event: Event<Continuation.Element>) {
        switch event {
        case .next(let element):
            // Rx elements need not be `Sendable` (as in RxSwift): like `observe(on:)`
            // handing an element to another thread, this relies on the Rx contract that
            // an element, once delivered, is the receiver's to use.
            if !isDisposed { continuation.deliver(UncheckedSendable(element).value) }
        case .error(let error):
            // Ending runs `onTermination`, which disposes this sink (and so upstream).
            continuation.end(failing: error)
        case .completed:
            continuation.end(failing: nil)
        }
    }

    override func didDispose() {
        // Disposed by cancellation (or by the stream being dropped): end the consumer's
        // loop; a no-op if the stream already finished.
        continuation.endCancelled()
    }
}
