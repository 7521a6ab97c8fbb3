import Dispatch
import Foundation
import Rx
import RxTesting
import XCTest

/// `Binder`: elements bound on its scheduler (virtual time here, the main thread by
/// default), the target held weakly, completion ignored, errors reported.
final class BinderTests: RxTestCase {
    private var savedErrorHandler: Hooks.DefaultErrorHandler?
    private let reportedErrors = ShareFailureLog()

    override func setUp() {
        super.setUp()
        savedErrorHandler = Hooks.defaultErrorHandler
        let log = reportedErrors
        Hooks.defaultErrorHandler = { _, error in log.record("\(error)") }
    }

    override func tearDown() {
        if let savedErrorHandler { Hooks.defaultErrorHandler = savedErrorHandler }
        super.tearDown()
    }

    func testBindTo_bindsEachElementOnTheSchedulerAndIgnoresCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, "a"), .next(220, "b"), .completed(230)])
        let label = Label()
        let binder = Binder(label, scheduler: scheduler) { label, text in
            label.text = text
            label.history.append("\(text)@\(scheduler.clock)")
        }
        scheduler.scheduleAt(200) { _ = xs.bind(to: binder) }
        scheduler.start()
        // Each element is bound by an action scheduled when it arrives: the test scheduler
        // runs it one tick later.
        XCTAssertEqual(label.history, ["a@211", "b@221"])
        XCTAssertEqual(label.text, "b")
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(reportedErrors.messages, [])
    }

    func testError_goesToTheDefaultErrorHandlerAndEndsTheBinding() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<String> = scheduler.createHotObservable([
            .next(210, "a"), .error(220, testError), .next(230, "late"),
        ])
        let label = Label()
        let binder = Binder<String>(label, scheduler: scheduler) { label, text in
            label.history.append("\(text)@\(scheduler.clock)")
        }
        scheduler.scheduleAt(200) { _ = xs.bind(to: binder) }
        scheduler.start()
        XCTAssertEqual(label.history, ["a@211"])
        XCTAssertEqual(reportedErrors.messages, ["TestError(1)"])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testBinder_doesNotRetainItsTarget() {
        let scheduler = TestScheduler(initialClock: 0)
        let bound = ShareEventLog()
        var label: Label? = Label()
        weak var weakLabel: Label?
        weakLabel = label
        let binder = Binder(label!, scheduler: scheduler) { _, text in bound.append(text) }
        label = nil
        XCTAssertNil(weakLabel, "the binder kept its target alive")
        // Binding to a freed target does nothing, and does not crash.
        binder.onNext("after free")
        scheduler.start()
        XCTAssertEqual(bound.entries, [])
    }

    func testTargetFreedWhileAnElementIsScheduled_dropsTheElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(205, "kept"), .next(210, "dropped"), .next(220, "late"), .completed(230),
        ])
        let bound = ShareEventLog()
        var label: Label? = Label()
        weak var weakLabel: Label?
        weakLabel = label
        let binder = Binder(label!, scheduler: scheduler) { label, text in
            label.text = text
            bound.append(text)
        }
        scheduler.scheduleAt(200) { _ = xs.bind(to: binder) }
        // "dropped" arrived at 210 and waits for 211; the target goes before that.
        scheduler.scheduleAt(210) { label = nil }
        scheduler.start()
        XCTAssertNil(weakLabel)
        XCTAssertEqual(bound.entries, ["kept"])
    }

    func testBindTo_optionalBinderWrapsElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let model = Model()
        let binder = Binder<Int?>(model, scheduler: scheduler) { model, value in model.values.append(value) }
        scheduler.scheduleAt(200) { _ = xs.bind(to: binder) }
        scheduler.start()
        XCTAssertEqual(model.values, [1, 2])
    }

    func testBindTo_severalBindersAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, "a"), .completed(220)])
        let first = Label()
        let second = Label()
        let setText = { (label: Label, text: String) in label.text = text }
        scheduler.scheduleAt(200) {
            _ = xs.bind(
                to: Binder(first, scheduler: scheduler, binding: setText),
                Binder(second, scheduler: scheduler, binding: setText))
        }
        scheduler.start()
        XCTAssertEqual([first.text, second.text], ["a", "a"])
    }

    func testAsObserver_forwardsToTheBinder() {
        let scheduler = TestScheduler(initialClock: 0)
        let label = Label()
        let observer: AnyObserver<String> = Binder(label, scheduler: scheduler) { label, text in
            label.history.append(text)
        }.asObserver()
        observer.onNext("a")
        observer.onCompleted()
        observer.onError(testError2)
        scheduler.start()
        XCTAssertEqual(label.history, ["a"])
        XCTAssertEqual(reportedErrors.messages, ["TestError(2)"])
    }

    func testDefaultScheduler_bindsAtOnceOnTheMainThread() {
        XCTAssertTrue(Thread.isMainThread)
        // Nothing of `MainScheduler.instance` may be waiting on the main queue, or it would queue.
        drainMainQueue()
        let label = Label()
        let binder = Binder(label) { label, text in label.text = text }
        binder.onNext("now")
        XCTAssertEqual(label.text, "now")
    }

    func testDefaultScheduler_hopsToTheMainThreadFromAnotherThread() {
        let label = Label()
        let bound = expectation(description: "bound")
        let binder = Binder(label) { label, text in
            label.text = text
            label.history.append(Thread.isMainThread ? "main" : "other")
            bound.fulfill()
        }
        DispatchQueue.global().async { binder.onNext("from the background") }
        wait(for: [bound], timeout: 5)
        XCTAssertEqual(label.history, ["main"])
        XCTAssertEqual(label.text, "from the background")
    }
}

/// A binding target that is neither `Sendable` nor main-actor isolated, as a view is not
/// in RxSwift code.
private final class Label {
    var text = ""
    var history: [String] = []
}

private final class Model {
    var values: [Int?] = []
}
