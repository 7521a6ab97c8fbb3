import Rx

/// An observer that records every event with the virtual time it arrived.
public final class TestableObserver<Element>: ObserverType, @unchecked Sendable {
    // Sendable: the recorded events are behind a lock.
    private let scheduler: TestScheduler
    private let recorded = LockedEvents<Element>()

    init(scheduler: TestScheduler) {
        self.scheduler = scheduler
    }

    /// The events received so far, with their times.
    public var events: [Recorded<Event<Element>>] { recorded.all }

    /// Records `event` at the scheduler's clock.
    public func on(_ event: Event<Element>) {
        recorded.append(Recorded(time: scheduler.clock, value: event))
    }
}

/// A lock-protected list of recorded events.
final class LockedEvents<Element>: @unchecked Sendable {
    // Sendable: every access takes the lock.
    private let lock = NSLockShim()
    private var storage: [Recorded<Event<Element>>] = []

    var all: [Recorded<Event<Element>>] {
        lock.withLock { storage }
    }

    func append(_ event: Recorded<Event<Element>>) {
        lock.withLock { storage.append(event) }
    }
}
