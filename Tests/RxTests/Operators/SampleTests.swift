import Rx
import RxTesting
import XCTest

final class SampleTests: RxTestCase {
    private func makeSource(_ scheduler: TestScheduler, end: Recorded<Event<Int>>) -> TestableObservable<Int> {
        scheduler.createHotObservable([
            .next(150, 1), .next(220, 2), .next(240, 3), .next(290, 4), .next(300, 5), .next(310, 6), end,
        ])
    }

    private func makeSampler(_ scheduler: TestScheduler, end: Recorded<Event<String>>) -> TestableObservable<String> {
        scheduler.createHotObservable([
            .next(150, ""), .next(210, "bar"), .next(250, "foo"), .next(260, "qux"), .next(320, "baz"), end,
        ])
    }

    func testSample_emitsTheLatestElementAtEachTick() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(400))
        let ys = makeSampler(scheduler, end: .completed(500))
        let res = scheduler.start { xs.sample(ys) }
        XCTAssertEqual(res.events, [.next(250, 3), .next(320, 6), .completed(500)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 400)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 500)])
    }

    func testSample_defaultValueFillsTicksWithoutANewElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(400))
        let ys = makeSampler(scheduler, end: .completed(500))
        let res = scheduler.start { xs.sample(ys, defaultValue: 0) }
        // The sampler's completion is a last tick: it too gets the default value.
        XCTAssertEqual(
            res.events,
            [.next(210, 0), .next(250, 3), .next(260, 0), .next(320, 6), .next(500, 0), .completed(500)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 400)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 500)])
    }

    func testSample_samplerCompletionSamplesTheLastElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(220, 2), .next(240, 3), .next(290, 4), .next(300, 5), .next(310, 6),
            .next(360, 7), .completed(400),
        ])
        let ys = makeSampler(scheduler, end: .completed(500))
        let res = scheduler.start { xs.sample(ys) }
        XCTAssertEqual(res.events, [.next(250, 3), .next(320, 6), .next(500, 7), .completed(500)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 400)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 500)])
    }

    func testSample_completesAtTheFirstTickAfterTheSourceCompleted() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(220, 2), .next(240, 3), .next(290, 4), .completed(300),
        ])
        let ys = makeSampler(scheduler, end: .completed(500))
        let res = scheduler.start { xs.sample(ys) }
        XCTAssertEqual(res.events, [.next(250, 3), .next(320, 4), .completed(320)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 320)])
    }

    func testSample_samplerErrorIsForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(400))
        let ys: TestableObservable<String> = scheduler.createHotObservable([
            .next(150, ""), .next(210, "bar"), .next(250, "foo"), .next(260, "qux"), .error(320, testError),
        ])
        let res = scheduler.start { xs.sample(ys) }
        XCTAssertEqual(res.events, [.next(250, 3), .error(320, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 320)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 320)])
    }

    func testSample_sourceErrorIsForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .error(320, testError))
        let ys: TestableObservable<String> = scheduler.createHotObservable([
            .next(150, ""), .next(210, "bar"), .next(250, "foo"), .next(260, "qux"), .next(300, "baz"),
            .completed(400),
        ])
        let res = scheduler.start { xs.sample(ys) }
        XCTAssertEqual(res.events, [.next(250, 3), .next(300, 5), .error(320, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 320)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 320)])
    }

    func testSample_samplerCompletingFirstNeverCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(400))
        let ys: TestableObservable<String> = scheduler.createHotObservable([.next(250, "foo"), .completed(300)])
        let res = scheduler.start { xs.sample(ys) }
        // As in RxSwift: the sampler's completion is a last tick, and no tick ever follows
        // the source's completion.
        XCTAssertEqual(res.events, [.next(250, 3), .next(300, 5)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 400)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 300)])
    }

    func testSample_sourceErrorAfterSamplerCompletedIsStillForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .error(400, testError))
        let ys: TestableObservable<String> = scheduler.createHotObservable([.completed(300)])
        let res = scheduler.start { xs.sample(ys) }
        XCTAssertEqual(res.events, [.next(300, 5), .error(400, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 400)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 300)])
    }

    func testSample_neverSamplerEmitsNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(400))
        let ys: TestableObservable<String> = scheduler.createHotObservable([])
        let res = scheduler.start { xs.sample(ys) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 400)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 1000)])
    }

    func testSample_disposeMidwayReleasesBoth() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(400))
        let ys = makeSampler(scheduler, end: .completed(500))
        let res = scheduler.start(disposed: 255) { xs.sample(ys) }
        XCTAssertEqual(res.events, [.next(250, 3)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 255)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 255)])
    }

    func testSample_sourceIsSubscribedBeforeSampler() {
        let order = FilterOrderLog()
        let source = Observable<Int>.create { _ in
            order.append("source")
            return Disposables.create()
        }
        let sampler = Observable<Int>.create { _ in
            order.append("sampler")
            return Disposables.create()
        }
        source.sample(sampler).subscribe().dispose()
        XCTAssertEqual(order.entries, ["source", "sampler"])
    }

    func testSample_reentrantTickFromDownstreamIsDeliveredAfterTheCurrentElement() {
        let source = PublishSubject<Int>()
        let ticks = PublishSubject<Void>()
        var seen: [Int] = []
        _ = source.sample(ticks, defaultValue: 0).subscribe(onNext: { value in
            seen.append(value)
            if value == 1 { ticks.onNext(()) }
        })
        source.onNext(1)
        ticks.onNext(())
        XCTAssertEqual(seen, [1, 0])
        source.onCompleted()
        ticks.onCompleted()
    }

    func testSample_realThreadsDeliverSerially() {
        let recorder = FilterEventRecorder<Int>()
        let source = PublishSubject<Int>()
        let ticks = PublishSubject<Void>()
        let subscription = source.sample(ticks).subscribe(recorder)
        let sourceQueue = DispatchQueue(label: "SampleTests.source")
        let tickQueue = DispatchQueue(label: "SampleTests.ticks")
        sourceQueue.async {
            for value in 0..<20_000 { source.onNext(value) }
            source.onCompleted()
        }
        tickQueue.async {
            while !recorder.isTerminated { ticks.onNext(()) }
        }
        wait(for: [recorder.terminated], timeout: 10)
        sourceQueue.sync {}
        tickQueue.sync {}
        subscription.dispose()
        let elements = recorder.elements
        XCTAssertEqual(elements, elements.sorted())
        XCTAssertEqual(Set(elements).count, elements.count)
        XCTAssertEqual(elements.last, 19_999)
        XCTAssertEqual(recorder.events.last, .completed)
        XCTAssertEqual(recorder.overlappingDeliveries, 0)
    }
}
