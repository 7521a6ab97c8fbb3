import Foundation
import Leash
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport that lets identical GET requests in flight at the same time share one
/// request of the transport it wraps.
///
/// ```swift
/// let manager = try Manager.Builder()
///     .url("https://api.example.com")
///     .transport(SharingTransport(wrapping: URLSessionTransport.shared))
///     .build()
/// ```
///
/// - Requests are identical when they are GETs of the same URL with the same headers
///   (every header, names compared case-insensitively): different credentials never
///   share. Other methods, and requests with a body, always go to the wrapped transport
///   on their own.
/// - Every subscriber gets the same response (or the same failure).
/// - Disposing a subscriber only lets it go; the underlying request is cancelled when its
///   last subscriber disposes (reference counting).
/// - Nothing is cached: a request made once the shared one has answered goes to the
///   network again.
///
/// Opt-in, because sharing assumes the server's answer does not depend on how many times
/// it was asked. Each execution still runs its own interceptors, validation and
/// decoding on the shared response. Thread-safe.
///
/// Given to a manager, it loses nothing of the transport it wraps: the manager sends through
/// `base` itself (its direct path, its per-host limits, the manager's credential handling)
/// and shares in its pipeline with this transport's table, before the limits (a request that
/// joins a flight never waits for a place). `Manager.Builder.sharesRequestsInFlight()` does
/// the same without a wrapper.
public final class SharingTransport: Transport, RequestSharingTransport {
    /// The transport requests are sent with.
    public let base: Transport
    /// Who waits for which request; a manager given this transport shares through it too.
    package let flights = InFlightRequests()

    /// Shares the GET requests sent with `base`.
    public init(wrapping base: Transport) {
        self.base = base
    }

    /// How many underlying requests are in flight (shared or not yet answered): for
    /// diagnostics and tests.
    public var inFlightCount: Int { flights.count }

    /// Sends `request`, joining an identical GET already in flight if there is one.
    public func send(_ request: URLRequest) -> Observable<TransportResponse> {
        guard let key = SharingKey(sharing: request) else { return base.send(request) }
        let base = self.base
        let inFlight = self.flights
        let carried = SharedRequest(request)
        return Observable.create { observer in
            let ticket = inFlight.join(key, observer)
            if let connection = ticket.connection {
                let flight = ticket.flight
                connection.setDisposable(
                    base.send(carried.request).subscribe { event in inFlight.deliver(event, flight: flight) })
            }
            return Disposables.create { inFlight.leave(ticket) }
        }
    }
}

/// The request a shared flight sends.
private struct SharedRequest: @unchecked Sendable {
    // @unchecked: `URLRequest` is an immutable value here, but not Sendable on every platform.
    let request: URLRequest
    init(_ request: URLRequest) { self.request = request }
}
