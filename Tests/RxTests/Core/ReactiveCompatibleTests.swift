import Foundation
import Rx
import RxTesting
import XCTest

final class ReactiveCompatibleTests: RxTestCase {
    func testInstanceRx_wrapsTheValue() {
        let value = Counter(count: 3)
        XCTAssertEqual(value.rx.base.count, 3)
        XCTAssertEqual(value.rx.doubled, 6)
    }

    func testStaticRx_reachesTypeExtensions() {
        XCTAssertEqual(Counter.rx.name, "Counter")
    }

    func testRx_canBeUsedOnMutableValues() {
        var value = Counter(count: 1)
        // The setter exists so that mutating extensions compile; it changes nothing.
        value.rx = Reactive(Counter(count: 9))
        XCTAssertEqual(value.count, 1)
        Counter.rx = Reactive<Counter>.self
        XCTAssertEqual(Counter.rx.name, "Counter")
    }

    func testDynamicMemberLookup_isABinderThatWritesTheProperty() {
        XCTAssertTrue(Thread.isMainThread)
        // `MainScheduler.instance` binds at once only when none of its work is queued.
        drainMainQueue()
        let model = Model()
        let title: Binder<String> = model.rx.title
        title.onNext("hello")
        XCTAssertEqual(model.title, "hello")
        XCTAssertEqual(model.titleSetOnMainThread, [true])
    }

    func testDynamicMemberLookup_bindsElementsFromAnotherThreadOnTheMainThread() {
        let model = Model()
        let done = expectation(description: "last title bound")
        model.onTitleSet = { title in if title == "c" { done.fulfill() } }
        let background = SerialDispatchQueueScheduler(qos: .default)
        let subscription = Observable.of("a", "b", "c").subscribe(on: background).bind(to: model.rx.title)
        wait(for: [done], timeout: 5)
        XCTAssertEqual(model.title, "c")
        XCTAssertEqual(model.titleSetOnMainThread, [true, true, true])
        subscription.dispose()
    }

    func testDynamicMemberLookup_doesNotRetainTheBase() {
        var model: Model? = Model()
        weak var weakModel: Model?
        weakModel = model
        let title = model!.rx.title
        model = nil
        XCTAssertNil(weakModel)
        title.onNext("nobody is listening")
        drainMainQueue()
    }

    func testNSObject_isReactiveCompatible() {
        drainMainQueue()
        let object = Labelled()
        _ = Observable.just("bound").bind(to: object.rx.name)
        XCTAssertEqual(object.name, "bound")
        XCTAssertEqual(object.rx.base, object)
        XCTAssertTrue(Labelled.rx == Reactive<Labelled>.self)
    }

    func testReactive_exposesObservablesFromExtensions() {
        let model = Model()
        model.title = "t"
        XCTAssertEqual(try model.rx.titles.toBlocking().toArray(), ["t"])
    }
}

private struct Counter: ReactiveCompatible {
    var count: Int
}

extension Reactive where Base == Counter {
    fileprivate var doubled: Int { base.count * 2 }
    fileprivate static var name: String { "Counter" }
}

private final class Model: ReactiveCompatible {
    var title = "" {
        didSet {
            titleSetOnMainThread.append(Thread.isMainThread)
            onTitleSet?(title)
        }
    }
    var titleSetOnMainThread: [Bool] = []
    var onTitleSet: ((String) -> Void)?
}

/// An `NSObject` subclass: `.rx` comes with `NSObject`, without a conformance of its own.
private final class Labelled: NSObject {
    var name = ""
}

extension Reactive where Base == Model {
    fileprivate var titles: Observable<String> { Observable.just(base.title) }
}
