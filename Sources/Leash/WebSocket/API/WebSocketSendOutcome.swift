import Foundation
import Rx

/// The outcome of one `send` (`WebSocket`'s or `WebSocketSession`'s), for whoever subscribes
/// to its `Completable`, before or after it is known.
final class WebSocketSendOutcome: Sendable {
    private struct State {
        /// `nil` while unknown; then `.some(nil)` (written) or `.some(error)`.
        var outcome: LeashError??
        var observers: [@Sendable (CompletableEvent) -> Void] = []
    }

    private let state = LockedState(State())

    func settle(_ error: LeashError?) {
        let observers = state.withLock { state -> [@Sendable (CompletableEvent) -> Void] in
            guard state.outcome == nil else { return [] }
            state.outcome = .some(error)
            defer { state.observers = [] }
            return state.observers
        }
        for observer in observers { observer(Self.event(error)) }
    }

    func observe(_ observer: @escaping @Sendable (CompletableEvent) -> Void) {
        let known = state.withLock { state -> LeashError?? in
            if state.outcome == nil { state.observers.append(observer) }
            return state.outcome
        }
        if let known { observer(Self.event(known)) }
    }

    private static func event(_ error: LeashError?) -> CompletableEvent {
        error.map { .error($0) } ?? .completed
    }
}

extension WebSocketSendOutcome {
    /// The outcome as a `Completable`: subscribing is optional, and a late subscriber still
    /// learns it.
    var completable: Completable {
        Completable.create { observer in
            self.observe(observer)
            return Disposables.create()
        }
    }
}
