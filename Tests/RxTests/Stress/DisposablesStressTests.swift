import Foundation
import Rx
import RxTesting
import XCTest

/// Disposable containers hammered from many threads: every member is disposed exactly
/// once, whatever the interleaving.
final class DisposablesStressTests: RxTestCase {
    func testCompositeDisposable_concurrentInsertRemoveAndDisposeDisposeEachMemberOnce() {
        let before = Resources.total
        let rounds = StressBudget.iterations(300)
        let deadline = StressDeadline()
        var failures: [String] = []
        for round in 0..<rounds where !deadline.hasPassed {
            let group = CompositeDisposable()
            let members = MemberList()
            let insert: @Sendable () -> Void = {
                for index in 0..<30 {
                    let member = StressCountingDisposable()
                    members.append(member)
                    // Remove every third one again, racing the group's disposal.
                    if let key = group.insert(member), index % 3 == 0 {
                        group.remove(for: key)
                    }
                }
            }
            stressRace([
                insert, insert,
                {
                    stressSpin(round % 16 * 50)
                    group.dispose()
                },
            ])
            group.dispose()
            let counts = members.all.map(\.disposeCount)
            if counts.contains(where: { $0 != 1 }) {
                failures.append("round \(round): dispose counts \(counts.filter { $0 != 1 })")
            }
            if group.count != 0 || !group.isDisposed { failures.append("round \(round): group not empty") }
        }
        XCTAssertEqual(failures, [])
        assertResourcesSettle(at: before)
    }

    func testSerialDisposable_concurrentReplacementAndDisposeDisposeEachValueOnce() {
        let before = Resources.total
        let rounds = StressBudget.iterations(300)
        let deadline = StressDeadline()
        var failures: [String] = []
        for round in 0..<rounds where !deadline.hasPassed {
            let serial = SerialDisposable()
            let members = MemberList()
            let replace: @Sendable () -> Void = {
                for _ in 0..<30 {
                    let member = StressCountingDisposable()
                    members.append(member)
                    serial.disposable = member
                }
            }
            stressRace([
                replace, replace,
                {
                    stressSpin(round % 16 * 50)
                    serial.dispose()
                },
            ])
            serial.dispose()
            let counts = members.all.map(\.disposeCount)
            if counts.contains(where: { $0 != 1 }) {
                failures.append("round \(round): dispose counts \(counts.filter { $0 != 1 })")
            }
        }
        XCTAssertEqual(failures, [])
        assertResourcesSettle(at: before)
    }

    func testSingleAssignmentDisposable_setRacingDisposeDisposesOnce() {
        let before = Resources.total
        let failures = StressCounter()
        let rounds = StressBudget.iterations(1_000)
        let deadline = StressDeadline()
        for round in 0..<rounds where !deadline.hasPassed {
            let single = SingleAssignmentDisposable()
            let member = StressCountingDisposable()
            stressRace([
                {
                    stressSpin(round % 8 * 10)
                    single.setDisposable(member)
                },
                {
                    single.dispose()
                    single.dispose()
                },
            ])
            if member.disposeCount != 1 || !single.isDisposed { failures.increment() }
        }
        XCTAssertEqual(failures.value, 0)
        assertResourcesSettle(at: before)
    }

    func testDisposeBag_concurrentInsertsAreAllDisposedOnceWhenTheBagGoes() {
        let rounds = StressBudget.iterations(300)
        let deadline = StressDeadline()
        var failures: [String] = []
        for round in 0..<rounds where !deadline.hasPassed {
            let members = MemberList()
            var bag: DisposeBag? = DisposeBag()
            if let sharedBag = bag {
                DispatchQueue.concurrentPerform(iterations: 4) { worker in
                    for _ in 0..<25 {
                        let member = StressCountingDisposable()
                        members.append(member)
                        if worker % 2 == 0 { sharedBag.insert(member) } else { member.disposed(by: sharedBag) }
                    }
                }
            }
            let countsBefore = members.all.map(\.disposeCount)
            bag = nil
            let counts = members.all.map(\.disposeCount)
            if countsBefore.contains(where: { $0 != 0 }) || counts.contains(where: { $0 != 1 }) || counts.count != 100 {
                failures.append("round \(round): \(counts.count) members, counts \(Set(counts))")
            }
            XCTAssertNil(bag)
        }
        XCTAssertEqual(failures, [])
    }

    func testAnonymousAndBinaryDisposables_concurrentDisposeRunsOnce() {
        let before = Resources.total
        let failures = StressCounter()
        stressConcurrently(workers: 2, iterations: 2_000) { _, _ in
            let actionRuns = StressCounter()
            let first = StressCountingDisposable()
            let second = StressCountingDisposable()
            let anonymous = Disposables.create { actionRuns.increment() }
            let binary = Disposables.create(first, second)
            DispatchQueue.concurrentPerform(iterations: 3) { _ in
                anonymous.dispose()
                binary.dispose()
            }
            if actionRuns.value != 1 || first.disposeCount != 1 || second.disposeCount != 1 {
                failures.increment()
            }
        }
        XCTAssertEqual(failures.value, 0)
        assertResourcesSettle(at: before)
    }

    func testCompositeDisposable_disposedFromManyThreadsAtOnceDisposesEachMemberOnce() {
        let before = Resources.total
        let failures = StressCounter()
        stressConcurrently(workers: 2, iterations: 1_000) { _, _ in
            let members = (0..<8).map { _ in StressCountingDisposable() }
            let group = CompositeDisposable(disposables: members)
            DispatchQueue.concurrentPerform(iterations: 3) { _ in group.dispose() }
            if members.contains(where: { $0.disposeCount != 1 }) { failures.increment() }
        }
        XCTAssertEqual(failures.value, 0)
        assertResourcesSettle(at: before)
    }
}

/// Members created on many threads, for the final count check.
private final class MemberList: @unchecked Sendable {
    // Sendable: the list is behind `lock`.
    private let lock = NSLock()
    private var members: [StressCountingDisposable] = []

    var all: [StressCountingDisposable] {
        lock.lock()
        defer { lock.unlock() }
        return members
    }

    func append(_ member: StressCountingDisposable) {
        lock.lock()
        members.append(member)
        lock.unlock()
    }
}
