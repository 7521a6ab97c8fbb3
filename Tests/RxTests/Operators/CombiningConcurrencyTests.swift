import Dispatch
import Foundation
import Rx
import XCTest

/// Sources emitting from several threads at once: exact counts, and downstream never
/// entered by two threads at a time.
final class CombiningConcurrencyTests: RxTestCase {
    private let perSource = 20_000

    /// Runs `work(index)` for each index on its own thread, all at once, and waits for all.
    private func runConcurrently(_ count: Int, _ work: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        for index in 0..<count {
            let thread = Thread {
                start.wait()
                work(index)
                group.leave()
            }
            group.enter()
            thread.start()
        }
        for _ in 0..<count { start.signal() }
        group.wait()
    }

    func testCombineLatest_sourcesOnSeveralThreadsGiveOneResultPerElementSerially() {
        let subjects = (0..<4).map { _ in PublishSubject<Int>() }
        let probe = CombiningConcurrencyProbe<[Int]>()
        var completed = false
        let subscription = Observable.combineLatest(subjects.map { $0.asObservable() })
            .subscribe(
                onNext: { values in
                    probe.enter(values)
                    probe.exit()
                },
                onCompleted: { completed = true })
        for subject in subjects { subject.onNext(0) }
        let perSource = self.perSource
        runConcurrently(subjects.count) { index in
            for value in 1...perSource { subjects[index].onNext(value) }
            subjects[index].onCompleted()
        }
        let elements = probe.elements
        XCTAssertEqual(elements.count, 1 + subjects.count * perSource)
        XCTAssertEqual(elements.last, Array(repeating: perSource, count: subjects.count))
        XCTAssertEqual(probe.overlaps, 0)
        XCTAssertTrue(completed)
        // Each source's values are seen in order.
        for source in subjects.indices {
            let seen = elements.map { $0[source] }
            XCTAssertEqual(seen, seen.sorted())
        }
        subscription.dispose()
    }

    func testCombineLatestArity2_sourcesOnTwoThreadsGiveOneResultPerElementSerially() {
        let first = PublishSubject<Int>()
        let second = PublishSubject<Int>()
        let probe = CombiningConcurrencyProbe<Int>()
        let subscription = Observable.combineLatest(first, second) { $0 + $1 }
            .subscribe(onNext: { sum in
                probe.enter(sum)
                probe.exit()
            })
        first.onNext(0)
        second.onNext(0)
        let perSource = self.perSource
        runConcurrently(2) { index in
            let subject = index == 0 ? first : second
            for value in 1...perSource { subject.onNext(value) }
        }
        XCTAssertEqual(probe.elements.count, 1 + 2 * perSource)
        XCTAssertEqual(probe.elements.last, 2 * perSource)
        XCTAssertEqual(probe.overlaps, 0)
        subscription.dispose()
    }

    func testMerge_sourcesOnSeveralThreadsDeliverEveryElementSerially() {
        let subjects = (0..<4).map { _ in PublishSubject<Int>() }
        let probe = CombiningConcurrencyProbe<Int>()
        var completed = false
        let subscription = Observable.merge(subjects.map { $0.asObservable() })
            .subscribe(
                onNext: { value in
                    probe.enter(value)
                    probe.exit()
                },
                onCompleted: { completed = true })
        let perSource = self.perSource
        runConcurrently(subjects.count) { index in
            for value in 1...perSource { subjects[index].onNext(index * 1_000_000 + value) }
            subjects[index].onCompleted()
        }
        let elements = probe.elements
        XCTAssertEqual(elements.count, subjects.count * perSource)
        XCTAssertEqual(probe.overlaps, 0)
        XCTAssertTrue(completed)
        for source in subjects.indices {
            let fromSource = elements.filter { $0 / 1_000_000 == source }
            XCTAssertEqual(fromSource, (1...perSource).map { source * 1_000_000 + $0 })
        }
        subscription.dispose()
    }

    func testMergeInner_innersOnSeveralThreadsDeliverEveryElementSerially() {
        let outer = PublishSubject<Observable<Int>>()
        let inners = (0..<4).map { _ in PublishSubject<Int>() }
        let probe = CombiningConcurrencyProbe<Int>()
        var completed = false
        let subscription = outer.merge(maxConcurrent: 4)
            .subscribe(
                onNext: { value in
                    probe.enter(value)
                    probe.exit()
                },
                onCompleted: { completed = true })
        for inner in inners { outer.onNext(inner.asObservable()) }
        outer.onCompleted()
        let perSource = self.perSource
        runConcurrently(inners.count) { index in
            for value in 1...perSource { inners[index].onNext(value) }
            inners[index].onCompleted()
        }
        XCTAssertEqual(probe.elements.count, inners.count * perSource)
        XCTAssertEqual(probe.elements.reduce(0, +), inners.count * perSource * (perSource + 1) / 2)
        XCTAssertEqual(probe.overlaps, 0)
        XCTAssertTrue(completed)
        subscription.dispose()
    }

