import OpenCombine

/// The same scenarios on OpenCombine 0.14.0.
enum OpenCombineScenarios {
    static func mapFilterSum(_ count: Int) -> Checksum {
        let result = Accumulator()
        _ = (0..<count).publisher
            .map { $0 + 1 }
            .filter { $0 % 2 == 0 }
            .sink { result.add($0) }
        return result.checksum
    }

    static func flatMapInner(_ count: Int) -> Checksum {
        let result = Accumulator()
        _ = (0..<count).publisher
            .flatMap { Just($0 * 2) }
            .sink { result.add($0) }
        return result.checksum
    }

    static func subjectFanout(subscribers: Int, events: Int) -> Checksum {
        let result = Accumulator()
        let subject = PassthroughSubject<Int, Never>()
        let cancellables = (0..<subscribers).map { _ in subject.sink { result.add($0) } }
        for value in 0..<events { subject.send(value) }
        cancellables.forEach { $0.cancel() }
        return Checksum(count: result.count, sum: 0)
    }

    static func subscribeDispose(_ count: Int) -> Checksum {
        let result = Accumulator()
        for _ in 0..<count {
            Just(1).map { $0 + 1 }.sink { result.add($0) }.cancel()
        }
        return result.checksum
    }

    static func singleChain(_ count: Int) -> Checksum {
        let result = Accumulator()
        for _ in 0..<count {
            Just(1).map { $0 + 1 }.flatMap { Just($0) }.sink { result.add($0) }.cancel()
        }
        return result.checksum
    }

    static func memory(_ count: Int) -> Int {
        let subject = PassthroughSubject<Int, Never>()
        let before = peakResidentBytes()
        var cancellables: [AnyCancellable] = []
        cancellables.reserveCapacity(count)
        for _ in 0..<count {
            cancellables.append(subject.map { $0 }.sink { _ in })
        }
        let after = peakResidentBytes()
        subject.send(1)
        withExtendedLifetime(cancellables) {}
        return (after - before) / count
    }
}
