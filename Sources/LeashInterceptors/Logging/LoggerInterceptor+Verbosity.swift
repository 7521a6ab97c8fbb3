extension LoggerInterceptor {
    /// How much a `LoggerInterceptor` writes about each attempt; each level adds to the
    /// one before.
    public enum Verbosity: Int, Comparable, Sendable, CaseIterable {
        /// One line for the request (`👉👉👉 GET <url>`) and one per outcome, with its
        /// status and how long the attempt took (`✔✔✔ GET <url> → 200 in 12 ms`).
        case basic
        /// Also the request's and the response's headers, one per line, secrets hidden.
        case headers
        /// Also the first bytes of the request's and the response's bodies.
        case bodies

        /// Orders the levels from the least to the most detailed.
        public static func < (lhs: Verbosity, rhs: Verbosity) -> Bool { lhs.rawValue < rhs.rawValue }
    }
}
