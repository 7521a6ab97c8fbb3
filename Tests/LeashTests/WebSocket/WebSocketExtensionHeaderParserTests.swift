import Foundation
import Leash
import XCTest

/// The `Sec-WebSocket-Extensions` grammar (RFC 6455 §9.1) with several extensions and quoted values.
final class WebSocketExtensionHeaderParserTests: XCTestCase {
    /// Several extensions, each with its parameters in order; quoted values come out unescaped.
    func testParseList_readsSeveralExtensionsWithParameters() throws {
        let parsed = try WebSocketExtension.parseList(
            "foo, bar; baz=\"q\\ux\"; flag, permessage-deflate; client_max_window_bits; server_max_window_bits=10")
        XCTAssertEqual(
            parsed,
            [
                WebSocketExtension(name: "foo"),
                WebSocketExtension(
                    name: "bar",
                    parameters: [.init(name: "baz", value: "qux"), .init(name: "flag")]),
                WebSocketExtension(
                    name: "permessage-deflate",
                    parameters: [
                        .init(name: "client_max_window_bits"), .init(name: "server_max_window_bits", value: "10"),
                    ]),
            ])
    }

    /// Names are lowercased; values keep their case.
    func testParseList_lowercasesNamesButNotValues() throws {
        XCTAssertEqual(
            try WebSocketExtension.parseList("X-Ext; Mode=Fast"),
            [WebSocketExtension(name: "x-ext", parameters: [.init(name: "mode", value: "Fast")])])
        XCTAssertEqual(try WebSocketExtension.parseList("X-Ext; Mode=Fast").first?.parameters.first?.name, "mode")
    }

    /// Separators inside a quoted value belong to the value only if it stays a token, which
    /// `,` and `;` do not: §9.1 rejects them.
    func testParseList_rejectsQuotedValuesThatAreNotTokens() {
        for header in ["a; b=\"x,y\"", "a; b=\"x;y\"", "a; b=\"\"", "a; b=\"x\\\"y\""] {
            XCTAssertThrowsError(try WebSocketExtension.parseList(header), header)
        }
    }

    /// Token characters other than letters and digits are accepted in names and values.
    func testParseList_acceptsAllTokenCharacters() throws {
        let token = "!#$%&'*+-.^_`|~09azAZ"
        XCTAssertEqual(
            try WebSocketExtension.parseList("\(token); \(token)=\(token)"),
            [
                WebSocketExtension(name: token, parameters: [.init(name: token, value: token)])
            ])
    }

    /// The reason of a failure says what was found and where.
    func testParseList_reasonSaysWhatAndWhere() {
        XCTAssertThrowsError(try WebSocketExtension.parseList("a; b c")) {
            XCTAssertEqual(
                ($0 as? WebSocketExtensionHeaderError)?.reason,
                "malformed Sec-WebSocket-Extensions: unexpected 'c' at offset 5")
        }
        XCTAssertThrowsError(try WebSocketExtension.parseList("a;")) {
            XCTAssertEqual(
                ($0 as? WebSocketExtensionHeaderError)?.reason,
                "malformed Sec-WebSocket-Extensions: expected a parameter name, found the end at offset 2")
        }
    }

    /// An extension serialises as `name; param; param=value`.
    func testHeaderValue_writesParametersInOrder() {
        let element = WebSocketExtension(
            name: "permessage-deflate",
            parameters: [.init(name: "client_max_window_bits"), .init(name: "server_max_window_bits", value: "9")])
        XCTAssertEqual(element.headerValue, "permessage-deflate; client_max_window_bits; server_max_window_bits=9")
    }
}
