import Rx
import RxTesting
import XCTest

/// A search screen's view model as an app writes it with a `Driver`: queries debounced,
/// each search replacing the one before it, a failed search shown as no results.
private struct SearchViewModel {
    let results: Driver<[String]>

    init(query: Observable<String>, search: @escaping @Sendable (String) -> Observable<[String]>) {
        results = query.asDriver(onErrorJustReturn: "")
            .debounce(.milliseconds(300))
            .distinctUntilChanged()
            .flatMapLatest { query in
                query.isEmpty ? Driver.just([]) : search(query).asDriver(onErrorJustReturn: [])
            }
    }
}

final class SearchViewModelTests: RxTestCase {
    /// Virtual time with a resolution of 0.1 s per tick: the 300 ms debounce is 3 ticks.
    func testSearch_debouncesReplacesStaleSearchesAndRecoversFromFailure() {
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.1)
        withSharingScheduler(scheduler) {
            let query = scheduler.createHotObservable([
                .next(210, "l"), .next(211, "le"), .next(212, "leash"),  // typed quickly: one search
                .next(300, "rx"),  // slow answer, replaced by the next query
                .next(320, "fail"),  // the search fails: no results
                .next(400, ""),  // cleared: no search
            ])
            let answers: [String: [Recorded<Event<[String]>>]] = [
                "leash": [.next(20, ["Leash", "LeashTesting"]), .completed(20)],
                "rx": [.next(50, ["RxSwift"]), .completed(50)],
                "fail": [.error(5, testError)],
            ]
            let searches = TraitsBox<[String]>([])
            let backends = answers.mapValues { scheduler.createColdObservable($0) }
            let viewModel = SearchViewModel(query: query.asObservable()) { text in
                searches.value.append(text)
                return backends[text]?.asObservable() ?? .empty()
            }
            let res = scheduler.start { viewModel.results }

            XCTAssertEqual(
                res.events,
                [
                    .next(237, ["Leash", "LeashTesting"]),
                    .next(330, []),
                    .next(405, []),
                ])
            XCTAssertEqual(searches.value, ["leash", "rx", "fail"])
            // Queries arrive a tick late (the Driver's hop), then wait out the debounce.
            // A search ends when its end, hopping onto the scheduler behind its element, is
            // delivered.
            XCTAssertEqual(backends["leash"]?.subscriptions, [Subscription(216, 238)])
            // The slow search is disposed when the next query's search starts.
            XCTAssertEqual(backends["rx"]?.subscriptions, [Subscription(304, 324)])
            XCTAssertEqual(backends["fail"]?.subscriptions, [Subscription(324, 330)])
        }
    }
}
