import Foundation
import Leash
import XCTest

/// The client's permessage-deflate offer and its check of the server's response (RFC 7692 §7).
final class WebSocketPerMessageDeflateNegotiationTests: XCTestCase {
    /// The agreed parameters for `response` to `options`, or the error that failed it.
    private func negotiate(
        _ response: String?, options: PerMessageDeflateOptions? = nil
    ) throws -> Result<PerMessageDeflateParameters?, PerMessageDeflateNegotiationError> {
        let options = try options ?? PerMessageDeflateOptions()
        do {
            return .success(try options.negotiate(responseHeaderValue: response))
        } catch {
            return .failure(error)
        }
    }

    /// The default offer lets the server choose the client's window, and only that.
    func testOffer_defaultOffersBareClientMaxWindowBits() throws {
        XCTAssertEqual(try PerMessageDeflateOptions().offerHeaderValue, "permessage-deflate; client_max_window_bits")
    }

    /// Every option shows in the offer, window sizes with their values.
    func testOffer_listsEveryOption() throws {
        let options = try PerMessageDeflateOptions(
            clientMaxWindowBits: 10, serverMaxWindowBits: 12, clientNoContextTakeover: true,
            serverNoContextTakeover: true)
        XCTAssertEqual(
            options.offerHeaderValue,
            "permessage-deflate; client_no_context_takeover; server_no_context_takeover; client_max_window_bits=10; "
                + "server_max_window_bits=12")
        XCTAssertEqual(
            try PerMessageDeflateOptions(offersClientMaxWindowBits: false).offerHeaderValue, "permessage-deflate")
    }

    /// The offer parses back, through the same parser the response goes through.
    func testOffer_parsesBackAsOneExtension() throws {
        let options = try PerMessageDeflateOptions(serverMaxWindowBits: 9, serverNoContextTakeover: true)
        XCTAssertEqual(try WebSocketExtension.parseList(options.offerHeaderValue), [options.offer])
    }

    /// Window sizes outside 8...15 cannot be offered.
    func testOptions_rejectWindowBitsOutOfRange() {
        XCTAssertThrowsError(try PerMessageDeflateOptions(clientMaxWindowBits: 7)) {
            XCTAssertEqual($0 as? WebSocketCompressionError, .windowBitsOutOfRange(7))
        }
        XCTAssertThrowsError(try PerMessageDeflateOptions(serverMaxWindowBits: 16)) {
            XCTAssertEqual($0 as? WebSocketCompressionError, .windowBitsOutOfRange(16))
        }
        XCTAssertNoThrow(try PerMessageDeflateOptions(clientMaxWindowBits: 8, serverMaxWindowBits: 15))
    }

    /// No header, an empty one, or one without permessage-deflate: the server declined.
    func testNegotiate_noExtensionMeansDeclined() throws {
        XCTAssertEqual(try negotiate(nil), .success(nil))
        XCTAssertEqual(try negotiate(""), .success(nil))
        XCTAssertEqual(try negotiate(" , "), .success(nil))
    }

    /// A bare acceptance agrees on the RFC's defaults: 15-bit windows with context takeover.
    func testNegotiate_bareAcceptanceGivesDefaults() throws {
        XCTAssertEqual(try negotiate("permessage-deflate"), .success(PerMessageDeflateParameters()))
    }

    /// Every parameter a response may carry ends up in the agreement.
    func testNegotiate_takesEveryResponseParameter() throws {
        let response =
            "permessage-deflate; server_max_window_bits=10; client_max_window_bits=9; "
            + "server_no_context_takeover; client_no_context_takeover"
        XCTAssertEqual(
            try negotiate(response),
            .success(
                PerMessageDeflateParameters(
                    clientMaxWindowBits: 9, serverMaxWindowBits: 10, clientNoContextTakeover: true,
                    serverNoContextTakeover: true)))
    }

