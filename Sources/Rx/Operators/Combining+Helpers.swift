/// What `merge()`, `merge(maxConcurrent:)`, `concat()` and `switchLatest()` need of the
/// inner sequences: `ObservableConvertibleType`, through a conformance that is not
/// isolated to an actor, because the inner sequences are subscribed on whichever thread
/// the source emits on.
///
/// Concrete types qualify unless their conformance is actor-isolated (for example
/// inferred `@MainActor` under default main-actor isolation); mark such a conformance
/// `nonisolated`. Generic code adds `SendableMetatype` to its `ObservableConvertibleType`
/// constraint.
public typealias InnerObservableConvertibleType = ObservableConvertibleType & SendableMetatype

/// One source subscription of a combining operator (zip, combineLatest, merge, amb, …),
/// kept inside the operator's locked state.
///
/// A source may finish, or the operator may be disposed, before `subscribe` has returned
/// the source's disposable; the slot remembers that, and `assign` then hands the late
/// disposable back so that the caller disposes it at once.
@usableFromInline
enum CombiningSlot {
    /// Subscribing: the disposable has not been returned yet.
    case pending
    /// Subscribed; disposing `Disposable` ends the subscription.
    case active(Disposable)
    /// Finished or cancelled: nothing is kept.
    case finished

    /// Stores `disposable` if the slot is still waiting for it; otherwise returns it, for
    /// the caller to dispose outside the lock.
    @inlinable
    mutating func assign(_ disposable: Disposable) -> Disposable? {
        if case .pending = self {
            self = .active(disposable)
            return nil
        }
        return disposable
    }

    /// Marks the slot finished; returns the disposable to dispose outside the lock, if any.
    @inlinable
    mutating func finish() -> Disposable? {
        defer { self = .finished }
        if case .active(let disposable) = self { return disposable }
        return nil
    }
}

extension Array where Element == CombiningSlot {
    /// Finishes every slot; returns the disposables to dispose outside the lock, in order.
    @inlinable
    mutating func finishAll() -> [Disposable] {
        var disposables: [Disposable] = []
        for index in indices {
            if let disposable = self[index].finish() { disposables.append(disposable) }
        }
        return disposables
    }
}

/// A first-in first-out queue: a `zip` source's waiting elements, `merge`'s waiting inner
/// sequences.
@usableFromInline
struct CombiningQueue<Element> {
    // Dequeued cells are cleared at once so that the queue does not keep elements alive.
    @usableFromInline var cells: [Element?] = []
    @usableFromInline var head = 0

    @inlinable init() {}

    /// The number of queued elements.
    @inlinable var count: Int { cells.count - head }

    @inlinable
    mutating func enqueue(_ element: Element) {
        cells.append(element)
    }

    /// The oldest element, removed; `nil` if the queue is empty.
    @inlinable
    mutating func dequeue() -> Element? {
        guard head < cells.count else { return nil }
        let element = cells[head]
        cells[head] = nil
        head += 1
        if head == cells.count {
            cells.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 32 && head * 2 >= cells.count {
            // Reclaim the dead prefix once it is most of the storage.
            cells.removeFirst(head)
            head = 0
        }
        return element
    }
}
