import Foundation
import XCTest

@testable import Leash

/// The encoding of `MultipartFormData` itself: bytes, escaping, boundaries, lengths, files.
final class MultipartFormDataTests: TemporaryFilesTestCase {
    // MARK: The format

    func testExample_textFieldAndFile_matchTheClassicFormExample() throws {
        // The form of HTML 4.01 §17.13.4 (a text field and a file), in RFC 7578's format.
        let file = try makeFile("file1.txt", text: "... contents of file1.txt ...")
        let form = MultipartFormData(boundary: "AaB03x")
        form.append("Larry", name: "submit-name")
        form.append(fileAt: file, name: "files")
        XCTAssertEqual(form.contentType, "multipart/form-data; boundary=AaB03x")
        XCTAssertEqual(
            specText(try form.encoded()),
            "--AaB03x\r\n"
                + "Content-Disposition: form-data; name=\"submit-name\"\r\n"
                + "\r\n"
                + "Larry\r\n"
                + "--AaB03x\r\n"
                + "Content-Disposition: form-data; name=\"files\"; filename=\"file1.txt\"\r\n"
                + "Content-Type: text/plain\r\n"
                + "\r\n"
                + "... contents of file1.txt ...\r\n"
                + "--AaB03x--\r\n")
    }

    func testTextPart_isUTF8WithoutContentType() throws {
        let form = MultipartFormData(boundary: "b")
        form.append("Grüße, 世界", name: "greeting")
        XCTAssertEqual(
            try form.encoded(),
            Data("--b\r\nContent-Disposition: form-data; name=\"greeting\"\r\n\r\nGrüße, 世界\r\n--b--\r\n".utf8))
    }

    func testDataPart_withoutFileNameOrType_hasOnlyTheDisposition() throws {
        let form = MultipartFormData(boundary: "b")
        form.append(Data([0x00, 0xFF, 0x0D, 0x0A]), name: "raw")
        var expected = Data("--b\r\nContent-Disposition: form-data; name=\"raw\"\r\n\r\n".utf8)
        expected.append(contentsOf: [0x00, 0xFF, 0x0D, 0x0A])
        expected.append(Data("\r\n--b--\r\n".utf8))
        XCTAssertEqual(try form.encoded(), expected)
    }

    func testDataPart_withFileName_guessesTheTypeFromItsExtension() throws {
        let form = MultipartFormData(boundary: "b")
        form.append(Data([1]), name: "photo", fileName: "Ada.JPG")
        form.append(Data([2]), name: "blob", fileName: "dump.unknownext")
        form.append(Data([3]), name: "typed", fileName: "a.png", mimeType: "image/x-custom")
        let text = specText(try form.encoded()) ?? ""
        XCTAssertTrue(
            text.contains("name=\"photo\"; filename=\"Ada.JPG\"\r\nContent-Type: image/jpeg\r\n\r\n\u{01}\r\n"), text)
        XCTAssertTrue(
            text.contains("filename=\"dump.unknownext\"\r\nContent-Type: application/octet-stream\r\n\r\n"), text)
        XCTAssertTrue(text.contains("filename=\"a.png\"\r\nContent-Type: image/x-custom\r\n\r\n"), "given type wins")
    }

    func testDataPart_withTypeButNoFileName_hasContentTypeAndNoFileName() throws {
        let form = MultipartFormData(boundary: "b")
        form.append(Data("{}".utf8), name: "meta", mimeType: "application/json")
        XCTAssertEqual(
            specText(try form.encoded()),
            "--b\r\nContent-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n{}\r\n--b--\r\n"
        )
    }

    func testFilePart_fileNameAndTypeGiven_overrideTheURLs() throws {
        let file = try makeFile("upload.tmp", text: "x")
        let form = MultipartFormData(boundary: "b")
        form.append(fileAt: file, name: "doc", fileName: "report.pdf", mimeType: "application/x-report")
        XCTAssertEqual(
            specText(try form.encoded()),
            "--b\r\nContent-Disposition: form-data; name=\"doc\"; filename=\"report.pdf\"\r\n"
                + "Content-Type: application/x-report\r\n\r\nx\r\n--b--\r\n")
    }

