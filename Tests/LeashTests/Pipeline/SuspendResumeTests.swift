import Foundation
import Leash
import LeashTestSupport
import LeashTesting
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `DataRequest.suspend()` / `resume()` on the callback forms' handle, in virtual time:
/// a suspended download stops, keeps its bytes, and continues from them with `Range`; a
/// suspended request is stopped and sent again on resume; the idle limit waits meanwhile.
final class SuspendResumeTests: VirtualTimeTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = try TransferTestFolder(removedAfter: self).url
    }

    private func pattern(_ count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0) })
    }

    private func client(_ configure: (Manager.Builder) -> Manager.Builder = { $0 }) throws -> Client {
        Client(
            manager: try configure(
                Manager.Builder().url("https://api.example.com").transport(transport).scheduler(scheduler)
            )
            .build())
    }

    func testSuspendedDownload_stops_thenResumesFromItsBytesWithARange() throws {
        let body = pattern(4000)
        transport.stub(
            .get, path: "/file",
            StubResponse(body: body).progress(steps: 4, every: 1).acceptingRanges())
        let destination = folder.appendingPathComponent("file.bin")
        let client = try client()
        let log = SpecLocked<[String]>([])
        var handle: DataRequest?
        scheduler.scheduleAt(100) {
            handle = client.download(
                SpecDownload("/file"), to: destination,
                progress: { progress in
                    log.withLock { $0.append("\(progress.completedBytes) @ \(self.scheduler.clock)") }
                },
                completion: { response in
                    log.withLock {
                        $0.append(
                            "done \(response.value?.lastPathComponent ?? "\(response.error!)") @ \(self.scheduler.clock)"
                        )
                    }
                })
        }
        scheduler.scheduleAt(101) { handle?.suspend() }
        scheduler.scheduleAt(110) {
            XCTAssertTrue(handle?.isSuspended ?? false)
            handle?.resume()
        }
        scheduler.start()

        XCTAssertEqual(
            log.value,
            ["1000 @ 100", "1750 @ 110", "2500 @ 111", "3250 @ 112", "4000 @ 113", "done file.bin @ 113"])
        XCTAssertEqual(try Data(contentsOf: destination), body)
        XCTAssertEqual(transport.requests.map { $0.value(forHTTPHeaderField: "Range") }, [nil, "bytes=1000-"])
    }

    func testRequestSuspendedInFlight_isStopped_andSentAgainOnResume() throws {
        transport.stub(.get, path: "/users/1", .json(#"{"id":1,"name":"Ada"}"#, delay: 2))
        let client = try client()
        let log = SpecLocked<[String]>([])
        var handle: DataRequest?
        scheduler.scheduleAt(100) {
            handle = client.execute(SpecDownload("/users/1")) { (response: Response<SpecUser>) in
                log.withLock { $0.append("\(response.value?.name ?? "failure") @ \(self.scheduler.clock)") }
            }
            handle?.suspend()
        }
        scheduler.scheduleAt(150) { handle?.resume() }
        scheduler.start()

        XCTAssertEqual(log.value, ["Ada @ 152"], "the first answer (due at 102) never arrived")
        XCTAssertEqual(transport.requests.count, 2, "sent, stopped, sent again")
    }

    func testIdleTimeout_waitsWhileSuspended() throws {
        transport.stub(.get, path: "/file", StubResponse(body: pattern(3000)).progress(steps: 3).acceptingRanges())
        let destination = folder.appendingPathComponent("file.bin")
        let client = try client { $0.idleTimeout(5) }
        let outcome = SpecLocked<[String]>([])
        var handle: DataRequest?
        scheduler.scheduleAt(100) {
            handle = client.download(SpecDownload("/file"), to: destination) { response in
                outcome.withLock {
                    $0.append(response.isSuccess ? "file @ \(self.scheduler.clock)" : "\(response.error!)")
                }
            }
        }
        scheduler.scheduleAt(101) { handle?.suspend() }
        scheduler.scheduleAt(130) { handle?.resume() }
        scheduler.start()

        XCTAssertEqual(outcome.value, ["file @ 132"], "30 s suspended is not 30 s idle")
    }
}

/// A GET endpoint.
private struct SpecDownload: Endpoint {
    let path: String
    var method: HTTPMethod { .get }

    init(_ path: String) {
        self.path = path
    }
}
