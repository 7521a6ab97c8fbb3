extension InfallibleType where Element: DistinctUntilChangedEquatable {
    /// Only the elements that differ (by `==`) from the element before them.
    public func distinctUntilChanged() -> Infallible<Element> {
        Infallible(asObservable().distinctUntilChanged())
    }
}

extension InfallibleType {
    /// Only the elements whose key, computed by `keySelector`, differs from the key of the
    /// element before them.
    ///
    /// As in RxSwift, `keySelector` may throw: its error would end the sequence with that
    /// error, breaking the guarantee.
    public func distinctUntilChanged<Key: DistinctUntilChangedEquatable>(
        _ keySelector: @escaping @Sendable (Element) throws -> Key
    ) -> Infallible<Element> {
        Infallible(asObservable().distinctUntilChanged(keySelector))
    }

    /// Only the elements that `comparer` does not find equal to the element before them.
    ///
    /// As in RxSwift, `comparer` may throw: its error would end the sequence with that
    /// error, breaking the guarantee.
    public func distinctUntilChanged(_ comparer: @escaping @Sendable (Element, Element) throws -> Bool)
        -> Infallible<Element>
    {
        Infallible(asObservable().distinctUntilChanged(comparer))
    }

    /// Only the elements whose key, computed by `keySelector`, `comparer` does not find
    /// equal to the key of the element before them.
    ///
    /// As in RxSwift, both closures may throw: an error would end the sequence with that
    /// error, breaking the guarantee.
    public func distinctUntilChanged<Key>(
        _ keySelector: @escaping @Sendable (Element) throws -> Key,
        comparer: @escaping @Sendable (Key, Key) throws -> Bool
    ) -> Infallible<Element> {
        Infallible(asObservable().distinctUntilChanged(keySelector, comparer: comparer))
    }

    /// Only the elements whose value at `keyPath` differs (by `==`) from the value of the
    /// element before them.
    public func distinctUntilChanged<Property: DistinctUntilChangedEquatable>(
        at keyPath: KeyPath<Element, Property> & Sendable
    ) -> Infallible<Element> {
        Infallible(asObservable().distinctUntilChanged(at: keyPath))
    }
}
