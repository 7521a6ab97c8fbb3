import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one request of a flight of identical GETs (`Manager.flights`): sent as any request
/// is (a place among the manager's limits, then the transport, directly if it can), owned by
/// the flight rather than by the execution that opened it, and answered to every execution
/// in the flight. Disposing it (the flight's last execution let go) cancels it, whether it
/// still waits for a place or is on its way.
final class SharedFlight: Disposable, @unchecked Sendable {
    // @unchecked: the mutable state is behind `state`; the rest is immutable.
    private struct State {
        /// What disposing cancels now: the place's waiter, then the transport's request.
        var current: Disposable?
        var isDisposed = false
    }

    private let state = LockedState(State())
    private let request: URLRequest
    private let manager: Manager
    private let answer: @Sendable (Event<TransportResponse>) -> Void

    private init(
        _ request: URLRequest, manager: Manager, answer: @escaping @Sendable (Event<TransportResponse>) -> Void
    ) {
        self.request = request
        self.manager = manager
        self.answer = answer
    }

    /// Starts flight `flight`'s request, answering to the executions in `flights`.
    static func start(_ request: URLRequest, manager: Manager, flight: Int, flights: InFlightRequests)
        -> SharedFlight
    {
        let shared = SharedFlight(request, manager: manager) { flights.deliver($0, flight: flight) }
        shared.start()
        return shared
    }

    private func start() {
        guard let dispatcher = manager.dispatcher else { return launch(place: nil) }
        let host = manager.dispatcherKey(for: request)
        let place = DispatcherPlace(dispatcher: dispatcher, host: host)
        if dispatcher.tryAcquire(host: host) { return launch(place: place) }
        // Queued under the lock, so that the waiter is kept before its closure can run.
        let queued = state.withLock { state -> Bool? in
            guard !state.isDisposed else { return nil }
            guard let waiter = dispatcher.enqueue(host: host, start: { [self] in launch(place: place) }) else {
                return false
            }
            state.current = waiter
            return true
        }
        if queued == false { launch(place: place) }
    }

    /// Hands the request to the transport, holding `place`; kept before it is sent, so that
    /// a dispose either comes first (nothing is sent) or cancels it.
    private func launch(place: DispatcherPlace?) {
        if let direct = manager.directTransport {
            // No hand-off: the answer goes to several executions, none of whose tasks it is.
            let options = DirectRequestOptions(handoff: nil, place: place, credentials: manager.credentials)
            let prepared = direct.prepare(request, options: options, observer: SharedFlightObserver(answer))
            if keep(prepared) { prepared.launch() } else { prepared.dispose() }
            return
        }
        let observer = SharedFlightObserver(answer, place: place)
        let holder = SingleAssignmentDisposable()
        guard keep(holder) else { return observer.dispose() }
        holder.setDisposable(Disposables.create(manager.sender.send(request).subscribe(observer), observer))
    }

    /// Keeps `request` as what a dispose cancels; false if the flight was disposed.
    private func keep(_ request: Disposable) -> Bool {
        state.withLock { state in
            guard !state.isDisposed else { return false }
            state.current = request
            return true
        }
    }

    func dispose() {
        let current = state.withLock { state -> Disposable? in
            state.isDisposed = true
            defer { state.current = nil }
            return state.current
        }
        current?.dispose()
    }
}

/// Hands a flight's transport events to the flight, and gives its place back (for a
/// transport that is not direct: a direct one gives it back itself) when the request ends
/// or is cancelled.
private final class SharedFlightObserver: ObserverType, Disposable, @unchecked Sendable {
    // @unchecked: `responded` and the held place are atomic; the rest is immutable.
    private let answer: @Sendable (Event<TransportResponse>) -> Void
    private let place: HeldPlace
    private let responded = AtomicInt(0)

    init(_ answer: @escaping @Sendable (Event<TransportResponse>) -> Void, place: DispatcherPlace? = nil) {
        self.answer = answer
        self.place = HeldPlace(place)
    }

    func on(_ event: Event<TransportResponse>) {
        switch event {
        case .next:
            responded.store(1)
            answer(event)
        case .error:
            place.release()
            answer(event)
        case .completed:
            place.release()
            if responded.load() == 0 {
                answer(.error(LeashError.invalidResponse(reason: "the transport completed without a response")))
            }
        }
    }

    func dispose() {
        place.release()
    }
}

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
