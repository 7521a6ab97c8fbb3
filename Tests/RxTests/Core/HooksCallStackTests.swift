import Foundation
import Rx
import RxTesting
import XCTest

/// `Hooks.recordCallStackOnError` and `Hooks.customCaptureSubscriptionCallstack`. Every test
/// restores the hooks it changes; XCTest runs the tests of a process one at a time.
final class HooksCallStackTests: RxTestCase {
    private var savedHandler: Hooks.DefaultErrorHandler?
    private var savedCapture: Hooks.CustomCaptureSubscriptionCallstack?
    private var savedRecording = false

    /// What `defaultErrorHandler` received: each call stack with its error's description.
    private let reports = TraitsBox<[Report]>([])
    /// How many times the custom capture ran.
    private let captures = TraitsBox(0)

    private struct Report: Equatable {
        let callStack: [String]
        let error: String
    }

    override func setUp() {
        super.setUp()
        savedHandler = Hooks.defaultErrorHandler
        savedCapture = Hooks.customCaptureSubscriptionCallstack
        savedRecording = Hooks.recordCallStackOnError
        let reports = reports
        Hooks.defaultErrorHandler = { callStack, error in
            reports.update { $0.append(Report(callStack: callStack, error: "\(error)")) }
        }
    }

    override func tearDown() {
        if let savedHandler { Hooks.defaultErrorHandler = savedHandler }
        if let savedCapture { Hooks.customCaptureSubscriptionCallstack = savedCapture }
        Hooks.recordCallStackOnError = savedRecording
        super.tearDown()
    }

    /// Records with a capture that returns `frames` and counts its calls.
    private func recordCallStacks(_ frames: [String]) {
        let captures = captures
        Hooks.customCaptureSubscriptionCallstack = {
            captures.update { $0 += 1 }
            return frames
        }
        Hooks.recordCallStackOnError = true
    }

    func testRecording_isOffByDefault() {
        XCTAssertFalse(savedRecording)
    }

    func testOff_unhandledErrorGetsAnEmptyStackAndNothingIsCaptured() {
        let captures = captures
        Hooks.customCaptureSubscriptionCallstack = {
            captures.update { $0 += 1 }
            return ["frame"]
        }
        _ = Observable<Int>.error(testError).subscribe(onNext: { _ in })
        _ = Single<Int>.error(testError).subscribe(onSuccess: { _ in })
        XCTAssertEqual(
            reports.value, [Report(callStack: [], error: "TestError(1)"), Report(callStack: [], error: "TestError(1)")])
        XCTAssertEqual(captures.value, 0)
    }

    func testOn_observableSubscribeWithoutOnErrorReportsTheCapturedStack() {
        recordCallStacks(["frame 0", "frame 1"])
        _ = Observable<Int>.error(testError).subscribe(onNext: { _ in })
        XCTAssertEqual(reports.value, [Report(callStack: ["frame 0", "frame 1"], error: "TestError(1)")])
        XCTAssertEqual(captures.value, 1)
    }

    func testOn_stackIsCapturedWhenSubscribingNotWhenTheErrorArrives() {
        let subject = PublishSubject<Int>()
        recordCallStacks(["at subscription"])
        let subscription = subject.subscribe()
        Hooks.customCaptureSubscriptionCallstack = { ["at error"] }
        subject.onError(testError)
        subscription.dispose()
        XCTAssertEqual(reports.value, [Report(callStack: ["at subscription"], error: "TestError(1)")])
        XCTAssertEqual(captures.value, 1)
    }

    func testOn_subscriptionsWithAnErrorHandlerCaptureNothing() {
        recordCallStacks(["frame"])
        var handled: [String] = []
        _ = Observable<Int>.error(testError).subscribe(onError: { handled.append("\($0)") })
        _ = Single<Int>.error(testError).subscribe(onFailure: { handled.append("\($0)") })
        _ = Maybe<Int>.error(testError).subscribe(onError: { handled.append("\($0)") })
        _ = Completable.error(testError).subscribe(onError: { handled.append("\($0)") })
        _ = Observable<Int>.error(testError).subscribe { handled.append("\($0)") }
        XCTAssertEqual(
            handled, ["TestError(1)", "TestError(1)", "TestError(1)", "TestError(1)", "error(TestError(1))"])
        XCTAssertEqual(reports.value, [])
        XCTAssertEqual(captures.value, 0)
    }

    func testOn_traitsWithoutAnErrorHandlerReportTheCapturedStack() {
        recordCallStacks(["trait frame"])
        _ = Single<Int>.error(testError).subscribe(onSuccess: { _ in })
        _ = Observable<Int>.empty().asSingle().subscribe()
        _ = Maybe<Int>.error(testError2).subscribe()
        _ = Completable.error(testError).subscribe(onCompleted: {})
        XCTAssertEqual(
            reports.value,
            [
                Report(callStack: ["trait frame"], error: "TestError(1)"),
                Report(callStack: ["trait frame"], error: "\(RxError.noElements)"),
                Report(callStack: ["trait frame"], error: "TestError(2)"),
                Report(callStack: ["trait frame"], error: "TestError(1)"),
            ])
        XCTAssertEqual(captures.value, 4)
    }

    func testOn_subscribeOnMainWithoutOnErrorReportsTheCapturedStack() {
        recordCallStacks(["main frame"])
        let delivered = expectation(description: "error delivered on the main thread")
        let subscription = Observable<Int>.error(testError).subscribeOnMain(onDisposed: { delivered.fulfill() })
        wait(for: [delivered], timeout: 5)
        subscription.dispose()
        XCTAssertEqual(reports.value, [Report(callStack: ["main frame"], error: "TestError(1)")])
        XCTAssertEqual(captures.value, 1)
    }

    func testDefaultCapture_isTheCallStackOfTheSubscribingThread() {
        Hooks.recordCallStackOnError = true
        let stack = Hooks.customCaptureSubscriptionCallstack()
        XCTAssertGreaterThan(stack.count, 2)
        _ = Observable<Int>.error(testError).subscribe(onNext: { _ in })
        // The subscription was made a few frames deeper than the direct call above.
        XCTAssertGreaterThan(reports.value.first?.callStack.count ?? 0, 2)
    }

    func testHooks_settableAndReadableFromManyThreads() {
        let frames = ["a frame"]
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            switch index % 4 {
            case 0: Hooks.recordCallStackOnError = true
            case 1: Hooks.customCaptureSubscriptionCallstack = { frames }
            case 2: _ = Hooks.recordCallStackOnError
            default: _ = Hooks.customCaptureSubscriptionCallstack
            }
        }
        XCTAssertTrue(Hooks.recordCallStackOnError)
        XCTAssertEqual(Hooks.customCaptureSubscriptionCallstack(), frames)
        Hooks.recordCallStackOnError = false
        XCTAssertFalse(Hooks.recordCallStackOnError)
    }
}
