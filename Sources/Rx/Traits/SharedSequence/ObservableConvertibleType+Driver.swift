extension ObservableConvertibleType {
    /// This sequence as a `Driver`: delivered on `SharingScheduler.make()`; an error is
    /// replaced by `onErrorJustReturn`, then completion.
    public func asDriver(onErrorJustReturn: Element) -> Driver<Element> {
        asSharedSequence(sharingStrategy: DriverSharingStrategy.self, onErrorJustReturn: onErrorJustReturn)
    }

    /// This sequence as a `Driver`: delivered on `SharingScheduler.make()`; on error it
    /// continues with `onErrorDriveWith`.
    public func asDriver(onErrorDriveWith: Driver<Element>) -> Driver<Element> {
        asSharedSequence(sharingStrategy: DriverSharingStrategy.self, onErrorDriveWith: onErrorDriveWith)
    }

    /// This sequence as a `Driver`: delivered on `SharingScheduler.make()`; on error it
    /// continues with the `Driver` that `onErrorRecover` makes from the error.
    public func asDriver(onErrorRecover: @escaping @Sendable (_ error: Swift.Error) -> Driver<Element>)
        -> Driver<Element>
    {
        asSharedSequence(sharingStrategy: DriverSharingStrategy.self, onErrorRecover: onErrorRecover)
    }
}
