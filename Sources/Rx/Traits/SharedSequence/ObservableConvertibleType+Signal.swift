extension ObservableConvertibleType {
    /// This sequence as a `Signal`: delivered on `SharingScheduler.make()`; an error is
    /// replaced by `onErrorJustReturn`, then completion.
    public func asSignal(onErrorJustReturn: Element) -> Signal<Element> {
        asSharedSequence(sharingStrategy: SignalSharingStrategy.self, onErrorJustReturn: onErrorJustReturn)
    }

    /// This sequence as a `Signal`: delivered on `SharingScheduler.make()`; on error it
    /// continues with `onErrorSignalWith`.
    public func asSignal(onErrorSignalWith: Signal<Element>) -> Signal<Element> {
        asSharedSequence(sharingStrategy: SignalSharingStrategy.self, onErrorDriveWith: onErrorSignalWith)
    }

    /// This sequence as a `Signal`: delivered on `SharingScheduler.make()`; on error it
    /// continues with the `Signal` that `onErrorRecover` makes from the error.
    public func asSignal(onErrorRecover: @escaping @Sendable (_ error: Swift.Error) -> Signal<Element>)
        -> Signal<Element>
    {
        asSharedSequence(sharingStrategy: SignalSharingStrategy.self, onErrorRecover: onErrorRecover)
    }
}
