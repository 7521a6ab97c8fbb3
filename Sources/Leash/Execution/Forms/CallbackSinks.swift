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
    // @unchecked: `handler` is called by one drain at a time (the line's deliverer), and
    // the rest is immutable.
    private let queue: DispatchQueue?
    let handle: DataRequest
    private let handler: (Item) -> Void
    /// The items on their way to the queue (only with a queue).
    private let line: LockedState<DeliveryLine<Item>>?

    init(queue: DispatchQueue?, handle: DataRequest, handler: @escaping (Item) -> Void) {
        self.queue = queue
        self.handle = handle
        self.handler = handler
        self.line = queue == nil ? nil : LockedState(DeliveryLine())
    }

    /// Hands `item` to the handler (a `closing` item is the last); on the queue, unless
    /// the handle is cancelled by the time it gets there.
    func send(_ item: Item, closing: Bool = false) {
        guard let queue, let line else {
            // In place: the execution's outlet calls one item at a time already.
            return handler(item)
        }
        guard line.enter(closing: closing, orQueue: item) else { return }
        // Handed to the queue unchecked: only the drain that takes it touches it.
        let first = Carried(item)
        queue.async { [self] in
            call(first.value)
            line.drain(hand: call) {}
        }
    }

    /// Calls the handler, unless the handle is cancelled: checked on the queue, just
    /// before the call, so a `cancel()` made on this queue (or before the item reached it)
    /// stops the callback for sure.
    private func call(_ item: Item) {
        if !handle.isCancelled { handler(item) }
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
