import Rx
import RxTesting
import XCTest

final class RecordedAndSubscriptionTests: RxTestCase {
    func testRecorded_equalWhenTimeAndValueAreEqual() {
        XCTAssertEqual(Recorded(time: 10, value: "a"), Recorded(time: 10, value: "a"))
        XCTAssertNotEqual(Recorded(time: 10, value: "a"), Recorded(time: 11, value: "a"))
        XCTAssertNotEqual(Recorded(time: 10, value: "a"), Recorded(time: 10, value: "b"))
    }

    func testRecordedFactories_buildEvents() {
        XCTAssertEqual(Recorded.next(10, 1), Recorded(time: 10, value: Event.next(1)))
        XCTAssertEqual(Recorded<Event<Int>>.completed(20), Recorded(time: 20, value: Event<Int>.completed))
        XCTAssertEqual(
            Recorded<Event<Int>>.error(30, testError), Recorded(time: 30, value: Event<Int>.error(testError)))
    }

    func testRecordedEvents_buildArrays() {
        let variadic = Recorded.events(.next(10, 1), .completed(20))
        let array = Recorded.events([.next(10, 1), .completed(20)])
        XCTAssertEqual(variadic, array)
        XCTAssertEqual(variadic, [.next(10, 1), .completed(20)])
    }

    func testRecordedErrors_equalByTypeAndDescription() {
        XCTAssertEqual(Recorded<Event<Int>>.error(10, TestError(1)), .error(10, TestError(1)))
        XCTAssertNotEqual(Recorded<Event<Int>>.error(10, TestError(1)), .error(10, TestError(2)))
        XCTAssertNotEqual(Recorded<Event<Int>>.error(10, TestError(1)), .error(10, RxError.unknown))
    }

    func testRecordedDebugDescription_isValueAtTime() {
        XCTAssertEqual(Recorded.next(210, 1).debugDescription, "next(1) @ 210")
        XCTAssertEqual(Recorded<Event<Int>>.completed(300).debugDescription, "completed @ 300")
        XCTAssertEqual(Recorded<Event<Int>>.error(5, testError).debugDescription, "error(TestError(1)) @ 5")
        XCTAssertEqual(Recorded(time: 1, value: "x").debugDescription, "x @ 1")
    }

    func testSubscription_openUntilUnsubscribed() {
        XCTAssertEqual(Subscription(200).subscribe, 200)
        XCTAssertEqual(Subscription(200).unsubscribe, Int.max)
        XCTAssertEqual(Subscription(200, 300).unsubscribe, 300)
    }

    func testSubscription_equalityAndHashing() {
        XCTAssertEqual(Subscription(200, 300), Subscription(200, 300))
        XCTAssertNotEqual(Subscription(200, 300), Subscription(200, 301))
        XCTAssertNotEqual(Subscription(200), Subscription(200, 1000))
        XCTAssertEqual(Set([Subscription(1, 2), Subscription(1, 2), Subscription(3)]).count, 2)
    }

    func testSubscriptionDebugDescription_showsInfinityWhenOpen() {
        XCTAssertEqual(Subscription(200, 300).debugDescription, "(200 : 300)")
        XCTAssertEqual(Subscription(200).debugDescription, "(200 : Infinity)")
    }
}
