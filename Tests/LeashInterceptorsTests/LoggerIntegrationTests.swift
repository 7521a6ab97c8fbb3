import Foundation
import Leash
import LeashInterceptors
import LeashTestSupport
import LoopbackServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The logger against a real server on 127.0.0.1.
final class LoggerIntegrationTests: LoopbackIntegrationCase {
    func testLogsEachRequestAndItsOutcome_withTheServersURL() throws {
        let logger = CacheSpecRecordingLogger()
        let client = try makeClient { $0.add(interceptor: LoggerInterceptor(logger: logger)) }
        let json = server.url(path: "/json").absoluteString
        let failing = server.url(path: "/status/500").absoluteString

        _ = cacheSpecRun(client, CacheSpecEndpoint("/json"), as: LoopbackSample.self)
        let failure = cacheSpecRun(client, CacheSpecEndpoint("/status/500"), as: LoopbackSample.self)

        XCTAssertEqual(
            logger.messages.prefix(4),
            ["👉👉👉 GET \(json)", "✔✔✔ GET \(json)", "👉👉👉 GET \(failing)", "✖✖✖ GET \(failing)"])
        XCTAssertEqual(logger.all.count, 5)
        XCTAssertEqual(logger.all.last?.level, .error)
        XCTAssertEqual(logger.all.last?.message, (failure.error as? LeashError)?.description)
    }
}
