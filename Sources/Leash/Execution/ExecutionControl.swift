/// Pauses and resumes one execution: what a callback form's handle
/// (`DataRequest.suspend()` / `resume()`) reaches.
///
/// Suspending stops the request in flight, if any (its transport subscription is
/// disposed, quietly: the execution does not fail), and holds back the next one; resuming
/// sends it again. A download continues from the bytes its file already has (`Range`),
/// anything else starts its request over. URLSession's own `suspend()` is not used: on
/// Linux, resuming a suspended task restarts it and delivers the body a second time after
/// the bytes already received (measured: 2.5 MB delivered for a 2 MB body).
///
/// While suspended, an idle timeout does not run; a whole-execution timeout does.
final class ExecutionControl: @unchecked Sendable {
    // @unchecked: all state is behind `lock`.
    private let lock = Lock()
    private var isSuspended = false
    /// The attempt running now (each attempt attaches itself; a retry replaces it).
    private weak var run: AttemptRun?

    /// `run` is the execution's current attempt; returns whether it starts suspended.
    func attach(_ run: AttemptRun) -> Bool {
        lock.withLock {
            self.run = run
            return isSuspended
        }
    }

    /// Whether the execution is suspended.
    var suspended: Bool { lock.withLock { isSuspended } }

    func suspend() {
        let run = lock.withLock { () -> AttemptRun? in
            if isSuspended { return nil }
            isSuspended = true
            return self.run
        }
        run?.suspend()
    }

    func resume() {
        let run = lock.withLock { () -> AttemptRun? in
            if !isSuspended { return nil }
            isSuspended = false
            return self.run
        }
        run?.resume()
    }
}
