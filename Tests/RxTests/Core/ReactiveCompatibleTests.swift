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

    func testDynamicMemberLookup_readsClassProperties() {
        let model = Model()
        model.title = "hello"
        XCTAssertEqual(model.rx.title, "hello")
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
    var title = ""
}

extension Reactive where Base == Model {
    fileprivate var titles: Observable<String> { Observable.just(base.title) }
}
