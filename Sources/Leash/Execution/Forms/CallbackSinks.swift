import Dispatch
import Foundation
import Rx

/// Delivers a callback form's items in order, on a queue or in place, and stops after the
/// handle's `cancel()`.
///
/// In place (no queue: the manager's default), the handler is called at once: the
/// execution's outlet calls one item at a time already, so nothing is made for it. On a
/// queue, a `CallbackQueue` keeps the order.
struct CallbackDelivery<Item>: @unchecked Sendable {
    // @unchecked: the handler is the app's, called one item at a time (in place by the
    // outlet's delivery line, on a queue by the `CallbackQueue`'s).

    private enum Route {
        case inPlace((Item) -> Void)
        case queued(CallbackQueue<Item>)
    }

    private let route: Route

    init(queue: DispatchQueue?, handle: DataRequest, handler: @escaping (Item) -> Void) {
        if let queue {
            route = .queued(CallbackQueue(queue: queue, handle: handle, handler: handler))
        } else {
            route = .inPlace(handler)
        }
    }

    /// Hands `item` to the handler (a `closing` item is the last).
    func send(_ item: Item, closing: Bool = false) {
        switch route {
        case .inPlace(let handler): handler(item)
        case .queued(let callbacks): callbacks.send(item, closing: closing)
        }
    }
}

/// Delivers a callback form's items on a queue: one at a time and in order even if the
/// queue is concurrent (`DispatchQueue.global()`): a cached value's callback ends before
/// the network value's starts. The order is kept by a `DeliveryLine` drained on the queue;
/// an item is dropped if the handle is cancelled by the time it gets there.
final class CallbackQueue<Item>: @unchecked Sendable {
    // @unchecked: `handler` is called by one drain at a time (the line's deliverer), and
    // the rest is immutable.
    private let queue: DispatchQueue
    private let handle: DataRequest
    private let handler: (Item) -> Void
    /// The items on their way to the queue.
    private let line = LockedState(DeliveryLine<Item>())

    init(queue: DispatchQueue, handle: DataRequest, handler: @escaping (Item) -> Void) {
        self.queue = queue
        self.handle = handle
        self.handler = handler
    }

    /// Hands `item` to the handler on the queue (a `closing` item is the last), unless the
    /// handle is cancelled by the time it gets there.
    func send(_ item: Item, closing: Bool = false) {
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
    // @unchecked: the callbacks are the app's, called one at a time (see `CallbackDelivery`).
    private let callbacks: CallbackDelivery<Response<Value>>

    init(queue: DispatchQueue?, handle: DataRequest, completion: @escaping (Response<Value>) -> Void) {
        callbacks = CallbackDelivery(queue: queue, handle: handle, handler: completion)
    }

    func value(_ value: Value, extra: ResponseExtra) {
        callbacks.send(.success(value: value, extra: extra))
    }

    func end(_ error: Swift.Error?) {
        if let error { callbacks.send(.failure(error), closing: true) }
    }
}
