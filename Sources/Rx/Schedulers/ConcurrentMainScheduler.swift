import Dispatch
import Foundation

/// A scheduler for subscribing on the main thread: `subscribe(on: ConcurrentMainScheduler.instance)`.
///
/// `schedule` runs the action at once whenever it is called on the main thread (even if
/// other work is queued there), otherwise queues it on `DispatchQueue.main`; disposing
/// the result before the action runs cancels it. Timed work goes to
/// `MainScheduler.instance`. For delivering elements on the main thread in order
/// (`observe(on:)`), `MainScheduler` is the right choice: it never overtakes work it has
/// queued.
public final class ConcurrentMainScheduler: SchedulerType, Sendable {
    /// A time interval in seconds, as in RxSwift; this package's schedulers take `RxTimeInterval`.
    public typealias TimeInterval = Foundation.TimeInterval
    /// An absolute time.
    public typealias Time = Date

    private let mainScheduler: MainScheduler
    private let mainQueue = DispatchQueueConfiguration(queue: DispatchQueue.main, leeway: .nanoseconds(0))

    private init(mainScheduler: MainScheduler) {
        self.mainScheduler = mainScheduler
    }

    /// The shared instance.
    public static let instance = ConcurrentMainScheduler(mainScheduler: MainScheduler.instance)

    /// The current time.
    public var now: RxTime { mainScheduler.now }

    /// Runs `action` now when called on the main thread, otherwise queues it on the main
    /// queue.
    ///
    /// - Returns: A disposable that cancels the action if it has not run yet (once it ran
    ///   inline, the action's own disposable).
    public func schedule<StateType>(_ state: StateType, action: @escaping @Sendable (StateType) -> Disposable)
        -> Disposable
    {
        if Thread.isMainThread {
            return action(state)
        }
        return mainQueue.schedule(state, action: action)
    }

    /// Schedules `action` on the main thread after `dueTime` (through `MainScheduler.instance`).
    public func scheduleRelative<StateType>(
        _ state: StateType, dueTime: RxTimeInterval, action: @escaping @Sendable (StateType) -> Disposable
    ) -> Disposable {
        mainScheduler.scheduleRelative(state, dueTime: dueTime, action: action)
    }

    /// Schedules `action` on the main thread after `startAfter`, then every `period`
    /// (through `MainScheduler.instance`).
    public func schedulePeriodic<StateType>(
        _ state: StateType, startAfter: RxTimeInterval, period: RxTimeInterval,
        action: @escaping @Sendable (StateType) -> StateType
    ) -> Disposable {
        mainScheduler.schedulePeriodic(state, startAfter: startAfter, period: period, action: action)
    }
}
