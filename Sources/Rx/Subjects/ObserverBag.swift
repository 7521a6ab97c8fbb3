/// The observers of a subject, in subscription order.
///
/// Keys grow monotonically, so removal finds its entry by binary search and leaves a
/// hole; holes are compacted away once they outnumber the live entries. Copying the bag
/// (a snapshot for delivery outside the lock) is a copy-on-write array retain.
@usableFromInline
struct ObserverBag<Element> {
    @usableFromInline var keys: [Int] = []
    @usableFromInline var observers: [AnyObserver<Element>?] = []
    @usableFromInline var liveCount = 0
    @usableFromInline var nextKey = 0

    @inlinable init() {}

    /// The number of observers.
    @inlinable var count: Int { liveCount }

    /// Adds `observer`; returns its key.
    @inlinable
    mutating func insert(_ observer: AnyObserver<Element>) -> Int {
        let key = nextKey
        nextKey += 1
        keys.append(key)
        observers.append(observer)
        liveCount += 1
        return key
    }

    /// Removes the observer with `key`; returns whether it was present.
    @inlinable
    @discardableResult
    mutating func remove(_ key: Int) -> Bool {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        guard low < keys.count, keys[low] == key, observers[low] != nil else { return false }
        observers[low] = nil
        liveCount -= 1
        if liveCount == 0 {
            keys.removeAll()
            observers.removeAll()
        } else if keys.count > 16 && liveCount * 2 < keys.count {
            compact()
        }
        return true
    }

    @usableFromInline
    mutating func compact() {
        var newKeys: [Int] = []
        var newObservers: [AnyObserver<Element>?] = []
        newKeys.reserveCapacity(liveCount)
        newObservers.reserveCapacity(liveCount)
        for index in keys.indices where observers[index] != nil {
            newKeys.append(keys[index])
            newObservers.append(observers[index])
        }
        keys = newKeys
        observers = newObservers
    }

    /// Removes every observer.
    @inlinable
    mutating func removeAll() {
        keys.removeAll()
        observers.removeAll()
        liveCount = 0
    }

    /// Delivers `event` to every observer, in subscription order.
    @inlinable
    func on(_ event: Event<Element>) {
        for observer in observers {
            observer?.on(event)
        }
    }
}
