import Dispatch
import Foundation
import Rx

/// The scheduler Leash's timers run on by default: a concurrent background queue.
///
/// Leash keeps its own instead of depending on one of `Rx`'s dispatch schedulers so that
/// the default holds however those evolve; any `SchedulerType` can replace it through
/// `Manager.Builder.scheduler(_:)`.
final class DispatchTimerScheduler: SchedulerType, @unchecked Sendable {
    // @unchecked: immutable; DispatchQueue is thread-safe.
    static let shared = DispatchTimerScheduler()

    private let queue = DispatchQueue(label: "leash.timers", attributes: .concurrent)

    var now: RxTime { Date() }

    func schedule<StateType>(_ state: StateType, action: @escaping @Sendable (StateType) -> Disposable) -> Disposable {
        scheduleRelative(state, dueTime: .nanoseconds(0), action: action)
    }

    func scheduleRelative<StateType>(
        _ state: StateType, dueTime: RxTimeInterval, action: @escaping @Sendable (StateType) -> Disposable
    ) -> Disposable {
        let cancelled = BooleanDisposable()
        let result = SerialDisposable()
        let box = TimerState(state)
        queue.asyncAfter(deadline: .now() + dueTime) {
            guard !cancelled.isDisposed else { return }
            result.disposable = action(box.value)
        }
        return Disposables.create(cancelled, result)
    }
}

/// Hands the state to the action exactly once, on the timer's thread.
private struct TimerState<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
