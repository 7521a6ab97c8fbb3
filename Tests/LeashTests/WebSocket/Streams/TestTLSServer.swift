import Foundation
import Leash
import XCTest

// A subprocess needs Foundation.Process, which only macOS and Linux have.
#if os(macOS) || os(Linux)
    /// A TLS server for byte-stream tests: a Python 3 script (standard library `ssl` only) run as
    /// a subprocess on a loopback address, on an ephemeral port it prints, with a certificate for
    /// `localhost`, 127.0.0.1 and ::1 issued by a test authority.
    ///
    /// The certificate and keys were generated once with `openssl` (EC P-256, valid 2000–2126),
    /// (`TestCertificates`), so that the tests need no `openssl` at run time.
    final class TestTLSServer: @unchecked Sendable {  // Sendable: immutable after init.
        /// What the server does with each connection.
        enum Mode: String {
            /// Echoes every byte until the client closes.
            case echo
            /// Sends "bye" and closes with a TLS close-notify.
            case bye
            /// Reads until the client closes, then prints "close-notify" if the client closed TLS
            /// properly, "no-close-notify" if it just dropped the connection.
            case reportClose
            /// Forwards the decrypted bytes both ways to a plain TCP server on 127.0.0.1 (the
            /// `proxyPort`): a TLS front for `LoopbackServer`, so that `wss://` runs end to end.
            case proxy
        }

        /// The server: one thread per connection; exits when its standard input closes.
        static let script = """
            import os, socket, ssl, sys, threading
            certificate, key, mode, host, target = sys.argv[1:6]
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(certificate, key)
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.bind((host, 0))
            listener.listen(16)
            print(listener.getsockname()[1], flush=True)

            def serve(raw):
                try:
                    connection = context.wrap_socket(raw, server_side=True, suppress_ragged_eofs=(mode != "reportClose"))
                except (ssl.SSLError, OSError):
                    raw.close()
                    return
                try:
                    if mode == "bye":
                        connection.sendall(b"bye")
                        connection.unwrap()
                    elif mode == "proxy":
                        upstream = socket.create_connection(("127.0.0.1", int(target)))
                        def forward(source, destination):
                            try:
                                while True:
                                    data = source.recv(65536)
                                    if not data:
                                        break
                                    destination.sendall(data)
                            except (ssl.SSLError, OSError):
                                pass
                            finally:
                                try:
                                    destination.shutdown(socket.SHUT_WR)
                                except OSError:
                                    pass
                        back = threading.Thread(target=forward, args=(upstream, connection), daemon=True)
                        back.start()
                        forward(connection, upstream)
                        back.join()
                        upstream.close()
                    elif mode == "reportClose":
                        try:
                            while connection.recv(65536):
                                pass
                            print("close-notify", flush=True)
                        except ssl.SSLEOFError:
                            print("no-close-notify", flush=True)
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
        private let child: PythonScriptProcess
        /// Where the certificate, key and authority files are.
        private let directory: URL

        /// The loopback address the server listens on.
        let host: String

        /// Starts a server on `host` (a loopback address), or throws `XCTSkip` when python3 is
        /// not there.
        init(mode: Mode = .echo, host: String = "127.0.0.1", proxyPort: Int = 0) throws {
            self.host = host
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("leash-tls-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let certificate = directory.appendingPathComponent("server.pem")
            let key = directory.appendingPathComponent("server.key")
            authorityFile = directory.appendingPathComponent("authority.pem")
            try TestCertificates.certificatePEM.write(to: certificate, atomically: true, encoding: .utf8)
            try TestCertificates.keyPEM.write(to: key, atomically: true, encoding: .utf8)
            try TestCertificates.authorityPEM.write(to: authorityFile, atomically: true, encoding: .utf8)
            do {
                child = try PythonScriptProcess(
                    script: Self.script,
                    arguments: [certificate.path, key.path, mode.rawValue, host, String(proxyPort)],
                    purpose: "the TLS server")
            } catch {
                try? FileManager.default.removeItem(at: directory)
                throw error
            }
            port = child.port
        }

        deinit {
            try? FileManager.default.removeItem(at: directory)
        }

        /// The next line the server prints (blocking), or nil at the end of its output.
        func nextLine() -> String? {
            child.nextLine()
        }

        /// The server's address, trusting the test authority unless `trusting` is false.
        func address(host: String? = nil, trusting: Bool = true) -> WebSocketAddress {
            WebSocketAddress(
                host: host ?? self.host, port: port, isSecure: true,
                additionalTrustedAuthorities: trusting ? authorityFile : nil)
        }
    }
#endif
