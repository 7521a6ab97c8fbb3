extension ObservableConvertibleType {
    /// This sequence as an `Infallible`: an error is replaced by `element`, then
    /// completion.
    public func asInfallible(onErrorJustReturn element: Element) -> Infallible<Element> {
        Infallible(Observable.traitCatchAndReturn(asObservable(), element))
    }

    /// This sequence as an `Infallible`: on error it continues with `infallible`.
    public func asInfallible(onErrorFallbackTo infallible: Infallible<Element>) -> Infallible<Element> {
        let fallback = infallible.source
        return Infallible(Observable.traitCatch(asObservable()) { _ in fallback })
    }

    /// This sequence as an `Infallible`: on error it continues with the sequence that
    /// `onErrorRecover` makes from the error.
    public func asInfallible(onErrorRecover: @escaping @Sendable (Swift.Error) -> Infallible<Element>)
        -> Infallible<Element>
    {
        Infallible(Observable.traitCatch(asObservable()) { onErrorRecover($0).source })
    }
}

extension Infallible {
    /// This sequence.
    public func asInfallible() -> Infallible<Element> { self }
}
