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
        return AsyncStream<Element> { ValuesSink.start(source, feeding: $0) }
    }

    /// An `Infallible` whose subscription runs `work` in a new task, which emits elements
    /// through the observer it is given; the sequence completes when `work` returns.
    /// Disposing the subscription cancels the task; elements emitted after that are
    /// dropped.
    ///
    /// ```swift
    /// let ticks = Infallible<Int>.create { observer in
    ///     for tick in 1...3 {
    ///         try? await Task.sleep(nanoseconds: 1_000_000_000)
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
