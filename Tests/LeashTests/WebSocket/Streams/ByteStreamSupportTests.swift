import Foundation
import Leash
import Rx
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The platform-neutral pieces around the byte streams: PEM reading, error mapping and the
/// platform's default connector.
final class ByteStreamSupportTests: XCTestCase {
    func testPEM_readsEveryCertificateAndSkipsKeys() {
        let pem =
            "text before\n" + TestCertificates.authorityPEM + "\n" + TestCertificates.keyPEM + "\n"
            + TestCertificates.certificatePEM + "\n"
        let certificates = PEMCertificates.der(inPEM: pem)
        XCTAssertEqual(certificates.count, 2)
        // DER certificates start with a SEQUENCE (0x30) with a two-byte long-form length.
        XCTAssertEqual(certificates.map { $0.first }, [0x30, 0x30])
        XCTAssertEqual(certificates.map { $0.count }, [0x163 + 4, 0x1C1 + 4])
    }

    func testPEM_withoutCertificates_isNil() throws {
        XCTAssertEqual(PEMCertificates.der(inPEM: TestCertificates.keyPEM), [])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("leash-no-certs-\(UUID()).pem")
        try TestCertificates.keyPEM.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        XCTAssertNil(PEMCertificates.der(inFile: file))
        XCTAssertNil(PEMCertificates.der(inFile: file.appendingPathExtension("missing")))
    }

    func testTLSStatus_mapsCertificateFaultsAndHandshakeFailures() {
        XCTAssertEqual(ByteStreamErrors.tls(status: -9813).code, .serverCertificateUntrusted)
        XCTAssertEqual(ByteStreamErrors.tls(status: -9843).code, .serverCertificateUntrusted)
        XCTAssertEqual(ByteStreamErrors.tls(status: -9814).code, .serverCertificateHasBadDate)
        XCTAssertEqual(ByteStreamErrors.tls(status: -9815).code, .serverCertificateNotYetValid)
        XCTAssertEqual(ByteStreamErrors.tls(status: -9806).code, .secureConnectionFailed)
    }

    func testSocketErrors_dependOnThePhase() {
        XCTAssertEqual(ByteStreamErrors.socket(ECONNREFUSED, whileConnecting: true).code, .cannotConnectToHost)
        XCTAssertEqual(ByteStreamErrors.socket(ECONNRESET, whileConnecting: false).code, .networkConnectionLost)
        XCTAssertEqual(ByteStreamErrors.socket(ETIMEDOUT, whileConnecting: true).code, .timedOut)
        XCTAssertEqual(ByteStreamErrors.socket(ENETDOWN, whileConnecting: true).code, .notConnectedToInternet)
        XCTAssertEqual(ByteStreamErrors.socket(ECANCELED, whileConnecting: false).code, .cancelled)
        let underlying = ByteStreamErrors.socket(ECONNREFUSED, whileConnecting: true).userInfo[NSUnderlyingErrorKey]
        XCTAssertEqual((underlying as? NSError)?.code, Int(ECONNREFUSED))
    }

    func testDefaultConnector_opensPlainStreams() throws {
        let listener = try TestTCPListener()
        let stream = try connectStream(WebSocketByteStreams.connector, to: listener.address())
        let peer = try listener.accept()
        DispatchQueue.global().async { peer.echoUntilEnd() }
        XCTAssertNil(sendAll(stream, Data("plain".utf8)))
        XCTAssertEqual(receiveBytes(stream, count: 5).bytes, Data("plain".utf8))
        stream.close()
    }

    #if os(Linux)
        func testDefaultConnector_opensTLSStreams() throws {
            guard CurlTLSByteStreamConnector.isAvailable else { throw XCTSkip("libcurl cannot be loaded here") }
            let server = try TestTLSServer()
            let stream = try connectStream(WebSocketByteStreams.connector, to: server.address())
            XCTAssertNil(sendAll(stream, Data("secure".utf8)))
            XCTAssertEqual(receiveBytes(stream, count: 6).bytes, Data("secure".utf8))
            stream.close()
        }

        func testCurlURL_rejectsHostsThatWouldChangeTheURL() {
            func url(_ host: String, _ port: Int = 443) -> String? {
                CurlTLSByteStreamConnector.url(for: WebSocketAddress(host: host, port: port, isSecure: true))
            }
            XCTAssertEqual(url("example.com"), "https://example.com:443/")
            XCTAssertEqual(url("::1", 8443), "https://[::1]:8443/")
            XCTAssertEqual(url("fe80::1%eth0"), "https://[fe80::1%25eth0]:443/")
            XCTAssertNil(url("user@example.com"))
            XCTAssertNil(url("example.com/path"))
            XCTAssertNil(url(""))
            XCTAssertNil(url("example.com", 0))
        }
    #endif
}
