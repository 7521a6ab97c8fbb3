extension Swift.Error {
    /// This error as a `LeashError`, or `nil` if it is another error (an interceptor's
    /// own, say, which reaches the caller unchanged).
    ///
    /// A `catch` block's `error` is `any Error`: this reads Leash's details off it without
    /// a cast.
    ///
    /// ```swift
    /// } catch {
    ///     if error.leashError?.isUnauthorized == true { showLogin() }
    /// }
    /// ```
    public var leashError: LeashError? { self as? LeashError }
}
