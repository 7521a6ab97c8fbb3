// The README's "Uploads, downloads and progress" snippets, compiled and run against
// `LoopbackServer`. `UploadAvatar` is the README's own (from "Endpoints and encoding");
// `Report`, `photo` and `reportURL` stand for the app's endpoint and files.

import Foundation
import LeashTestSupport
import LoopbackServer
import RxLeash
import XCTest

private struct User: Decodable, Equatable {
    let id: Int
    let name: String
}

private struct UploadAvatar: Endpoint {
    let userID: Int
    let photo: URL  // a file on disk, such as …/me.jpg
    var path: String { "/users/\(userID)/avatar" }
    var method: HTTPMethod { .post }
    var parameters: Any? {
        let form = MultipartFormData()
        form.append("profile", name: "purpose")
        form.append(fileAt: photo, name: "avatar")  // filename="me.jpg", Content-Type: image/jpeg
        return form
    }
}

private struct Report: Endpoint {
    let year: Int
    var path: String { "/reports/\(year).pdf" }
    var method: HTTPMethod { .get }
}

final class TransferReadmeSnippetsTests: LoopbackIntegrationCase {
    private var folder: URL!
    private let reportBytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = try TransferTestFolder(removedAfter: self).url
        server.route("GET", "/reports/2026.pdf", response: LoopbackResponse(body: reportBytes))
    }

    func testUploadWithProgress_rx() throws {
        let photo = folder.appendingPathComponent("me.jpg")
        let photoBytes = Data(repeating: 0xAB, count: 300_000)
        try photoBytes.write(to: photo)
        let uploaded = SpecLocked<Data?>(nil)
        let arrived = expectation(description: "the upload arrived")
        server.route(
            .post("/users/1/avatar") { request in
                uploaded.withLock { $0 = request.body }
                arrived.fulfill()
                return .json(Data(#"{"id":1,"name":"Ada"}"#.utf8))
            })
        let disposeBag = DisposeBag()
        let client = try makeClient()

        // Rx: progress, then the decoded response.
        client.rx.upload(UploadAvatar(userID: 1, photo: photo), type: User.self)
            .subscribe(onNext: { transfer in
                switch transfer {
                case .progress(let progress): print("sent \(progress)")  // "524288 of 1048576 bytes (50%)"
                case .completed(let user): print("avatar of \(user.name) uploaded")
                }
            })
            .disposed(by: disposeBag)

        wait(for: [arrived], timeout: 10)
        let body = try XCTUnwrap(uploaded.value)
        XCTAssertNotNil(body.range(of: photoBytes), "the photo went out whole, in the form")
        XCTAssertNotNil(body.range(of: Data(#"filename="me.jpg""#.utf8)))
    }

    func testDownload_async_andCallbackWithSuspendAndResume() async throws {
        let client = try makeClient()
        let reportURL = folder.appendingPathComponent("reports/2026.pdf")

        // async/await: the value; progress in a closure.
        let saved = try await client.download(Report(year: 2026), to: reportURL) { progress in
            print(progress.fraction ?? 0)
        }
        XCTAssertEqual(saved, reportURL)
        XCTAssertEqual(try Data(contentsOf: reportURL), reportBytes)

        try FileManager.default.removeItem(at: reportURL)
        let finished = expectation(description: "finished")
        let outcome = SpecLocked<URL?>(nil)
        // What the app does with the file.
        let open: (URL?) -> Void = { file in
            outcome.withLock { $0 = file }
            finished.fulfill()
        }

        // A callback, with a handle that cancels, suspends and resumes.
        let request = client.download(
            Report(year: 2026), to: reportURL, progress: { progress in print(progress.completedBytes) },
            completion: { (response: Response<URL>) in open(response.value) })
        request.suspend()
        request.resume()
        await fulfillment(of: [finished], timeout: 10)
        XCTAssertEqual(outcome.value, reportURL)
        XCTAssertEqual(try Data(contentsOf: reportURL), reportBytes)
    }
}
