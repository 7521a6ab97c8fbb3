import Dispatch
import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The life of one URLSession task: not started, running, or finished/cancelled. Disposing it
/// cancels a running task, asynchronously, on a queue of its own (never inside
/// URLSession's callbacks, never for a task that already finished).
///
/// It also holds the task's place in its manager's `RequestDispatcher`, given back once,
/// when URLSession reports the task ended (`ended()`), or at once if it never started.
final class TaskState: PreparedRequest, Sendable {
    // The mutable state is behind `state`; `URLSessionTask` and the launcher are not
    // `Sendable`, but only touched under its lock.

    /// The task's life, decided under the lock.
    private struct State {
        var task: URLSessionTask?
        var isDone = false
        var isAborted = false
        var place: DispatcherPlace?
        /// Creates the task, for `launch()`.
        var launcher: (() -> URLSessionTask)?
    }

    private let state: LockedState<State>
    private let cancelQueue: DispatchQueue

    init(cancelQueue: DispatchQueue, place: DispatcherPlace? = nil) {
        self.cancelQueue = cancelQueue
        state = LockedState(State(place: place))
    }

    func dispose() {
        _ = abort()
    }

    /// Sets what `launch()` does: create the task (and register it with the delegate).
    func prepare(_ create: @escaping () -> URLSessionTask) {
        state.withLock { $0.launcher = create }
    }

    /// Creates the prepared task and resumes it, unless the request was disposed first
    /// (then nothing is created: the dispose gave the place back).
    ///
    /// Both happen under the lock, so that a cancel is either before (nothing is created)
    /// or after (the task is cancelled): a request whose execution ended before it was
    /// launched never reaches the server. Nothing URLSession runs waits for this lock
    /// before the task exists, so holding it while URLSession creates and resumes the task
    /// (which waits for URLSession's work queue on Linux) cannot deadlock; this must not
    /// be called on that work queue.
    func launch() {
        state.withLock { state in
            guard !state.isDone, let create = state.launcher else { return }
            state.launcher = nil
            let created = create()
            state.task = created
            created.resume()
        }
    }

    /// Whether the task is neither finished nor cancelled.
    var isRunning: Bool { state.withLock { !$0.isDone } }

    /// Whether the task was cancelled (disposed, or stopped by Leash) rather than finished
    /// by URLSession: what was received before a finish is still delivered, nothing after
    /// a cancel.
    var isCancelled: Bool { state.withLock { $0.isAborted } }

    /// Cancels the task (asynchronously) unless it already finished or was cancelled;
    /// returns whether this call ended it. For the transport itself, failing a task whose
    /// body it could not keep.
    func abort() -> Bool {
        let (ended, running, launcher) = state.withLock {
            state -> (Bool, URLSessionTask?, (() -> URLSessionTask)?) in
            if state.isDone { return (false, nil, nil) }
            state.isDone = true
            state.isAborted = true
            defer {
                state.launcher = nil
                state.task = nil
            }
            return (true, state.task, state.launcher)
        }
        // Let go of outside the lock: the launcher holds the request's observer.
        withExtendedLifetime(launcher) {}
        if let running {
            cancelQueue.async { running.cancel() }
        } else if ended {
            // Never started: no task will report its end, and its place is free now.
            self.ended()
        }
        return ended
    }

    /// Suspends the running task (asynchronously, in order with `resume` and cancel).
    func suspend() {
        guard let running = state.withLock({ $0.isDone ? nil : $0.task }) else { return }
        cancelQueue.async { running.suspend() }
    }

    /// Resumes the task `suspend` suspended, unless it ended meanwhile.
    func resume() {
        guard let running = state.withLock({ $0.isDone ? nil : $0.task }) else { return }
        cancelQueue.async { running.resume() }
    }

    /// URLSession reported the task ended (finished or cancelled), or it never started:
    /// its place in the dispatcher is given back, once.
    func ended() {
        guard
            let released = state.withLock({ state -> DispatcherPlace? in
                defer { state.place = nil }
                return state.place
            })
        else { return }
        released.release()
    }

    /// Marks the task finished by URLSession; returns false if it was cancelled first.
    func finish() -> Bool {
        state.withLock { state in
            if state.isDone { return false }
            state.isDone = true
            state.task = nil
            return true
        }
    }
}
