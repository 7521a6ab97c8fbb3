extension ObservableConvertibleType {
    /// The function through which the `work` of an `async` `create` emits elements; it may
    /// be called from any task or thread, one element at a time.
    public typealias ElementObserver<Value> = @Sendable (Value) -> Void

    /// An observable whose subscription runs `work` in a new task, which emits elements
    /// through the observer it is given. The observable completes when `work` returns and
    /// fails with what it throws. Disposing the subscription cancels the task; elements
    /// emitted after that are dropped.
    ///
    /// ```swift
    /// let pages = Observable<Page>.create { observer in
    ///     var next: URL? = firstPage
    ///     while let url = next {
    ///         let page = try await api.page(at: url)
    ///         observer(page)
    ///         next = page.next
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - detached: Whether the task is detached (inheriting neither the priority nor
    ///     the task-local values of the subscribing context).
    ///   - priority: The task's priority.
    ///   - work: The asynchronous work; it should return or throw soon once its task is
    ///     cancelled.
    @_disfavoredOverload
    public static func create(
        detached: Bool = false,
        priority: TaskPriority? = nil,
        work: @escaping @Sendable (_ observer: @escaping ElementObserver<Element>) async throws -> Void
    ) -> Observable<Element> {
        Observable<Element>.asyncCreate(detached: detached, priority: priority, work: work)
    }
}

extension Observable {
    /// The observable behind the `async` forms of `create`: each subscription runs `work`
    /// in a task of its own, which disposing the subscription cancels.
    static func asyncCreate(
        detached: Bool, priority: TaskPriority?,
        work: @escaping @Sendable (_ observer: @escaping @Sendable (Element) -> Void) async throws -> Void
    ) -> Observable<Element> {
        make { observer in
            let sink = AsyncCreateSink(downstream: observer)
            let operation: @Sendable () async -> Void = { await sink.run(work) }
            let task =
                detached
                ? Task.detached(priority: priority, operation: operation)
                : Task(priority: priority, operation: operation)
            sink.attach(AsyncSequenceTaskCancellation(task: task))
            return sink
        }
    }
}

/// One subscription of an `async` `create`: forwards what the task's work emits, then its
/// outcome.
final class AsyncCreateSink<Element>: Sink<Element>, @unchecked Sendable {
    // @unchecked: its only state is `Sink`'s atomic; the work emits one element at a time.
    func run(_ work: @Sendable (_ observer: @escaping @Sendable (Element) -> Void) async throws -> Void) async {
        do {
            try await work { element in
                // After disposal (which cancelled the task) elements are dropped.
                self.forward(.next(element))
            }
            forwardTerminal(.completed)
        } catch {
            forwardTerminal(.error(error))
        }
    }
}
