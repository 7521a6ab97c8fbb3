import Dispatch
import Foundation
import MallocCounter
import XCTest

@testable import net_benchmarks

/// A fake server for the driver: answers after `latency` on a background queue with the
/// value `answer` gives for the request's index, and records how many requests were
/// outstanding at once.
private final class FakeServer: @unchecked Sendable {
    // @unchecked: the counters are only touched under `lock`.
    private let lock = NSLock()
    private var outstanding = 0
    private var received = 0
    private(set) var maxOutstanding = 0
    private let latency: DispatchTimeInterval
    private let answer: @Sendable (Int) -> Sample?

    init(
        latency: DispatchTimeInterval = .milliseconds(1),
        answer: @escaping @Sendable (Int) -> Sample? = { _ in .expected }
    ) {
        self.latency = latency
        self.answer = answer
    }

    var requestCount: Int { lock.withLock { received } }
    var peak: Int { lock.withLock { maxOutstanding } }

    func handle(_ completion: @escaping @Sendable (Sample?) -> Void) {
        let index = lock.withLock { () -> Int in
            outstanding += 1
            maxOutstanding = max(maxOutstanding, outstanding)
            received += 1
            return received - 1
        }
        let value = answer(index)
        DispatchQueue.global().asyncAfter(deadline: .now() + latency) { [self] in
            lock.withLock { outstanding -= 1 }
            completion(value)
        }
    }
}

final class ClosedLoopTests: XCTestCase {
    func testClosedLoop_sixtyFourInFlight_keepsExactlyThatManyOutstandingAndCountsEveryValue() {
        let server = FakeServer()
        let tally = closedLoop(total: 300, inFlight: 64) { completion in server.handle(completion) }
        XCTAssertEqual(tally, Tally(values: 300))
        XCTAssertEqual(server.requestCount, 300)
        XCTAssertEqual(server.peak, 64)
    }

    func testClosedLoop_oneAtATime_neverOverlapsRequests() {
        let server = FakeServer(latency: .microseconds(100))
        let tally = closedLoop(total: 50, inFlight: 1) { completion in server.handle(completion) }
        XCTAssertEqual(tally, Tally(values: 50))
        XCTAssertEqual(server.peak, 1)
    }

    func testClosedLoop_fewerRequestsThanInFlight_issuesOnlyTheRequested() {
        let server = FakeServer()
        let tally = closedLoop(total: 5, inFlight: 64) { completion in server.handle(completion) }
        XCTAssertEqual(tally, Tally(values: 5))
        XCTAssertEqual(server.requestCount, 5)
    }

    func testClosedLoop_errorsAndWrongValues_countAsFailures() {
        let wrong = Sample(id: 2, name: "Leash", tags: ["a", "b"])
        let server = FakeServer { index in [Sample.expected, nil, wrong][index % 3] }
        let tally = closedLoop(total: 30, inFlight: 4) { completion in server.handle(completion) }
        XCTAssertEqual(tally, Tally(values: 10, failures: 20))
    }

    func testClosedLoop_zeroRequests_returnsAtOnceWithNothing() {
        let server = FakeServer()
        let tally = closedLoop(total: 0, inFlight: 64) { completion in server.handle(completion) }
        XCTAssertEqual(tally, Tally())
        XCTAssertEqual(server.requestCount, 0)
    }
}

final class MeasurementTests: XCTestCase {
    func testMeasureSideBySide_warmsUpEachThenRotatesTheOrderEveryRound() {
        var order: [String] = []
        var observed = 0
        let scenarios = ["a", "b", "c"].map { name in
            Scenario(
                name: name, operations: 10, expect: Tally(values: 10),
                observe: {
                    observed += 1
                    return Tally()
                }
            ) {
                order.append(name)
                return Tally(values: 10)
            }
        }
        let timings = measureSideBySide(scenarios, repetitions: 3)
        XCTAssertEqual(order, ["a", "b", "c", "a", "b", "c", "b", "c", "a", "c", "a", "b"])
        XCTAssertEqual(observed, 2 * order.count, "observed before and after every run")
        XCTAssertEqual(timings.map(\.scenario.name), ["a", "b", "c"])
        XCTAssertTrue(timings.allSatisfy { $0.seconds > 0 && $0.operationsPerSecond > 0 })
    }

