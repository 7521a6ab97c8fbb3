#if os(Linux)
    import CLeashCurl
    import Foundation
    import FoundationNetworking

    /// TLS through a libcurl connect-only handle: `curl_easy_recv` and `curl_easy_send` on the
    /// stream's queue, libcurl's socket for readiness.
    ///
    /// A curl handle must not be used from two threads at once; `SocketByteStream` calls
    /// every method on its one serial queue, which serializes them without a lock.
    final class CurlByteStreamIO: ByteStreamIO, @unchecked Sendable {
        // Sendable: the handle is used only on the owning stream's serial queue (see above),
        // and destroyed once, by `close()`.

        /// The connected handle.
        private let connection: OpaquePointer
        /// libcurl's socket under the handle.
        let fileDescriptor: Int32

        /// Takes ownership of a connected handle and its socket.
        init(connection: OpaquePointer, fileDescriptor: Int32) {
            self.connection = connection
            self.fileDescriptor = fileDescriptor
        }

        func read(into buffer: UnsafeMutableRawBufferPointer) -> ByteStreamIOResult {
            var received = 0
            let code = leash_curl_receive(connection, buffer.baseAddress, buffer.count, &received)
            switch code {
            case Int32(LEASH_CURLE_OK): return received > 0 ? .moved(received) : .end
            case Int32(LEASH_CURLE_AGAIN): return .wouldBlock
            default: return .failed(CurlErrors.error(code, connection: connection, whileConnecting: false))
            }
        }

        func write(from bytes: UnsafeRawBufferPointer) -> ByteStreamIOResult {
            guard bytes.count > 0 else { return .moved(0) }
            var sent = 0
            let code = leash_curl_send(connection, bytes.baseAddress, bytes.count, &sent)
            switch code {
            case Int32(LEASH_CURLE_OK): return sent > 0 ? .moved(sent) : .wouldBlock
            case Int32(LEASH_CURLE_AGAIN): return .wouldBlock
            default: return .failed(CurlErrors.error(code, connection: connection, whileConnecting: false))
            }
        }

        /// Sends TLS close-notify, closes the socket and frees the handle.
        func close() {
            leash_curl_destroy(connection)
        }
    }
#endif
