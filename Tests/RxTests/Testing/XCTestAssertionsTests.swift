import Foundation
import Rx
import XCTest

@testable import RxTesting

final class XCTestAssertionsTests: RxTestCase {
    // MARK: passing assertions

    func testAssertEqual_passesForEqualLists() {
        // Each of these would record a failure (and fail this test) if it reported one.
        let failures = recordedFailures {
            XCTAssertEqual([Event.next(1), .completed], [.next(1), .completed])
            XCTAssertEqual([SingleEvent.success(1), .failure(testError)], [.success(1), .failure(testError)])
            XCTAssertEqual(
                [MaybeEvent.success(1), .completed, .error(testError)], [.success(1), .completed, .error(testError)])
            XCTAssertEqual([CompletableEvent.completed, .error(testError)], [.completed, .error(testError)])
            XCTAssertEqual([Recorded.next(210, 1), .completed(300)], [.next(210, 1), .completed(300)])
            XCTAssertEqual([Recorded.next(210, nil), .next(220, Int?(2))], [.next(210, nil), .next(220, 2)])
            XCTAssertRecordedElements([.next(210, "a"), .next(220, "b")], ["a", "b"])
        }
        XCTAssertEqual(failures.map(\.description), [])
    }

    func testAssertEqual_comparesTestSchedulerEventsOfEveryTrait() {
        let scheduler = TestScheduler(initialClock: 0)
        let single = scheduler.start { Single.just(1) }
        let completable = scheduler.start(created: 1100, subscribed: 1200, disposed: 2000) {
            Completable.error(testError)
        }
        let failures = recordedFailures {
            XCTAssertEqual(single.events, [.next(200, 1), .completed(200)])
            XCTAssertEqual(completable.events, [.error(1200, testError)])
        }
        XCTAssertEqual(failures.map(\.description), [])
    }

    // MARK: failing assertions (checked through the comparisons they report)

    func testListMismatch_nilWhenEqual() {
        XCTAssertNil(listMismatch([1, 2], [1, 2], ==))
        XCTAssertNil(listMismatch([Int](), [], ==))
    }

    func testListMismatch_listsBothSidesAndEachDifferingIndex() {
        let lhs: [Recorded<Event<Int>>] = [.next(210, 1), .next(220, 2), .completed(300)]
        let rhs: [Recorded<Event<Int>>] = [.next(210, 1), .next(230, 2)]
        XCTAssertEqual(
            listMismatch(lhs, rhs, ==),
            """
            ("[next(1) @ 210, next(2) @ 220, completed @ 300]") is not equal to ("[next(1) @ 210, next(2) @ 230]")
            Differences:
            lhs[1]: next(2) @ 220
            rhs[1]: next(2) @ 230
            lhs[2]: completed @ 300
            """)
    }

    func testListMismatch_showsTheExtraItemsOfTheLongerSide() {
        XCTAssertEqual(
            listMismatch([Event<Int>.next(1)], [.next(1), .completed], ==),
            """
            ("[next(1)]") is not equal to ("[next(1), completed]")
            Differences:
            rhs[1]: completed
            """)
    }

    func testSingleEventsAreEqual_comparesElementsAndErrors() {
        XCTAssertTrue(singleEventsAreEqual(.success(1), .success(1)))
        XCTAssertFalse(singleEventsAreEqual(.success(1), .success(2)))
        XCTAssertFalse(singleEventsAreEqual(.success(1), .failure(testError)))
        XCTAssertTrue(singleEventsAreEqual(SingleEvent<Int>.failure(TestError(1)), .failure(TestError(1))))
        XCTAssertFalse(singleEventsAreEqual(SingleEvent<Int>.failure(TestError(1)), .failure(TestError(2))))
        XCTAssertFalse(singleEventsAreEqual(SingleEvent<Int>.failure(TestError(1)), .failure(RxError.unknown)))
    }

