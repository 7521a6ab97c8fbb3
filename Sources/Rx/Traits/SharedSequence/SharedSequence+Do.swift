extension SharedSequenceConvertibleType {
    /// Runs side effects for the events and the lifetime of each subscription to the
    /// source, and passes every event through (see `Observable.do`). The source
    /// subscription is shared, so they run once however many observers there are.
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
        onNext: (@Sendable (Element) -> Void)? = nil,
        afterNext: (@Sendable (Element) -> Void)? = nil,
        onCompleted: (@Sendable () -> Void)? = nil,
        afterCompleted: (@Sendable () -> Void)? = nil,
        onSubscribe: (@Sendable () -> Void)? = nil,
        onSubscribed: (@Sendable () -> Void)? = nil,
        onDispose: (@Sendable () -> Void)? = nil
    ) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(
            asObservable().do(
                onNext: onNext, afterNext: afterNext, onCompleted: onCompleted, afterCompleted: afterCompleted,
                onSubscribe: onSubscribe, onSubscribed: onSubscribed, onDispose: onDispose))
    }

    /// Prints every event, subscription and disposal with `identifier` (by default the
    /// caller's file, line and function); see `Observable.debug`.
    public func debug(
        _ identifier: String? = nil, trimOutput: Bool = false, file: String = #file, line: UInt = #line,
        function: String = #function
    ) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(
            asObservable().debug(identifier, trimOutput: trimOutput, file: file, line: line, function: function))
    }
}
