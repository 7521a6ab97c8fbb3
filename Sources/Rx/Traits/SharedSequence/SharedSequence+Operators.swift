extension SharedSequenceConvertibleType {
    /// Transforms each element with `transform`.
    public func map<Result>(_ transform: @escaping @Sendable (Element) -> Result)
        -> SharedSequence<SharingStrategy, Result>
    {
        SharedSequence(asObservable().map(transform))
    }

    /// The elements transformed by `transform`, without the `nil` results.
    public func compactMap<Result>(_ transform: @escaping @Sendable (Element) -> Result?)
        -> SharedSequence<SharingStrategy, Result>
    {
        SharedSequence(asObservable().compactMap(transform))
    }

    /// Only the elements for which `predicate` is true.
    public func filter(_ predicate: @escaping @Sendable (Element) -> Bool) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().filter(predicate))
    }

    /// The elements of every shared sequence that `selector` makes from the elements,
    /// merged as they come; completes once this sequence and every inner one completed.
    public func flatMap<Sharing, Result>(_ selector: @escaping @Sendable (Element) -> SharedSequence<Sharing, Result>)
        -> SharedSequence<Sharing, Result>
    {
        SharedSequence(asObservable().flatMap(selector))
    }

    /// The elements of the shared sequence that `selector` made from the latest element:
    /// each new element disposes the previous inner sequence.
    public func flatMapLatest<Sharing, Result>(
        _ selector: @escaping @Sendable (Element) -> SharedSequence<Sharing, Result>
    ) -> SharedSequence<Sharing, Result> {
        SharedSequence(asObservable().flatMapLatest(selector))
    }

    /// The elements of the shared sequence that `selector` made from an element that
    /// arrived while no inner sequence was running; elements that arrive while one runs
    /// are dropped.
    public func flatMapFirst<Sharing, Result>(
        _ selector: @escaping @Sendable (Element) -> SharedSequence<Sharing, Result>
    ) -> SharedSequence<Sharing, Result> {
        SharedSequence(asObservable().flatMapFirst(selector))
    }
}

extension SharedSequenceConvertibleType where Element: SharedSequenceConvertibleType & SendableMetatype {
    /// The elements of the latest inner shared sequence: each new one disposes the one
    /// before it.
    public func switchLatest() -> SharedSequence<Element.SharingStrategy, Element.Element> {
        SharedSequence(asObservable().switchLatest())
    }

    /// The elements of every inner shared sequence, merged as they come.
    public func merge() -> SharedSequence<Element.SharingStrategy, Element.Element> {
        SharedSequence(asObservable().merge())
    }

    /// The elements of the inner shared sequences, merged as they come, with at most
    /// `maxConcurrent` of them subscribed at a time (the others wait their turn).
    public func merge(maxConcurrent: Int) -> SharedSequence<Element.SharingStrategy, Element.Element> {
        SharedSequence(asObservable().merge(maxConcurrent: maxConcurrent))
    }
}
