import Foundation
import Leash
import Rx

/// The state of a `TokenRefresher`, kept behind its lock. A plain value that decides; the
/// refresher acts on the decision after the lock is released (it starts the user's
/// refresh, ends the run, publishes failures).
struct RefreshState {
    /// What a request rejected as unauthorized does next.
    enum Decision {
        /// Wait for the refresh in flight.
        case join(RefreshRun)
        /// Retry at once: a refresh finished since the caller looked, so the authenticator
        /// holds another credential already.
        case retryNow
        /// Start this refresh (the caller subscribes to the user's stream) and wait for it.
        case start(RefreshRun)
        /// Refresh no more: too many in the window.
        case refuse(LeashError)
    }

    /// The refresh in flight: its waiters subscribe to it, and it ends as the refresh does.
    var inFlight: RefreshRun?
    /// How many refreshes succeeded so far, so that a caller can tell whether one finished
    /// between two looks.
    var succeeded = 0
    /// When the refreshes of the current window started.
    var starts: [RxTime] = []

    /// Decides for a request whose credential is still the authenticator's, at `now`.
    /// `seenSucceeded` is `succeeded` as the caller saw it before reading the credential.
    mutating func decide(now: RxTime, seenSucceeded: Int, maximum: Int, window: TimeInterval) -> Decision {
        if let inFlight { return .join(inFlight) }
        if succeeded != seenSucceeded { return .retryNow }
        starts.removeAll { now.timeIntervalSince($0) >= window }
        guard starts.count < maximum else {
            return .refuse(
                .authenticationFailed(
                    underlying: TokenRefreshError.refreshLimitReached(maximum: maximum, window: window)))
        }
        starts.append(now)
        let refresh = RefreshRun()
        inFlight = refresh
        return .start(refresh)
    }

    /// The refresh `refresh` ended (failed if `failed`): the next request may start another.
    mutating func finish(_ refresh: RefreshRun, failed: Bool) {
        if inFlight === refresh { inFlight = nil }
        if !failed { succeeded += 1 }
    }
}
