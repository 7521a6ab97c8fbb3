import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the transport's observers of one attempt share: the attempt and its step (the request sent),
/// whether the response arrived (a transport's completion alone is not one), the
/// subscription to the transport's request (for a transport other than a direct one), and
/// the request's place in the manager's dispatcher, given back when the request ends or is
/// disposed, whichever comes first.
///
/// The attempt keeps the answer itself as its transport request: disposing it disposes the
/// subscription and gives the place back, so no holder or composite disposable is made per
/// request.
class AttemptAnswer: Disposable, @unchecked Sendable {
    // @unchecked: `subscription` is written once, before `kept` is set in `flags`, and read
    // only by whoever sets `disposed` after that (or by `keep` itself when `disposed` came
    // first); the rest is immutable or the atomic.
    let attempt: Attempt
    let step: Attempt.Step
    private let place: DispatcherPlace?
    /// What happened, as bits (below): one atomic, where a lock or an atomic per flag costs
    /// an allocation each on the platforms whose `AtomicInt` is a lock.
    private let flags = AtomicInt(0)
    /// The transport's subscription, once kept.
    private var subscription: Disposable?

    /// The response arrived.
    private static let responded = 1
    /// `subscription` is set.
    private static let kept = 2
    /// `dispose()` ran (the first time gives the place back).
    private static let disposed = 4

    init(attempt: Attempt, step: Attempt.Step, place: DispatcherPlace? = nil) {
        self.attempt = attempt
        self.step = step
        self.place = place
    }

    /// Keeps the subscription to the transport's request, to be disposed with this answer;
    /// disposed at once if the answer was disposed while it subscribed.
    final func keep(_ subscription: Disposable) {
        self.subscription = subscription
        guard flags.fetchOr(Self.kept) & Self.disposed != 0 else { return }
        self.subscription = nil
        subscription.dispose()
    }

    /// The request is disposed, or over: its subscription is disposed, and its place given
    /// back.
    final func dispose() {
        let before = flags.fetchOr(Self.disposed)
        guard before & Self.disposed == 0 else { return }
        // The request first, then its place: the next request must not reach the transport
        // while this one is still there.
        if before & Self.kept != 0, let subscription {
            self.subscription = nil
            subscription.dispose()
        }
        // Not on URLSession's queue: the next request may start here, at once.
        place?.release(hop: false)
    }

    /// The response: to the success interceptors.
    final func respond(_ response: TransportResponse) {
        _ = flags.fetchOr(Self.responded)
        attempt.received(response, step)
    }

    /// A failure, or the end: to the failure interceptors (an end without a response is a
    /// failure too).
    final func end(_ error: Swift.Error?) {
        // The request is over: its subscription is let go (it holds this observer, which
        // holds it: kept, they would keep each other alive) and its place given back.
        dispose()
        if let error {
            attempt.failed(error, step)
        } else if flags.load() & Self.responded == 0 {
            attempt.failed(LeashError.invalidResponse(reason: "the transport completed without a response"), step)
        }
    }
}

/// Receives the transport's answer to one attempt's request (`send`, the fast path). One
/// object per request, instead of a closure per event and a separate flag.
final class TransportObserver: AttemptAnswer, ObserverType, @unchecked Sendable {
    // @unchecked: see `AttemptAnswer`.
    func on(_ event: Event<TransportResponse>) {
        switch event {
        case .next(let response): respond(response)
        case .error(let error): end(error)
        case .completed: end(nil)
        }
    }
}

/// Receives the events of one attempt's transfer (`transfer`): progress, a stream's head
/// and its chunks go to the attempt (which reports them and resets the idle limit), the
/// complete response to the success interceptors (for a stream, to its end), a failure to
/// the failure interceptors.
final class TransferObserver: AttemptAnswer, ObserverType, @unchecked Sendable {
    // @unchecked: see `AttemptAnswer`.
    func on(_ event: Event<TransportEvent>) {
        switch event {
        case .next(.completed(let response)): respond(response)
        case .next(let progress): attempt.transferred(progress, step)
        case .error(let error): end(error)
        case .completed: end(nil)
        }
    }
}