    /// Quoted values (RFC 6455 §9.1), escapes, whitespace, tabs, empty list elements and any
    /// case in names all parse.
    func testNegotiate_acceptsQuotedValuesWhitespaceAndCase() throws {
        XCTAssertEqual(
            try negotiate("permessage-deflate; client_max_window_bits=\"10\"").get()?.clientMaxWindowBits, 10)
        XCTAssertEqual(
            try negotiate("permessage-deflate; server_max_window_bits=\"1\\2\"").get()?.serverMaxWindowBits, 12)
        XCTAssertEqual(
            try negotiate(" ,, PerMessage-Deflate ;\tServer_Max_Window_Bits = 11 ; SERVER_NO_CONTEXT_TAKEOVER ,"),
            .success(PerMessageDeflateParameters(serverMaxWindowBits: 11, serverNoContextTakeover: true)))
    }

    /// The client keeps to its own window limit whatever the server allows, and its own offer
    /// to drop context takeover holds even when the server does not repeat it.
    func testNegotiate_clientKeepsItsOwnLimits() throws {
        let options = try PerMessageDeflateOptions(clientMaxWindowBits: 10, clientNoContextTakeover: true)
        let agreed = { (response: String) in try self.negotiate(response, options: options).get() }
        XCTAssertEqual(try agreed("permessage-deflate")?.clientMaxWindowBits, 10)
        XCTAssertEqual(try agreed("permessage-deflate; client_max_window_bits=12")?.clientMaxWindowBits, 10)
        XCTAssertEqual(try agreed("permessage-deflate; client_max_window_bits=9")?.clientMaxWindowBits, 9)
        XCTAssertEqual(try agreed("permessage-deflate")?.clientNoContextTakeover, true)
        XCTAssertEqual(try agreed("permessage-deflate")?.serverNoContextTakeover, false)
    }

    /// The server may limit its own window and drop the client's context unasked (§7.1.1.2, §7.1.2.1).
    func testNegotiate_serverMayAddItsOwnLimits() throws {
        XCTAssertEqual(
            try negotiate("permessage-deflate; server_max_window_bits=8; client_no_context_takeover"),
            .success(PerMessageDeflateParameters(serverMaxWindowBits: 8, clientNoContextTakeover: true)))
    }

    /// Other extensions, or permessage-deflate twice, fail: only one offer was made.
    func testNegotiate_rejectsUnofferedOrRepeatedExtensions() throws {
        XCTAssertEqual(
            try negotiate("x-webkit-deflate-frame"), .failure(.unexpectedExtension("x-webkit-deflate-frame")))
        XCTAssertEqual(
            try negotiate("permessage-deflate, foo; bar=1"), .failure(.unexpectedExtension("foo")))
        XCTAssertEqual(try negotiate("permessage-deflate, permessage-deflate"), .failure(.repeatedExtension))
    }

    /// Unknown and repeated parameters fail (§7.1, a and c).
    func testNegotiate_rejectsUnknownAndRepeatedParameters() throws {
        XCTAssertEqual(try negotiate("permessage-deflate; foo"), .failure(.unknownParameter("foo")))
        XCTAssertEqual(
            try negotiate("permessage-deflate; server_no_context_takeover; server_no_context_takeover"),
            .failure(.repeatedParameter("server_no_context_takeover")))
        XCTAssertEqual(
            try negotiate("permessage-deflate; server_max_window_bits=10; server_max_window_bits=10"),
            .failure(.repeatedParameter("server_max_window_bits")))
    }

    /// Window sizes must be 8...15 in plain decimal, flags must have no value, and a response's
    /// client_max_window_bits must have one (§7.1, b).
    func testNegotiate_rejectsInvalidValues() throws {
        for value in ["7", "16", "08", "+9", "9.0", "abc", "100000000000000000000"] {
            XCTAssertEqual(
                try negotiate("permessage-deflate; server_max_window_bits=\(value)"),
                .failure(.invalidParameterValue(name: "server_max_window_bits", value: value)), value)
        }
        XCTAssertEqual(
            try negotiate("permessage-deflate; server_max_window_bits"),
            .failure(.invalidParameterValue(name: "server_max_window_bits", value: nil)))
        XCTAssertEqual(
            try negotiate("permessage-deflate; client_max_window_bits"),
            .failure(.invalidParameterValue(name: "client_max_window_bits", value: nil)))
        XCTAssertEqual(
            try negotiate("permessage-deflate; server_no_context_takeover=1"),
            .failure(.invalidParameterValue(name: "server_no_context_takeover", value: "1")))
        XCTAssertEqual(
            try negotiate("permessage-deflate; client_no_context_takeover=\"x\""),
            .failure(.invalidParameterValue(name: "client_no_context_takeover", value: "x")))
    }

