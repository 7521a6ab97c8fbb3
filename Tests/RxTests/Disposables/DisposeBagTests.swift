import Rx
import RxTesting
import XCTest

final class DisposeBagTests: RxTestCase {
    func testDeinit_disposesEveryMemberOnceInInsertionOrder() {
        let log = SpyDisposalLog()
        var bag: DisposeBag? = DisposeBag()
        for name in ["a", "b", "c"] { bag?.insert(SpyDisposable(name, log: log)) }
        XCTAssertEqual(log.all, [])
        bag = nil
        XCTAssertEqual(log.all, ["a", "b", "c"])
    }

    func testInsertVariadicAndArray_addEveryMember() {
        let members = (0..<4).map { _ in SpyDisposable() }
        var bag: DisposeBag? = DisposeBag()
        bag?.insert(members[0], members[1])
        bag?.insert([members[2], members[3]])
        bag = nil
        XCTAssertEqual(members.map(\.disposeCount), [1, 1, 1, 1])
    }

    func testInitDisposing_holdsTheGivenMembers() {
        let members = (0..<4).map { _ in SpyDisposable() }
        var first: DisposeBag? = DisposeBag(disposing: members[0], members[1])
        var second: DisposeBag? = DisposeBag(disposing: [members[2], members[3]])
        XCTAssertEqual(members.map(\.disposeCount), [0, 0, 0, 0])
        first = nil
        XCTAssertEqual(members.map(\.disposeCount), [1, 1, 0, 0])
        second = nil
        XCTAssertEqual(members.map(\.disposeCount), [1, 1, 1, 1])
        XCTAssertNil(first)
        XCTAssertNil(second)
    }

    func testReplacingTheBag_disposesItsSubscriptions() {
        let subject = PublishSubject<Int>()
        var received: [Int] = []
        var bag = DisposeBag()
        subject.subscribe(onNext: { received.append($0) }).disposed(by: bag)
        subject.onNext(1)
        bag = DisposeBag()
        subject.onNext(2)
        XCTAssertEqual(received, [1])
        XCTAssertFalse(subject.hasObservers)
        _ = bag
    }
}
