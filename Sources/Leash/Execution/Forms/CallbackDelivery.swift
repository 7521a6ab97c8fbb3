import Dispatch
import Foundation
import Rx

/// Delivers a callback form's items in order, on a queue or inline, and stops after the
/// handle's `cancel()`.
///
/// On a queue, items go out one at a time and in order even if the queue is concurrent
/// (`DispatchQueue.global()`): a cached value's callback ends before the network value's
/// starts.
class OrderedCallbacks<Item>: @unchecked Sendable {
    // @unchecked: `pending` and `isDraining` are behind `lock`; the rest is immutable;
    // `handler` is called by one drain at a time.
    private let queue: DispatchQueue?
    let handle: DataRequest
    private let handler: (Item) -> Void
    private let lock = Lock()
    private var pending: [Item] = []
    private var isDraining = false

    init(queue: DispatchQueue?, handle: DataRequest, handler: @escaping (Item) -> Void) {
        self.queue = queue
        self.handle = handle
        self.handler = handler
    }

    final func send(_ item: Item) {
        guard let queue else {
            // Inline: the stream already calls one event at a time.
            handler(item)
            return
        }
        let startDrain = lock.withLock { () -> Bool in
            pending.append(item)
            if isDraining { return false }
            isDraining = true
            return true
        }
        if startDrain { queue.async { [self] in drain() } }
    }

    private func drain() {
        while true {
            let next = lock.withLock { () -> Item? in
                if pending.isEmpty {
                    isDraining = false
                    return nil
                }
                return pending.removeFirst()
            }
            guard let next else { return }
            // Checked on the queue, just before the call: a `cancel()` made on this queue
            // (or before the item reached it) stops the callback for sure.
            if !handle.isCancelled { handler(next) }
        }
    }
}

/// Observes an execution's values for the callback form: delivers its outcomes in order
/// (see `OrderedCallbacks`), and tells the handle when the execution ended.
final class CallbackDelivery<Value>: OrderedCallbacks<Response<Value>>, ObserverType, @unchecked Sendable {
    // @unchecked: see `OrderedCallbacks`.
    init(queue: DispatchQueue?, handle: DataRequest, completion: @escaping (Response<Value>) -> Void) {
        super.init(queue: queue, handle: handle, handler: completion)
    }

    func on(_ event: Event<Response<Value>>) {
        switch event {
        case .next(let response):
            send(response)
        case .error(let error):
            send(.failure(error))
            handle.executionEnded()
        case .completed:
            handle.executionEnded()
        }
    }
}
