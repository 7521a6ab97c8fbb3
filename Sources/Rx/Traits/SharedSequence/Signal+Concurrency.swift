extension SharedSequence where SharingStrategy == SignalSharingStrategy {
    /// A Signal of the value `work` returns, from a new task started by each subscription
    /// to the source (shared as a Signal shares); an error is replaced by
    /// `onErrorJustReturn`, then completion.
    public static func from(
        _ work: @escaping @Sendable () async throws -> Element, onErrorJustReturn: Element
    ) -> Signal<Element> {
        Single.from(work).asSignal(onErrorJustReturn: onErrorJustReturn)
    }

    /// A Signal of the value `work` returns; on error it continues with
    /// `onErrorSignalWith`.
    public static func from(
        _ work: @escaping @Sendable () async throws -> Element, onErrorSignalWith: Signal<Element>
    ) -> Signal<Element> {
        Single.from(work).asSignal(onErrorSignalWith: onErrorSignalWith)
    }

    /// A Signal of the value `work` returns; on error it continues with the Signal that
    /// `onErrorRecover` makes from the error.
    public static func from(
        _ work: @escaping @Sendable () async throws -> Element,
        onErrorRecover: @escaping @Sendable (_ error: Swift.Error) -> Signal<Element>
    ) -> Signal<Element> {
        Single.from(work).asSignal(onErrorRecover: onErrorRecover)
    }
}