    func testZip_sourcesOnTwoThreadsPairElementsByIndexSerially() {
        let first = PublishSubject<Int>()
        let second = PublishSubject<Int>()
        let probe = CombiningConcurrencyProbe<Int>()
        var completed = false
        let subscription = Observable.zip(first, second) { $0 - $1 }
            .subscribe(
                onNext: { difference in
                    probe.enter(difference)
                    probe.exit()
                },
                onCompleted: { completed = true })
        let perSource = self.perSource
        runConcurrently(2) { index in
            let subject = index == 0 ? first : second
            for value in 1...perSource { subject.onNext(value) }
            subject.onCompleted()
        }
        XCTAssertEqual(probe.elements, Array(repeating: 0, count: perSource))
        XCTAssertEqual(probe.overlaps, 0)
        XCTAssertTrue(completed)
        subscription.dispose()
    }

    func testAmb_racingSourcesLetExactlyOneWinner() {
        for _ in 0..<200 {
            let subjects = (0..<4).map { _ in PublishSubject<Int>() }
            let probe = CombiningConcurrencyProbe<Int>()
            let subscription = Observable.amb(subjects.map { $0.asObservable() })
                .subscribe(onNext: { value in
                    probe.enter(value)
                    probe.exit()
                })
            runConcurrently(subjects.count) { index in
                for value in 0..<10 { subjects[index].onNext(index * 100 + value) }
            }
            let elements = probe.elements
            let winner = elements.first.map { $0 / 100 }
            XCTAssertEqual(elements.count, 10)
            XCTAssertEqual(elements, (0..<10).map { (winner ?? 0) * 100 + $0 })
            XCTAssertEqual(probe.overlaps, 0)
            for (index, subject) in subjects.enumerated() where index != winner {
                XCTAssertFalse(subject.hasObservers)
            }
            subscription.dispose()
        }
    }

    func testSwitchLatest_switchingWhileTheInnerEmitsOnAnotherThreadNeverOverlaps() {
        let outer = PublishSubject<Observable<Int>>()
        let inners = (0..<50).map { _ in PublishSubject<Int>() }
        let probe = CombiningConcurrencyProbe<Int>()
        let subscription = outer.switchLatest()
            .subscribe(onNext: { value in
                probe.enter(value)
                probe.exit()
            })
        runConcurrently(2) { index in
            if index == 0 {
                for inner in inners { outer.onNext(inner.asObservable()) }
            } else {
                for round in 0..<2_000 {
                    for inner in inners where inner.hasObservers { inner.onNext(round) }
                }
            }
        }
        inners[inners.count - 1].onNext(-1)
        XCTAssertEqual(probe.elements.last, -1)
        XCTAssertEqual(probe.overlaps, 0)
        subscription.dispose()
        XCTAssertFalse(outer.hasObservers)
        XCTAssertFalse(inners.contains { $0.hasObservers })
    }

    /// A source that emits `value` and completes on a global queue, after its subscription;
    /// `running` counts the subscriptions in progress.
    private func asyncJust(_ value: Int, running: RunningCount = RunningCount()) -> Observable<Int> {
        Observable<Int>.create { observer in
            running.change(by: 1)
            DispatchQueue.global().async {
                observer.onNext(value)
                running.change(by: -1)
                observer.onCompleted()
            }
            return Disposables.create()
        }
    }

    func testConcat_sourcesCompletingOnOtherThreadsRunInOrder() {
        let count = 300
        let done = expectation(description: "completed")
        let probe = CombiningConcurrencyProbe<Int>()
        let subscription = Observable.concat((0..<count).map { asyncJust($0) })
            .subscribe(
                onNext: { value in
                    probe.enter(value)
                    probe.exit()
                },
                onCompleted: { done.fulfill() })
        wait(for: [done], timeout: 20)
        XCTAssertEqual(probe.elements, Array(0..<count))
        XCTAssertEqual(probe.overlaps, 0)
        subscription.dispose()
    }

    func testMergeMaxConcurrent_innersCompletingOnOtherThreadsAllRunOnce() {
        let count = 300
        let done = expectation(description: "completed")
        let probe = CombiningConcurrencyProbe<Int>()
        let running = RunningCount()
        let subscription = Observable.from((0..<count).map { asyncJust($0, running: running) })
            .merge(maxConcurrent: 3)
            .subscribe(
                onNext: { value in
                    probe.enter(value)
                    probe.exit()
                },
                onCompleted: { done.fulfill() })
        wait(for: [done], timeout: 20)
        XCTAssertEqual(probe.elements.sorted(), Array(0..<count))
        XCTAssertEqual(probe.overlaps, 0)
        XCTAssertLessThanOrEqual(running.maximum, 3)
        subscription.dispose()
    }
}

/// A thread-safe count of running sources that remembers its maximum.
private final class RunningCount: @unchecked Sendable {
    // Sendable: every access takes `lock`.
    private let lock = NSLock()
    private var current = 0
    private var peak = 0

    func change(by delta: Int) {
        lock.lock()
        current += delta
        peak = max(peak, current)
        lock.unlock()
    }

    var maximum: Int {
        lock.lock()
        defer { lock.unlock() }
        return peak
    }
}
