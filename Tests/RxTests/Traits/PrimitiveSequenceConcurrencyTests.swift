import Dispatch
import Rx
import RxTesting
import XCTest

final class PrimitiveSequenceConcurrencyTests: RxTestCase {
    func testSingleValue_returnsTheElement() async throws {
        let value = try await Single.just(1).map { $0 + 1 }.value
        XCTAssertEqual(value, 2)
    }

    func testSingleValue_throwsTheError() async {
        do {
            _ = try await Single<Int>.error(testError).value
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error as? TestError, testError)
        }
    }

    func testSingleValue_awaitsAnElementFromAnotherThread() async throws {
        let single = Single<Int>.create { observer in
            DispatchQueue.global().async { observer(.success(42)) }
            return Disposables.create()
        }
        let value = try await single.value
        XCTAssertEqual(value, 42)
    }

    func testSingleValue_cancellingTheTaskDisposesTheSubscription() async {
        let disposed = expectation(description: "disposed")
        let subscribed = expectation(description: "subscribed")
        let single = Single<Int>.never().do(
            onSubscribed: { subscribed.fulfill() }, onDispose: { disposed.fulfill() })
        let task = Task { try await single.value }
        await fulfillment(of: [subscribed], timeout: 5)
        task.cancel()
        await fulfillment(of: [disposed], timeout: 5)
        do {
            _ = try await task.value
            XCTFail("expected cancellation")
        } catch {
            XCTAssertTrue(error is CancellationError)
        }
    }

    /// In a task that is already cancelled, a source that has not ended is subscribed, let go
    /// at once, and the caller gets `CancellationError` (RxSwift would wait forever).
    func testSingleValue_inACancelledTask_aSourceThatHasNotEndedIsDisposedAtOnce_withCancellationError() async {
        let subscriptions = TraitsBox(0)
        let disposals = TraitsBox(0)
        let single = Single<Int>.never().do(
            onSubscribe: { subscriptions.value += 1 }, onDispose: { disposals.value += 1 })
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await single.value
        }
        do {
            _ = try await task.value
            XCTFail("expected cancellation")
        } catch {
            XCTAssertTrue(error is CancellationError)
        }
        XCTAssertEqual(subscriptions.value, 1)
        XCTAssertEqual(disposals.value, 1)
    }

    /// In a task that is already cancelled, a source that ends as it is subscribed gives its
    /// result, as RxSwift's bridges do: a value, a completion, or its own error.
    func testValue_inACancelledTask_aSourceThatHasAlreadyEnded_givesItsResult() async throws {
        func inCancelledTask<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async -> Result<T, Error> {
            await Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await work()
            }.result
        }
        let single = await inCancelledTask { try await Single.just(1).map { $0 + 1 }.value }
        XCTAssertEqual(try single.get(), 2)
        let maybe = await inCancelledTask { try await Maybe<Int>.empty().value }
        XCTAssertEqual(try maybe.get(), nil)
        let maybeValue = await inCancelledTask { try await Maybe.just(5).value }
        XCTAssertEqual(try maybeValue.get(), 5)
        let completable = await inCancelledTask { try await Completable.empty().value }
        XCTAssertNoThrow(try completable.get())
        let failed = await inCancelledTask { try await Completable.error(testError).value }
        XCTAssertThrowsError(try failed.get()) { XCTAssertEqual($0 as? TestError, testError) }
    }

    func testMaybeValue_elementOrNil() async throws {
        let element = try await Maybe.just(3).value
        XCTAssertEqual(element, 3)
        let nothing = try await Maybe<Int>.empty().value
        XCTAssertNil(nothing)
        do {
            _ = try await Maybe<Int>.error(testError).value
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error as? TestError, testError)
        }
    }

    func testCompletableValue_returnsOnCompletionAndThrowsOnError() async throws {
        try await Completable.empty().value
        do {
            try await Completable.error(testError).value
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error as? TestError, testError)
        }
    }

    func testSingleFrom_runsTheWorkAndSucceeds() async throws {
        let value = try await Single<Int>.from {
            await Task.yield()
            return 7
        }.value
        XCTAssertEqual(value, 7)
    }

    func testSingleFrom_errorFromTheWorkFails() {
        let done = expectation(description: "failed")
        var failure: String?
        let subscription = Single<Int>.from { throw testError }.subscribe(onFailure: {
            failure = "\($0)"
            done.fulfill()
        })
        wait(for: [done], timeout: 5)
        XCTAssertEqual(failure, "TestError(1)")
        subscription.dispose()
    }

    func testSingleFrom_disposingCancelsTheTask() {
        let started = expectation(description: "started")
        let cancelled = expectation(description: "cancelled")
        let subscription = Single<Int>.from {
            started.fulfill()
            do {
                try await Task.sleep(nanoseconds: 60_000_000_000)
            } catch {
                cancelled.fulfill()
                throw error
            }
            return 1
        }
        .subscribe(onSuccess: { _ in XCTFail("the work was cancelled") })
        wait(for: [started], timeout: 5)
        subscription.dispose()
        wait(for: [cancelled], timeout: 5)
    }

    func testMaybeFrom_nilWorkCompletesAndWorkSucceeds() async throws {
        let nothing = try await Maybe<Int>.from(nil).value
        XCTAssertNil(nothing)
        let something = try await Maybe<Int>.from { 5 }.value
        XCTAssertEqual(something, 5)
    }

    func testCompletableFrom_completesAfterTheWork() async throws {
        let ran = TraitsBox(false)
        try await Completable.from { ran.value = true }.value
        XCTAssertTrue(ran.value)
        do {
            try await Completable.from { throw testError }.value
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error as? TestError, testError)
        }
    }
}
