import Dispatch
import XCTest

extension XCTestCase {
    /// Waits until everything queued on the main queue so far has run.
    ///
    /// XCTest runs test methods on the main thread, and `wait(for:timeout:)` spins the main
    /// run loop, which drains the main dispatch queue (on Linux too); the main queue is
    /// serial, so a block queued now runs after everything queued before it.
    func drainMainQueue() {
        let drained = expectation(description: "main queue drained")
        DispatchQueue.main.async { drained.fulfill() }
        wait(for: [drained], timeout: 5)
    }
}
