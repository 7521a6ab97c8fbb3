import Rx

/// An observer that records every event with the virtual time it arrived.
public final class TestableObserver<Element>: ObserverType, @unchecked Sendable {
    // Sendable: the recorded events are behind their lock; the scheduler is only read.
    private let scheduler: TestScheduler
    private let recorded = LockedState<[Recorded<Event<Element>>]>([])

    init(scheduler: TestScheduler) {
        self.scheduler = scheduler
    }

    /// The events received so far, with their times.
    public var events: [Recorded<Event<Element>>] { recorded.withLock { $0 } }

    /// Records `event` at the scheduler's clock.
    public func on(_ event: Event<Element>) {
        let now = scheduler.clock
        recorded.withLock { $0.append(Recorded(time: now, value: event)) }
    }
}
