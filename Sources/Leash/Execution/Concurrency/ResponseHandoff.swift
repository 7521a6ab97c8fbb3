/// Where a transport hands its answer to continue an execution, instead of reporting it on
/// a queue of its own: an `await`ing execution's task (`TaskMailbox`), which saves a
/// thread hop per request.
///
/// `hand(_:)` must not run the job in place: it is called on URLSession's work queue,
/// where nothing may wait for that queue.
protocol ResponseHandoff: AnyObject, Sendable {
    /// Runs `job` soon, elsewhere, unless the execution is over (then drops it).
    func hand(_ job: @escaping @Sendable () -> Void)
}

/// The jobs handed to an `async` execution, run by the task that awaits the execution:
/// the pipeline after the transport runs on that task, as `URLSession.data(for:)` decodes
/// on the caller's task, instead of on a queue of the transport's that then resumes the
/// task (two hops where one will do).
///
/// The task loops on `next()` until the execution is over (`finish()`): each job (the
/// transport's answer) runs the pipeline on, usually to its end. Jobs handed after the end
/// are dropped.
final class TaskMailbox: ResponseHandoff, @unchecked Sendable {
    // @unchecked: all state is behind `lock`.

    /// What the awaiting task does next.
    enum Item {
        /// Runs a job.
        case job(@Sendable () -> Void)
        /// Stops: the execution is over.
        case finished
    }

    private let lock = Lock()
    private var jobs: [@Sendable () -> Void] = []
    private var isFinished = false
    /// The task, while it waits for an item.
    private var waiter: UnsafeContinuation<Item, Never>?

    func hand(_ job: @escaping @Sendable () -> Void) {
        post(.job(job))
    }

    /// Ends the loop: the execution is over (its result is wherever the caller keeps it).
    func finish() {
        post(.finished)
    }

    /// The next job, or `.finished`; waits if there is neither.
    func next() async -> Item {
        if let item = lock.withLock({ take() }) { return item }
        // The continuation is unchecked (an allocation and a check less): it is resumed
        // exactly once, by whoever takes it out under the lock.
        return await withUnsafeContinuation { continuation in
            let ready = lock.withLock { () -> Item? in
                if let item = take() { return item }
                waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func post(_ item: Item) {
        let (waiter, dropped) = lock.withLock { () -> (UnsafeContinuation<Item, Never>?, [@Sendable () -> Void]) in
            if isFinished { return (nil, []) }
            if case .finished = item {
                isFinished = true
                // Jobs that will not run now: released below, outside the lock.
                defer { jobs.removeAll() }
                let waiting = self.waiter
                self.waiter = nil
                return (waiting, jobs)
            }
            if let waiting = self.waiter {
                self.waiter = nil
                return (waiting, [])
            }
            if case .job(let job) = item { jobs.append(job) }
            return (nil, [])
        }
        withExtendedLifetime(dropped) {}
        waiter?.resume(returning: item)
    }

    /// Under the lock: `.finished` once finished, else the oldest job, if any.
    private func take() -> Item? {
        if isFinished { return .finished }
        if jobs.isEmpty { return nil }
        return .job(jobs.removeFirst())
    }
}
