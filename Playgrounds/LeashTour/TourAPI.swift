import Foundation
import LoopbackServer

/// Where the tour's requests go: its own loopback server, or a real API.
struct TourAPI {
    let baseURL: URL
    /// The tour's own server (nil against a real API).
    let server: LoopbackServer?
    /// The state of the tour's server (tokens, refresh count).
    let state: TourServerState?
}
