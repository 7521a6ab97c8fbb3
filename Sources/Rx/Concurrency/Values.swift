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
        return AsyncThrowingStream<Element, Error> { continuation in
            let sink = ValuesSink(continuation: continuation)
            // Set before subscribing: a synchronous source may finish the stream during
            // `subscribe`, and the handler is what breaks the sink ↔ continuation cycle.
            continuation.onTermination = { _ in sink.dispose() }
            if CurrentThreadScheduler.isScheduleRequired {
                CurrentThreadScheduler.runTrampolined { sink.attach(source.run(AnyObserver { sink.on($0) })) }
            } else {
                sink.attach(source.run(AnyObserver { sink.on($0) }))
            }
        }
    }
}

/// The subscription behind `values`: feeds the continuation and ends when the stream does.
///
/// Mutable state is the atomic in `SubscriptionCore`; events arrive serially.
final class ValuesSink<Element>: SubscriptionCore, @unchecked Sendable {
    private let continuation: AsyncThrowingStream<Element, Error>.Continuation

    init(continuation: AsyncThrowingStream<Element, Error>.Continuation) {
        self.continuation = continuation
        super.init()
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            // Rx elements need not be `Sendable` (as in RxSwift): like `observe(on:)`
            // handing an element to another thread, this relies on the Rx contract that
            // an element, once delivered, is the receiver's to use.
            if !isDisposed { continuation.yield(UncheckedSendable(element).value) }
        case .error(let error):
            // `finish` runs `onTermination`, which disposes this sink (and so upstream).
            continuation.finish(throwing: error)
        case .completed:
            continuation.finish()
        }
    }

    override func didDispose() {
        // Disposed by cancellation (or by the stream being dropped): end the consumer's
        // loop with `CancellationError`; a no-op if the stream already finished.
        continuation.finish(throwing: CancellationError())
    }
}
