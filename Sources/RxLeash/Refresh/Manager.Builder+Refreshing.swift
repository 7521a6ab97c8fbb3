import Leash

extension Manager.Builder {
    /// Refreshes the credential with `refresher` for every execution of the manager: sets
    /// the refresher's authenticator as the manager's, holds requests back while a
    /// refresh is in flight (a `RequestGate`), and retries once after a refresh the
    /// executions whose outcome is unauthorized (an `OperatorInterceptor`, added after the
    /// interceptors added so far).
    ///
    /// ```swift
    /// let manager = try Manager.Builder().url(baseURL).refreshing(with: refresher).build()
    /// ```
    ///
    /// A refresh retry counts towards `maximumRetryCount`.
    @discardableResult
    public func refreshing(with refresher: TokenRefresher) -> Self {
        authenticator(refresher.authenticator)
        add(interceptor: RefreshOnUnauthorized(refresher: refresher))
        gate(refresher)
        return self
    }
}
