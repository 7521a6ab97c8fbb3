import Foundation
import Leash
import Rx

extension TokenRefresher {
    /// A refresher whose window is an `RxTimeInterval`, as before 1.0; Leash's API measures
    /// time in seconds. The window is required here, so that a call without one is never
    /// ambiguous.
    @available(
        *, deprecated,
        message: "Leash measures time in seconds: write .seconds(60) as 60, .milliseconds(500) as 0.5"
    )
    public convenience init(
        authenticator: Authenticator,
        unauthorizedStatusCodes: Set<Int> = [401],
        maximumRefreshes: Int = 3,
        window: RxTimeInterval,
        scheduler: SchedulerType = TokenRefresher.clock,
        excluding: @escaping @Sendable (Endpoint) -> Bool = { _ in false },
        refresh: @escaping @Sendable () -> Completable
    ) {
        self.init(
            authenticator: authenticator, unauthorizedStatusCodes: unauthorizedStatusCodes,
            maximumRefreshes: maximumRefreshes, window: window.seconds, scheduler: scheduler, excluding: excluding,
            refresh: refresh)
    }
}
