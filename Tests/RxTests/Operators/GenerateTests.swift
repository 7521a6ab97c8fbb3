import Rx
import RxTesting
import XCTest

final class GenerateTests: RxTestCase {
    func testGenerate_finiteLoopEmitsEachStateThenCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start {
            Observable.generate(initialState: 0, condition: { $0 <= 3 }, scheduler: scheduler) { $0 + 1 }
        }
        XCTAssertEqual(res.events, [.next(201, 0), .next(202, 1), .next(203, 2), .next(204, 3), .completed(205)])
    }

    func testGenerate_conditionErrorEndsSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start {
            Observable.generate(initialState: 0, condition: { _ in throw testError }, scheduler: scheduler) { $0 + 1 }
        }
        XCTAssertEqual(res.events, [.error(201, testError)])
    }

    func testGenerate_iterateErrorEndsSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start {
            Observable.generate(initialState: 0, condition: { _ in true }, scheduler: scheduler) { (_: Int) -> Int in
                throw testError
            }
        }
        XCTAssertEqual(res.events, [.next(201, 0), .error(202, testError)])
    }

    func testGenerate_disposalStopsTheLoop() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start(disposed: 203) {
            Observable.generate(initialState: 0, condition: { _ in true }, scheduler: scheduler) { $0 + 1 }
        }
        XCTAssertEqual(res.events, [.next(201, 0), .next(202, 1)])
    }

    func testGenerate_falseInitialConditionCompletesAtOnce() {
        var events: [String] = []
        _ = Observable.generate(initialState: 10, condition: { $0 < 3 }) { $0 + 1 }
            .subscribe(onNext: { events.append("\($0)") }, onCompleted: { events.append("completed") })
        XCTAssertEqual(events, ["completed"])
    }

    func testGenerate_defaultSchedulerStopsIteratingOnceDisposed() {
        let iterations = TraitsBox(0)
        let received = TraitsBox<[Int]>([])
        let subscription = TraitsBox<Disposable?>(nil)
        _ = CurrentThreadScheduler.instance.schedule(()) { _ in
            subscription.value = Observable.generate(initialState: 0, condition: { _ in true }) { value in
                iterations.value += 1
                return value + 1
            }
            .subscribe(onNext: { value in
                received.value.append(value)
                if received.value.count == 4 { subscription.value?.dispose() }
            })
            return Disposables.create()
        }
        XCTAssertEqual(received.value, [0, 1, 2, 3])
        XCTAssertEqual(iterations.value, 3)
        subscription.value = nil
    }
}
