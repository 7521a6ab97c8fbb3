extension InfallibleType {
    /// One subscription to this sequence shared by every observer, replaying the last
    /// `replay` elements to each new one (see `Observable.share(replay:scope:)`).
    public func share(replay: Int = 0, scope: SubjectLifetimeScope = .whileConnected) -> Infallible<Element> {
        Infallible(asObservable().share(replay: replay, scope: scope))
    }
}
