extension Infallible {
    /// Runs side effects for the events and the lifetime of each subscription, and passes
    /// every event through (see `Observable.do`).
    ///
    /// As in RxSwift, the event handlers may throw: an error would end the sequence with
    /// that error, breaking the guarantee.
    ///
    /// - Parameters:
    ///   - onNext: Runs for each element, before it goes downstream.
    ///   - afterNext: Runs for each element, after it went downstream.
    ///   - onCompleted: Runs on completion, before it goes downstream.
    ///   - afterCompleted: Runs on completion, after it went downstream.
    ///   - onSubscribe: Runs before subscribing to the source.
    ///   - onSubscribed: Runs after subscribing to the source.
    ///   - onDispose: Runs after the source subscription was disposed, for any reason.
    public func `do`(
        onNext: (@Sendable (Element) throws -> Void)? = nil,
        afterNext: (@Sendable (Element) throws -> Void)? = nil,
        onCompleted: (@Sendable () throws -> Void)? = nil,
        afterCompleted: (@Sendable () throws -> Void)? = nil,
        onSubscribe: (@Sendable () -> Void)? = nil,
        onSubscribed: (@Sendable () -> Void)? = nil,
        onDispose: (@Sendable () -> Void)? = nil
    ) -> Infallible<Element> {
        Infallible(
            asObservable().do(
                onNext: onNext, afterNext: afterNext, onCompleted: onCompleted, afterCompleted: afterCompleted,
                onSubscribe: onSubscribe, onSubscribed: onSubscribed, onDispose: onDispose))
    }
}
