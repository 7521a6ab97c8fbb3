extension InfallibleType {
    /// The elements of this sequence, then, once it completed, those of `second`.
    ///
    /// As in RxSwift, `second` may be any observable: an error from it would break the
    /// guarantee, so it should be a sequence that cannot fail.
    public func concat<Source: ObservableConvertibleType>(_ second: Source) -> Infallible<Element>
    where Source.Element == Element {
        Infallible(asObservable().concat(second))
    }

    /// The elements of each sequence of `sequence` in turn, each one subscribed once the
    /// one before completed.
    ///
    /// As in RxSwift, `sequence` is read in full when this is called.
    public static func concat<Sequence: Swift.Sequence>(_ sequence: Sequence) -> Infallible<Element>
    where Sequence.Element == Infallible<Element> {
        Infallible(Observable<Element>.concat(sequence.map { $0.asObservable() }))
    }

    /// The elements of each sequence of `collection` in turn, each one subscribed once the
    /// one before completed.
    public static func concat<Collection: Swift.Collection>(_ collection: Collection) -> Infallible<Element>
    where Collection.Element == Infallible<Element> {
        Infallible(Observable<Element>.concat(collection.map { $0.asObservable() }))
    }

    /// The elements of each of `sources` in turn, each one subscribed once the one before
    /// completed.
    public static func concat(_ sources: Infallible<Element>...) -> Infallible<Element> {
        Infallible(Observable<Element>.concat(sources.map { $0.asObservable() }))
    }

    /// The elements of the sequences that `selector` makes from the elements, one inner
    /// sequence at a time: the next one is subscribed once the one before completed.
    ///
    /// As in RxSwift, `selector` may return any observable: an error from it would break
    /// the guarantee, so it should return sequences that cannot fail.
    public func concatMap<Source: ObservableConvertibleType>(_ selector: @escaping @Sendable (Element) -> Source)
        -> Infallible<Source.Element>
    {
        Infallible(asObservable().concatMap(selector))
    }
}
