import Foundation
import Rx

/// Hands events to an observer one at a time, in the order they were submitted, from any
/// number of threads.
///
/// The pipeline feeds one observer from several places at once (progress events from the
/// transport's thread, values from an interceptor calling back on another, a cache value
/// racing the network), and Rx's grammar forbids calling an observer concurrently. A
/// thread that submits while another is delivering leaves its event to that thread, so no
/// lock is held while the observer runs and a re-entrant event is queued, not deadlocked.
/// After a terminal event or `release()`, events are dropped and the observer is let go,
/// so that nothing a finished execution held stays alive through it.
final class SerialObserver<Element>: ObserverType, @unchecked Sendable {
    // @unchecked: the state is behind `lock`; the observer is only called by the one
    // thread that holds the delivering role.
    private let lock = Lock()
    private var observer: AnyObserver<Element>?
    private var pending: [Event<Element>] = []
    private var isDelivering = false

    init(_ observer: AnyObserver<Element>) {
        self.observer = observer
    }

    func onNext(_ element: Element) { on(.next(element)) }
    func onError(_ error: Swift.Error) { on(.error(error)) }
    func onCompleted() { on(.completed) }

    func on(_ event: Event<Element>) {
        // The common case, nobody delivering: this thread delivers, and then whatever
        // other threads (or the observer itself) submitted meanwhile.
        var next = lock.withLock { () -> (AnyObserver<Element>, Event<Element>)? in
            guard let target = observer else { return nil }
            if isDelivering {
                pending.append(event)
                return nil
            }
            isDelivering = true
            return (target, event)
        }
        while let (target, current) = next {
            if current.isStopEvent { release() }
            target.on(current)
            next = lock.withLock { () -> (AnyObserver<Element>, Event<Element>)? in
                guard let target = observer, !pending.isEmpty else {
                    isDelivering = false
                    return nil
                }
                return (target, pending.removeFirst())
            }
        }
    }

    /// Drops pending and later events and lets the observer go.
    func release() {
        lock.withLock {
            observer = nil
            pending.removeAll()
        }
    }
}