    func testFilePart_typeIsGuessedFromTheFileNameGiven() throws {
        let file = try makeFile("upload.tmp", text: "x")
        let form = MultipartFormData(boundary: "b")
        form.append(fileAt: file, name: "doc", fileName: "report.pdf")
        XCTAssertEqual(specText(try form.encoded())?.contains("Content-Type: application/pdf\r\n"), true)
    }

    func testEmptyForm_isTheClosingDelimiterOnly() throws {
        let form = MultipartFormData(boundary: "b")
        XCTAssertEqual(try form.encoded(), Data("--b--\r\n".utf8))
        XCTAssertEqual(try form.contentLength(), 7)
    }

    func testPartsKeepTheirOrder() throws {
        let form = MultipartFormData(boundary: "b")
        for name in ["z", "a", "m"] { form.append(name, name: name) }
        let names = (specText(try form.encoded()) ?? "").components(separatedBy: "name=\"").dropFirst().map {
            String($0.prefix(1))
        }
        XCTAssertEqual(names, ["z", "a", "m"])
    }

    // MARK: Escaping

    func testEscaping_quotesAndLineBreaksInNames_arePercentEncoded() throws {
        let form = MultipartFormData(boundary: "b")
        form.append("v", name: "a\"b\r\nContent-Type: evil\rc\nd")
        XCTAssertEqual(
            specText(try form.encoded()),
            "--b\r\nContent-Disposition: form-data; name=\"a%22b%0D%0AContent-Type: evil%0Dc%0Ad\"\r\n\r\nv\r\n--b--\r\n"
        )
    }

    func testEscaping_quotesAndLineBreaksInFileNames_arePercentEncoded() throws {
        let form = MultipartFormData(boundary: "b")
        form.append(Data([1]), name: "f", fileName: "x\".txt\r\n", mimeType: "text/plain")
        XCTAssertEqual(
            specText(try form.encoded())?.contains("; filename=\"x%22.txt%0D%0A\"\r\nContent-Type: text/plain\r\n"),
            true)
    }

    func testEscaping_nonASCII_staysUTF8AndOtherCharactersAreLeftAlone() throws {
        let form = MultipartFormData(boundary: "b")
        form.append(Data([1]), name: "pièce 100%", fileName: "évian; été.txt", mimeType: "text/plain")
        let encoded = try form.encoded()
        let expectedHeader = "Content-Disposition: form-data; name=\"pièce 100%\"; filename=\"évian; été.txt\"\r\n"
        XCTAssertNotNil(encoded.range(of: Data(expectedHeader.utf8)), specText(encoded) ?? "")
        XCTAssertFalse(specText(encoded)?.contains("filename*") ?? true, "RFC 7578 §4.2 forbids filename*")
    }

    func testEscaping_mimeTypeWithALineBreak_throwsEncoding() {
        let form = MultipartFormData(boundary: "b")
        form.append(Data([1]), name: "f", mimeType: "text/plain\r\nX-Injected: 1")
        let failure = specEncodingError { _ = try form.encoded() }
        XCTAssertEqual(failure?.reason.contains("MIME type of part \"f\" contains a control character"), true)
    }

    // MARK: Boundaries

    func testBoundary_default_isRandomHex() {
        let first = MultipartFormData().boundary
        let second = MultipartFormData().boundary
        XCTAssertNotEqual(first, second)
        XCTAssertTrue(first.hasPrefix("leash.boundary."), first)
        let hex = first.dropFirst("leash.boundary.".count)
        XCTAssertEqual(hex.count, 32)
        XCTAssertTrue(hex.allSatisfy(\.isHexDigit), first)
        XCTAssertNil(MultipartFormData.problem(withBoundary: first))
        XCTAssertEqual(MultipartFormData().contentType.hasPrefix("multipart/form-data; boundary=leash.boundary."), true)
    }

