import Rx
import RxTesting
import XCTest

final class MulticastTests: RxTestCase {
    private let hotElements: [Recorded<Event<Int>>] = [
        .next(110, 7), .next(220, 3), .next(280, 4), .next(290, 1), .next(340, 8), .next(360, 5), .next(370, 6),
        .next(390, 7), .next(410, 13), .next(430, 2), .next(450, 9), .next(520, 11), .next(560, 20),
        .next(570, 21), .next(580, 23), .next(590, 24), .next(600, 25), .next(610, 26), .next(620, 27),
        .next(630, 28), .error(800, testError),
    ]

    /// Connects at 300 (disposed 400), 420 (again at 440, that one disposed at 530) and 575
    /// (disposed 621); the stale first connection is disposed again at 590.
    private func runConnections(
        subscribeAt: TestTime, _ make: @escaping (Observable<Int>) -> ConnectableObservable<Int>
    ) -> (TestableObserver<Int>, TestableObservable<Int>) {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(hotElements)
        var ys: ConnectableObservable<Int>?
        var subscription: Disposable?
        var connection: Disposable?
        var innerConnection: Disposable?
        var lastConnection: Disposable?
        let res = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(100) { ys = make(xs.asObservable()) }
        scheduler.scheduleAt(subscribeAt) { subscription = ys?.subscribe(res) }
        scheduler.scheduleAt(1000) { subscription?.dispose() }
        scheduler.scheduleAt(300) { connection = ys?.connect() }
        scheduler.scheduleAt(400) { connection?.dispose() }
        scheduler.scheduleAt(420) { connection = ys?.connect() }
        scheduler.scheduleAt(440) { innerConnection = ys?.connect() }
        scheduler.scheduleAt(530) { innerConnection?.dispose() }
        scheduler.scheduleAt(575) { lastConnection = ys?.connect() }
        scheduler.scheduleAt(590) { connection?.dispose() }
        scheduler.scheduleAt(621) { lastConnection?.dispose() }
        scheduler.start()
        return (res, xs)
    }

    func testMulticastMakeSubject_connectionsControlSourceSubscriptionAndEachHasItsOwnSubject() {
        let (res, xs) = runConnections(subscribeAt: 405) {
            $0.multicast(makeSubject: { ReplaySubject.create(bufferSize: 3) })
        }
        // The observer's subject is dropped when the 420 connection ends at 530.
        XCTAssertEqual(res.events, [.next(430, 2), .next(450, 9), .next(520, 11)])
        XCTAssertEqual(xs.subscriptions, [Subscription(300, 400), Subscription(420, 530), Subscription(575, 621)])
    }

    func testMulticastSubject_oneSubjectServesEveryConnection() {
        let (res, xs) = runConnections(subscribeAt: 405) { $0.multicast(ReplaySubject.create(bufferSize: 3)) }
        XCTAssertEqual(
            res.events,
            [
                .next(405, 5), .next(405, 6), .next(405, 7), .next(430, 2), .next(450, 9), .next(520, 11),
                .next(580, 23), .next(590, 24), .next(600, 25), .next(610, 26), .next(620, 27),
            ])
        XCTAssertEqual(xs.subscriptions, [Subscription(300, 400), Subscription(420, 530), Subscription(575, 621)])
    }

    func testPublish_observerSeesOnlyElementsWhileItsConnectionLasts() {
        let (res, xs) = runConnections(subscribeAt: 250) { $0.publish() }
        XCTAssertEqual(res.events, [.next(340, 8), .next(360, 5), .next(370, 6), .next(390, 7)])
        XCTAssertEqual(xs.subscriptions, [Subscription(300, 400), Subscription(420, 530), Subscription(575, 621)])
    }

    func testReplay_lateObserverGetsBufferOfCurrentConnection() {
        let (res, _) = runConnections(subscribeAt: 470) { $0.replay(2) }
        XCTAssertEqual(res.events, [.next(470, 2), .next(470, 9), .next(520, 11)])
    }

