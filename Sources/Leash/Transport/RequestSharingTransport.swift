import Foundation

/// A transport that shares identical GET requests in flight over the transport it wraps
/// (`SharingTransport`).
///
/// A manager given one does not send through it: it sends through `base` itself and shares
/// the requests in its own pipeline, with the same table (`flights`). So `base` keeps what a
/// manager gives the transport it runs (the direct path, the per-host limits, the credential
/// handling), and the requests that join a flight never wait for a place of those limits.
package protocol RequestSharingTransport: Transport {
    /// The transport the shared requests go to.
    var base: Transport { get }
    /// The flights in progress: who waits for which request.
    var flights: InFlightRequests { get }
}
