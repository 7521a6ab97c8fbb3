import Foundation
import Rx

/// One execution's end, for its manager's `ExecutionEndObserver`s: the last attempt that
/// began (each `ExecutionContext` of the execution records itself here as it is made, so
/// an adapted request counts) and whether the end was reported yet.
///
/// Made per execution only when the manager has end observers (`Execution.endReport`);
/// without them executions carry `nil` and allocate nothing for the hook. A struct over
/// one locked state: one allocation per execution when there are observers.
struct EndReport: @unchecked Sendable {
    // @unchecked: the state is behind its lock; `observers` is immutable (the app's objects,
    // which Leash calls from any thread, as every interceptor).
    private struct State {
        /// Held until the end only: the context holds this ending too.
        var lastAttempt: ExecutionContext?
        var hasEnded = false
    }

    private let observers: [ExecutionEndObserver]
    private let state: LockedState<State>

    /// An ending for `observers`, or `nil` if there are none. (The state is made after the
    /// check, not as a property's default value: that would be allocated, and freed,
    /// for every execution without observers too.)
    init?(observers: [ExecutionEndObserver]) {
        guard !observers.isEmpty else { return nil }
        self.observers = observers
        self.state = LockedState(State())
    }

    /// `context`'s attempt began (or its request was adapted): it is the last one so far.
    func attemptBegan(_ context: ExecutionContext) {
        state.withLock { state in
            if !state.hasEnded { state.lastAttempt = context }
        }
    }

    /// Tells the observers that the execution ended with `outcome`, the first time only:
    /// whatever ends an execution first (its stream, its deadline, `cancelAll()`, a
    /// dispose) reports it, and the rest find it reported.
    func end(_ outcome: ExecutionEnd.Outcome, client: Client, endpoint: Endpoint) {
        let (isFirst, lastAttempt) = state.withLock { state -> (Bool, ExecutionContext?) in
            guard !state.hasEnded else { return (false, nil) }
            state.hasEnded = true
            defer { state.lastAttempt = nil }
            return (true, state.lastAttempt)
        }
        guard isFirst else { return }
        let end = ExecutionEnd(outcome: outcome, client: client, endpoint: endpoint, lastAttempt: lastAttempt)
        for observer in observers { observer.executionDidEnd(end) }
    }
}

extension ExecutionEnd.Outcome {
    /// The outcome a terminal `event` reports.
    init<Element>(terminal event: Event<Element>) {
        if let error = event.error {
            self = .failed(error)
        } else {
            self = .completed
        }
    }
}