    func testReplayAll_lateObserverGetsEverythingOfCurrentConnection() {
        let (res, _) = runConnections(subscribeAt: 470) { $0.replayAll() }
        XCTAssertEqual(res.events, [.next(470, 2), .next(470, 9), .next(520, 11)])
    }

    func testMulticastMakeSubject_resubscribingAndReconnectingAfterCompletionStartsAfresh() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(410, 13), .next(430, 2), .completed(435), .next(450, 9)])
        var ys: ConnectableObservable<Int>?
        var subscription: Disposable?
        var connection: Disposable?
        let res = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(100) { ys = xs.multicast(makeSubject: { ReplaySubject.create(bufferSize: 1) }) }
        scheduler.scheduleAt(405) {
            subscription = ys?.subscribe { event in
                res.on(event)
                guard event.isCompleted else { return }
                subscription = ys?.subscribe(res)
                connection = ys?.connect()
            }
        }
        scheduler.scheduleAt(420) { connection = ys?.connect() }
        scheduler.scheduleAt(530) { connection?.dispose() }
        scheduler.scheduleAt(600) { subscription?.dispose() }
        scheduler.start()
        XCTAssertEqual(res.events, [.next(430, 2), .completed(435), .next(450, 9)])
        XCTAssertEqual(xs.subscriptions, [Subscription(420, 435), Subscription(435, 530)])
    }

    func testMulticastSubject_afterErrorNewObserversGetTheErrorAndConnectingFeedsAStoppedSubject() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(300, testError), .next(450, 9)])
        var ys: ConnectableObservable<Int>?
        var connection: Disposable?
        let late = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(100) { ys = xs.multicast(PublishSubject()) }
        scheduler.scheduleAt(200) { connection = ys?.connect() }
        scheduler.scheduleAt(400) {
            _ = ys?.subscribe(late)
            connection = ys?.connect()
        }
        scheduler.scheduleAt(500) { connection?.dispose() }
        let res = scheduler.start { ys! }
        XCTAssertEqual(res.events, [.next(210, 1), .error(300, testError)])
        XCTAssertEqual(late.events, [.error(400, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300), Subscription(400, 500)])
    }

    func testConnect_synchronousSourceDeliversDuringConnect() {
        let published = Observable.from([1, 2, 3]).publish()
        var events: [Event<Int>] = []
        let subscription = published.subscribe { events.append($0) }
        XCTAssertEqual(events, [])
        let connection = published.connect()
        XCTAssertEqual(events, [.next(1), .next(2), .next(3), .completed])
        connection.dispose()
        subscription.dispose()
    }

    func testRefCount_connectsForFirstObserverAndDisconnectsAfterLast() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(260, 2), .next(310, 3), .next(410, 4)])
        var ys: Observable<Int>?
        var first: Disposable?
        var second: Disposable?
        var third: Disposable?
        let res1 = scheduler.createObserver(Int.self)
        let res2 = scheduler.createObserver(Int.self)
        let res3 = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(100) { ys = xs.publish().refCount() }
        scheduler.scheduleAt(200) { first = ys?.subscribe(res1) }
        scheduler.scheduleAt(250) { second = ys?.subscribe(res2) }
        scheduler.scheduleAt(270) { first?.dispose() }
        scheduler.scheduleAt(320) { second?.dispose() }
        scheduler.scheduleAt(400) { third = ys?.subscribe(res3) }
        scheduler.scheduleAt(500) { third?.dispose() }
        scheduler.scheduleAt(510) { first?.dispose() }
        scheduler.start()
        XCTAssertEqual(res1.events, [.next(210, 1), .next(260, 2)])
        XCTAssertEqual(res2.events, [.next(260, 2), .next(310, 3)])
        XCTAssertEqual(res3.events, [.next(410, 4)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 320), Subscription(400, 500)])
    }

    func testRefCount_terminationDisconnectsAndNextObserverReconnects() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .error(20, testError)])
        var ys: Observable<Int>?
        let res1 = scheduler.createObserver(Int.self)
        let res2 = scheduler.createObserver(Int.self)
        let res3 = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(100) { ys = xs.publish().refCount() }
        scheduler.scheduleAt(200) { _ = ys?.subscribe(res1) }
        scheduler.scheduleAt(215) { _ = ys?.subscribe(res2) }
        scheduler.scheduleAt(300) { _ = ys?.subscribe(res3) }
        scheduler.start()
        XCTAssertEqual(res1.events, [.next(210, 1), .error(220, testError)])
        XCTAssertEqual(res2.events, [.error(220, testError)])
        XCTAssertEqual(res3.events, [.next(310, 1), .error(320, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220), Subscription(300, 320)])
    }

    func testRefCount_observerOfEndedSubjectDoesNotReconnect() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        var ys: Observable<Int>?
        let late = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(100) { ys = xs.multicast(ReplaySubject.create(bufferSize: 1)).refCount() }
        scheduler.scheduleAt(300) { _ = ys?.subscribe(late) }
        let res = scheduler.start { ys! }
        XCTAssertEqual(res.events, [.next(210, 1), .completed(220)])
        XCTAssertEqual(late.events, [.next(300, 1), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testRefCount_synchronousSourceCompletesDuringConnectAndReleasesEverything() {
        var events: [Event<Int>] = []
        let shared = Observable.just(1).publish().refCount()
        _ = shared.subscribe { events.append($0) }
        _ = shared.subscribe { events.append($0) }
        XCTAssertEqual(events, [.next(1), .completed, .next(1), .completed])
    }

    func testRefCount_lastObserverDisposingFromItsHandlerDisconnects() {
        let subject = PublishSubject<Int>()
        let shared = Observable<Int>.create { observer in
            observer.onNext(1)
            return subject.subscribe(observer)
        }.publish().refCount()
        var seen: [Int] = []
        var subscription: Disposable?
        subscription = shared.subscribe(onNext: { value in
            seen.append(value)
            subscription?.dispose()
        })
        subject.onNext(2)
        subject.onNext(3)
        XCTAssertEqual(seen, [1, 2])
        XCTAssertFalse(subject.hasObservers)
        subscription = nil  // the handler captured it
    }

    func testMulticastSelector_sharesOneSourceSubscriptionInsideTheSelector() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(240, 2), .completed(300)])
        let res = scheduler.start {
            xs.multicast(
                { PublishSubject<Int>() },
                selector: { shared in
                    Observable<Int>.create { observer in
                        let first = shared.map { $0 * 10 }.subscribe(observer)
                        let second = shared.map { $0 * 100 }.subscribe(onNext: { observer.onNext($0) })
                        return Disposables.create(first, second)
                    }
                })
        }
        XCTAssertEqual(res.events, [.next(210, 10), .next(210, 100), .next(240, 20), .next(240, 200), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testMulticastSelector_disposalUnsubscribesSource() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(240, 2)])
        let res = scheduler.start(disposed: 230) {
            xs.multicast({ ReplaySubject<Int>.createUnbounded() }, selector: { $0.map { $0 + 1 } })
        }
        XCTAssertEqual(res.events, [.next(210, 2)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testMulticastSelector_errorThrownByEitherClosureEndsTheSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1)])
        let subjectFailure = scheduler.start {
            xs.multicast({ () throws -> PublishSubject<Int> in throw testError }, selector: { $0 })
        }
        XCTAssertEqual(subjectFailure.events, [.error(200, testError)])
        let selectorFailure = scheduler.start(created: 1100, subscribed: 1200, disposed: 1300) {
            xs.multicast({ PublishSubject<Int>() }, selector: { _ -> Observable<Int> in throw testError2 })
        }
        XCTAssertEqual(selectorFailure.events, [.error(1200, testError2)])
        XCTAssertEqual(xs.subscriptions, [])
    }
}
