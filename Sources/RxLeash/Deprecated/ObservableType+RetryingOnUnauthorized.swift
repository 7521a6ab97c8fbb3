import Leash
import Rx

/// Refreshing per stream, which 1.0 replaced with refreshing per manager
/// (`Manager.Builder.refreshing(with:)`, installed once, for every execution and every
/// form); kept for one release.
extension ObservableType {
    /// Waits for `refresher`'s refresh if one is in flight, then subscribes; if the
    /// sequence fails as unauthorized (a `LeashError` whose status is one of the
    /// refresher's `unauthorizedStatusCodes`), waits for the shared refresh (see
    /// `TokenRefresher.refreshIfNeeded(rejected:)`) and subscribes once more. A second
    /// unauthorized failure, or any other error, passes on; a failed refresh ends the
    /// sequence with `LeashError.authenticationFailed`.
    ///
    /// For a cold sequence that builds its request on subscription, such as
    /// `client.rx.execute(_:type:)`, so that the second subscription carries the new
    /// credential. Use it or `Manager.Builder.refreshing(with:)`, not both on one
    /// execution (each would retry once).
    @available(*, deprecated, message: "install the refresher once with Manager.Builder.refreshing(with:)")
    public func retryingOnUnauthorized(_ refresher: TokenRefresher) -> Observable<Element> {
        let source = asObservable()
        let admitted = Observable<Element>.deferred {
            guard let refresh = refresher.currentRefresh else { return source }
            return refresh.andThen(source)
        }
        return admitted.catch { error in
            guard let refresh = refresher.refreshIfUnauthorized(error) else { throw error }
            return refresh.andThen(admitted)
        }
    }
}

extension PrimitiveSequenceType where Trait == SingleTrait {
    /// The single, retried once after `refresher`'s refresh if it fails as unauthorized;
    /// see `ObservableType.retryingOnUnauthorized(_:)`.
    @available(*, deprecated, message: "install the refresher once with Manager.Builder.refreshing(with:)")
    public func retryingOnUnauthorized(_ refresher: TokenRefresher) -> Single<Element> {
        primitiveSequence.asObservable().retryingOnUnauthorized(refresher).asSingle()
    }
}