    func testBoundary_withCharactersOutsideTokens_isQuotedInTheContentType() throws {
        let form = MultipartFormData(boundary: "simple boundary:1")
        XCTAssertEqual(form.contentType, "multipart/form-data; boundary=\"simple boundary:1\"")
        XCTAssertEqual(specText(try form.encoded()), "--simple boundary:1--\r\n")
    }

    func testBoundary_seventyCharacters_isAccepted() throws {
        let boundary = String(repeating: "a", count: 70)
        XCTAssertEqual(try MultipartFormData(boundary: boundary).encoded(), Data("--\(boundary)--\r\n".utf8))
    }

    func testBoundary_invalid_throwsEncodingWhenEncodingNotACrash() throws {
        let cases: [(String, String)] = [
            ("", "it is empty"),
            (String(repeating: "a", count: 71), "longer than 70"),
            ("a\r\nb", "U+d"),
            ("a\"b", "\"\"\""),
            ("café", "\"é\""),
            ("trailing ", "ends with a space"),
        ]
        let target = directory.appendingPathComponent("form")
        for (boundary, problem) in cases {
            let form = MultipartFormData(boundary: boundary)
            form.append("v", name: "n")
            for encode in [
                { _ = try form.contentLength() }, { _ = try form.encoded() }, { try form.write(to: target) },
            ] {
                let failure = specEncodingError { try encode() }
                let reason = failure?.reason ?? ""
                XCTAssertTrue(reason.contains("the multipart boundary"), reason)
                XCTAssertTrue(reason.contains(problem), "\(problem) in \(reason)")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.path), "nothing written")
    }

    // MARK: Lengths, in memory and on disk

    func testContentLength_equalsTheEncodedAndTheWrittenSize() throws {
        let file = try makeFile("notes.txt", contents: patternedBytes(count: 1000))
        let form = MultipartFormData()
        form.append("value", name: "text")
        form.append(Data([0xFF, 0xD8, 0xFF]), name: "jpeg", fileName: "a.jpg")
        form.append(fileAt: file, name: "notes")
        let target = directory.appendingPathComponent("form")
        try form.write(to: target)
        let encoded = try form.encoded()
        XCTAssertEqual(try form.contentLength(), UInt64(encoded.count))
        XCTAssertEqual(try Data(contentsOf: target), encoded)
    }

    func testWrite_streamsAFileOfSeveralChunksExactly() throws {
        // Larger than the 64 KB chunk and not a multiple of it.
        let contents = patternedBytes(count: 3 * 1024 * 1024 + 12_345)
        let file = try makeFile("big.bin", contents: contents)
        let form = MultipartFormData(boundary: "b")
        form.append("before", name: "a")
        form.append(fileAt: file, name: "big")
        form.append("after", name: "z")
        let target = directory.appendingPathComponent("form")
        try form.write(to: target, expectedLength: try form.contentLength())

        var expected = Data("--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nbefore\r\n".utf8)
        expected.append(
            Data(
                ("--b\r\nContent-Disposition: form-data; name=\"big\"; filename=\"big.bin\"\r\n"
                    + "Content-Type: application/octet-stream\r\n\r\n").utf8))
        expected.append(contents)
        expected.append(Data("\r\n--b\r\nContent-Disposition: form-data; name=\"z\"\r\n\r\nafter\r\n--b--\r\n".utf8))
        let written = try Data(contentsOf: target)
        XCTAssertEqual(written.count, expected.count)
        XCTAssertTrue(written == expected, "written bytes differ from the expected body")
        XCTAssertEqual(try form.contentLength(), UInt64(expected.count))
    }

    func testWrite_replacesAnExistingFile() throws {
        let target = try makeFile("form", contents: patternedBytes(count: 10_000))
        let form = MultipartFormData(boundary: "b")
        try form.write(to: target)
        XCTAssertEqual(try Data(contentsOf: target), Data("--b--\r\n".utf8))
    }

