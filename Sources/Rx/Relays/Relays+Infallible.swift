// A relay can neither fail nor complete, so each one is an `Infallible` as it is.

extension PublishRelay {
    /// The relay as an `Infallible`: the elements accepted from subscription on.
    public func asInfallible() -> Infallible<Element> {
        Infallible(asObservable())
    }
}

extension BehaviorRelay {
    /// The relay as an `Infallible`: the current value, then every accepted one.
    public func asInfallible() -> Infallible<Element> {
        Infallible(asObservable())
    }
}

extension ReplayRelay {
    /// The relay as an `Infallible`: the buffered elements, then every accepted one.
    public func asInfallible() -> Infallible<Element> {
        Infallible(asObservable())
    }
}
