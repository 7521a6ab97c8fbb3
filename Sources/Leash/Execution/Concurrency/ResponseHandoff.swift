import Rx

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
///
/// Not a `DeliveryLine`: a line's deliverer is whichever thread submits while it is idle,
/// where here only the awaiting task may run a job (the thread that hands one over is
/// URLSession's work queue), so the task pulls, and waits for a job when there is none.
final class TaskMailbox: ResponseHandoff, Sendable {
    /// What the awaiting task does next.
    enum Item {
        /// Runs a job.
        case job(@Sendable () -> Void)
        /// Stops: the execution is over.
        case finished
    }

    /// The mailbox's contents, decided under its lock and acted on after.
    private struct State {
        typealias Job = @Sendable () -> Void

        var jobs: [Job] = []
        var isFinished = false
        /// The task, while it waits for an item.
        var waiter: UnsafeContinuation<Item, Never>?

        /// `.finished` once finished, else the oldest job, if any.
        mutating func take() -> Item? {
            if isFinished { return .finished }
            if jobs.isEmpty { return nil }
            return .job(jobs.removeFirst())
        }

        /// Posts `item`: returns the waiting task, to be resumed with it, and the jobs
        /// that will not run now (to be released outside the lock).
        mutating func post(_ item: Item) -> (waiter: UnsafeContinuation<Item, Never>?, dropped: [Job]) {
            if isFinished { return (nil, []) }
            if case .finished = item {
                isFinished = true
                defer {
                    jobs.removeAll()
                    waiter = nil
                }
                return (waiter, jobs)
            }
            if let waiting = waiter {
                waiter = nil
                return (waiting, [])
            }
            if case .job(let job) = item { jobs.append(job) }
            return (nil, [])
        }
    }

    private let state = LockedState(State())

    func hand(_ job: @escaping @Sendable () -> Void) {
        post(.job(job))
    }

    /// Ends the loop: the execution is over (its result is wherever the caller keeps it).
    func finish() {
        post(.finished)
    }

    /// The next job, or `.finished`; waits if there is neither.
    func next() async -> Item {
        if let item = state.withLock({ $0.take() }) { return item }
        // The continuation is unchecked (an allocation and a check less): it is resumed
        // exactly once, by whoever takes it out under the lock.
        return await withUnsafeContinuation { continuation in
            let ready = state.withLock { state -> Item? in
                if let item = state.take() { return item }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func post(_ item: Item) {
        let (waiter, dropped) = state.withLock { $0.post(item) }
        withExtendedLifetime(dropped) {}
        waiter?.resume(returning: item)
    }
}
