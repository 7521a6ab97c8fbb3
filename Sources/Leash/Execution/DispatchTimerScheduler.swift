import Dispatch
import Foundation
import Rx

/// The scheduler Leash's timers run on by default: a concurrent background queue.
///
/// Leash keeps its own instead of depending on one of `Rx`'s dispatch schedulers so that
/// the default holds however those evolve; any `SchedulerType` can replace it through
/// `Manager.Builder.scheduler(_:)`.
///
/// Each timer is a `DispatchSourceTimer`, so that disposing one (every execution that
/// ends before its timeout does) frees its action at once instead of keeping it until
/// the deadline, as `asyncAfter` would: a minute-long timeout must not keep a finished
/// execution alive for a minute.
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
        let result = SerialDisposable()
        let box = TimerState(state)
        let timer = TimerSource(DispatchSource.makeTimerSource(queue: queue))
        timer.source.setEventHandler {
            // One shot: cancelling releases this handler (and what it holds).
            timer.source.cancel()
            guard !result.isDisposed else { return }
            result.disposable = action(box.value)
        }
        timer.source.schedule(deadline: .now() + dueTime)
        timer.source.resume()
        return Disposables.create {
            timer.source.cancel()
            result.dispose()
        }
    }
}

/// Hands the state to the action exactly once, on the timer's thread.
private struct TimerState<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A timer source; `cancel()` is thread-safe and idempotent.
private struct TimerSource: @unchecked Sendable {
    let source: DispatchSourceTimer
    init(_ source: DispatchSourceTimer) { self.source = source }
}
