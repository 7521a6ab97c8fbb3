import Dispatch
import Foundation
import LeashInterceptors
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private func storeKey(_ path: String, query: String = "") -> CacheKey {
    CacheKey(method: "GET", location: "https://api.example.com\(path)", query: query)
}

private func bytes(_ text: String) -> Data { Data(text.utf8) }

final class CacheDataStoreTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = try cacheSpecTemporaryDirectory()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
        directory = nil
        super.tearDown()
    }

    // MARK: In memory

    func testInMemory_savesReplacesAndRemoves() {
        let store = InMemoryDataStore()
        XCTAssertNil(store.data(for: storeKey("/a")))
        store.save(bytes("one"), for: storeKey("/a"))
        store.save(bytes("two"), for: storeKey("/a"))
        store.save(bytes("b"), for: storeKey("/b"))
        XCTAssertEqual(store.data(for: storeKey("/a")), bytes("two"))
        XCTAssertEqual(store.count, 2)
        XCTAssertEqual(store.totalBytes, 4)
        store.removeData(for: storeKey("/a"))
        XCTAssertNil(store.data(for: storeKey("/a")))
        store.removeAll()
        XCTAssertNil(store.data(for: storeKey("/b")))
        XCTAssertEqual(store.totalBytes, 0)
    }

    func testInMemory_entryLimit_evictsTheLeastRecentlyUsed() {
        let store = InMemoryDataStore(maximumEntryCount: 2)
        store.save(bytes("a"), for: storeKey("/a"))
        store.save(bytes("b"), for: storeKey("/b"))
        _ = store.data(for: storeKey("/a"))  // /b is now the least recently used
        store.save(bytes("c"), for: storeKey("/c"))
        XCTAssertEqual(store.data(for: storeKey("/a")), bytes("a"))
        XCTAssertNil(store.data(for: storeKey("/b")))
        XCTAssertEqual(store.data(for: storeKey("/c")), bytes("c"))
    }

    func testInMemory_byteLimit_evictsUntilItFits_andRefusesOversizedBodies() {
        let store = InMemoryDataStore(maximumTotalBytes: 10)
        store.save(bytes("12345"), for: storeKey("/a"))
        store.save(bytes("12345"), for: storeKey("/b"))
        store.save(bytes("123"), for: storeKey("/c"))
        XCTAssertNil(store.data(for: storeKey("/a")))
        XCTAssertEqual(store.totalBytes, 8)
        store.save(bytes("12345678901"), for: storeKey("/big"))
        XCTAssertNil(store.data(for: storeKey("/big")))
        XCTAssertEqual(store.count, 2, "an oversized body evicts nothing")
    }

    func testInMemory_nonPositiveLimits_storeNothingAndNeverCrash() {
        let store = InMemoryDataStore(maximumEntryCount: -1, maximumTotalBytes: -5)
        store.save(bytes("x"), for: storeKey("/a"))
        XCTAssertNil(store.data(for: storeKey("/a")))
        XCTAssertEqual(store.maximumEntryCount, 0)
    }

    func testInMemory_concurrentAccessFromManyThreads_staysConsistent() {
        let store = InMemoryDataStore(maximumEntryCount: 16)
        let values = (0..<8).map { bytes(String(repeating: "v", count: $0 + 1)) }
        let badReads = CacheSpecList<String>()
        DispatchQueue.concurrentPerform(iterations: 400) { iteration in
            let slot = storeKey("/k\(iteration % 24)")
            switch iteration % 4 {
            case 0, 1: store.save(values[iteration % values.count], for: slot)
            case 2:
                if let read = store.data(for: slot), !values.contains(read) { badReads.append("\(slot)") }
            default: if iteration % 40 == 3 { store.removeData(for: slot) } else { _ = store.data(for: slot) }
            }
        }
        XCTAssertTrue(badReads.all.isEmpty, "reads returned bodies never written: \(badReads.all)")
        XCTAssertLessThanOrEqual(store.count, 16)
        // The byte count matches the entries actually kept.
        let kept = (0..<24).compactMap { store.data(for: storeKey("/k\($0)")) }
        XCTAssertEqual(kept.count, store.count)
        XCTAssertEqual(kept.reduce(0) { $0 + $1.count }, store.totalBytes)
    }

    // MARK: On disk

    func testDisk_roundTripsAndSurvivesANewInstance() {
        let store = DiskDataStore(directory: directory)
        store.save(bytes("body"), for: storeKey("/a", query: "x=1"))
        XCTAssertEqual(store.data(for: storeKey("/a", query: "x=1")), bytes("body"))
        XCTAssertNil(store.data(for: storeKey("/a")), "the query is part of the key")
        XCTAssertEqual(DiskDataStore(directory: directory).data(for: storeKey("/a", query: "x=1")), bytes("body"))
    }

    func testDisk_fileNames_areHashedAndSafe() throws {
        let store = DiskDataStore(directory: directory)
        let hostile = storeKey("/../../etc/passwd", query: String(repeating: "q=%2F..%2F&", count: 200))
        store.save(bytes("x"), for: hostile)
        let url = store.fileURL(for: hostile)
        XCTAssertEqual(url.deletingLastPathComponent().standardizedFileURL.path, directory.standardizedFileURL.path)
        XCTAssertEqual(url.deletingPathExtension().lastPathComponent.count, 64)
        XCTAssertTrue(url.lastPathComponent.allSatisfy { $0.isHexDigit || $0 == "." || $0.isLetter })
        XCTAssertEqual(store.data(for: hostile), bytes("x"))
    }

    func testDisk_missingDirectory_isCreatedOnFirstSave() {
        let nested = directory.appendingPathComponent("a/b/c")
        let store = DiskDataStore(directory: nested)
        XCTAssertNil(store.data(for: storeKey("/a")))
        store.save(bytes("x"), for: storeKey("/a"))
        XCTAssertEqual(store.data(for: storeKey("/a")), bytes("x"))
    }

    func testDisk_corruptTruncatedOrFlippedFiles_areMisses() throws {
        let store = DiskDataStore(directory: directory)
        let slot = storeKey("/a")
        let body = bytes(#"{"id":1,"amount":10}"#)
        store.save(body, for: slot)
        let file = store.fileURL(for: slot)
        let whole = try Data(contentsOf: file)

        try Data("garbage, not a cache file".utf8).write(to: file)
        XCTAssertNil(store.data(for: slot), "garbage")
        try whole.prefix(whole.count - 3).write(to: file)
        XCTAssertNil(store.data(for: slot), "truncated")
        var flipped = whole
        flipped[flipped.count - 2] ^= 0xFF
        try flipped.write(to: file)
        XCTAssertNil(store.data(for: slot), "a flipped body byte")
        try Data().write(to: file)
        XCTAssertNil(store.data(for: slot), "empty")
        try (whole + bytes("extra")).write(to: file)
        XCTAssertNil(store.data(for: slot), "trailing bytes")

        store.save(body, for: slot)
        XCTAssertEqual(store.data(for: slot), body, "a later save repairs the entry")
    }

    func testDisk_anotherKeysFile_isAMiss() throws {
        let store = DiskDataStore(directory: directory)
        store.save(bytes("a"), for: storeKey("/a"))
        // As if two keys shared a hash: the file names /a's key, not /b's.
        try FileManager.default.copyItem(at: store.fileURL(for: storeKey("/a")), to: store.fileURL(for: storeKey("/b")))
        XCTAssertNil(store.data(for: storeKey("/b")))
    }

    func testDisk_directoryThatIsAFile_storesNothingAndNeverCrashes() throws {
        let blocker = directory.appendingPathComponent("blocker")
        try Data("x".utf8).write(to: blocker)
        let store = DiskDataStore(directory: blocker)
        store.save(bytes("x"), for: storeKey("/a"))
        XCTAssertNil(store.data(for: storeKey("/a")))
        store.removeAll()
        store.removeData(for: storeKey("/a"))
    }

    func testDisk_removeAll_deletesOnlyItsOwnFiles() throws {
        let store = DiskDataStore(directory: directory)
        store.save(bytes("a"), for: storeKey("/a"))
        store.save(bytes("b"), for: storeKey("/b"))
        let unrelated = directory.appendingPathComponent("notes.txt")
        try Data("keep me".utf8).write(to: unrelated)

        store.removeData(for: storeKey("/a"))
        XCTAssertNil(store.data(for: storeKey("/a")))
        XCTAssertEqual(store.data(for: storeKey("/b")), bytes("b"))
        store.removeAll()
        XCTAssertNil(store.data(for: storeKey("/b")))
        XCTAssertTrue(FileManager.default.fileExists(atPath: unrelated.path))
    }

    func testDisk_concurrentSavesAndReadsOfTheSameKeys_neverSeeHalfABody() {
        let store = DiskDataStore(directory: directory)
        let bodies = (0..<4).map { index in
            Data(repeating: UInt8(ascii: "a") + UInt8(index), count: 4_096 * (index + 1))
        }
        let badReads = CacheSpecList<Int>()
        DispatchQueue.concurrentPerform(iterations: 200) { iteration in
            let slot = storeKey("/k\(iteration % 3)")
            if iteration % 2 == 0 {
                store.save(bodies[iteration % bodies.count], for: slot)
            } else if let read = store.data(for: slot), !bodies.contains(read) {
                badReads.append(read.count)
            }
        }
        XCTAssertTrue(badReads.all.isEmpty, "reads of partial bodies: \(badReads.all)")
        for index in 0..<3 {
            let final = store.data(for: storeKey("/k\(index)"))
            XCTAssertTrue(final.map(bodies.contains) ?? false, "key \(index) holds a whole body")
        }
    }
}
