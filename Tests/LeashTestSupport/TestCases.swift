import Foundation
import Leash
import LeashTesting
import Rx
import RxTesting
import XCTest

/// Base class of tests that must not leak: fails a test that leaves `Rx` resources
/// (`Resources.total`) alive once its executions have ended or been disposed.
open class LeakCheckedTestCase: XCTestCase {
    private var resourcesAtStart: Int32 = 0

    override open func setUp() {
        super.setUp()
        resourcesAtStart = Resources.total
    }

    override open func tearDown() {
        assertResourcesReturn(to: resourcesAtStart)
        super.tearDown()
    }
}

/// Base class of virtual-time tests: a fresh `TestScheduler` (one tick per second, as in
/// RxTest) and a `StubTransport` answering on it, for every test; plus the leak check.
open class VirtualTimeTestCase: LeakCheckedTestCase {
    /// The test's virtual clock.
    package var scheduler: TestScheduler!
    /// A stub transport whose delays run on `scheduler`.
    package var transport: StubTransport!

    override open func setUp() {
        super.setUp()
        scheduler = TestScheduler(initialClock: 0)
        transport = StubTransport(scheduler: scheduler)
    }

    override open func tearDown() {
        // Released before the leak check: the scheduler holds the work still scheduled.
        scheduler = nil
        transport = nil
        super.tearDown()
    }
}
