import Foundation

/// A scheduler whose clock only moves when it runs the work it holds: time-based code
/// runs instantly and deterministically.
///
/// Work runs in order of due time; work due at the same time runs in the order it was
/// scheduled. Actions run outside the scheduler's lock, so they may schedule more work.
open class VirtualTimeScheduler<Converter: VirtualTimeConverterType>: SchedulerType, @unchecked Sendable {
    // Sendable: the mutable state is in `core`, behind the lock; `converter` is immutable.

    /// The unit of virtual time.
    public typealias VirtualTime = Converter.VirtualTimeUnit
    /// The unit of virtual time intervals.
    public typealias VirtualTimeInterval = Converter.VirtualTimeIntervalUnit

    private struct Core {
        var clock: VirtualTime
        var isRunning = false
        var nextID = 0
        var queue: PriorityQueue<VirtualSchedulerItem<VirtualTime>>
    }

    private let core: LockedState<Core>
    private let converter: Converter

    /// Creates a scheduler starting at `initialClock`.
    public init(initialClock: VirtualTime, converter: Converter) {
        self.converter = converter
        self.core = LockedState(
            Core(
                clock: initialClock,
                queue: PriorityQueue { lhs, rhs in
                    switch converter.compareVirtualTime(lhs.time, rhs.time) {
                    case .lessThan: return true
                    case .equal: return lhs.id < rhs.id
                    case .greaterThan: return false
                    }
                }))
    }

    /// The current virtual time.
    public var clock: VirtualTime { core.withLock { $0.clock } }

    /// The current virtual time as a date.
    public var now: RxTime { converter.convertFromVirtualTime(clock) }

    /// Schedules `action` for the current time (see `adjustScheduledTime`).
    public func schedule<StateType>(_ state: StateType, action: @escaping @Sendable (StateType) -> Disposable)
        -> Disposable
    {
        scheduleRelative(state, dueTime: .microseconds(0), action: action)
    }

    /// Schedules `action` after `dueTime` of virtual time.
    public func scheduleRelative<StateType>(
        _ state: StateType, dueTime: RxTimeInterval, action: @escaping @Sendable (StateType) -> Disposable
    ) -> Disposable {
        let time = now.addingTimeInterval(dueTime.seconds)
        let absoluteTime = converter.convertToVirtualTime(time)
        return scheduleAbsoluteVirtual(state, time: adjustScheduledTime(absoluteTime), action: action)
    }

    /// Schedules `action` after `dueTime` in virtual units.
    public func scheduleRelativeVirtual<StateType>(
        _ state: StateType, dueTime: VirtualTimeInterval, action: @escaping @Sendable (StateType) -> Disposable
    ) -> Disposable {
        let time = converter.offsetVirtualTime(clock, offset: dueTime)
        return scheduleAbsoluteVirtual(state, time: time, action: action)
    }

    /// Schedules `action` at the absolute virtual time `time`.
    open func scheduleAbsoluteVirtual<StateType>(
        _ state: StateType, time: VirtualTime, action: @escaping @Sendable (StateType) -> Disposable
    ) -> Disposable {
        let box = UncheckedSendable(state)
        let item = core.withLock { core -> VirtualSchedulerItem<VirtualTime> in
            let item = VirtualSchedulerItem(time: time, id: core.nextID) { action(box.value) }
            core.nextID += 1
            core.queue.enqueue(item)
            return item
        }
        return item
    }

    /// Lets subclasses move a due time (the test scheduler runs "now" one tick later).
    open func adjustScheduledTime(_ time: VirtualTime) -> VirtualTime { time }

    /// Runs the scheduled work, advancing the clock, until none is left or `stop()`.
    public func start() {
        let started = core.withLock { core -> Bool in
            if core.isRunning { return false }
            core.isRunning = true
            return true
        }
        guard started else { return }
        while let item = nextItem(upTo: nil) {
            item.invoke()
        }
        core.withLock { $0.isRunning = false }
    }

    /// Stops `start()` / `advanceTo(_:)` after the current action.
    public func stop() {
        core.withLock { $0.isRunning = false }
    }

    /// Runs the work due up to and including `virtualTime`, then sets the clock to it.
    /// Advancing into the past does nothing.
    public func advanceTo(_ virtualTime: VirtualTime) {
        let started = core.withLock { core -> Bool in
            if core.isRunning { return false }
            if converter.compareVirtualTime(virtualTime, core.clock) == .lessThan { return false }
            core.isRunning = true
            return true
        }
        guard started else { return }
        while let item = nextItem(upTo: virtualTime) {
            item.invoke()
        }
        core.withLock { core in
            core.isRunning = false
            core.clock = virtualTime
        }
    }

    /// Moves the clock forward by `virtualInterval` without running anything.
    public func sleep(_ virtualInterval: VirtualTimeInterval) {
        core.withLock { core in
            let sleepTo = converter.offsetVirtualTime(core.clock, offset: virtualInterval)
            if converter.compareVirtualTime(sleepTo, core.clock) == .greaterThan {
                core.clock = sleepTo
            }
        }
    }

    /// Takes the next live item due by `limit` (if any), advancing the clock to it.
    private func nextItem(upTo limit: VirtualTime?) -> VirtualSchedulerItem<VirtualTime>? {
        core.withLock { core in
            while core.isRunning, let item = core.queue.peek() {
                if item.isDisposed {
                    _ = core.queue.dequeue()
                    continue
                }
                if let limit, converter.compareVirtualTime(item.time, limit) == .greaterThan { return nil }
                _ = core.queue.dequeue()
                if converter.compareVirtualTime(item.time, core.clock) == .greaterThan {
                    core.clock = item.time
                }
                return item
            }
            return nil
        }
    }
}

extension VirtualTimeScheduler: CustomDebugStringConvertible {
    /// The clock and the due times of the work still waiting, in the order it will run,
    /// for debugging: `clock: 200, scheduled: [210, 220]`.
    public var debugDescription: String {
        core.withLock { core in
            let pending = core.queue.sortedElements.filter { !$0.isDisposed }.map { "\($0.time)" }
            return "clock: \(core.clock), scheduled: [\(pending.joined(separator: ", "))]"
        }
    }
}

/// Work held by a virtual time scheduler; disposing it before it runs cancels it.
final class VirtualSchedulerItem<Time: Sendable>: RxResource, Cancelable, @unchecked Sendable {
    // Sendable: `time` and `id` are immutable; the action slot is behind its lock.
    let time: Time
    let id: Int
    private let action: LockedState<(() -> Disposable)?>
    private let disposable = SingleAssignmentDisposable()

    init(time: Time, id: Int, action: @escaping () -> Disposable) {
        self.time = time
        self.id = id
        self.action = LockedState(action)
    }

    var isDisposed: Bool { action.withLock { $0 == nil } }

    func invoke() {
        let work = action.withLock { action -> (() -> Disposable)? in
            defer { action = nil }
            return action
        }
        if let work { disposable.setDisposable(work()) }
    }

    func dispose() {
        action.withLock { $0 = nil }
        disposable.dispose()
    }
}
