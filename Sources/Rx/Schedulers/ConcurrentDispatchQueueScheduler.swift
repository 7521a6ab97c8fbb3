import Dispatch
import Foundation

/// A scheduler that runs work on a dispatch queue that may be concurrent.
///
/// Actions scheduled together may run at the same time, so operators that need serial
/// work (`observe(on:)` included) should prefer `SerialDispatchQueueScheduler`. A periodic
/// action never overlaps itself.
public final class ConcurrentDispatchQueueScheduler: SchedulerType, Sendable {

    /// A time interval in seconds, as in RxSwift; this package's schedulers take `RxTimeInterval`.
    public typealias TimeInterval = Foundation.TimeInterval
    /// An absolute time.
    public typealias Time = Date
    /// The current time.
    public var now: RxTime { Date() }

    let configuration: DispatchQueueConfiguration

    /// A scheduler on `queue`.
    ///
    /// - Parameters:
    ///   - queue: The queue that runs the scheduled actions; a concurrent queue runs them in
    ///     parallel.
    ///   - leeway: How late timers may fire, for power efficiency.
    public init(queue: DispatchQueue, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        configuration = DispatchQueueConfiguration(queue: queue, leeway: leeway)
    }

    /// A scheduler on a new concurrent queue of quality of service `qos`.
    public convenience init(qos: DispatchQoS, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        self.init(
            queue: DispatchQueue(
                label: "rx.concurrent_dispatch_queue.\(qos.qosClass)", qos: qos, attributes: .concurrent),
            leeway: leeway)
    }

    /// Schedules `action` to run on the queue as soon as possible.
    public func schedule<StateType>(_ state: StateType, action: @escaping @Sendable (StateType) -> Disposable)
        -> Disposable
    {
        configuration.schedule(state, action: action)
    }

    /// Schedules `action` to run on the queue after `dueTime`.
    public func scheduleRelative<StateType>(
        _ state: StateType, dueTime: RxTimeInterval, action: @escaping @Sendable (StateType) -> Disposable
    ) -> Disposable {
        configuration.scheduleRelative(state, dueTime: dueTime, action: action)
    }

    /// Schedules `action` to run on the queue after `startAfter`, then every `period`.
    public func schedulePeriodic<StateType>(
        _ state: StateType, startAfter: RxTimeInterval, period: RxTimeInterval,
        action: @escaping @Sendable (StateType) -> StateType
    ) -> Disposable {
        configuration.schedulePeriodic(state, startAfter: startAfter, period: period, action: action)
    }
}
