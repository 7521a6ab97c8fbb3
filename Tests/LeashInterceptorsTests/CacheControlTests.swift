import LeashInterceptors
import XCTest

/// `CacheControl`: how `Cache-Control` headers are read.
final class CacheControlTests: XCTestCase {
    func testDirectives_namesAnyCase_argumentsAsSent() {
        let control = CacheControl("Public, MAX-AGE=60, No-Cache")

        XCTAssertEqual(
            control.directives,
            [
                CacheControl.Directive(name: "public"), CacheControl.Directive(name: "max-age", argument: "60"),
                CacheControl.Directive(name: "no-cache"),
            ])
        XCTAssertEqual(control.maxAge, 60)
        XCTAssertTrue(control.noCache)
        XCTAssertFalse(control.noStore)
        XCTAssertTrue(control.contains("PUBLIC"))
    }

    func testSpacesTabsAndEmptyElements_areIgnored() {
        let control = CacheControl(" ,\tmax-age = 30 ,, no-store\t, ")

        XCTAssertEqual(control.directives.map(\.name), ["max-age", "no-store"])
        XCTAssertEqual(control.maxAge, 30)
        XCTAssertTrue(control.noStore)
    }

    func testQuotedArguments_keepTheirCommasAndEscapes_andLoseTheirQuotes() {
        let control = CacheControl(#"no-cache="Set-Cookie, X-Id", max-age="120", ext="a\"b" trailing, private"#)

        XCTAssertEqual(control.argument(of: "no-cache"), "Set-Cookie, X-Id")
        XCTAssertEqual(control.maxAge, 120, "a quoted max-age is accepted")
        XCTAssertEqual(control.argument(of: "ext"), #"a"b"#, "an escaped quote, and nothing after the closing one")
        XCTAssertEqual(control.directives.map(\.name), ["no-cache", "max-age", "ext", "private"])
    }

    func testUnclosedQuote_runsToTheEnd() {
        let control = CacheControl(#"no-cache="Set-Cookie, max-age=5"#)

        XCTAssertEqual(control.argument(of: "no-cache"), "Set-Cookie, max-age=5")
        XCTAssertNil(control.maxAge, "inside the quote, not a directive")
    }

    func testBadNumbers_areIgnored() {
        for header in ["max-age=abc", "max-age=-5", "max-age=1.5", "max-age=", "max-age", "max-age=6 0", "max-age=+7"] {
            XCTAssertNil(CacheControl(header).maxAge, header)
        }
    }

    func testHugeMaxAge_isCappedNotOverflowed() {
        XCTAssertEqual(
            CacheControl("max-age=99999999999999999999999").maxAge, CacheControl.maximumDeltaSeconds)
        XCTAssertEqual(CacheControl("max-age=2147483649").maxAge, CacheControl.maximumDeltaSeconds)
    }

    func testRepeatedDirective_theFirstCounts() {
        XCTAssertEqual(CacheControl("max-age=10, max-age=20").maxAge, 10)
        XCTAssertNil(CacheControl("max-age=x, max-age=20").maxAge, "a malformed first one is not replaced")
    }

    func testNoHeader_hasNoDirectives() {
        XCTAssertEqual(CacheControl(nil).directives, [])
        XCTAssertEqual(CacheControl("").directives, [])
        XCTAssertNil(CacheControl(nil).maxAge)
        XCTAssertFalse(CacheControl(nil).noCache)
    }

    func testEqualsWithoutName_isSkipped() {
        XCTAssertEqual(CacheControl("=5, no-store").directives, [CacheControl.Directive(name: "no-store")])
    }
}
