extension InfallibleType {
    /// The elements of the sequence as an `AsyncStream`, for `for await`: an `Infallible`
    /// cannot fail, so the loop needs no `try`.
    ///
    /// ```swift
    /// for await value in infallible.values { … }
    /// ```
    ///
    /// Each `values` stream subscribes once, when it is created. The stream buffers
    /// elements without bound (as RxSwift does) and finishes when the sequence completes.
    /// Cancelling the consuming task, or dropping the stream, disposes the subscription and
    /// ends the loop.
    public var values: AsyncStream<Element> {
        let source = asObservable()
        return AsyncStream<Element> { continuation in
            let sink = InfallibleValuesSink(continuation: continuation)
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

    /// An `Infallible` whose subscription runs `work` in a new task, which emits elements
    /// through the observer it is given; the sequence completes when `work` returns.
    /// Disposing the subscription cancels the task; elements emitted after that are
    /// dropped.
    ///
    /// ```swift
    /// let ticks = Infallible<Int>.create { observer in
    ///     for tick in 1...3 {
    ///         try? await Task.sleep(for: .seconds(1))
    ///         observer(tick)
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - detached: Whether the task is detached (inheriting neither the priority nor
    ///     the task-local values of the subscribing context).
    ///   - priority: The task's priority.
    ///   - work: The asynchronous work; it should return soon once its task is cancelled.
    @_disfavoredOverload
    public static func create(
        detached: Bool = false,
        priority: TaskPriority? = nil,
        work: @escaping @Sendable (_ observer: @escaping ElementObserver<Element>) async -> Void
    ) -> Infallible<Element> {
        Infallible(
            Observable<Element>.asyncCreate(detached: detached, priority: priority) { observer in
                await work(observer)
            })
    }
}

/// The subscription behind `Infallible.values`: feeds the continuation and ends when the
/// stream does.
///
/// Sendable: its mutable state is the atomic in `SubscriptionCore`; events arrive serially.
final class InfallibleValuesSink<Element>: SubscriptionCore, @unchecked Sendable {
    private let continuation: AsyncStream<Element>.Continuation

    init(continuation: AsyncStream<Element>.Continuation) {
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
        case .error, .completed:
            // An `Infallible` does not fail; should an error still come (from a closure
            // that threw), the stream ends as on completion, since it cannot throw.
            // `finish` runs `onTermination`, which disposes this sink (and so upstream).
            continuation.finish()
        }
    }

    override func didDispose() {
        // Disposed by cancellation (or by the stream being dropped): end the consumer's
        // loop; a no-op if the stream already finished.
        continuation.finish()
    }
}
