import Rx
import XCTest

/// A trait's `subscribe` releases its handlers (and what they capture) when the
/// subscription ends, while the app still holds the returned disposable: the common
/// `single.subscribe(onSuccess: { self… }).disposed(by: bag)` would otherwise keep `self`
/// alive through its own bag.
final class TraitSubscribeReleaseTests: RxTestCase {
    func testSingle_releasesItsHandlersAfterSuccessFailureOrDispose() {
        for ending in ["success", "failure", "dispose"] {
            let subject = PublishSubject<Int>()
            let single = subject.asSingle()
            weak var weakCaptured: Captured?
            var subscription: Disposable?
            do {
                let captured = Captured()
                weakCaptured = captured
                subscription = single.subscribe(
                    onSuccess: { _ in captured.touch() }, onFailure: { _ in captured.touch() },
                    onDisposed: { captured.touch() })
            }
            XCTAssertNotNil(weakCaptured, ending)
            switch ending {
            case "success":
                subject.onNext(1)
                subject.onCompleted()
            case "failure": subject.onError(TestError(1))
            default: subscription?.dispose()
            }
            XCTAssertNil(weakCaptured, "after \(ending)")
            withExtendedLifetime(subscription) {}
        }
    }

    func testCompletableAndMaybe_releaseTheirHandlersWhenTheyEnd() {
        let subject = PublishSubject<Int>()
        weak var weakCaptured: Captured?
        var subscriptions: [Disposable] = []
        do {
            let captured = Captured()
            weakCaptured = captured
            subscriptions.append(
                subject.ignoreElements().asCompletable().subscribe(
                    onCompleted: { captured.touch() }, onError: { _ in captured.touch() }))
            subscriptions.append(
                subject.asMaybe().subscribe(
                    onSuccess: { _ in captured.touch() }, onError: { _ in captured.touch() },
                    onCompleted: { captured.touch() }))
        }
        XCTAssertNotNil(weakCaptured)
        subject.onCompleted()
        XCTAssertNil(weakCaptured)
        withExtendedLifetime(subscriptions) {}
    }

    /// The handler still runs, and runs once, before it is released.
    func testSingle_callsTheHandlerOnceThenOnDisposed() {
        var calls: [String] = []
        let subscription = Single.just(5).subscribe(
            onSuccess: { calls.append("success \($0)") }, onFailure: { _ in calls.append("failure") },
            onDisposed: { calls.append("disposed") })
        subscription.dispose()
        XCTAssertEqual(calls, ["success 5", "disposed"])
    }
}

private final class Captured: @unchecked Sendable {
    var touches = 0
    func touch() { touches += 1 }
}
