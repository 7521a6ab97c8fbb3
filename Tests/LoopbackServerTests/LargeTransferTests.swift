#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import LoopbackServer
import XCTest

/// 200 MB through the server each way: the server's memory must not grow with the body.
/// The rates are printed for information (debug build, client in the same process); the
/// benchmarks measure release builds.
final class LargeTransferTests: LoopbackTestCase {
    private static let total = 200 << 20
    /// How much the process's peak resident memory may grow during a transfer. The client
    /// holds one 1 MB piece; the server a 64 KB read buffer and a 256 KB write buffer.
    private static let allowedGrowthKilobytes = 8 * 1024

    func testUpload200MB_streamed_doesNotGrowMemory() throws {
        let server = try makeServer()
        let piece = LoopbackServer.patternBytes(in: 0..<(1 << 20))
        let client = try RawClient(port: server.port, timeout: 120)
        // Warm up: one small upload, so that lazily built state is not counted.
        try client.send("PUT /upload HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc")
        XCTAssertEqual(try client.readResponse().status, 200)

        let baseline = try startMeasuring()
        let started = Date()
        try client.send("PUT /upload HTTP/1.1\r\nContent-Length: \(Self.total)\r\n\r\n")
        for _ in 0..<(Self.total / piece.count) { try client.send(piece) }
        let upload = try client.readJSON(LoopbackServer.ReceivedUpload.self)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(upload.bytes, Self.total)
        try assertMemoryGrowth(since: baseline, what: "upload", seconds: elapsed)
    }

    func testDownload200MB_generated_doesNotGrowMemory() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port, timeout: 120)
        try client.send("GET /bytes/10 HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readResponse().body.count, 10)

        var expected = [UInt8](repeating: 0, count: 256 * 1024)
        let baseline = try startMeasuring()
        let started = Date()
        try client.send("GET /bytes/\(Self.total) HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readHead().headers["Content-Length"], "\(Self.total)")
        var offset = 0
        var mismatches = 0
        try client.readBody(count: Self.total) { piece in
            expected.withUnsafeMutableBytes { buffer in
                LoopbackServer.fillPattern(
                    UnsafeMutableRawBufferPointer(rebasing: buffer[0..<piece.count]), from: offset)
            }
            let equal = piece.withUnsafeBytes { received in
                expected.withUnsafeBytes { pattern in
                    guard let left = received.baseAddress, let right = pattern.baseAddress else {
                        return received.isEmpty
                    }
                    return memcmp(left, right, received.count) == 0
                }
            }
            if !equal { mismatches += 1 }
            offset += piece.count
        }
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(offset, Self.total)
        XCTAssertEqual(mismatches, 0)
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.responseBodyBytes == Self.total + 10 })
        try assertMemoryGrowth(since: baseline, what: "download", seconds: elapsed)
    }

    /// Resets the peak and returns the resident set to compare with.
    private func startMeasuring() throws -> Int {
        guard ProcessMemory.resetPeak(), let resident = ProcessMemory.residentKilobytes else {
            throw XCTSkip("/proc/self/clear_refs is not available to reset VmHWM")
        }
        return resident
    }

    private func assertMemoryGrowth(since baseline: Int, what: String, seconds: TimeInterval) throws {
        let peak = try XCTUnwrap(ProcessMemory.peakResidentKilobytes)
        let growth = peak - baseline
        print(
            "LoopbackServer \(what) of \(Self.total >> 20) MB: peak resident memory grew \(growth) KB; "
                + "\(Int(Double(Self.total >> 20) / seconds)) MB/s (debug build, client in the same process)")
        XCTAssertLessThan(growth, Self.allowedGrowthKilobytes, "\(what): VmHWM grew from \(baseline) KB to \(peak) KB")
    }
}