    func testForm_canBeEncodedAgain() throws {
        let file = try makeFile("a.txt", text: "abc")
        let form = MultipartFormData(boundary: "b")
        form.append(fileAt: file, name: "f")
        XCTAssertEqual(try form.encoded(), try form.encoded(), "a retry encodes the same body")
    }

    func testAppend_fromManyThreads_keepsEveryPart() throws {
        let form = MultipartFormData(boundary: "b")
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            form.append("\(index)", name: "field\(index)")
            form.encodingMemoryThreshold = UInt64(index)
        }
        let text = specText(try form.encoded()) ?? ""
        XCTAssertEqual(text.components(separatedBy: "Content-Disposition").count - 1, 200)
        for index in [0, 99, 199] { XCTAssertTrue(text.contains("name=\"field\(index)\"\r\n\r\n\(index)\r\n")) }
    }

    func testEncodingMemoryThreshold_defaultsToTenMillionBytes() {
        let form = MultipartFormData()
        XCTAssertEqual(form.encodingMemoryThreshold, 10_000_000)
        form.encodingMemoryThreshold = 5
        XCTAssertEqual(form.encodingMemoryThreshold, 5)
    }

    // MARK: Files that cannot be sent

    func testMissingFile_throwsEncodingNamingTheFileAndPart() {
        let missing = directory.appendingPathComponent("missing.png")
        let form = MultipartFormData()
        form.append(fileAt: missing, name: "avatar")
        for encode in [{ _ = try form.contentLength() }, { _ = try form.encoded() }] {
            let failure = specEncodingError { try encode() }
            let reason = failure?.reason ?? ""
            XCTAssertTrue(reason.contains(missing.path), reason)
            XCTAssertTrue(reason.contains("part \"avatar\""), reason)
            XCTAssertTrue(reason.contains("does not exist"), reason)
            XCTAssertEqual((failure?.underlying as? CocoaError)?.code, .fileReadNoSuchFile)
        }
    }

    func testDirectory_throwsEncodingNamingIt() throws {
        let folder = try makeDirectory("photos")
        let form = MultipartFormData()
        form.append(fileAt: folder, name: "photos")
        let failure = specEncodingError { _ = try form.contentLength() }
        XCTAssertEqual(failure?.reason.contains("\(folder.path) (part \"photos\") is a directory"), true)
        XCTAssertEqual((failure?.underlying as? POSIXError)?.code, .EISDIR)
    }

    func testFileThatChangedSize_afterMeasuring_failsRatherThanLie() throws {
        let file = try makeFile("grows.log", text: "12345")
        let form = MultipartFormData()
        form.append(fileAt: file, name: "log")
        let measured = try form.contentLength()
        try Data("123456789".utf8).write(to: file)
        let target = directory.appendingPathComponent("form")
        for encode in [
            { _ = try form.encoded(expectedLength: measured) },
            { try form.write(to: target, expectedLength: measured) },
        ] {
            let failure = specEncodingError { try encode() }
            XCTAssertEqual(failure?.reason.contains("not the \(measured) its request was built with"), true)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.path), "no partial body is left behind")
    }

    func testFileThatChangesSizeWhileStreamed_failsRatherThanLie() throws {
        for (newSize, change) in [(100_001, "longer"), (99_999, "shorter")] {
            let file = try makeFile("changes.log", contents: patternedBytes(count: 100_000))
            let form = MultipartFormData()
            form.append(fileAt: file, name: "log")
            let plan = try form.plan()
            try patternedBytes(count: newSize).write(to: file)
            let failure = specEncodingError { try plan.stream { _ in } }
            let reason = failure?.reason ?? ""
            XCTAssertTrue(reason.contains("changes.log (part \"log\") became \(change) than the 100000 bytes"), reason)
        }
    }

    func testWrite_toAnUnwritablePlace_throwsEncoding() {
        let form = MultipartFormData(boundary: "b")
        let target = directory.appendingPathComponent("no/such/folder/form")
        let failure = specEncodingError { try form.write(to: target) }
        XCTAssertEqual(failure?.reason.contains("could not be written to \(target.path)"), true)
    }
}
