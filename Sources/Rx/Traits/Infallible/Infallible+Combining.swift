extension InfallibleType {
    /// `element`, then the elements of this sequence.
    public func startWith(_ element: Element) -> Infallible<Element> {
        Infallible(asObservable().startWith(element))
    }

    /// Each element combined by `resultSelector` with the latest element of `second`;
    /// elements that come before `second` has emitted are dropped.
    ///
    /// As in RxSwift, `resultSelector` may throw: its error would end the sequence with
    /// that error, breaking the guarantee.
    public func withLatestFrom<Source: InfallibleType, ResultType>(
        _ second: Source, resultSelector: @escaping @Sendable (Element, Source.Element) throws -> ResultType
    ) -> Infallible<ResultType> {
        Infallible(asObservable().withLatestFrom(second, resultSelector: resultSelector))
    }

    /// The latest element of `second` at each element of this sequence; elements that come
    /// before `second` has emitted are dropped.
    public func withLatestFrom<Source: InfallibleType>(_ second: Source) -> Infallible<Source.Element> {
        Infallible(asObservable().withLatestFrom(second))
    }

    /// Each element combined by `resultSelector` with `obj`, which is not retained; once
    /// `obj` is gone, the sequence completes.
    public func withUnretained<Object: AnyObject, Out>(
        _ obj: Object, resultSelector: @escaping @Sendable (Object, Element) -> Out
    ) -> Infallible<Out> {
        Infallible(asObservable().withUnretained(obj, resultSelector: resultSelector))
    }

    /// Each element paired with `obj`, which is not retained; once `obj` is gone, the
    /// sequence completes.
    public func withUnretained<Object: AnyObject>(_ obj: Object) -> Infallible<(Object, Element)> {
        Infallible(asObservable().withUnretained(obj))
    }
}
