import Rx

/// The scenarios of BENCHMARKS.md on Leash's `Rx`.
enum RxScenarios {
    static func mapFilterSum(_ count: Int) -> Checksum {
        let result = Accumulator()
        _ = Observable.from(0..<count)
            .map { $0 + 1 }
            .filter { $0 % 2 == 0 }
            .subscribe(onNext: { result.add($0) })
        return result.checksum
    }

    static func flatMapInner(_ count: Int) -> Checksum {
        let result = Accumulator()
        _ = Observable.from(0..<count)
            .flatMap { Observable.just($0 * 2) }
            .subscribe(onNext: { result.add($0) })
        return result.checksum
    }

    static func subjectFanout(subscribers: Int, events: Int) -> Checksum {
        let result = Accumulator()
        let subject = PublishSubject<Int>()
        let subscriptions = (0..<subscribers).map { _ in subject.subscribe(onNext: { result.add($0) }) }
        for value in 0..<events { subject.onNext(value) }
        subscriptions.forEach { $0.dispose() }
        return Checksum(count: result.count, sum: 0)
    }

    static func subscribeDispose(_ count: Int) -> Checksum {
        let result = Accumulator()
        for _ in 0..<count {
            Observable.just(1).map { $0 + 1 }.subscribe(onNext: { result.add($0) }).dispose()
        }
        return result.checksum
    }

    static func singleChain(_ count: Int) -> Checksum {
        let result = Accumulator()
        for _ in 0..<count {
            Single.just(1).map { $0 + 1 }.flatMap { Single.just($0) }
                .subscribe(onSuccess: { result.add($0) }).dispose()
        }
        return result.checksum
    }

    static func combineLatest(_ count: Int) -> Checksum {
        let result = Accumulator()
        let first = PublishSubject<Int>()
        let second = PublishSubject<Int>()
        let subscription = Observable.combineLatest(first, second) { $0 + $1 }
            .subscribe(onNext: { _ in result.count += 1 })
        for index in 0..<count {
            if index % 2 == 0 { first.onNext(index) } else { second.onNext(index) }
        }
        subscription.dispose()
        return Checksum(count: result.count, sum: 0)
    }

    static func memory(_ count: Int) -> Int {
        let subject = PublishSubject<Int>()
        let before = peakResidentBytes()
        var subscriptions: [Disposable] = []
        subscriptions.reserveCapacity(count)
        for _ in 0..<count {
            subscriptions.append(subject.map { $0 }.subscribe(onNext: { _ in }))
        }
        let after = peakResidentBytes()
        subject.onNext(1)
        withExtendedLifetime(subscriptions) {}
        return (after - before) / count
    }
}
