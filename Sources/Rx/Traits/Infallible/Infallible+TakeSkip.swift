extension InfallibleType {
    /// The elements until `other` emits an element; then completion.
    public func take<Source: InfallibleType>(until other: Source) -> Infallible<Element> {
        Infallible(asObservable().take(until: other.asObservable()))
    }

    /// The elements until `other` emits an element; then completion.
    ///
    /// As in RxSwift, `other` may be any observable: its error would end this sequence
    /// with that error, breaking the guarantee.
    public func take<Source: ObservableType>(until other: Source) -> Infallible<Element> {
        Infallible(asObservable().take(until: other))
    }

    /// The elements until one satisfies `predicate` (included when `behavior` is
    /// `.inclusive`); then completion.
    ///
    /// As in RxSwift, `predicate` may throw: its error would end the sequence with that
    /// error, breaking the guarantee.
    public func take(
        until predicate: @escaping @Sendable (Element) throws -> Bool, behavior: TakeBehavior = .exclusive
    ) -> Infallible<Element> {
        Infallible(asObservable().take(until: predicate, behavior: behavior))
    }

    /// The elements while they satisfy `predicate` (the first that does not is included
    /// when `behavior` is `.inclusive`); then completion.
    ///
    /// As in RxSwift, `predicate` may throw: its error would end the sequence with that
    /// error, breaking the guarantee.
    public func take(
        while predicate: @escaping @Sendable (Element) throws -> Bool, behavior: TakeBehavior = .exclusive
    ) -> Infallible<Element> {
        Infallible(asObservable().take(while: predicate, behavior: behavior))
    }

    /// The first `count` elements; then completion.
    ///
    /// A negative count is a programming error: RxSwift stops the program, an `Observable`
    /// fails with `RxError.argumentOutOfRange`, and since an `Infallible` cannot fail, this
    /// completes at once, as for a count of zero.
    public func take(_ count: Int) -> Infallible<Element> {
        Infallible(asObservable().take(Swift.max(count, 0)))
    }

    /// The elements emitted during `duration` after subscription; then completion.
    public func take(for duration: RxTimeInterval, scheduler: SchedulerType) -> Infallible<Element> {
        Infallible(asObservable().take(for: duration, scheduler: scheduler))
    }

    /// The elements from the first one that does not satisfy `predicate` on.
    ///
    /// As in RxSwift, `predicate` may throw: its error would end the sequence with that
    /// error, breaking the guarantee.
    public func skip(while predicate: @escaping @Sendable (Element) throws -> Bool) -> Infallible<Element> {
        Infallible(asObservable().skip(while: predicate))
    }

    /// The elements emitted after `other` emitted its first element.
    ///
    /// As in RxSwift, `other` may be any observable: its error would end this sequence
    /// with that error, breaking the guarantee.
    public func skip<Source: ObservableType>(until other: Source) -> Infallible<Element> {
        Infallible(asObservable().skip(until: other))
    }
}
