extension PrimitiveSequence {
    /// Prints the subscription, the outcome and the disposal of each subscription, as
    /// `ObservableType.debug` does, and passes the outcome through: still a `Single`,
    /// `Maybe` or `Completable`.
    ///
    /// A `Single`'s success prints as `Event next(…)` then `Event completed`: the lines
    /// show the events underneath the trait.
    ///
    /// - Parameters:
    ///   - identifier: The name in each line; by default `File.swift:line (function)` of the
    ///     call site.
    ///   - trimOutput: Whether to shorten event descriptions longer than 40 characters to
    ///     their first and last 20.
    ///   - file: The call site's file, for the default identifier; leave it to the compiler.
    ///   - line: The call site's line, for the default identifier; leave it to the compiler.
    ///   - function: The call site's function, for the default identifier; leave it to the
    ///     compiler.
    /// - Returns: The source, logged.
    public func debug(
        _ identifier: String? = nil, trimOutput: Bool = false, file: String = #file, line: UInt = #line,
        function: String = #function
    ) -> PrimitiveSequence<Trait, Element> {
        debug(
            identifier: debugLogIdentifier(identifier, file: file, line: line, function: function),
            trimOutput: trimOutput
        ) { print($0) }
    }

    /// `debug`, writing its lines to `log` (tests read them from there).
    func debug(identifier: String, trimOutput: Bool, log: @escaping @Sendable (String) -> Void)
        -> PrimitiveSequence<Trait, Element>
    {
        // `debug` forwards every event unchanged, so the trait's grammar still holds.
        PrimitiveSequence(raw: source.debug(identifier: identifier, trimOutput: trimOutput, log: log))
    }
}

extension InfallibleType {
    /// Prints the subscription, every event and the disposal of each subscription, as
    /// `ObservableType.debug` does, and passes every event through: still an `Infallible`.
    ///
    /// - Parameters:
    ///   - identifier: The name in each line; by default `File.swift:line (function)` of the
    ///     call site.
    ///   - trimOutput: Whether to shorten event descriptions longer than 40 characters to
    ///     their first and last 20.
    ///   - file: The call site's file, for the default identifier; leave it to the compiler.
    ///   - line: The call site's line, for the default identifier; leave it to the compiler.
    ///   - function: The call site's function, for the default identifier; leave it to the
    ///     compiler.
    /// - Returns: The source, logged.
    public func debug(
        _ identifier: String? = nil, trimOutput: Bool = false, file: String = #file, line: UInt = #line,
        function: String = #function
    ) -> Infallible<Element> {
        debug(
            identifier: debugLogIdentifier(identifier, file: file, line: line, function: function),
            trimOutput: trimOutput
        ) { print($0) }
    }

    /// `debug`, writing its lines to `log` (tests read them from there).
    func debug(identifier: String, trimOutput: Bool, log: @escaping @Sendable (String) -> Void)
        -> Infallible<Element>
    {
        // `debug` adds no error, so the result still never fails.
        Infallible(asObservable().debug(identifier: identifier, trimOutput: trimOutput, log: log))
    }
}
