import Foundation
import Rx
import RxTesting
import XCTest

final class HooksDefaultErrorHandlerTests: RxTestCase {
    private var savedHandler: Hooks.DefaultErrorHandler?

    override func setUp() {
        super.setUp()
        savedHandler = Hooks.defaultErrorHandler
    }

    override func tearDown() {
        if let savedHandler { Hooks.defaultErrorHandler = savedHandler }
        super.tearDown()
    }

    func testUnhandledError_goesToDefaultErrorHandler() {
        let received = ErrorLog()
        Hooks.defaultErrorHandler = { _, error in received.append(error) }
        _ = Observable<Int>.error(testError).subscribe(onNext: { _ in })
        XCTAssertEqual(received.all.map { "\($0)" }, ["TestError(1)"])
    }

    func testHandledError_doesNotReachDefaultErrorHandler() {
        let received = ErrorLog()
        Hooks.defaultErrorHandler = { _, error in received.append(error) }
        var handled: [Error] = []
        _ = Observable<Int>.error(testError).subscribe(onError: { handled.append($0) })
        XCTAssertEqual(received.all.count, 0)
        XCTAssertEqual(handled.count, 1)
    }

    func testUnhandledError_stillDisposesTheSubscription() {
        Hooks.defaultErrorHandler = { _, _ in }
        var disposed = 0
        _ = Observable<Int>.error(testError).subscribe(onDisposed: { disposed += 1 })
        XCTAssertEqual(disposed, 1)
    }

    func testDefaultErrorHandler_canBeReadBackAndCalled() {
        let received = ErrorLog()
        Hooks.defaultErrorHandler = { _, error in received.append(error) }
        Hooks.defaultErrorHandler(["frame"], testError2)
        XCTAssertEqual(received.all.map { "\($0)" }, ["TestError(2)"])
    }

    func testDefaultErrorHandler_settableFromManyThreads() {
        let received = ErrorLog()
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            if index % 2 == 0 {
                Hooks.defaultErrorHandler = { _, error in received.append(error) }
            } else {
                _ = Hooks.defaultErrorHandler
            }
        }
        Hooks.defaultErrorHandler([], testError)
        XCTAssertEqual(received.all.count, 1)
    }
}

private final class ErrorLog: @unchecked Sendable {
    // Sendable: the errors are behind `lock`.
    private let lock = NSLock()
    private var errors: [Error] = []

    var all: [Error] {
        lock.lock()
        defer { lock.unlock() }
        return errors
    }

    func append(_ error: Error) {
        lock.lock()
        errors.append(error)
        lock.unlock()
    }
}
