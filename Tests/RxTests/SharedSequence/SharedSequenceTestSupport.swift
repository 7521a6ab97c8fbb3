import Rx
import RxTesting
import XCTest

extension XCTestCase {
    /// Runs `body` with `scheduler` as the shared sequences' scheduler: Drivers and Signals
    /// created inside deliver in its virtual time.
    func withSharingScheduler(_ scheduler: TestScheduler, _ body: () -> Void) {
        SharingScheduler.mock(scheduler: scheduler, action: body)
    }
}
