import Foundation
import LoopbackServer
import XCTest

@testable import net_benchmarks

/// The transfer scenarios at 2 MB against an in-process server (the benchmark runs them at
/// 100 MB against a child): each run must pass its own verification, and the verification
/// must catch a wrong file.
final class TransferScenarioTests: XCTestCase {
    private static let bytes = 2_000_000
    private var server: LoopbackServer!
    private var bench: TransferBench!

    override func setUpWithError() throws {
        let server = try makeBenchmarkServer()
        self.server = server
        // A 1 MB threshold, so that Leash stages the 2 MB form in a file as it does 100 MB.
        bench = TransferBench(
            bytes: Self.bytes, baseURL: server.baseURL, requestCount: { server.requestCount },
            multipartMemoryThreshold: 1_000_000)
    }

    override func tearDown() {
        bench.removeFiles()
        bench = nil
        server.stop()
        server = nil
    }

    private func assertRunsVerified(_ modes: [TransferMode], file: StaticString = #filePath, line: UInt = #line) {
        for mode in modes {
            let outcome = checkedRun(bench.scenario(mode))
            XCTAssertNil(outcome.problem, mode.name, file: file, line: line)
        }
    }

    func testDownloadScenarios_writeThePatternToTheFile_andPassVerification() {
        assertRunsVerified([.leashDownload, .rawDownloadTask, .rawDataTaskToFile])
    }

    func testUploadScenarios_sendEveryByte_andPassVerification() {
        assertRunsVerified([.leashUpload, .rawUpload, .rawUploadWithProgress])
    }

    func testMultipartScenarios_sendTheFieldAndTheFilePart_andPassVerification() {
        assertRunsVerified([.leashMultipart, .rawMultipart])
    }

    func testEveryModeHasAKindAndAName_andEachKindHasLeashAndRaw() {
        for kind in TransferKind.allCases {
            let modes = TransferMode.allCases.filter { $0.kind == kind }
            XCTAssertTrue(modes.contains { $0.isLeash }, "\(kind)")
            XCTAssertTrue(modes.contains { !$0.isLeash }, "\(kind)")
            XCTAssertTrue(modes.allSatisfy { $0.name.hasPrefix("\(kind.rawValue): ") }, "\(kind)")
        }
    }

    func testPatternMismatch_findsAChangedByte_andAWrongSize() throws {
        let file = bench.directory.appendingPathComponent("check.bin")
        try TransferBench.writePattern(count: Self.bytes, to: file)
        XCTAssertNil(TransferBench.patternMismatch(in: file, count: Self.bytes))
        XCTAssertEqual(
            TransferBench.patternMismatch(in: file, count: Self.bytes + 1),
            "the file has \(Self.bytes) bytes, not \(Self.bytes + 1)")

        let handle = try FileHandle(forUpdating: file)
        try handle.seek(toOffset: 1_234_567)
        try handle.write(contentsOf: Data([LoopbackServer.patternByte(at: 1_234_567) &+ 1]))
        try handle.close()
        XCTAssertEqual(
            TransferBench.patternMismatch(in: file, count: Self.bytes),
            "the file differs from the pattern at offset 1234567"
        )
    }

    func testPeakMemory_seesAnAllocationHeldDuringTheRun() throws {
        try XCTSkipUnless(PeakMemory.isAvailable, "the peak RSS cannot be reset here")
        let baseline = try XCTUnwrap(PeakMemory.reset())
        var buffer = [UInt8](repeating: 1, count: 32_000_000)
        buffer[buffer.count - 1] = 2
        let peak = try XCTUnwrap(PeakMemory.peak())
        XCTAssertEqual(buffer.last, 2)
        XCTAssertGreaterThan(peak - baseline, 30_000_000)
    }
}
