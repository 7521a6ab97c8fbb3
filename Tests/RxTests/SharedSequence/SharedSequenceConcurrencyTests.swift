import Rx
import RxTesting
import XCTest

/// `Driver.from` and `Signal.from` with async work, and `values`. The sequences are made
/// under a scheduler on a queue of its own, so that nothing waits for the main queue.
final class SharedSequenceConcurrencyTests: RxTestCase {
    private func make<Result>(_ body: () -> Result) -> Result {
        var result: Result?
        SharingScheduler.mock(scheduler: SerialDispatchQueueScheduler(internalSerialQueueName: "shared-async")) {
            result = body()
        }
        // `mock` runs `body` once, synchronously.
        return result ?? body()
    }

    private func collect<Element>(_ sequence: SharedSequence<some SharingStrategyProtocol, Element>) async
        -> [Element]
    {
        var received: [Element] = []
        for await element in sequence.values { received.append(element) }
        return received
    }

    func testDriverFrom_deliversTheValueOrTheRecovery() async {
        let value = make { Driver.from({ 7 }, onErrorJustReturn: -1) }
        let replaced = make { Driver<Int>.from({ throw testError }, onErrorJustReturn: -1) }
        let drivenWith = make { Driver<Int>.from({ throw testError }, onErrorDriveWith: Driver.just(2)) }
        // The recovery is made when the error comes, outside `make`: made beforehand.
        let three = make { Driver.just(3) }
        let recovered = make { Driver<Int>.from({ throw testError }, onErrorRecover: { _ in three }) }
        let collected = [
            await collect(value), await collect(replaced), await collect(drivenWith), await collect(recovered),
        ]
        XCTAssertEqual(collected, [[7], [-1], [2], [3]])
    }

    func testSignalFrom_deliversTheValueOrTheRecovery() async {
        let value = make { Signal.from({ 7 }, onErrorJustReturn: -1) }
        let replaced = make { Signal<Int>.from({ throw testError }, onErrorJustReturn: -1) }
        let signalledWith = make { Signal<Int>.from({ throw testError }, onErrorSignalWith: Signal.just(2)) }
        let three = make { Signal.just(3) }
        let recovered = make { Signal<Int>.from({ throw testError }, onErrorRecover: { _ in three }) }
        let collected = [
            await collect(value), await collect(replaced), await collect(signalledWith), await collect(recovered),
        ]
        XCTAssertEqual(collected, [[7], [-1], [2], [3]])
    }

    func testValues_yieldsTheElementsThenFinishes() async {
        var driver: Driver<Int> = .never()
        // A queue of its own, so that nothing waits for the main queue.
        SharingScheduler.mock(scheduler: SerialDispatchQueueScheduler(internalSerialQueueName: "values")) {
            driver = Observable.from([1, 2, 3]).asDriver(onErrorJustReturn: -1)
        }
        var received: [Int] = []
        for await value in driver.values {
            received.append(value)
        }
        XCTAssertEqual(received, [1, 2, 3])
    }
}
