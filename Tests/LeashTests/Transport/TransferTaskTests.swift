import Dispatch
import Foundation
import Rx
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One transfer's events, as the session's delegate calls come in while its delivery queue
/// is busy elsewhere (held here by suspending it): what must arrive before the end still
/// does when URLSession finished the task before the delivery queue got to it.
final class TransferTaskTests: XCTestCase {
    /// Records what the transfer handed on, as text.
    private final class Recorder: ObserverType, @unchecked Sendable {
        // @unchecked: all state is behind `lock`.
        typealias Element = TransportEvent
        private let lock = NSLock()
        private var events: [String] = []
        let ended: XCTestExpectation?

        init(_ ended: XCTestExpectation?) {
            self.ended = ended
        }

        func on(_ event: Event<TransportEvent>) {
            let text: String
            switch event {
            case .next(.uploadProgress(let progress)):
                text = "upload \(progress.completedBytes)/\(progress.expectedBytes ?? -1)"
            case .next(.downloadProgress(let progress)):
                text = "download \(progress.completedBytes)/\(progress.expectedBytes ?? -1)"
            case .next(.response(let head)): text = "head \(head.statusCode)"
            case .next(.body(let chunk)): text = "body \(chunk.count)"
            case .next(.completed): text = "response"
            case .error(let error): text = "error \(error)"
            case .completed: text = "completed"
            }
            lock.withLock { events.append(text) }
            if event.isStopEvent { ended?.fulfill() }
        }

        var all: [String] { lock.withLock { events } }
    }

    private let url = URL(string: "http://127.0.0.1/upload")!

    private func head(_ status: Int = 200) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: [:])!
    }

    private func makeUpload(
        deliveryQueue: DispatchQueue, ended: XCTestExpectation?
    ) -> (TransferTask, TaskState, Recorder) {
        let recorder = Recorder(ended)
        let state = TaskState(cancelQueue: DispatchQueue(label: "cancel"))
        let task = TransferTask(
            destination: .memory, reportsProgress: true, requestedOffset: 0, uploadSize: 1_000_000, state: state,
            credentials: .none, deliveryQueue: deliveryQueue, observer: TransferOutput(AnyObserver(recorder)),
            session: nil, slowSubscribers: .holdBack, cookieExpiry: nil)
        return (task, state, recorder)
    }

    /// An upload's last bytes go out just before its answer comes: URLSession may finish
    /// the task before the delivery queue hands on the complete progress, which must still
    /// come (it once was dropped, leaving the app's progress at 64 KB of 1 MB).
    func testTheCompleteUploadProgress_goesOutBeforeTheEnd_evenIfTheTaskFinishedFirst() {
        let delivery = DispatchQueue(label: "delivery")
        let ended = expectation(description: "the end")
        let (task, _, recorder) = makeUpload(deliveryQueue: delivery, ended: ended)
        // The delivery queue is busy (another request's pipeline, a slow subscriber):
        // nothing handed to it runs until URLSession is done with the task.
        delivery.suspend()
        task.sent(65_536, of: 1_000_000)
        task.sent(1_000_000, of: 1_000_000)
        task.received(head())
        task.received(Data("answer".utf8))
        task.completed(nil, response: nil)
        delivery.resume()
        wait(for: [ended], timeout: 5)

        // The 64 KB progress is dropped (it no longer matters once the task finished); the
        // body's progress and the answer follow.
        XCTAssertEqual(recorder.all.first, "upload 1000000/1000000", "the complete progress, before the end")
        XCTAssertEqual(recorder.all.filter { $0.hasPrefix("upload") }.count, 1)
        XCTAssertEqual(Array(recorder.all.suffix(3)), ["download 6/6", "response", "completed"])
    }

    /// A cancelled transfer reports nothing more, the complete progress included.
    func testTheCompleteUploadProgress_isDroppedAfterACancel() {
        let delivery = DispatchQueue(label: "delivery")
        let (task, state, recorder) = makeUpload(deliveryQueue: delivery, ended: nil)
        delivery.suspend()
        task.sent(1_000_000, of: 1_000_000)
        state.dispose()
        delivery.resume()
        // What was handed on is queued already: once the queue ran it, it has been judged.
        delivery.sync {}

        XCTAssertEqual(recorder.all, [])
        withExtendedLifetime(task) {}
    }
}
