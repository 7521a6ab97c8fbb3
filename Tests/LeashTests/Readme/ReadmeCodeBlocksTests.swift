import Foundation
import XCTest

/// Every Swift code block of the README and of the DocC articles (`Sources/*/*.docc/*.md`)
/// is compiled: each one appears, line for line, in a
/// test (the root package's, or `Benchmarks/Tests` for the AsyncHTTPClient transport, which CI
/// builds and runs too) or in the tour (`Playgrounds/`), which the build compiles and CI runs.
///
/// Lines are compared without their indentation (a snippet sits inside a test method).
/// The package-manifest block (the dependency line) cannot be compiled in a test; it is
/// checked against `Package.swift` instead: every product it names must exist.
final class ReadmeCodeBlocksTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func testEverySwiftBlockIsInATestOrTheTour() throws {
        let sources = try Self.sources(under: ["Tests", "Playgrounds", "Benchmarks/Tests"]).map(Self.normalizedLines)
        let documents = try [Self.root.appendingPathComponent("README.md")] + Self.articles()
        var checked = 0
        for document in documents {
            let text = try String(contentsOf: document, encoding: .utf8)
            for block in Self.swiftBlocks(in: text) where !Self.isManifest(block) {
                checked += 1
                let lines = Self.normalizedLines(block)
                let found = sources.contains { Self.contains($0, lines) }
                XCTAssertTrue(
                    found, "this block of \(document.lastPathComponent) is in no test and not in the tour:\n\(block)")
            }
        }
        XCTAssertGreaterThan(documents.count, 10, "the README and the articles")
        XCTAssertGreaterThan(checked, 50, "the documentation has Swift examples")
    }

    /// The code files of the DocC tutorials (each step's file, `Sources/*/*.docc/Resources/`)
    /// are the example's code a step at a time: each one's lines, imports aside, appear in a
    /// test in one piece.
    func testEveryTutorialCodeFileIsInATest() throws {
        let sources = try Self.sources(under: ["Tests", "Playgrounds"]).map(Self.normalizedLines)
        let files = try Self.documentationFiles(withExtension: "swift")
        XCTAssertFalse(files.isEmpty, "the tutorial has code files")
        for file in files {
            let lines = Self.normalizedLines(try String(contentsOf: file, encoding: .utf8))
                .filter { !$0.hasPrefix("import ") }
            XCTAssertTrue(
                sources.contains { Self.contains($0, lines) },
                "\(file.lastPathComponent) is in no test: the tutorial would show code nothing compiles")
        }
    }

    /// The DocC articles of every catalog (`Sources/<Module>/<Module>.docc/*.md`).
    static func articles() throws -> [URL] {
        try documentationFiles(withExtension: "md").filter { $0.deletingLastPathComponent().pathExtension == "docc" }
    }

    /// The files with `pathExtension` anywhere inside a catalog (`Sources/*/*.docc/…`).
    static func documentationFiles(withExtension pathExtension: String) throws -> [URL] {
        let sources = root.appendingPathComponent("Sources")
        guard let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else {
            return []
        }
        return enumerator.compactMap { $0 as? URL }.filter {
            $0.pathExtension == pathExtension && $0.pathComponents.contains { $0.hasSuffix(".docc") }
        }
    }

    func testTheManifestBlockNamesRealProducts() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        for block in Self.swiftBlocks(in: readme) where Self.isManifest(block) {
            for product in Self.quotedProducts(in: block) {
                XCTAssertTrue(
                    manifest.contains(".library(name: \"\(product)\""), "the README names a product \(product)")
            }
        }
    }

    // MARK: Helpers

    static func swiftBlocks(in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
                current = []
            } else if current != nil, line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(current?.joined(separator: "\n") ?? "")
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    static func isManifest(_ block: String) -> Bool {
        block.contains(".package(url:") || block.contains(".product(name:")
    }

    static func quotedProducts(in block: String) -> [String] {
        block.components(separatedBy: ".product(name: \"").dropFirst().compactMap {
            $0.components(separatedBy: "\"").first
        }
    }

    static func normalizedLines(_ text: String) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func contains(_ haystack: [String], _ needle: [String]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return true }
        }
        return false
    }

    static func sources(under folders: [String]) throws -> [String] {
        var texts: [String] = []
        for folder in folders {
            let url = root.appendingPathComponent(folder)
            guard let enumerator = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil) else {
                continue
            }
            for case let file as URL in enumerator where file.pathExtension == "swift" {
                texts.append(try String(contentsOf: file, encoding: .utf8))
            }
        }
        return texts
    }
}
