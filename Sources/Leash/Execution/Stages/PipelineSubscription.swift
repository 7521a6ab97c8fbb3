import Foundation
import Rx

/// One subscription made by `ExecutionPipeline.subscribe` (the events form, transfers and
/// streams; the values forms have `SerializingObserver`): ends the execution when
/// its deadline passes or its manager's `cancelAll()` runs, removes the files it made and
/// tells the manager's end observers whatever ends it, and stays in the manager's
/// registry while it is in flight.
final class PipelineSubscription<Element>: Disposable, DeadlineTarget, ManagedExecution, @unchecked Sendable {
    // @unchecked: `output` serialises its events itself, `upstream` is a thread-safe
    // disposable, `isInFlight` is atomic; the rest is immutable.
    private let output: SerialObserver<Element>
    private let stages: DataStages
    private let deadline: ExecutionDeadline?
    private let registry: ExecutionRegistry
    /// The execution's own subscription.
    let upstream = SingleAssignmentDisposable()
    /// 1 until the execution ended, was disposed or cancelled: it leaves the registry once.
    private let isInFlight = AtomicInt(1)

    var registryKey: ObjectIdentifier { ObjectIdentifier(stages) }

    init(output: SerialObserver<Element>, stages: DataStages, deadline: ExecutionDeadline?, registry: ExecutionRegistry)
    {
        self.output = output
        self.stages = stages
        self.deadline = deadline
        self.registry = registry
        registry.add(self)
    }

    /// The execution sent `event`; a terminal one ends it (its files removed and its end
    /// observers told before the end is reported), unless its deadline, `cancelAll()` or a
    /// dispose ended it first: whichever ends it first is the end observers' and the
    /// subscriber's.
    func on(_ event: Event<Element>) {
        if event.isStopEvent {
            guard leaveRegistry() else { return }
            deadline?.cancel()
            stages.release()
            stages.ended(ExecutionEnd.Outcome(terminal: event))
        }
        output.on(event)
    }

    func deadlinePassed(_ seconds: TimeInterval) {
        end(with: LeashError.timeout(seconds: seconds))
    }

    func cancelFromManager() {
        deadline?.cancel()
        end(with: LeashError.cancelled)
    }

    func dispose() {
        let wasInFlight = leaveRegistry()
        deadline?.cancel()
        output.release()
        upstream.dispose()
        stages.release()
        if wasInFlight { stages.ended(.disposed) }
    }

    /// Ends the execution with `error` and cancels what is in flight, unless it ended
    /// already. `output` delivers the error after any event being delivered.
    private func end(with error: Swift.Error) {
        guard leaveRegistry() else { return }
        stages.release()
        stages.ended(.failed(error))
        // Upstream first: once the subscriber hears of the end, no request of this
        // execution can still start (a queued one is removed, a prepared one not sent).
        upstream.dispose()
        output.onError(error)
    }

    /// Leaves the registry; `false` if the execution had ended already (it leaves once).
    private func leaveRegistry() -> Bool {
        guard isInFlight.compareExchange(expected: 1, desired: 0) else { return false }
        registry.remove(self)
        return true
    }
}
