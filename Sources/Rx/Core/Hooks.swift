/// Global hooks into `Rx` behaviour.
public enum Hooks {
    /// Handles an error that reached a subscription without an `onError` handler.
    public typealias DefaultErrorHandler = @Sendable (_ subscriptionCallStack: [String], _ error: Swift.Error) -> Void

    private static let state = LockedState<DefaultErrorHandler>({ _, error in
        print("Unhandled error happened: \(error)")
    })

    /// Called with any error that a `subscribe` without `onError` receives. By default it
    /// prints the error; tests and apps may route it elsewhere.
    public static var defaultErrorHandler: DefaultErrorHandler {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}
