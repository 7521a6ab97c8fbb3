extension InfallibleType {
    /// Combines the latest elements of every sequence of `collection` with
    /// `resultSelector` whenever any of them emits, once each has emitted at least once
    /// (see `Observable.combineLatest(_:resultSelector:)`; an empty collection gives
    /// `resultSelector([])`, then completion).
    ///
    /// As in RxSwift, `resultSelector` may throw: its error would end the sequence with
    /// that error, breaking the guarantee.
    public static func combineLatest<Collection: Swift.Collection>(
        _ collection: Collection,
        resultSelector: @escaping @Sendable ([Collection.Element.Element]) throws -> Element
    ) -> Infallible<Element> where Collection.Element: InfallibleType {
        Infallible(
            Observable<Element>.combineLatest(collection.map { $0.asObservable() }, resultSelector: resultSelector))
    }

    /// The latest elements of every sequence of `collection`, in order, whenever any of
    /// them emits, once each has emitted at least once.
    public static func combineLatest<Collection: Swift.Collection>(_ collection: Collection) -> Infallible<[Element]>
    where Collection.Element: InfallibleType, Collection.Element.Element == Element {
        Infallible<[Element]>.combineLatest(collection, resultSelector: { $0 })
    }
}
