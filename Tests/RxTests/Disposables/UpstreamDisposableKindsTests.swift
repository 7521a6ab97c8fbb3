import Rx
import XCTest

/// An operator keeps its upstream as one class reference: Rx's own subscription objects
/// directly, any other disposable boxed. Every kind must still be disposed exactly once.
final class UpstreamDisposableKindsTests: RxTestCase {
    func testAValueTypeDisposable_isDisposedOnce_whenTheSubscriptionIsDisposed() {
        let count = DisposalCount()
        let subscription = Observable<Int>.create { _ in CountingDisposable(count: count) }
            .map { $0 + 1 }
            .subscribe()
        XCTAssertEqual(count.value, 0)
        subscription.dispose()
        subscription.dispose()
        XCTAssertEqual(count.value, 1)
    }

    func testAValueTypeDisposable_isDisposedOnce_afterTheTerminalEvent() {
        let count = DisposalCount()
        var completed = false
        let subscription = Observable<Int>.create { observer in
            observer.onCompleted()
            return CountingDisposable(count: count)
        }
        .subscribe(onCompleted: { completed = true })
        XCTAssertTrue(completed)
        XCTAssertEqual(count.value, 1)
        subscription.dispose()
        XCTAssertEqual(count.value, 1)
    }

    /// A disposable outside Rx that answers the internal hook with some other object is
    /// still just boxed and disposed: no crash, no lost disposal.
    func testADisposableThatAnswersTheInternalHook_isStillDisposedOnce() {
        let count = DisposalCount()
        let subscription = Observable<Int>.create { _ in MisleadingDisposable(count: count) }.subscribe()
        subscription.dispose()
        XCTAssertEqual(count.value, 1)
    }
}

private final class DisposalCount: @unchecked Sendable {
    var value = 0
}

private struct CountingDisposable: Disposable {
    let count: DisposalCount
    func dispose() { count.value += 1 }
}

private final class MisleadingDisposable: Disposable, @unchecked Sendable {
    let count: DisposalCount
    init(count: DisposalCount) { self.count = count }
    func dispose() { count.value += 1 }
    var _rxSubscription: AnyObject? { self }
}
