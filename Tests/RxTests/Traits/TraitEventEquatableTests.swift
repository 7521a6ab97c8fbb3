import Foundation
import Rx
import RxTesting
import XCTest

final class TraitEventEquatableTests: RxTestCase {
    func testMaybeEvent_equalByCaseAndElement() {
        XCTAssertEqual(MaybeEvent.success(1), .success(1))
        XCTAssertNotEqual(MaybeEvent.success(1), .success(2))
        XCTAssertEqual(MaybeEvent<Int>.completed, .completed)
        XCTAssertNotEqual(MaybeEvent.success(1), .completed)
        XCTAssertNotEqual(MaybeEvent<Int>.completed, .error(testError))
        XCTAssertNotEqual(MaybeEvent.success(1), .error(testError))
    }

    func testMaybeEvent_errorsEqualByDomainCodeAndDescription() {
        XCTAssertEqual(MaybeEvent<Int>.error(TestError(1)), .error(TestError(1)))
        XCTAssertNotEqual(MaybeEvent<Int>.error(TestError(1)), .error(TestError(2)))
        XCTAssertNotEqual(MaybeEvent<Int>.error(TestError(1)), .error(OtherError(description: "TestError(1)")))
    }

    func testCompletableEvent_equalByCase() {
        XCTAssertEqual(CompletableEvent.completed, .completed)
        XCTAssertNotEqual(CompletableEvent.completed, .error(testError))
        XCTAssertNotEqual(CompletableEvent.error(testError), .completed)
    }

    func testCompletableEvent_errorsEqualByDomainCodeAndDescription() {
        XCTAssertEqual(CompletableEvent.error(TestError(1)), .error(TestError(1)))
        XCTAssertNotEqual(CompletableEvent.error(TestError(1)), .error(TestError(2)))
        XCTAssertNotEqual(CompletableEvent.error(TestError(1)), .error(OtherError(description: "TestError(1)")))
    }

    func testTraitEvents_recordedFromSubscriptionsCompare() {
        var maybeEvents: [MaybeEvent<Int>] = []
        _ = Maybe.just(1).subscribe { maybeEvents.append($0) }
        _ = Maybe<Int>.empty().subscribe { maybeEvents.append($0) }
        _ = Maybe<Int>.error(testError).subscribe { maybeEvents.append($0) }
        XCTAssertEqual(maybeEvents, [.success(1), .completed, .error(testError)])

        var completableEvents: [CompletableEvent] = []
        _ = Completable.empty().subscribe { completableEvents.append($0) }
        _ = Completable.error(testError).subscribe { completableEvents.append($0) }
        XCTAssertEqual(completableEvents, [.completed, .error(testError)])
    }
}

/// An error of another type than `TestError` that may describe itself the same way.
private struct OtherError: Error, CustomStringConvertible {
    let description: String
}
