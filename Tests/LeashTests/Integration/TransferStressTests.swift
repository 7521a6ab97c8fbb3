import Dispatch
import Foundation
import Leash
import LeashTestSupport
import LoopbackServer
import Rx
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Downloads and uploads started and disposed at odd moments from many threads at once:
/// nothing crashes, every execution ends once, no temporary file is left, and every Rx
/// resource is freed (the base class checks it).
final class TransferStressTests: LoopbackIntegrationCase {
    func testDownloadsDisposedAtRandomMomentsFromManyThreads_leaveNothingBehind() throws {
        let folder = try TransferTestFolder(removedAfter: self).url
        let before = transferFiles()
        let client = try makeClient()
        let count = 120
        let ended = SpecLocked(0)
        let finished = expectation(description: "every execution ended or was disposed")
        finished.expectedFulfillmentCount = count
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let destination = folder.appendingPathComponent("file-\(index).bin")
            let once = SpecLocked(false)
            let end: @Sendable () -> Void = {
                if once.withLock({ done in
                    defer { done = true }; return !done
                }) {
                    ended.withLock { $0 += 1 }
                    finished.fulfill()
                }
            }
            let subscription = client.downloadEventStream(
                SpecEndpoint("/bytes/\(100_000 + index * 1000)?chunk=16384&interval=1"), to: destination
            )
            .subscribe(onError: { _ in end() }, onCompleted: { end() })
            // Dispose a third at once, a third a little later, and let the rest finish.
            switch index % 3 {
            case 0:
                subscription.dispose()
                end()
            case 1:
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(index % 7)) {
                    subscription.dispose()
                    end()
                }
            default:
                break
            }
        }
        wait(for: [finished], timeout: 60)
        XCTAssertEqual(ended.value, count)
        // Disposing removes a download's file at once, and an ending execution before it
        // reports: nothing is left by now.
        XCTAssertEqual(transferFiles().subtracting(before), [], "temporary files left behind")
    }
}
