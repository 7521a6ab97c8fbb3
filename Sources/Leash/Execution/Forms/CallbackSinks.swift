import Dispatch
import Foundation
import Rx

/// Delivers a callback form's items in order, on a queue or inline, and stops after the
/// handle's `cancel()`.
///
/// On a queue, items go out one at a time and in order even if the queue is concurrent
/// (`DispatchQueue.global()`): a cached value's callback ends before the network value's
/// starts. The order is kept by a `DeliveryLine` drained on the queue.
final class CallbackQueue<Item>: @unchecked Sendable {
    // @unchecked: the handler is behind the line's lock and called by one drain at a time.
    private let queue: DispatchQueue?
    let handle: DataRequest
    private let line: LockedState<DeliveryLine<Item, (Item) -> Void>>

    init(queue: DispatchQueue?, handle: DataRequest, handler: @escaping (Item) -> Void) {
        self.queue = queue
        self.handle = handle
        self.line = LockedState(DeliveryLine(handler))
    }

    /// Hands `item` to the handler (a `closing` item is the last); on the queue, unless
    /// the handle is cancelled by the time it gets there.
    func send(_ item: Item, closing: Bool = false) {
        guard let queue else {
            // Inline: the execution's outlet calls one item at a time already.
            return line.deliver(item, closing: closing) { handler, item in handler(item) }
        }
        guard let first = line.withLock({ $0.submit(item, closing: closing) }) else { return }
        // Handed to the queue unchecked: only the drain that takes it touches it.
        let carried = Carried(first)
        queue.async { [self] in
            var next: ((Item) -> Void, Item)? = carried.value
            while let (handler, item) = next {
                // Checked on the queue, just before the call: a `cancel()` made on this
                // queue (or before the item reached it) stops the callback for sure.
                if !handle.isCancelled { handler(item) }
                next = line.withLock { $0.next() }
            }
        }
    }
}

/// The callback form's sink (`Client.execute(_:completion:)`): each outcome to
/// `completion`, in order; the failure that ends the execution too.
struct CallbackSink<Value>: ExecutionSink, @unchecked Sendable {
    // @unchecked: the callbacks are the app's, called one at a time (see `CallbackQueue`).
    private let callbacks: CallbackQueue<Response<Value>>

    init(queue: DispatchQueue?, handle: DataRequest, completion: @escaping (Response<Value>) -> Void) {
        callbacks = CallbackQueue(queue: queue, handle: handle, handler: completion)
    }

    func value(_ value: Value, extra: ResponseExtra) {
        callbacks.send(.success(value: value, extra: extra))
    }

    func end(_ error: Swift.Error?) {
        if let error { callbacks.send(.failure(error), closing: true) }
    }
}
