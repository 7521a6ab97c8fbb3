import Foundation
import Leash

/// Why a `TokenRefresher` did not refresh; the `underlying` error of the
/// `LeashError.authenticationFailed` that ends the waiting executions.
public enum TokenRefreshError: Swift.Error, CustomStringConvertible, Sendable {
    /// The refresher already started `maximum` refreshes within the last `window` seconds:
    /// the server keeps rejecting fresh credentials, so refreshing again would loop.
    case refreshLimitReached(maximum: Int, window: TimeInterval)

    /// A sentence a developer can act on.
    public var description: String {
        switch self {
        case .refreshLimitReached(let maximum, let window):
            let seconds = window.rounded() == window ? String(Int(window)) : String(window)
            return "the token refresher already refreshed \(maximum) time(s) in the last \(seconds) s, its limit: "
                + "the server keeps answering 401 to new credentials. Check that the refresh stores the new "
                + "credential where the Authenticator reads it, or ask the user to sign in"
        }
    }
}
