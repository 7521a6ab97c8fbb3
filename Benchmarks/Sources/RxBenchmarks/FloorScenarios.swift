/// The same work as hand-written closures: each stage is a closure passed through
/// `opaque`, so it is really built and called; this is the floor no library can beat.
enum FloorScenarios {
    static func mapFilterSum(_ count: Int) -> Checksum {
        let result = Accumulator()
        let sink: (Int) -> Void = opaque { result.add($0) }
        let filter: (Int) -> Void = opaque { if $0 % 2 == 0 { sink($0) } }
        let map: (Int) -> Void = opaque { filter($0 + 1) }
        for value in 0..<count { map(value) }
        return result.checksum
    }

    static func flatMapInner(_ count: Int) -> Checksum {
        let result = Accumulator()
        let sink: (Int) -> Void = opaque { result.add($0) }
        let makeInner: (Int) -> ((Int) -> Void) -> Void = opaque { value in { $0(value * 2) } }
        for value in 0..<count { makeInner(value)(sink) }
        return result.checksum
    }

    static func subjectFanout(subscribers: Int, events: Int) -> Checksum {
        let result = Accumulator()
        let observers: [(Int) -> Void] = (0..<subscribers).map { _ in opaque { result.add($0) } }
        for value in 0..<events {
            for observer in observers { observer(value) }
        }
        return Checksum(count: result.count, sum: 0)
    }

    static func subscribeDispose(_ count: Int) -> Checksum {
        let result = Accumulator()
        for _ in 0..<count {
            let sink: (Int) -> Void = opaque { result.add($0) }
            let map: (Int) -> Void = opaque { sink($0 + 1) }
            let just: ((Int) -> Void) -> Void = opaque { $0(1) }
            just(map)
        }
        return result.checksum
    }

    static func singleChain(_ count: Int) -> Checksum {
        let result = Accumulator()
        for _ in 0..<count {
            let sink: (Int) -> Void = opaque { result.add($0) }
            let flatMap: (Int) -> Void = opaque { value in
                let inner: ((Int) -> Void) -> Void = opaque { $0(value) }
                inner(sink)
            }
            let map: (Int) -> Void = opaque { flatMap($0 + 1) }
            let just: ((Int) -> Void) -> Void = opaque { $0(1) }
            just(map)
        }
        return result.checksum
    }

    static func combineLatest(_ count: Int) -> Checksum {
        let result = Accumulator()
        var latest: (Int?, Int?) = (nil, nil)
        let emit: (Int) -> Void = opaque { _ in result.count += 1 }
        let onFirst: (Int) -> Void = opaque { value in
            latest.0 = value
            if let other = latest.1 { emit(value + other) }
        }
        let onSecond: (Int) -> Void = opaque { value in
            latest.1 = value
            if let other = latest.0 { emit(other + value) }
        }
        for index in 0..<count {
            if index % 2 == 0 { onFirst(index) } else { onSecond(index) }
        }
        return Checksum(count: result.count, sum: 0)
    }

    static func memory(_ count: Int) -> Int {
        final class Subscription {
            let handler: (Int) -> Void
            init(_ handler: @escaping (Int) -> Void) { self.handler = handler }
        }
        let before = peakResidentBytes()
        var subscriptions: [Subscription] = []
        subscriptions.reserveCapacity(count)
        for _ in 0..<count {
            let sink: (Int) -> Void = opaque { _ in }
            subscriptions.append(Subscription(opaque { sink($0) }))
        }
        let after = peakResidentBytes()
        for subscription in subscriptions.prefix(1) { subscription.handler(1) }
        return (after - before) / count
    }
}
