import Foundation
import LeashInterceptors
import XCTest

final class CachePathPatternTests: XCTestCase {
    private func assertMatches(
        _ pattern: String, _ matching: [String], not notMatching: [String], file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let compiled = try PathPattern(pattern)
        for path in matching {
            XCTAssertTrue(compiled.matches(path), "\(pattern) should match \(path)", file: file, line: line)
        }
        for path in notMatching {
            XCTAssertFalse(compiled.matches(path), "\(pattern) should not match \(path)", file: file, line: line)
        }
    }

    func testLiteral_matchesTheWholePathOnly() throws {
        try assertMatches("/expenses/", ["/expenses/"], not: ["/expenses", "/expenses/1", "/api/expenses/", ""])
    }

    func testBracketSetWithStar_matchesLeashsOriginalPattern() throws {
        try assertMatches(
            "/expenses/[0-9]*/", ["/expenses//", "/expenses/1/", "/expenses/42/"],
            not: ["/expenses/", "/expenses/a/", "/expenses/1", "/expenses/1/items/"])
    }

    func testPlus_requiresOneOrMore() throws {
        try assertMatches("/users/[0-9]+", ["/users/7", "/users/123"], not: ["/users/", "/users/7/posts", "/users/x"])
    }

    func testQuestionMark_makesTheCharacterOptional() throws {
        try assertMatches("/users/?", ["/users", "/users/"], not: ["/users//", "/user"])
    }

    func testDot_matchesAnyCharacter_andDotStarAnyRun() throws {
        try assertMatches("/files/.*", ["/files/", "/files/a/b/c.txt"], not: ["/file/x", "/files"])
        try assertMatches("/v./x", ["/v1/x", "/v//x"], not: ["/v12/x"])
    }

    func testNegatedSet_excludesItsCharacters() throws {
        try assertMatches("/users/[^/]+", ["/users/alice", "/users/7"], not: ["/users/a/b", "/users/"])
    }

    func testRangesAndLiteralsInOneSet() throws {
        try assertMatches("/[a-cx_-]+", ["/abc", "/x_-a"], not: ["/d", "/ABC"])
    }

    func testEscapes_makeSpecialCharactersLiteral() throws {
        try assertMatches(#"/a\.b\*c\?"#, ["/a.b*c?"], not: ["/axb*c?", "/a.bbc"])
        try assertMatches(#"/[\]\-]"#, ["/]", "/-"], not: ["/a"])
    }

    func testAnchors_atTheEndsAreAccepted_elsewhereLiteral() throws {
        try assertMatches("^/users$", ["/users"], not: ["/users/", "x/users"])
        try assertMatches("/price$/x", ["/price$/x"], not: ["/price/x"])
        try assertMatches(#"/cost\$"#, ["/cost$"], not: ["/cost"])
    }

    func testMalformedPatterns_throwWithOffsetAndReason() {
        let cases: [(String, Int, String)] = [
            ("/users/[0-9", 7, "never closed"),
            ("/users/[]", 7, "matches nothing"),
            ("/users/[9-0]", 10, "reversed"),
            ("*/users", 0, "nothing before it"),
            ("/users/**", 8, "follows another quantifier"),
            ("/users/*?", 8, "follows another quantifier"),
            ("/users/(a|b)", 7, "not supported"),
            ("/users/{id}", 7, "not supported"),
            (#"/users\"#, 6, "escapes nothing"),
        ]
        for (pattern, offset, reason) in cases {
            XCTAssertThrowsError(try PathPattern(pattern), pattern) { thrown in
                guard let error = thrown as? PathPattern.SyntaxError else { return XCTFail("\(thrown)") }
                XCTAssertEqual(error.offset, offset, pattern)
                XCTAssertTrue(error.reason.contains(reason), "\(pattern): \(error.reason)")
                XCTAssertTrue(error.description.contains(pattern), error.description)
            }
        }
    }

    func testMalformedLiteral_neverMatchesAndKeepsItsError() {
        let pattern: PathPattern = "/users/[0-9"
        XCTAssertFalse(pattern.matches("/users/[0-9"))
        XCTAssertFalse(pattern.matches("/users/1"))
        XCTAssertEqual(pattern.syntaxError?.offset, 7)
        let valid: PathPattern = "/users/[0-9]+"
        XCTAssertNil(valid.syntaxError)
        XCTAssertTrue(valid.matches("/users/1"))
    }

    func testPathologicalPattern_isDecidedWithoutBacktracking() throws {
        // A backtracking matcher takes exponential time here; the simulation is linear.
        let pattern = try PathPattern(String(repeating: "a*", count: 30) + "b")
        XCTAssertFalse(pattern.matches(String(repeating: "a", count: 5_000)))
        XCTAssertTrue(pattern.matches(String(repeating: "a", count: 5_000) + "b"))
    }

    func testNonASCIIPaths_matchByUnicodeScalar() throws {
        try assertMatches("/café/[é]+", ["/café/éé"], not: ["/cafe/e"])
    }
}
