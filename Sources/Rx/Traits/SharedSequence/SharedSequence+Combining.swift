extension SharedSequenceConvertibleType {
    /// `element`, then the elements of this sequence.
    public func startWith(_ element: Element) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().startWith(element))
    }

    /// Each intermediate result of `accumulator`, starting from `seed`.
    public func scan<Seed>(_ seed: Seed, accumulator: @escaping @Sendable (Seed, Element) -> Seed)
        -> SharedSequence<SharingStrategy, Seed>
    {
        SharedSequence(asObservable().scan(seed, accumulator: accumulator))
    }

    /// The elements after the first `count`.
    public func skip(_ count: Int) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().skip(count))
    }

    /// Each element combined by `resultSelector` with the latest element of `second`;
    /// elements that come before `second` has emitted are dropped.
    public func withLatestFrom<Second: SharedSequenceConvertibleType, ResultType>(
        _ second: Second, resultSelector: @escaping @Sendable (Element, Second.Element) -> ResultType
    ) -> SharedSequence<SharingStrategy, ResultType> where Second.SharingStrategy == SharingStrategy {
        SharedSequence(asObservable().withLatestFrom(second.asObservable(), resultSelector: resultSelector))
    }

    /// The latest element of `second` at each element of this sequence; elements that
    /// come before `second` has emitted are dropped.
    public func withLatestFrom<Second: SharedSequenceConvertibleType>(_ second: Second)
        -> SharedSequence<SharingStrategy, Second.Element>
    {
        SharedSequence(asObservable().withLatestFrom(second.asObservable()))
    }

    /// Each element combined by `resultSelector` with `obj`, which is not retained; once
    /// `obj` is gone, the sequence completes.
    public func withUnretained<Object: AnyObject, Out>(
        _ obj: Object, resultSelector: @escaping @Sendable (Object, Element) -> Out
    ) -> SharedSequence<SharingStrategy, Out> {
        SharedSequence(asObservable().withUnretained(obj, resultSelector: resultSelector))
    }

    /// Each element paired with `obj`, which is not retained; once `obj` is gone, the
    /// sequence completes.
    public func withUnretained<Object: AnyObject>(_ obj: Object) -> SharedSequence<SharingStrategy, (Object, Element)> {
        SharedSequence(asObservable().withUnretained(obj))
    }
}
