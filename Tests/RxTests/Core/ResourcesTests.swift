import Rx
import XCTest

/// `Resources`: the live-resource count that custom operators may take part in.
final class ResourcesTests: RxTestCase {
    func testIncrementAndDecrementTotal_returnTheNewCount() {
        let before = Resources.total
        let incremented: Int32 = Resources.incrementTotal()
        XCTAssertEqual(incremented, before + 1)
        XCTAssertEqual(Resources.total, before + 1)
        let decremented: Int32 = Resources.decrementTotal()
        XCTAssertEqual(decremented, before)
        XCTAssertEqual(Resources.total, before)
    }

    func testIncrementAndDecrementTotal_canIgnoreTheResult() {
        let before = Resources.total
        Resources.incrementTotal()
        Resources.incrementTotal()
        XCTAssertEqual(Resources.total, before + 2)
        Resources.decrementTotal()
        Resources.decrementTotal()
        XCTAssertEqual(Resources.total, before)
    }

    func testNumberOfSerialDispatchQueueObservables_countsEachObserveOnASerialQueueWhileItLives() {
        let before = Resources.numberOfSerialDispatchQueueObservables
        do {
            let serial = SerialDispatchQueueScheduler(internalSerialQueueName: "ResourcesTests")
            let onSerial = Observable.just(1).observe(on: serial)
            let onMain = Observable.just(2).observe(on: MainScheduler.instance)
            let single = Single.just(3).observe(on: serial)
            let onConcurrent = Observable.just(4).observe(on: ConcurrentDispatchQueueScheduler(qos: .default))
            XCTAssertEqual(Resources.numberOfSerialDispatchQueueObservables, before + 3)

            // Subscribing does not count again: the count is of observables.
            let done = expectation(description: "delivered on the serial queue")
            let subscription = onSerial.subscribe(onCompleted: { done.fulfill() })
            XCTAssertEqual(Resources.numberOfSerialDispatchQueueObservables, before + 3)
            wait(for: [done], timeout: 5)
            subscription.dispose()
            withExtendedLifetime((onSerial, onMain, single, onConcurrent)) {}
        }
        XCTAssertEqual(Resources.numberOfSerialDispatchQueueObservables, before)
    }

    /// Observables count while they live, as in RxSwift, so a leak check also catches an
    /// operator that keeps its source alive.
    func testTotal_countsEachObservableWhileItLives() {
        let before = Resources.total
        var observable: Observable<Int>? = Observable.just(1)
        XCTAssertEqual(Resources.total, before + 1)
        var mapped: Observable<Int>? = observable?.map { $0 + 1 }
        XCTAssertEqual(Resources.total, before + 2)
        observable = nil
        // The mapped observable holds its source.
        XCTAssertEqual(Resources.total, before + 2)
        withExtendedLifetime(mapped) {}
        mapped = nil
        XCTAssertEqual(Resources.total, before)
    }
}
