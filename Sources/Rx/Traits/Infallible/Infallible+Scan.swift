extension InfallibleType {
    /// Every intermediate result of folding the elements into `seed` with `accumulator`,
    /// which updates the running value in place.
    ///
    /// Each subscription starts again from `seed`.
    public func scan<Seed>(into seed: Seed, accumulator: @escaping @Sendable (inout Seed, Element) -> Void)
        -> Infallible<Seed>
    {
        Infallible(asObservable().scan(into: seed, accumulator: accumulator))
    }

    /// Every intermediate result of folding the elements into `seed` with `accumulator`,
    /// which returns the next running value.
    ///
    /// Each subscription starts again from `seed`.
    public func scan<Seed>(_ seed: Seed, accumulator: @escaping @Sendable (Seed, Element) -> Seed)
        -> Infallible<Seed>
    {
        Infallible(asObservable().scan(seed, accumulator: accumulator))
    }
}