    func testRecordedElementsMismatch_ignoresTimesAndComparesElements() {
        XCTAssertNil(recordedElementsMismatch([.next(210, 1), .next(500, 2)], [1, 2]))
        XCTAssertNil(recordedElementsMismatch([Recorded<Event<Int>>](), []))
        XCTAssertEqual(
            recordedElementsMismatch([.next(210, 1), .next(220, 3)], [1, 2]),
            """
            ("[1, 3]") is not equal to ("[1, 2]")
            Differences:
            lhs[1]: 3
            rhs[1]: 2
            """)
    }

    func testRecordedElementsMismatch_failsOnAStopEvent() {
        XCTAssertEqual(
            recordedElementsMismatch([.next(210, 1), .completed(300)], [1]),
            "the stream has a stop event: completed @ 300")
        XCTAssertEqual(
            recordedElementsMismatch([.error(210, testError)], [Int]()),
            "the stream has a stop event: error(TestError(1)) @ 210")
    }

    func testRecordedElementsMismatch_keepsNilElements() {
        XCTAssertNil(recordedElementsMismatch([.next(210, nil), .next(220, Int?(1))], [nil, 1]))
        XCTAssertNotNil(recordedElementsMismatch([.next(210, Int?(nil))], [Int?]()))
    }

    // MARK: failures reported at the caller (where XCTest lets a test case intercept them)

    #if !canImport(ObjectiveC)
        func testAssertEqual_reportsTheDifferencesAtTheCallersLine() {
            var line: UInt = 0
            let failures = recordedFailures {
                line = #line + 1
                XCTAssertEqual([Recorded.next(210, 1)], [.next(220, 1)])
            }
            XCTAssertEqual(failures.count, 1)
            XCTAssertEqual(failures.first?.line, Int(line))
            XCTAssertEqual(failures.first?.file, #filePath)
            // The overload of RxTesting, not XCTest's generic one, reported it.
            XCTAssertTrue(failures.first?.description.contains("Differences:\nlhs[0]: next(1) @ 210") ?? false)
        }

        func testAssertEqual_everyOverloadReportsAMismatch() {
            let failures = recordedFailures {
                XCTAssertEqual([Event.next(1)], [.next(2)])
                XCTAssertEqual([SingleEvent.success(1)], [.failure(testError)])
                XCTAssertEqual([MaybeEvent.success(1)], [.completed])
                XCTAssertEqual([CompletableEvent.completed], [.error(testError)])
                XCTAssertEqual([Recorded<Event<Int>>.error(210, TestError(1))], [.error(210, TestError(2))])
                XCTAssertEqual([Recorded.next(210, Int?(nil))], [.next(210, 1)])
            }
            XCTAssertEqual(failures.count, 6)
            XCTAssertEqual(failures.filter { $0.description.contains("XCTAssertEqual failed: (") }.count, 6)
        }

        func testAssertRecordedElements_reportsStopEventsAndOtherElements() {
            let failures = recordedFailures {
                XCTAssertRecordedElements([.next(210, 1), .completed(300)], [1])
                XCTAssertRecordedElements([.next(210, 1)], [2])
            }
            XCTAssertEqual(failures.count, 2)
            XCTAssertTrue(failures.first?.description.contains("stop event: completed @ 300") ?? false)
            XCTAssertTrue(failures.last?.description.contains("lhs[0]: 1\nrhs[0]: 2") ?? false)
        }
    #endif

    // MARK: intercepting failures

    /// A failure an assertion reported.
    struct Failure: CustomStringConvertible {
        let description: String
        let file: String
        let line: Int
    }

    /// The failures recorded while `body` runs, kept from failing this test; `nil` when not
    /// intercepting.
    private var intercepted: [Failure]?

    /// Runs `body` and returns the failures it recorded instead of failing the test. Where
    /// the failures cannot be intercepted (XCTest on Apple platforms records them through
    /// `record(_:)`), they fail the test as usual and the result is empty.
    private func recordedFailures(_ body: () -> Void) -> [Failure] {
        intercepted = []
        defer { intercepted = nil }
        body()
        return intercepted ?? []
    }

    #if !canImport(ObjectiveC)
        override func recordFailure(
            withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
        ) {
            if intercepted != nil {
                intercepted?.append(Failure(description: description, file: filePath, line: lineNumber))
            } else {
                super.recordFailure(
                    withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
            }
        }
    #endif
}
