import Foundation
import Leash
import LeashTestSupport
import LeashTesting
import XCTest

/// Base of the encoding tests that need files: a fresh directory per test, removed after it.
class TemporaryFilesTestCase: XCTestCase {
    /// The test's own directory.
    private(set) var directory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("leash-encoding-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
        directory = nil
        super.tearDown()
    }

    /// Writes `contents` to a file called `name` in the test's directory.
    func makeFile(_ name: String, contents: Data) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try contents.write(to: url)
        return url
    }

    /// Writes `text` (UTF-8) to a file called `name` in the test's directory.
    func makeFile(_ name: String, text: String) throws -> URL {
        try makeFile(name, contents: Data(text.utf8))
    }

    /// Makes a directory called `name` in the test's directory.
    func makeDirectory(_ name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// `count` bytes that repeat a pattern not aligned to powers of two, so that a chunk
    /// written twice or out of order shows.
    func patternedBytes(count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 % 251) })
    }

    /// Executes `endpoint` through the whole pipeline on a stub transport and returns the
    /// `LeashError.encoding` it fails with, checking that nothing was sent.
    func pipelineEncodingFailure(
        _ endpoint: Endpoint, file: StaticString = #filePath, line: UInt = #line
    ) throws -> (reason: String, underlying: Swift.Error?)? {
        let transport = StubTransport()
        let client = Client(manager: try Manager.Builder().url("http://h").transport(transport).build())
        let failure = SpecLocked<(reason: String, underlying: Swift.Error?)?>(nil)
        let done = expectation(description: "failed")
        client.execute(endpoint) { (response: Response<Data>) in
            if case .encoding(let reason, let underlying) = response.error as? LeashError {
                failure.withLock { $0 = (reason, underlying) }
            } else {
                XCTFail("expected LeashError.encoding, got \(response)", file: file, line: line)
            }
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        XCTAssertTrue(transport.requests.isEmpty, "nothing is sent", file: file, line: line)
        return failure.value
    }
}

/// `data` as UTF-8 text, for comparing bodies.
func specText(_ data: Data?) -> String? {
    data.map { String(decoding: $0, as: UTF8.self) }
}
