extension SharedSequenceConvertibleType where Element: DistinctUntilChangedEquatable {
    /// Only the elements that differ (by `==`) from the element before them.
    public func distinctUntilChanged() -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().distinctUntilChanged())
    }
}

extension SharedSequenceConvertibleType {
    /// Only the elements whose key, computed by `keySelector`, differs from the key of the
    /// element before them.
    public func distinctUntilChanged<Key: DistinctUntilChangedEquatable>(
        _ keySelector: @escaping @Sendable (Element) -> Key
    ) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().distinctUntilChanged(keySelector))
    }

    /// Only the elements that `comparer` does not find equal to the element before them.
    public func distinctUntilChanged(_ comparer: @escaping @Sendable (Element, Element) -> Bool)
        -> SharedSequence<SharingStrategy, Element>
    {
        SharedSequence(asObservable().distinctUntilChanged(comparer))
    }

    /// Only the elements whose key, computed by `keySelector`, `comparer` does not find
    /// equal to the key of the element before them.
    public func distinctUntilChanged<Key>(
        _ keySelector: @escaping @Sendable (Element) -> Key,
        comparer: @escaping @Sendable (Key, Key) -> Bool
    ) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().distinctUntilChanged(keySelector, comparer: comparer))
    }

    /// Only the elements whose value at `keyPath` differs (by `==`) from the value of the
    /// element before them.
    public func distinctUntilChanged<Property: DistinctUntilChangedEquatable>(
        at keyPath: KeyPath<Element, Property> & Sendable
    ) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().distinctUntilChanged(at: keyPath))
    }
}
