import Foundation
import Rx
import RxTesting
import XCTest

/// The `async` forms of `create`: `Observable.create(detached:priority:work:)`,
/// `Infallible.create(detached:priority:work:)` and `Single.create(detached:priority:work:)`.
final class AsyncCreateTests: RxTestCase {
    @TaskLocal static var marker = 0

    // MARK: Observable

    func testObservableCreate_emitsWhatWorkEmitsThenCompletes() async throws {
        let source = Observable<Int>.create { observer in
            observer(1)
            await Task.yield()
            observer(2)
        }
        var received: [Int] = []
        for try await value in source.values { received.append(value) }
        XCTAssertEqual(received, [1, 2])
    }

    func testObservableCreate_failsWithWhatWorkThrows() async {
        let source = Observable<Int>.create { observer in
            observer(1)
            throw testError
        }
        var received: [Int] = []
        do {
            for try await value in source.values { received.append(value) }
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error as? TestError, testError)
        }
        XCTAssertEqual(received, [1])
    }

    func testObservableCreate_disposingCancelsTheTask() async {
        let started = expectation(description: "first element")
        let cancelled = expectation(description: "task cancelled")
        let finished = expectation(description: "work returned")
        let source = Observable<Int>.create { observer in
            observer(1)
            await Self.waitForCancellation()
            cancelled.fulfill()
            // Dropped: the subscription is gone.
            observer(2)
            finished.fulfill()
        }
        var received: [Int] = []
        let subscription = source.subscribe(
            onNext: { value in
                received.append(value)
                started.fulfill()
            },
            onCompleted: { XCTFail("no completion after disposal") })
        await fulfillment(of: [started], timeout: 5)
        subscription.dispose()
        await fulfillment(of: [cancelled, finished], timeout: 5)
        XCTAssertEqual(received, [1])
    }

    func testObservableCreate_eachSubscriptionRunsItsOwnTask() async throws {
        let runs = TraitsBox(0)
        let source = Observable<Int>.create { observer in
            observer(
                runs.update { count -> Int in
                    count += 1
                    return count
                })
        }
        var received: [Int] = []
        for try await value in source.values { received.append(value) }
        for try await value in source.values { received.append(value) }
        XCTAssertEqual(received, [1, 2])
    }

    func testObservableCreate_detachedTaskDoesNotInheritTaskLocals() async throws {
        let inherited = Observable<Int>.create { observer in observer(Self.marker) }
        let detached = Observable<Int>.create(detached: true) { observer in observer(Self.marker) }
        let (fromTask, fromDetached) = try await Self.$marker.withValue(7) {
            (try await inherited.asSingle().value, try await detached.asSingle().value)
        }
        XCTAssertEqual(fromTask, 7)
        XCTAssertEqual(fromDetached, 0)
    }

    func testObservableCreate_runsAtTheGivenPriority() async throws {
        let priority = try await Observable<TaskPriority>.create(detached: true, priority: .low) { observer in
            observer(Task.currentPriority)
        }.asSingle().value
        XCTAssertEqual(priority, .low)
    }

    // MARK: Infallible

    func testInfallibleCreate_emitsWhatWorkEmitsThenCompletes() async {
        let source: Infallible<Int> = Infallible.create { observer in
            observer(1)
            await Task.yield()
            observer(2)
        }
        var received: [Int] = []
        for await value in source.values { received.append(value) }
        XCTAssertEqual(received, [1, 2])
    }

    func testInfallibleCreate_disposingCancelsTheTask() async {
        let started = expectation(description: "first element")
        let cancelled = expectation(description: "task cancelled")
        let source = Infallible<Int>.create { observer in
            observer(1)
            await Self.waitForCancellation()
            cancelled.fulfill()
        }
        let subscription = source.subscribe(
            onNext: { _ in started.fulfill() }, onCompleted: { XCTFail("no completion after disposal") })
        await fulfillment(of: [started], timeout: 5)
        subscription.dispose()
        await fulfillment(of: [cancelled], timeout: 5)
    }

    func testInfallibleCreate_detachedTaskDoesNotInheritTaskLocals() async {
        let detached = Infallible<Int>.create(detached: true) { observer in observer(Self.marker) }
        let received = await Self.$marker.withValue(7) {
            var received: [Int] = []
            for await value in detached.values { received.append(value) }
            return received
        }
        XCTAssertEqual(received, [0])
    }

    // MARK: Single

    func testSingleCreate_succeedsWithWhatWorkReturns() async throws {
        let single = Single<Int>.create {
            await Task.yield()
            return 42
        }
        let value = try await single.value
        XCTAssertEqual(value, 42)
    }

    func testSingleCreate_failsWithWhatWorkThrows() async {
        let single = Single<Int>.create { throw testError }
        do {
            _ = try await single.value
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error as? TestError, testError)
        }
    }

    func testSingleCreate_disposingCancelsTheTask() async {
        let started = expectation(description: "work started")
        let cancelled = expectation(description: "task cancelled")
        let single = Single<Int>.create {
            started.fulfill()
            await Self.waitForCancellation()
            cancelled.fulfill()
            return 1
        }
        let subscription = single.subscribe(
            onSuccess: { _ in XCTFail("no success after disposal") },
            onFailure: { _ in XCTFail("no failure after disposal") })
        await fulfillment(of: [started], timeout: 5)
        subscription.dispose()
        await fulfillment(of: [cancelled], timeout: 5)
    }

    func testSingleCreate_cancellingTheAwaitingTaskCancelsTheWork() async {
        let started = expectation(description: "work started")
        let cancelled = expectation(description: "work cancelled")
        let single = Single<Int>.create {
            started.fulfill()
            await Self.waitForCancellation()
            cancelled.fulfill()
            return 1
        }
        let task = Task { try await single.value }
        await fulfillment(of: [started], timeout: 5)
        task.cancel()
        await fulfillment(of: [cancelled], timeout: 5)
        do {
            _ = try await task.value
            XCTFail("expected cancellation")
        } catch {
            XCTAssertTrue(error is CancellationError, "got \(error)")
        }
    }

    func testSingleCreate_detachedTaskDoesNotInheritTaskLocals() async throws {
        let inherited = Single<Int>.create { Self.marker }
        let detached = Single<Int>.create(detached: true) { Self.marker }
        let (fromTask, fromDetached) = try await Self.$marker.withValue(7) {
            (try await inherited.value, try await detached.value)
        }
        XCTAssertEqual(fromTask, 7)
        XCTAssertEqual(fromDetached, 0)
    }

    // MARK: support

    /// Returns once the current task is cancelled (without polling).
    private static func waitForCancellation() async {
        let never = AsyncStream<Never> { _ in }
        for await _ in never {}
    }
}