    func testMeasureSideBySide_addsWhatObserveSawDuringTheRunToTheTally() {
        // The run itself reports nothing served; the check passes only because `observe`
        // shows the server's count rising by 7 during the run.
        var served = 100
        let scenario = Scenario(
            name: "observed", operations: 7, expect: Tally(values: 7, served: 7),
            observe: { Tally(served: served) }
        ) {
            served += 7
            return Tally(values: 7)
        }
        let timing = measureSideBySide([scenario], repetitions: 1)
        XCTAssertEqual(timing.count, 1)
        XCTAssertEqual(served, 114, "one warm-up and one timed run")
    }

    func testMedian_ofOddAndEvenCounts_takesTheUpperMiddle() {
        XCTAssertEqual(median([5, 1, 3]), 3)
        XCTAssertEqual(median([4, 1, 3, 2]), 3)
    }

    func testProcessCPUSeconds_risesWithWorkDoneOnThisThread() {
        let start = processCPUSeconds()
        var sum = 0
        while processCPUSeconds() - start < 0.01 { sum &+= 1 }
        XCTAssertGreaterThan(sum, 0)
        XCTAssertGreaterThanOrEqual(processCPUSeconds() - start, 0.01)
    }
}

/// An object allocated on the heap by the Swift runtime (libswiftCore).
private final class Counted {
    var value = 0
}

final class MallocCounterTests: XCTestCase {
    /// Sanitizers replace malloc themselves, so the counter turns itself off under them.
    private func skipUnderSanitizer() throws {
        try XCTSkipIf(dlsym(nil, "__tsan_init") != nil || dlsym(nil, "__asan_init") != nil, "a sanitizer owns malloc")
    }

    func testMallocCounter_countsAllocationsMadeInsideTheSwiftRuntime() throws {
        try skipUnderSanitizer()
        XCTAssertTrue(malloc_counter_is_available())
        var objects: [Counted] = []
        objects.reserveCapacity(1_000)
        malloc_counter_start()
        for _ in 0..<1_000 { objects.append(Counted()) }
        malloc_counter_stop()
        XCTAssertEqual(objects.count, 1_000)
        XCTAssertGreaterThanOrEqual(malloc_counter_calls(), 1_000)
        XCTAssertGreaterThanOrEqual(malloc_counter_bytes(), 1_000 * 24, "each object has a header and an Int")
        // Few other threads allocate in a test process; the count is close to exact.
        XCTAssertLessThan(malloc_counter_calls(), 1_100)
    }

    func testMallocCounter_whenStopped_countsNothingMore() throws {
        try skipUnderSanitizer()
        malloc_counter_start()
        malloc_counter_stop()
        let calls = malloc_counter_calls()
        let objects = (0..<100).map { _ in Counted() }
        XCTAssertEqual(objects.count, 100)
        XCTAssertEqual(malloc_counter_calls(), calls)
    }

    func testCountAllocations_reportsPerOperationFigures() throws {
        try skipUnderSanitizer()
        let scenario = Scenario(name: "objects", operations: 500, expect: Tally(values: 500)) {
            var tally = Tally()
            var objects: [Counted] = []
            objects.reserveCapacity(500)
            for _ in 0..<500 {
                objects.append(Counted())
                tally.record(.expected)
            }
            return tally
        }
        let allocations = try XCTUnwrap(countAllocations(scenario))
        XCTAssertGreaterThanOrEqual(allocations.calls, 1)
        XCTAssertLessThan(allocations.calls, 1.5, "one object each, plus the array")
        XCTAssertGreaterThanOrEqual(allocations.bytes, 24)
    }
}
