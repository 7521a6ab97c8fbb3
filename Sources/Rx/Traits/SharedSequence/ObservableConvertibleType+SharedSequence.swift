extension ObservableConvertibleType {
    /// This sequence as a shared sequence of `sharingStrategy`: delivered on the
    /// strategy's scheduler; an error is replaced by `onErrorJustReturn`, then completion.
    public func asSharedSequence<Strategy: SharingStrategyProtocol>(
        sharingStrategy: Strategy.Type = Strategy.self, onErrorJustReturn: Element
    ) -> SharedSequence<Strategy, Element> {
        SharedSequence(asObservable().observe(on: Strategy.scheduler).catchAndReturn(onErrorJustReturn))
    }

    /// This sequence as a shared sequence of `sharingStrategy`: delivered on the
    /// strategy's scheduler; on error it continues with `onErrorDriveWith`.
    public func asSharedSequence<Strategy: SharingStrategyProtocol>(
        sharingStrategy: Strategy.Type = Strategy.self, onErrorDriveWith: SharedSequence<Strategy, Element>
    ) -> SharedSequence<Strategy, Element> {
        let fallback = onErrorDriveWith.asObservable()
        return SharedSequence(asObservable().observe(on: Strategy.scheduler).catch { _ in fallback })
    }

    /// This sequence as a shared sequence of `sharingStrategy`: delivered on the
    /// strategy's scheduler; on error it continues with the sequence that
    /// `onErrorRecover` makes from the error.
    public func asSharedSequence<Strategy: SharingStrategyProtocol>(
        sharingStrategy: Strategy.Type = Strategy.self,
        onErrorRecover: @escaping @Sendable (_ error: Swift.Error) -> SharedSequence<Strategy, Element>
    ) -> SharedSequence<Strategy, Element> {
        SharedSequence(asObservable().observe(on: Strategy.scheduler).catch { onErrorRecover($0).asObservable() })
    }
}
