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
        /// The most actions one `start()` runs (see `actionLimit`).
        var actionLimit: Int?
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

    /// Runs the scheduled work, advancing the clock, until none is left or `stop()` (or,
    /// with an `actionLimit`, until that many actions ran: then it stops and says so on
    /// standard error).
    public func start() {
        let (started, limit) = core.withLock { core -> (Bool, Int?) in
            if core.isRunning { return (false, nil) }
            core.isRunning = true
            return (true, core.actionLimit)
        }
        guard started else { return }
        var ran = 0
        while let item = nextItem(upTo: nil) {
            item.invoke()
            ran += 1
            if let limit, ran >= limit, core.withLock({ $0.queue.peek() != nil }) {
                reportRunaway(after: ran)
                break
            }
        }
        core.withLock { $0.isRunning = false }
    }

    /// The most actions one `start()` runs before it stops, taking the work for a runaway
    /// (something that schedules itself for ever, such as an interval nobody disposed);
    /// `nil`: no limit, as in RxSwift. `TestScheduler` sets one.
    package var actionLimit: Int? {
        get { core.withLock { $0.actionLimit } }
        set { core.withLock { $0.actionLimit = newValue } }
    }

    /// Says on standard error why `start()` stopped with work left: a test would otherwise
    /// hang with no word, its memory growing.
    private func reportRunaway(after ran: Int) {
        let message =
            "\(Self.self).start() stopped after \(ran) actions, at virtual time \(clock), with work still "
            + "scheduled: something schedules itself for ever (an interval or a timer nobody disposed, a "
            + "WebSocket's keepalive pings, a reconnect policy). Dispose what the test started, or run to a "
            + "time with advanceTo(_:).\n"
        FileHandle.standardError.write(Data(message.utf8))
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
