import Foundation
import Leash
import LeashInterceptors
import LeashTestSupport
import LeashTesting
import Rx
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private struct NewExpense: Encodable {
    let amount: Int
}

/// `LoggerInterceptor`'s `.headers` and `.bodies` verbosities, in virtual time.
final class LoggerVerbosityTests: CacheSpecStubTestCase {
    private let url = "\(cacheSpecBaseURL)/expenses"

    /// A client sending `Authorization`, `Cookie` and `X-Api-Key` with each request.
    private func makeClient(logging logger: LoggerInterceptor) throws -> Client {
        try makeClient([logger]) { builder in
            builder.authenticator(SpecAuthenticator(token: "secret-token")).header("Cookie", "session=s3cr3t")
                .header("X-Api-Key", "key-123").header("Accept", "application/json")
        }
    }

    private func stubCreated(body: Data = Data(#"{"id":1,"amount":10}"#.utf8)) {
        transport.stub(
            .post, path: "/v1/expenses",
            StubResponse(
                status: 201,
                headers: ["Content-Type": "application/json", "Set-Cookie": "session=n3w", "X-Trace": "t-1"],
                body: body, delay: 1))
    }

    func testHeaders_areListedSortedWithSecretsHidden_andNoBodies() throws {
        stubCreated()
        let logger = CacheSpecRecordingLogger()
        let client = try makeClient(
            logging: LoggerInterceptor(
                logger: logger, verbosity: .headers, redacting: HeaderRedaction(also: ["X-Api-Key"])))

        _ = scheduler.start {
            client.eventStream(
                CacheSpecEndpoint("/expenses", method: .post, parameters: NewExpense(amount: 10)),
                as: CacheSpecExpense.self)
        }

        let request = try XCTUnwrap(logger.messages.first)
        XCTAssertTrue(request.hasPrefix("👉👉👉 POST \(url)\n"), request)
        let requestHeaders = request.split(separator: "\n").dropFirst().map(String.init)
        XCTAssertTrue(requestHeaders.contains("    Accept: application/json"), request)
        XCTAssertTrue(requestHeaders.contains("    Authorization: ***"), request)
        XCTAssertTrue(requestHeaders.contains("    Cookie: ***"), request)
        XCTAssertTrue(requestHeaders.contains("    X-Api-Key: ***"), request)
        XCTAssertTrue(requestHeaders.contains("    Content-Type: application/json"), request)
        XCTAssertEqual(requestHeaders, requestHeaders.sorted { $0.lowercased() < $1.lowercased() })
        XCTAssertFalse(request.contains("secret-token") || request.contains("s3cr3t") || request.contains("key-123"))
        XCTAssertFalse(request.contains("amount"), "no body below .bodies: \(request)")

        XCTAssertEqual(
            logger.messages.last,
            """
            ✔✔✔ POST \(url) → 201 in 1.00 s
                Content-Type: application/json
                Set-Cookie: ***
                X-Trace: t-1
            """)
    }

    func testBodies_showTheRequestAndResponseBodies() throws {
        stubCreated()
        let logger = CacheSpecRecordingLogger()
        let client = try makeClient(logging: LoggerInterceptor(logger: logger, verbosity: .bodies))

        _ = scheduler.start {
            client.eventStream(
                CacheSpecEndpoint("/expenses", method: .post, parameters: NewExpense(amount: 10)),
                as: CacheSpecExpense.self)
        }

        XCTAssertEqual(logger.messages.first?.split(separator: "\n").last, #"    {"amount":10}"#)
        // The default redaction leaves X-Api-Key alone: only the listed secrets are hidden.
        XCTAssertTrue(logger.messages.first?.contains("X-Api-Key: key-123") == true)
        XCTAssertEqual(logger.messages.last?.split(separator: "\n").last, #"    {"id":1,"amount":10}"#)
    }

    func testBodies_cutAtTheLimit_andBinaryIsCounted() throws {
        let long = String(repeating: "é", count: 10)  // 20 bytes: the limit of 7 cuts the 4th "é"
        stubCreated(body: Data(long.utf8))
        transport.stub(
            .get, path: "/v1/expenses",
            StubResponse(status: 200, headers: [:], body: Data([0x00, 0xFF, 0x10, 0x80]), delay: 1))
        let logger = CacheSpecRecordingLogger()
        let client = try makeClient(logging: LoggerInterceptor(logger: logger, verbosity: .bodies, bodyLimit: 7))

        _ = scheduler.start {
            Observable.concat(
                client.eventStream(
                    CacheSpecEndpoint("/expenses", method: .post, parameters: NewExpense(amount: 10)), as: Data.self
                )
                .map { _ in () }.catch { _ in .just(()) },
                client.eventStream(CacheSpecEndpoint("/expenses"), as: Data.self).map { _ in () }.catch { _ in .just(())
                }
            )
        }

        // Neither body decodes as JSON `Data`: each execution then ends with a decoding
        // error, after the completion stage, logged once at its end.
        let ends = logger.all.filter { $0.message.hasPrefix("✗✗✗") }
        XCTAssertEqual(ends.map(\.level), [.error, .error], "\(logger.all)")
        XCTAssertTrue(ends.allSatisfy { $0.message.contains("Could not decode Data") }, "\(ends)")
        let outcomes = logger.all.filter { !$0.message.hasPrefix("👉") && !$0.message.hasPrefix("✗") }.map(\.message)
        XCTAssertEqual(outcomes.count, 2, "\(logger.all)")
        XCTAssertEqual(outcomes.first?.split(separator: "\n").last, "    ééé… (20 bytes in all)")
        XCTAssertEqual(outcomes.last?.split(separator: "\n").last, "    <4 bytes of binary>")
        // The request body, 13 bytes, is cut too.
        XCTAssertEqual(logger.messages.first?.split(separator: "\n").last, #"    {"amoun… (13 bytes in all)"#)
    }

    func testVerbosities_areOrderedAndBasicIsTheDefault() {
        XCTAssertEqual(LoggerInterceptor.Verbosity.allCases, [.basic, .headers, .bodies])
        XCTAssertLessThan(LoggerInterceptor.Verbosity.basic, .headers)
        XCTAssertLessThan(LoggerInterceptor.Verbosity.headers, .bodies)
        let logger = LoggerInterceptor()
        XCTAssertEqual(logger.verbosity, .basic)
        XCTAssertEqual(logger.redaction, .standard)
        XCTAssertEqual(logger.bodyLimit, 1024)
        XCTAssertEqual(LoggerInterceptor(bodyLimit: -5).bodyLimit, 0)
    }
}