    /// client_max_window_bits in a response to an offer without it fails (§7.1.2.2).
    func testNegotiate_rejectsClientMaxWindowBitsNotOffered() throws {
        let options = try PerMessageDeflateOptions(offersClientMaxWindowBits: false)
        XCTAssertEqual(
            try negotiate("permessage-deflate; client_max_window_bits=10", options: options),
            .failure(.clientMaxWindowBitsNotOffered))
        XCTAssertEqual(try negotiate("permessage-deflate", options: options), .success(PerMessageDeflateParameters()))
    }

    /// An offered server_max_window_bits must come back at or under the offer (§7.1.2.1).
    func testNegotiate_enforcesTheOfferedServerWindow() throws {
        let options = try PerMessageDeflateOptions(serverMaxWindowBits: 10)
        XCTAssertEqual(
            try negotiate("permessage-deflate", options: options), .failure(.serverMaxWindowBitsMissing(offered: 10)))
        XCTAssertEqual(
            try negotiate("permessage-deflate; server_max_window_bits=11", options: options),
            .failure(.serverMaxWindowBitsAboveOffer(offered: 10, received: 11)))
        XCTAssertEqual(
            try negotiate("permessage-deflate; server_max_window_bits=9", options: options).get()?.serverMaxWindowBits,
            9)
        XCTAssertEqual(
            try negotiate("permessage-deflate; server_max_window_bits=10", options: options).get()?.serverMaxWindowBits,
            10)
    }

    /// An offered server_no_context_takeover must come back (§7.1.1.1).
    func testNegotiate_enforcesTheOfferedServerNoContextTakeover() throws {
        let options = try PerMessageDeflateOptions(serverNoContextTakeover: true)
        XCTAssertEqual(try negotiate("permessage-deflate", options: options), .failure(.serverNoContextTakeoverMissing))
        XCTAssertEqual(
            try negotiate("permessage-deflate; server_no_context_takeover", options: options).get()?
                .serverNoContextTakeover, true)
    }

    /// Headers outside the grammar fail as malformed, with where it went wrong in the reason.
    func testNegotiate_rejectsMalformedHeaders() throws {
        let malformed = [
            "permessage-deflate;", "permessage-deflate; =10", "permessage-deflate client_max_window_bits",
            "permessage-deflate; server_max_window_bits=\"10", "permessage-deflate; server_max_window_bits=\"1 0\"",
            "permessage-deflate; server_max_window_bits=", "permessage-deflaté", "; server_no_context_takeover",
            "permessage-deflate; server_max_window_bits=\"1\u{1}\"",
        ]
        for header in malformed {
            guard case .failure(.malformedHeader(let reason)) = try negotiate(header) else {
                XCTFail("accepted \(header)")
                continue
            }
            XCTAssertTrue(reason.hasPrefix("malformed Sec-WebSocket-Extensions: "), reason)
            XCTAssertTrue(reason.contains("at offset"), reason)
        }
    }

    /// Every failure explains itself, naming the parameter or extension at fault.
    func testNegotiationError_descriptionsNameTheCulprit() {
        XCTAssertEqual(
            PerMessageDeflateNegotiationError.unknownParameter("foo").description,
            "permessage-deflate response has unknown parameter \"foo\"")
        XCTAssertEqual(
            PerMessageDeflateNegotiationError.serverMaxWindowBitsAboveOffer(offered: 10, received: 12).description,
            "permessage-deflate response sets server_max_window_bits=12, above the offered 10")
        XCTAssertEqual(
            PerMessageDeflateNegotiationError.invalidParameterValue(name: "client_max_window_bits", value: nil)
                .description,
            "permessage-deflate response has no value for \"client_max_window_bits\", which needs one")
        XCTAssertTrue(PerMessageDeflateNegotiationError.unexpectedExtension("foo").description.contains("\"foo\""))
    }
}
