import Rx
import RxTesting
import XCTest

final class RangeTests: RxTestCase {
    func testRange_emitsOneIntegerPerSchedulerStep() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.range(start: 5, count: 3, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(201, 5), .next(202, 6), .next(203, 7), .completed(204)])
    }

    func testRange_lastIntegerMayBeMax() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.range(start: Int.max, count: 1, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(201, Int.max), .completed(202)])
    }

    func testRange_disposalStopsEmission() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start(disposed: 204) { Observable.range(start: -10, count: 5, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(201, -10), .next(202, -9), .next(203, -8)])
    }

    func testRange_zeroCountCompletesAtFirstStep() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.range(start: 0, count: 0, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.completed(201)])
    }

    func testRange_negativeCountFailsWithArgumentOutOfRange() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.range(start: 0, count: -1, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.error(200, RxError.argumentOutOfRange)])
    }

    func testRange_pastMaxFailsWithOverflow() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.range(start: Int.max, count: 2, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.error(200, RxError.overflow)])
    }

    func testRange_worksForAnyFixedWidthInteger() {
        var received: [UInt8] = []
        _ = Observable<UInt8>.range(start: 250, count: 6).subscribe(onNext: { received.append($0) })
        XCTAssertEqual(received, [250, 251, 252, 253, 254, 255])

        var errors: [String] = []
        _ = Observable<UInt8>.range(start: 250, count: 7).subscribe(onError: { errors.append("\($0)") })
        XCTAssertEqual(errors, ["\(RxError.overflow)"])
    }

    func testRange_defaultSchedulerEmitsSynchronouslyThenCompletes() {
        var events: [String] = []
        _ = Observable.range(start: 1, count: 3).subscribe(
            onNext: { events.append("\($0)") }, onCompleted: { events.append("completed") })
        XCTAssertEqual(events, ["1", "2", "3", "completed"])
    }

    func testRange_disposingFromOnNextStopsTheLoop() {
        // Subscribing inside a trampoline (here a current-thread action) queues the loop,
        // so the subscription is stored before the first element arrives.
        let received = TraitsBox<[Int]>([])
        let subscription = TraitsBox<Disposable?>(nil)
        _ = CurrentThreadScheduler.instance.schedule(()) { _ in
            subscription.value = Observable.range(start: 0, count: 1_000_000).map { $0 }.subscribe(onNext: { value in
                received.value.append(value)
                if value == 2 { subscription.value?.dispose() }
            })
            return Disposables.create()
        }
        XCTAssertEqual(received.value, [0, 1, 2])
        subscription.value = nil
    }

    func testRange_downstreamThatDisposesUpstreamStopsTheLoop() {
        var results: [String] = []
        _ = Observable.range(start: 0, count: Int.max).asSingle().subscribe(
            onSuccess: { results.append("success \($0)") }, onFailure: { results.append("\($0)") })
        XCTAssertEqual(results, ["\(RxError.moreThanOneElement)"])
    }
}
