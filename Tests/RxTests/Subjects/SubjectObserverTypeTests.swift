import Rx
import XCTest

/// `SubjectObserverType`: each subject's observer side is the subject itself.
final class SubjectObserverTypeTests: RxTestCase {
    func testPublishSubject() {
        let subject = PublishSubject<Int>()
        let observer: PublishSubject<Int>.SubjectObserverType = subject.asObserver()
        XCTAssertTrue(observer === subject)
        XCTAssertEqual(deliver(7, to: observer, readingFrom: subject), [7])
    }

    func testBehaviorSubject() {
        let subject = BehaviorSubject(value: 0)
        let observer: BehaviorSubject<Int>.SubjectObserverType = subject.asObserver()
        XCTAssertTrue(observer === subject)
        XCTAssertEqual(try subject.value(), 0)
        observer.onNext(7)
        XCTAssertEqual(try subject.value(), 7)
    }

    func testReplaySubject() {
        let subject = ReplaySubject<Int>.create(bufferSize: 1)
        let observer: ReplaySubject<Int>.SubjectObserverType = subject.asObserver()
        XCTAssertTrue(observer === subject)
        XCTAssertEqual(deliver(7, to: observer, readingFrom: subject), [7])
    }

    func testAsyncSubject() {
        let subject = AsyncSubject<Int>()
        let observer: AsyncSubject<Int>.SubjectObserverType = subject.asObserver()
        XCTAssertTrue(observer === subject)
        var received: [Int] = []
        let subscription = subject.subscribe(onNext: { received.append($0) })
        observer.onNext(7)
        observer.onCompleted()
        XCTAssertEqual(received, [7])
        subscription.dispose()
    }

    func testSubjectObserverType_isTheSubjectTypesObserver() {
        XCTAssertTrue(observerType(of: PublishSubject<Int>.self) == PublishSubject<Int>.SubjectObserverType.self)
        XCTAssertTrue(observerType(of: BehaviorSubject<Int>.self) == BehaviorSubject<Int>.SubjectObserverType.self)
        XCTAssertTrue(observerType(of: ReplaySubject<Int>.self) == ReplaySubject<Int>.SubjectObserverType.self)
        XCTAssertTrue(observerType(of: AsyncSubject<Int>.self) == AsyncSubject<Int>.SubjectObserverType.self)
    }

    private func observerType<Subject: SubjectType>(of _: Subject.Type) -> Any.Type { Subject.Observer.self }

    private func deliver<Observer: ObserverType>(
        _ element: Int, to observer: Observer, readingFrom source: Observable<Int>
    ) -> [Int] where Observer.Element == Int {
        var received: [Int] = []
        let subscription = source.subscribe(onNext: { received.append($0) })
        observer.onNext(element)
        subscription.dispose()
        return received
    }
}
