import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request's place in its manager's dispatcher, held by what observes the request and
/// given back once: when the request ends or is disposed, whichever comes first.
struct HeldPlace: ~Copyable, Sendable {
    private let place: DispatcherPlace?
    /// 1 while the place is held: an atomic, where a lock would cost an allocation per request.
    private let taken: AtomicInt

    init(_ place: DispatcherPlace?) {
        self.place = place
        taken = AtomicInt(place == nil ? 0 : 1)
    }

    /// Gives the place back, the first time only.
    func release() {
        guard let place, taken.exchange(0) == 1 else { return }
        // Not on URLSession's queue: the next request may start here, at once.
        place.release(hop: false)
    }
}

/// What the transport's observers of one attempt share: the attempt and its step (the request sent),
/// whether the response arrived (a transport's completion alone is not one), and, for a
/// transport other than `URLSessionTransport`, the request's place in the manager's
/// dispatcher, given back when the request ends or is disposed (whichever comes first).
class AttemptAnswer: Disposable, @unchecked Sendable {
    // @unchecked: immutable but for `responded` and the held place, atomics: two flags,
    // each changed on its own, where a lock would cost an allocation per request.
    let attempt: Attempt
    let step: Attempt.Step
    /// 1 once the response arrived.
    private let responded = AtomicInt(0)
    private let place: HeldPlace

    init(attempt: Attempt, step: Attempt.Step, place: DispatcherPlace? = nil) {
        self.attempt = attempt
        self.step = step
        self.place = HeldPlace(place)
    }

    /// The transport's request is disposed: its place is given back.
    final func dispose() {
        place.release()
    }

    /// The response: to the success interceptors.
    final func respond(_ response: TransportResponse) {
        responded.store(1)
        attempt.received(response, step)
    }

    /// A failure, or the end: to the failure interceptors (an end without a response is a
    /// failure too).
    final func end(_ error: Swift.Error?) {
        place.release()
        if let error {
            attempt.failed(error, step)
        } else if responded.load() == 0 {
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
