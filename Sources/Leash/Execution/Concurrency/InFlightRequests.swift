import Rx

/// Identical requests in flight and who waits for each: the table of a manager that shares
/// them (`Manager.Builder.sharesRequestsInFlight()`, or a `SharingTransport` given to it),
/// and of a `SharingTransport` used on its own.
///
/// One lock guards everything, so that joining a flight and that flight's response are
/// ordered: a subscriber either joins before the response (and gets it) or finds the
/// flight closed and starts a new one. Observers are called after the lock is released.
package final class InFlightRequests: Sendable {
    /// One underlying request and its subscribers.
    private struct Flight {
        let key: SharingKey
        var subscribers: [Int: AnyObserver<TransportResponse>] = [:]
        /// The underlying subscription; set once it is made (it may answer synchronously,
        /// before `subscribe` returns).
        let upstream = SingleAssignmentDisposable()
    }

    private struct State {
        var nextID = 0
        /// The flight identical requests join: removed once it has answered.
        var joinable: [SharingKey: Int] = [:]
        /// Every flight still delivering, by id.
        var flights: [Int: Flight] = [:]
    }

    /// A subscriber's place in a flight.
    package struct Ticket: Sendable {
        package let flight: Int
        package let subscriber: Int
        /// Set for the subscriber that opened the flight: it must connect it.
        package let connection: SingleAssignmentDisposable?
    }

    private let state = LockedState(State())

    /// An empty table.
    package init() {}

    /// The flights not yet finished.
    package var count: Int { state.withLock { $0.flights.count } }

    /// Adds `observer` to the flight for `key`, opening one if none can be joined.
    package func join(_ key: SharingKey, _ observer: AnyObserver<TransportResponse>) -> Ticket {
        state.withLock { state in
            state.nextID += 1
            let subscriber = state.nextID
            if let id = state.joinable[key] {
                state.flights[id]?.subscribers[subscriber] = observer
                return Ticket(flight: id, subscriber: subscriber, connection: nil)
            }
            state.nextID += 1
            let id = state.nextID
            var flight = Flight(key: key)
            flight.subscribers[subscriber] = observer
            state.flights[id] = flight
            state.joinable[key] = id
            return Ticket(flight: id, subscriber: subscriber, connection: flight.upstream)
        }
    }

    /// Hands the underlying request's `event` to every subscriber of flight `id`, and
    /// forgets the flight: a transport answers once (one response, then completion), so
    /// the response ends the flight and each subscriber gets it with its completion at
    /// once. (Waiting for the transport's own completion would leave the flight listed
    /// after every subscriber had finished.) The completion that follows finds nothing.
    package func deliver(_ event: Event<TransportResponse>, flight id: Int) {
        let subscribers = state.withLock { state -> [AnyObserver<TransportResponse>] in
            guard let flight = state.flights.removeValue(forKey: id) else { return [] }
            if state.joinable[flight.key] == id { state.joinable[flight.key] = nil }
            return Array(flight.subscribers.values)
        }
        for subscriber in subscribers {
            subscriber.on(event)
            if case .next = event { subscriber.onCompleted() }
        }
    }

    /// Removes a subscriber; the last one to leave an unfinished flight cancels it.
    package func leave(_ ticket: Ticket) {
        let cancelled = state.withLock { state -> Disposable? in
            guard var flight = state.flights[ticket.flight],
                flight.subscribers.removeValue(forKey: ticket.subscriber) != nil
            else { return nil }
            guard flight.subscribers.isEmpty else {
                state.flights[ticket.flight] = flight
                return nil
            }
            state.flights[ticket.flight] = nil
            if state.joinable[flight.key] == ticket.flight { state.joinable[flight.key] = nil }
            return flight.upstream
        }
        cancelled?.dispose()
    }
}
