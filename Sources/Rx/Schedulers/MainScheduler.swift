import Dispatch
import Foundation

/// A scheduler for work that must happen on the main thread (UI).
///
/// `MainScheduler.instance` runs an action at once when called on the main thread with
/// nothing of its own already queued (so order is kept), otherwise queues it on
/// `DispatchQueue.main`. `MainScheduler.asyncInstance` always queues.
///
/// The main queue runs only while something serves it: an app's event loop, or the main
/// run loop (`RunLoop.main.run()`). `dispatchMain()` serves it too, but on Linux from other
/// threads than the main one, where a `Driver`'s `drive` reports that it ran off it.
public final class MainScheduler: SerialDispatchQueueScheduler, @unchecked Sendable {
    // Sendable: adds only an atomic counter to its immutable base.

    /// The number of actions queued on the main queue and not finished yet.
    private let numberEnqueued = AtomicInt(0)

    /// A scheduler on the main queue; prefer `MainScheduler.instance`.
    public init() {
        super.init(serialQueue: DispatchQueue.main)
    }

    /// The shared main-thread scheduler: runs at once when already on the main thread.
    public static let instance = MainScheduler()

    /// A main-queue scheduler that always queues, even when called on the main thread.
    public static let asyncInstance = SerialDispatchQueueScheduler(serialQueue: DispatchQueue.main)

    /// Whether the caller runs on the main thread.
    ///
    /// RxSwift stops the program when this fails; here it only reports: it returns
    /// `false` and prints `errorMessage` (or a default message), so that a misplaced call
    /// never crashes an app.
    @discardableResult
    public static func ensureExecutingOnScheduler(errorMessage: String? = nil) -> Bool {
        guard Thread.isMainThread else {
            print(errorMessage ?? "Rx: expected to run on MainScheduler (the main thread), but ran off it.")
            return false
        }
        return true
    }

    /// Whether the caller runs on the main thread; prints `errorMessage` (or a default
    /// message) and returns `false` when not. Never stops the program.
    @discardableResult
    public static func ensureRunningOnMainThread(errorMessage: String? = nil) -> Bool {
        guard Thread.isMainThread else {
            print(errorMessage ?? "Rx: expected to run on the main thread, but ran off it.")
            return false
        }
        return true
    }

    override func scheduleInternal<StateType>(
        _ state: StateType, action: @escaping @Sendable (StateType) -> Disposable
    ) -> Disposable {
        let previouslyEnqueued = numberEnqueued.add(1) - 1
        if previouslyEnqueued == 0 && Thread.isMainThread {
            // Nothing of ours is waiting on the main queue, so running now keeps the order.
            let disposable = action(state)
            _ = numberEnqueued.add(-1)
            return disposable
        }
        let scheduled = DispatchScheduledAction(state: state, action: action)
        DispatchQueue.main.async {
            scheduled.run()
            _ = self.numberEnqueued.add(-1)
        }
        return scheduled
    }
}
