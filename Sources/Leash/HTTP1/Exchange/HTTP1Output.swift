import Dispatch
import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where an `HTTP1Exchange` reports: a plain request's one answer, or a transfer's events.
protocol HTTP1Output: AnyObject, Sendable {
    /// Whether the events before the end (progress, the head, body chunks) are wanted.
    var wantsEvents: Bool { get }
    /// An event before the end (transfers only).
    func emit(_ event: TransportEvent)
    /// The end: the response, or why there is none. Called once, and never after `release()`.
    func finish(_ result: Result<TransportResponse, LeashError>)
    /// Lets go of the subscriber (the request was disposed): nothing is reported after.
    func release()
}

/// A plain request's output: its one answer, to its observer, through the execution's
/// hand-off if it has one (an awaiting task), else on one of the transport's delivery queues.
final class HTTP1PlainOutput<Observer: ObserverType & SendableMetatype>: HTTP1Output, @unchecked Sendable
where Observer.Element == TransportResponse {
    // @unchecked: the observer is behind its lock until taken, once.
    private let observer: LockedState<Observer?>
    private let handoff: ResponseHandoff?
    private let deliveryQueue: DispatchQueue

    init(observer: Observer, handoff: ResponseHandoff?, deliveryQueue: DispatchQueue) {
        self.observer = LockedState(observer)
        self.handoff = handoff
        self.deliveryQueue = deliveryQueue
    }

    var wantsEvents: Bool { false }

    func emit(_ event: TransportEvent) {}

    func finish(_ result: Result<TransportResponse, LeashError>) {
        guard
            let observer = observer.withLock({ observer -> Observer? in
                defer { observer = nil }
                return observer
            })
        else { return }
        let answer: PlainAnswer
        switch result {
        case .success(let response): answer = .response(response)
        case .failure(let error): answer = .failure(error)
        }
        let carried = Carried((answer, observer))
        let report: @Sendable () -> Void = { carried.value.0.report(to: carried.value.1) }
        if let handoff {
            handoff.hand(report)
        } else {
            deliveryQueue.async(execute: report)
        }
    }

    func release() {
        let released = observer.withLock { observer -> Observer? in
            defer { observer = nil }
            return observer
        }
        // Freed outside the lock: freeing the subscription may run code of its own.
        withExtendedLifetime(released) {}
    }
}

/// A transfer's output: every event, in place, to the transfer's observer.
final class HTTP1TransferOutput: HTTP1Output, Sendable {
    private let output: TransferOutput

    init(_ observer: AnyObserver<TransportEvent>) {
        output = TransferOutput(observer)
    }

    var wantsEvents: Bool { true }

    func emit(_ event: TransportEvent) {
        output.on(.next(event))
    }

    func finish(_ result: Result<TransportResponse, LeashError>) {
        switch result {
        case .success(let response):
            output.on(.next(.completed(response)))
            output.on(.completed)
        case .failure(let error):
            output.on(.error(error))
        }
        output.release()
    }

    func release() {
        output.release()
    }
}
