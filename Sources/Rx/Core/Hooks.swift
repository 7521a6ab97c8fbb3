import Foundation

/// Global hooks into `Rx` behaviour.
public enum Hooks {
    /// Handles an error that reached a subscription without an `onError` handler.
    public typealias DefaultErrorHandler = @Sendable (_ subscriptionCallStack: [String], _ error: Swift.Error) -> Void

    /// Captures the call stack of a subscription, for `recordCallStackOnError`.
    public typealias CustomCaptureSubscriptionCallstack = @Sendable () -> [String]

    /// The handlers, read and replaced as one value under one lock.
    private struct Handlers {
        var defaultErrorHandler: DefaultErrorHandler
        var customCaptureSubscriptionCallstack: CustomCaptureSubscriptionCallstack
    }

    private static let state = LockedState(
        Handlers(
            defaultErrorHandler: { subscriptionCallStack, error in
                print("Unhandled error happened: \(error)")
                if !subscriptionCallStack.isEmpty {
                    print("subscription called from:\n\(subscriptionCallStack.joined(separator: "\n"))")
                }
            },
            customCaptureSubscriptionCallstack: { Thread.callStackSymbols }))

    /// Whether call stacks are recorded: 0 or 1. An atomic rather than a field of `state`,
    /// so that a `subscribe` without an error handler pays one load when recording is off.
    @usableFromInline static let recordsCallStack = AtomicInt(0)

    /// Called with any error that a `subscribe` without `onError` receives, and the call
    /// stack of that `subscribe` when `recordCallStackOnError` is on (otherwise `[]`). By
    /// default it prints both; tests and apps may route them elsewhere.
    public static var defaultErrorHandler: DefaultErrorHandler {
        get { state.withLock { $0.defaultErrorHandler } }
        set { state.withLock { $0.defaultErrorHandler = newValue } }
    }

    /// Whether a `subscribe` without an error handler (`onError`, or `onFailure` for a
    /// `Single`) captures its call stack, with `customCaptureSubscriptionCallstack`, to hand
    /// to `defaultErrorHandler` if an error arrives. Off by default: capturing symbols is
    /// slow, so turn it on while hunting for the origin of an unhandled error.
    public static var recordCallStackOnError: Bool {
        @inlinable get { recordsCallStack.load() != 0 }
        set { recordsCallStack.store(newValue ? 1 : 0) }
    }

    /// How a subscription captures its call stack when `recordCallStackOnError` is on; by
    /// default `Thread.callStackSymbols`. Runs on the subscribing thread, during `subscribe`.
    public static var customCaptureSubscriptionCallstack: CustomCaptureSubscriptionCallstack {
        get { state.withLock { $0.customCaptureSubscriptionCallstack } }
        set { state.withLock { $0.customCaptureSubscriptionCallstack = newValue } }
    }
}

extension Hooks {
    /// The error handler a subscription made now uses: `handler` if there is one; else,
    /// when call stacks are recorded, one that passes the stack captured now (during
    /// `subscribe`) to `defaultErrorHandler`; else `nil`, and the sink reports to
    /// `defaultErrorHandler` with an empty stack. A subscription with a handler reads no
    /// flag; one without reads one atomic flag while recording is off.
    @inlinable
    static func subscriptionErrorHandler(_ handler: ((Swift.Error) -> Void)?) -> ((Swift.Error) -> Void)? {
        if let handler { return handler }
        guard recordCallStackOnError else { return nil }
        return errorHandlerWithSubscriptionCallStack()
    }

    /// A handler that reports to `defaultErrorHandler`, read when the error arrives, with
    /// the call stack captured now.
    @usableFromInline
    static func errorHandlerWithSubscriptionCallStack() -> (Swift.Error) -> Void {
        let callStack = customCaptureSubscriptionCallstack()
        return { error in defaultErrorHandler(callStack, error) }
    }
}
