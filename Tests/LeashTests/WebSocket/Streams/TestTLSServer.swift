import Foundation
import Leash
import XCTest

/// A TLS server for byte-stream tests: a Python 3 script (standard library `ssl` only) run as
/// a subprocess on a loopback address, on an ephemeral port it prints, with a certificate for
/// `localhost`, 127.0.0.1 and ::1 issued by a test authority.
///
/// The certificate and keys were generated once with `openssl` (EC P-256, valid 2000–2126),
/// so that the tests need no `openssl` at run time; they secure nothing.
final class TestTLSServer: @unchecked Sendable {  // Sendable: immutable after init.
    /// What the server does with each connection.
    enum Mode: String {
        /// Echoes every byte until the client closes.
        case echo
        /// Sends "bye" and closes with a TLS close-notify.
        case bye
    }

    /// The PEM of the test authority that issued the server's certificate.
    static let authorityPEM = """
        -----BEGIN CERTIFICATE-----
        MIIBYzCCAQmgAwIBAgIBATAKBggqhkjOPQQDAjAYMRYwFAYDVQQDDA1MZWFzaCBU
        ZXN0IENBMCAXDTAwMDEwMTAwMDAwMFoYDzIxMjYwMTAxMDAwMDAwWjAYMRYwFAYD
        VQQDDA1MZWFzaCBUZXN0IENBMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEDkEd
        IaxsPcv/fASJAuisIGPmZPmNuQbhY0P/j6H1M4o5pHZXADJnsa+iVu5SWHkt9/3l
        hinaQvB1UHW8B3G9kqNCMEAwDwYDVR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMC
        AQYwHQYDVR0OBBYEFBs1asiVr83hCfNyLoI45bEhf6VPMAoGCCqGSM49BAMCA0gA
        MEUCIQDaQUVWe1b35e3G+QuVvwG2DA40wVK4wNy7rFGOdAd1OAIgNw+KjIUfbGRU
        +Ff74Svc7hBius5jKbsTgqUyPWFbGbM=
        -----END CERTIFICATE-----
        """

    /// The PEM of the server's certificate.
    static let certificatePEM = """
        -----BEGIN CERTIFICATE-----
        MIIBwTCCAWigAwIBAgIBAjAKBggqhkjOPQQDAjAYMRYwFAYDVQQDDA1MZWFzaCBU
        ZXN0IENBMCAXDTAwMDEwMTAwMDAwMFoYDzIxMjYwMTAxMDAwMDAwWjAUMRIwEAYD
        VQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQY9P5c6Wqv
        3DR3OMw9zUjglHMENnbUYaHF9UGHv5/AOYGR0u3hEJN+fHZ0oBdD8DBd4XbSj++c
        SuaEbyCIE1sJo4GkMIGhMCwGA1UdEQQlMCOCCWxvY2FsaG9zdIcEfwAAAYcQAAAA
        AAAAAAAAAAAAAAAAATAMBgNVHRMBAf8EAjAAMA4GA1UdDwEB/wQEAwIHgDATBgNV
        HSUEDDAKBggrBgEFBQcDATAfBgNVHSMEGDAWgBQbNWrIla/N4Qnzci6COOWxIX+l
        TzAdBgNVHQ4EFgQU7w5b/XmUMPP9q182sPVLhFBSfBMwCgYIKoZIzj0EAwIDRwAw
        RAIgcznfVnBsvuG3Ghb8zwRdjJ0kDqXHvhEsBPowNKspAjUCIBP5/Dow6720JEaM
        syoQTcqmklRdTLQ9UeFrhwhDwFmj
        -----END CERTIFICATE-----
        """

    /// The PEM of the server's private key.
    static let keyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgV17/OVCDnNcfLW98
        3/w2zbSUy+UILtUlRMVQoChoAfuhRANCAAQY9P5c6Wqv3DR3OMw9zUjglHMENnbU
        YaHF9UGHv5/AOYGR0u3hEJN+fHZ0oBdD8DBd4XbSj++cSuaEbyCIE1sJ
        -----END PRIVATE KEY-----
        """

    /// The server: one thread per connection; exits when its standard input closes.
    static let script = """
        import os, socket, ssl, sys, threading
        certificate, key, mode, host = sys.argv[1:5]
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind((host, 0))
        listener.listen(16)
        print(listener.getsockname()[1], flush=True)

        def serve(raw):
            try:
                connection = context.wrap_socket(raw, server_side=True)
            except (ssl.SSLError, OSError):
                raw.close()
                return
            try:
                if mode == "bye":
                    connection.sendall(b"bye")
                    connection.unwrap()
                else:
                    while True:
                        data = connection.recv(65536)
                        if not data:
                            break
                        connection.sendall(data)
            except (ssl.SSLError, OSError):
                pass
            finally:
                try:
                    connection.close()
                except OSError:
                    pass

        def exit_when_stdin_closes():
            sys.stdin.read()
            os._exit(0)

        threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
        while True:
            raw, _ = listener.accept()
            threading.Thread(target=serve, args=(raw,), daemon=True).start()
        """

    /// The port the server listens on.
    let port: Int
    /// The file of `authorityPEM`, for `WebSocketAddress.additionalTrustedAuthorities`.
    let authorityFile: URL
    /// The server process.
    private let process: Process
    /// The server's standard input: closing it stops the server.
    private let input: Pipe
    /// Where the certificate, key and authority files are.
    private let directory: URL

    /// The loopback address the server listens on.
    let host: String

    /// Starts a server on `host` (a loopback address), or throws `XCTSkip` when python3 is
    /// not there.
    init(mode: Mode = .echo, host: String = "127.0.0.1") throws {
        self.host = host
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("leash-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificate = directory.appendingPathComponent("server.pem")
        let key = directory.appendingPathComponent("server.key")
        authorityFile = directory.appendingPathComponent("authority.pem")
        try Self.certificatePEM.write(to: certificate, atomically: true, encoding: .utf8)
        try Self.keyPEM.write(to: key, atomically: true, encoding: .utf8)
        try Self.authorityPEM.write(to: authorityFile, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.script, certificate.path, key.path, mode.rawValue, host]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        self.process = process
        self.input = input
        do {
            try process.run()
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw XCTSkip("cannot run python3 for the TLS server: \(error)")
        }
        // The first line is the port; end of output first means python3 did not start.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let some = output.fileHandleForReading.availableData
            if some.isEmpty { break }
            line += some
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: directory)
            throw XCTSkip("python3 is not available to run the TLS server")
        }
        self.port = port
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The server's address, trusting the test authority unless `trusting` is false.
    func address(host: String? = nil, trusting: Bool = true) -> WebSocketAddress {
        WebSocketAddress(
            host: host ?? self.host, port: port, isSecure: true,
            additionalTrustedAuthorities: trusting ? authorityFile : nil)
    }
}
