import Foundation
import LeashTestSupport
import LeashTesting
import RxTesting

/// Base of the outbox's virtual-time tests: a folder for the stores, a `TestScheduler` whose
/// tick is a millisecond, and a `StubTransport` answering on it; with the leak check.
class OutboxTestCase: LeakCheckedTestCase {
    var folder: TransferTestFolder!
    var scheduler: TestScheduler!
    var transport: StubTransport!

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = try TransferTestFolder(removedAfter: self)
    }

    override func setUp() {
        super.setUp()  // the leak check's baseline, before the scheduler and the transport
        scheduler = TestScheduler(initialClock: 0, resolution: 0.001)  // one tick = 1 ms
        transport = StubTransport(scheduler: scheduler)
    }

    override func tearDown() {
        // Released before the leak check: the scheduler holds the work still scheduled.
        scheduler = nil
        transport = nil
        super.tearDown()
    }
}
