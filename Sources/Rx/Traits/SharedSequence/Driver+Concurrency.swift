extension SharedSequence where SharingStrategy == DriverSharingStrategy {
    /// A Driver of the value `work` returns, from a new task started by each subscription
    /// to the source (shared as a Driver shares); an error is replaced by
    /// `onErrorJustReturn`, then completion.
    ///
    /// ```swift
    /// let avatar = Driver.from({ try await loader.image(at: url) }, onErrorJustReturn: placeholder)
    /// ```
    public static func from(
        _ work: @escaping @Sendable () async throws -> Element, onErrorJustReturn: Element
    ) -> Driver<Element> {
        Single.from(work).asDriver(onErrorJustReturn: onErrorJustReturn)
    }

    /// A Driver of the value `work` returns; on error it continues with `onErrorDriveWith`.
    public static func from(
        _ work: @escaping @Sendable () async throws -> Element, onErrorDriveWith: Driver<Element>
    ) -> Driver<Element> {
        Single.from(work).asDriver(onErrorDriveWith: onErrorDriveWith)
    }

    /// A Driver of the value `work` returns; on error it continues with the Driver that
    /// `onErrorRecover` makes from the error.
    public static func from(
        _ work: @escaping @Sendable () async throws -> Element,
        onErrorRecover: @escaping @Sendable (_ error: Swift.Error) -> Driver<Element>
    ) -> Driver<Element> {
        Single.from(work).asDriver(onErrorRecover: onErrorRecover)
    }
}
