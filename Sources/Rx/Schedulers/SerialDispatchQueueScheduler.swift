import Dispatch
import Foundation

/// A scheduler that runs work on a serial dispatch queue.
///
/// Whatever queue it is given, work runs on an internal serial queue (targeting that
/// queue when one is given), because operators rely on a scheduler never running two
/// actions at once. Disposing a scheduled action from the scheduler's own queue
/// guarantees it never runs afterwards.
///
/// ```swift
/// let scheduler = SerialDispatchQueueScheduler(qos: .userInitiated)
/// _ = scheduler.scheduleRelative((), dueTime: .milliseconds(100)) { _ in
///     print("later, off the main thread")
///     return Disposables.create()
/// }
/// ```
public class SerialDispatchQueueScheduler: SchedulerType, @unchecked Sendable {
    // Sendable: immutable (a queue and a leeway); `MainScheduler` adds only an atomic.

    /// A time interval in seconds, as in RxSwift; this package's schedulers take `RxTimeInterval`.
    public typealias TimeInterval = Foundation.TimeInterval
    /// An absolute time.
    public typealias Time = Date

    /// The current time.
    public var now: RxTime { Date() }

    let configuration: DispatchQueueConfiguration

    init(serialQueue: DispatchQueue, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        configuration = DispatchQueueConfiguration(queue: serialQueue, leeway: leeway)
    }

    /// A scheduler on a new serial queue named `internalSerialQueueName`.
    ///
    /// - Parameters:
    ///   - internalSerialQueueName: The label of the queue.
    ///   - serialQueueConfiguration: Called with the new queue before the scheduler uses it.
    ///   - leeway: How late timers may fire, for power efficiency.
    public convenience init(
        internalSerialQueueName: String, serialQueueConfiguration: ((DispatchQueue) -> Void)? = nil,
        leeway: DispatchTimeInterval = .nanoseconds(0)
    ) {
        let queue = DispatchQueue(label: internalSerialQueueName)
        serialQueueConfiguration?(queue)
        self.init(serialQueue: queue, leeway: leeway)
    }

    /// A scheduler on a new serial queue named `internalSerialQueueName` that targets
    /// `queue` (which may be concurrent).
    public convenience init(
        queue: DispatchQueue, internalSerialQueueName: String, leeway: DispatchTimeInterval = .nanoseconds(0)
    ) {
        let serialQueue = DispatchQueue(label: internalSerialQueueName, target: queue)
        self.init(serialQueue: serialQueue, leeway: leeway)
    }

    /// A scheduler on a new serial queue that targets the global queue of quality of
    /// service `qos`.
    public convenience init(
        qos: DispatchQoS, internalSerialQueueName: String = "rx.global_dispatch_queue.serial",
        leeway: DispatchTimeInterval = .nanoseconds(0)
    ) {
        self.init(
            queue: DispatchQueue.global(qos: qos.qosClass), internalSerialQueueName: internalSerialQueueName,
            leeway: leeway)
    }

    /// Schedules `action` to run on the queue as soon as possible.
    public final func schedule<StateType>(
        _ state: StateType, action: @escaping @Sendable (StateType) -> Disposable
    ) -> Disposable {
        scheduleInternal(state, action: action)
    }

    func scheduleInternal<StateType>(_ state: StateType, action: @escaping @Sendable (StateType) -> Disposable)
        -> Disposable
    {
        configuration.schedule(state, action: action)
    }

    /// Schedules `action` to run on the queue after `dueTime`.
    public final func scheduleRelative<StateType>(
        _ state: StateType, dueTime: RxTimeInterval, action: @escaping @Sendable (StateType) -> Disposable
    ) -> Disposable {
        configuration.scheduleRelative(state, dueTime: dueTime, action: action)
    }

    /// Schedules `action` to run on the queue after `startAfter`, then every `period`,
    /// with a repeating dispatch timer.
    public func schedulePeriodic<StateType>(
        _ state: StateType, startAfter: RxTimeInterval, period: RxTimeInterval,
        action: @escaping @Sendable (StateType) -> StateType
    ) -> Disposable {
        configuration.schedulePeriodic(state, startAfter: startAfter, period: period, action: action)
    }
}
