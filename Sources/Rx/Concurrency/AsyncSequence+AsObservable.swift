extension AsyncSequence where Self: Sendable {
    /// An observable that iterates the async sequence, emitting its elements.
    ///
    /// Each subscription iterates in its own `Task` (detached when `detached` is true, so
    /// that it inherits neither priority nor task-locals). The observable completes when
    /// the sequence ends, also when iteration throws `CancellationError`, and fails with
    /// any other error. Disposing the subscription cancels the task.
    ///
    /// - Parameters:
    ///   - priority: The iterating task's priority; `nil` for the default (the current
    ///     task's, unless `detached`).
    ///   - detached: Whether to iterate in a detached task.
    public func asObservable(priority: TaskPriority? = nil, detached: Bool = false) -> Observable<Element> {
        let sequence = self
        return Observable<Element>.make { observer in
            let sink = AsyncSequenceSink(downstream: observer)
            let operation: @Sendable () async -> Void = { await sink.run(sequence) }
            let task: Task<Void, Never>
            if detached {
                task = Task.detached(priority: priority, operation: operation)
            } else {
                task = Task(priority: priority, operation: operation)
            }
            sink.attach(AsyncSequenceTaskCancellation(task: task))
            return sink
        }
    }
}

/// One subscription to an async sequence: forwards what the iterating task produces.
final class AsyncSequenceSink<Element>: Sink<Element>, @unchecked Sendable {
    func run<Sequence: AsyncSequence>(_ sequence: Sequence) async where Sequence.Element == Element {
        do {
            for try await element in sequence {
                // Stop pulling at once on dispose, even if the sequence ignores cancellation.
                if isStoppedOrDisposed { return }
                forward(.next(element))
            }
            forwardTerminal(.completed)
        } catch is CancellationError {
            forwardTerminal(.completed)
        } catch {
            forwardTerminal(.error(error))
        }
    }
}

/// Cancels the iterating task when the subscription is disposed.
struct AsyncSequenceTaskCancellation: Disposable {
    let task: Task<Void, Never>

    func dispose() {
        task.cancel()
    }
}
