import Dispatch
import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The life of one URLSession task: not started, running, or finished/cancelled. Disposing it
/// cancels a running task, asynchronously, on a queue of its own (never inside
/// URLSession's callbacks, never for a task that already finished).
final class TaskState: Disposable, @unchecked Sendable {
    // @unchecked: all state is behind `lock`.
    private let lock = Lock()
    private var task: URLSessionTask?
    private var isDone = false
    private var isAborted = false
    private let cancelQueue: DispatchQueue

    init(cancelQueue: DispatchQueue) {
        self.cancelQueue = cancelQueue
    }

    func dispose() {
        _ = abort()
    }

    /// Whether the task is neither finished nor cancelled.
    var isRunning: Bool { lock.withLock { !isDone } }

    /// Whether the task was cancelled (disposed, or stopped by Leash) rather than finished
    /// by URLSession: what was received before a finish is still delivered, nothing after
    /// a cancel.
    var isCancelled: Bool { lock.withLock { isAborted } }

    /// Cancels the task (asynchronously) unless it already finished or was cancelled;
    /// returns whether this call ended it. For the transport itself, failing a task whose
    /// body it could not keep.
    func abort() -> Bool {
        let (ended, running) = lock.withLock { () -> (Bool, URLSessionTask?) in
            if isDone { return (false, nil) }
            isDone = true
            isAborted = true
            defer { task = nil }
            return (true, task)
        }
        if let running { cancelQueue.async { running.cancel() } }
        return ended
    }

    /// Suspends the running task (asynchronously, in order with `resume` and cancel).
    func suspend() {
        guard let running = lock.withLock({ isDone ? nil : task }) else { return }
        cancelQueue.async { running.suspend() }
    }

    /// Resumes the task `suspend` suspended, unless it ended meanwhile.
    func resume() {
        guard let running = lock.withLock({ isDone ? nil : task }) else { return }
        cancelQueue.async { running.resume() }
    }

    /// Starts `task` unless the request was already cancelled; returns whether it started.
    @discardableResult
    func start(_ task: URLSessionTask) -> Bool {
        let cancelled = lock.withLock { () -> Bool in
            if !isDone { self.task = task }
            return isDone
        }
        if !cancelled { task.resume() }
        return !cancelled
    }

    /// Marks the task finished by URLSession; returns false if it was cancelled first.
    func finish() -> Bool {
        lock.withLock {
            if isDone { return false }
            isDone = true
            task = nil
            return true
        }
    }
}
