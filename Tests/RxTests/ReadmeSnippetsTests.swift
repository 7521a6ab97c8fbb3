// The README's "Rx on its own" snippets, compiled and run. The first class is copied into
// README.md as it is, from `import RxTesting` to its closing brace; `ReadmeCodeBlocksTests`
// checks that the copy stays identical.

import Foundation
import RxTesting
import XCTest

final class PriceTests: XCTestCase {
    func testPricesAreDoubled() {
        let scheduler = TestScheduler(initialClock: 0)
        let prices = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .completed(300)])
        let observer = scheduler.start { prices.map { $0 * 2 } }
        XCTAssertEqual(observer.events, [.next(210, 4), .completed(300)])
        XCTAssertEqual(prices.subscriptions, [Subscription(200, 300)])
    }
}

final class ReadmeRxSnippetsTests: XCTestCase {
    func testSearchTermsArePrintedOnce() {
        let searched = RxTestsReadmeLines()
        let print = { (label: String, term: String) in searched.append("\(label) \(term)") }

        // README: rx
        let disposeBag = DisposeBag()
        let query = PublishSubject<String>()

        query
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .distinctUntilChanged()
            .subscribe(onNext: { print("search:", $0) })
            .disposed(by: disposeBag)

        query.onNext(" leash ")
        query.onNext("leash")  // the same term: nothing printed
        // README end

        XCTAssertEqual(searched.all, ["search: leash"])
    }
}

/// What the snippet prints.
private final class RxTestsReadmeLines: @unchecked Sendable {
    // @unchecked: `lines` is only touched under `lock`.
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
