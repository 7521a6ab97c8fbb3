extension InfallibleType {
    /// The elements of all `sources`, as they come; completes once every one has.
    ///
    /// Unlike RxSwift 6, whose collection overload concatenates, this merges like the
    /// other two overloads.
    public static func merge<Collection: Swift.Collection>(_ sources: Collection) -> Infallible<Element>
    where Collection.Element == Infallible<Element> {
        Infallible(Observable<Element>.merge(sources.map { $0.asObservable() }))
    }

    /// The elements of all `sources`, as they come; completes once every one has.
    public static func merge(_ sources: [Infallible<Element>]) -> Infallible<Element> {
        Infallible(Observable<Element>.merge(sources.map { $0.asObservable() }))
    }

    /// The elements of all `sources`, as they come; completes once every one has.
    public static func merge(_ sources: Infallible<Element>...) -> Infallible<Element> {
        Infallible(Observable<Element>.merge(sources.map { $0.asObservable() }))
    }
}
