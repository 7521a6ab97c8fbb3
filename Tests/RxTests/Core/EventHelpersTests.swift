import Foundation
import Rx
import RxTesting
import XCTest

final class EventHelpersTests: RxTestCase {
    func testIsStopEvent_trueOnlyForTerminalEvents() {
        XCTAssertFalse(Event.next(1).isStopEvent)
        XCTAssertTrue(Event<Int>.error(testError).isStopEvent)
        XCTAssertTrue(Event<Int>.completed.isStopEvent)
    }

    func testElement_presentOnlyOnNext() {
        XCTAssertEqual(Event.next(1).element, 1)
        XCTAssertNil(Event<Int>.error(testError).element)
        XCTAssertNil(Event<Int>.completed.element)
    }

    func testError_presentOnlyOnError() {
        XCTAssertEqual(Event<Int>.error(testError).error as? TestError, testError)
        XCTAssertNil(Event.next(1).error)
        XCTAssertNil(Event<Int>.completed.error)
    }

    func testIsCompleted_trueOnlyForCompleted() {
        XCTAssertTrue(Event<Int>.completed.isCompleted)
        XCTAssertFalse(Event.next(1).isCompleted)
        XCTAssertFalse(Event<Int>.error(testError).isCompleted)
    }

    func testMap_transformsElementAndKeepsTerminalEvents() {
        XCTAssertEqual(Event.next(2).map { $0 * 10 }, .next(20))
        XCTAssertEqual(Event<Int>.completed.map { $0 * 10 }, .completed)
        XCTAssertEqual(Event<Int>.error(testError).map { $0 * 10 }, .error(testError))
    }

    func testMap_thrownErrorBecomesErrorEvent() {
        let mapped: Event<String> = Event.next(1).map { _ in throw testError2 }
        XCTAssertEqual(mapped, .error(testError2))
    }

    func testMap_doesNotCallTransformForTerminalEvents() {
        var calls = 0
        _ = Event<Int>.completed.map { value -> Int in
            calls += 1
            return value
        }
        _ = Event<Int>.error(testError).map { value -> Int in
            calls += 1
            return value
        }
        XCTAssertEqual(calls, 0)
    }

    func testEquality_comparesCasesAndElements() {
        XCTAssertEqual(Event.next(1), .next(1))
        XCTAssertNotEqual(Event.next(1), .next(2))
        XCTAssertNotEqual(Event.next(1), .completed)
        XCTAssertEqual(Event<Int>.completed, .completed)
        XCTAssertNotEqual(Event<Int>.completed, .error(testError))
    }

    func testEquality_errorsEqualByDomainCodeAndDescription() {
        XCTAssertEqual(Event<Int>.error(TestError(1)), .error(TestError(1)))
        XCTAssertNotEqual(Event<Int>.error(TestError(1)), .error(TestError(2)))
        // Same description, different type (so different domain): not equal.
        XCTAssertNotEqual(Event<Int>.error(TestError(1)), .error(DescribedError(description: "TestError(1)")))
        XCTAssertEqual(Event<Int>.error(RxError.timeout), .error(RxError.timeout))
        XCTAssertNotEqual(Event<Int>.error(RxError.timeout), .error(RxError.noElements))
    }

    func testEquality_errorsWithTheSameDescriptionButAnotherCodeDiffer() {
        // Both cases describe themselves alike; only their codes tell them apart, as in RxTest.
        XCTAssertEqual("\(AlikeError.first)", "\(AlikeError.second)")
        XCTAssertNotEqual(Event<Int>.error(AlikeError.first), .error(AlikeError.second))
        XCTAssertEqual(Event<Int>.error(AlikeError.second), .error(AlikeError.second))
    }

    func testEquality_foundationErrorEqualsTheNSErrorItBridgesTo() {
        // What a session reports is an `NSError`; a test expects the `URLError`.
        let reported: Error = NSError(domain: NSURLErrorDomain, code: URLError.timedOut.rawValue)
        XCTAssertEqual(Event<Int>.error(reported), .error(URLError(.timedOut)))
        XCTAssertNotEqual(Event<Int>.error(reported), .error(URLError(.cancelled)))
        XCTAssertNotEqual(
            Event<Int>.error(NSError(domain: "other", code: URLError.timedOut.rawValue)), .error(URLError(.timedOut)))
    }

    func testDebugDescription_namesCaseAndPayload() {
        XCTAssertEqual(Event.next(1).debugDescription, "next(1)")
        XCTAssertEqual(Event<Int>.completed.debugDescription, "completed")
        XCTAssertEqual(Event<Int>.error(testError).debugDescription, "error(TestError(1))")
    }

    func testEventConvertible_eventIsItself() {
        XCTAssertEqual(Event.next(3).event, .next(3))
        XCTAssertEqual(Event<Int>.completed.event, .completed)
    }

    func testRxError_descriptions() {
        XCTAssertEqual(RxError.timeout.description, "Sequence timeout.")
        XCTAssertEqual(RxError.noElements.debugDescription, "Sequence doesn't contain any elements.")
        XCTAssertEqual(RxError.moreThanOneElement.description, "Sequence contains more than one element.")
        XCTAssertEqual(RxError.argumentOutOfRange.description, "Argument out of range.")
        XCTAssertEqual(RxError.overflow.description, "Arithmetic overflow occurred.")
        XCTAssertEqual(RxError.unknown.description, "Unknown error occurred.")
        XCTAssertTrue(RxError.disposed(object: BooleanDisposable()).description.hasSuffix("was already disposed."))
    }
}

private struct DescribedError: Error, CustomStringConvertible {
    let description: String
}

/// Two errors that describe themselves alike and differ only in their codes.
private enum AlikeError: Error, CustomStringConvertible {
    case first, second
    var description: String { "alike" }
}
