import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What moves the bytes of a `SocketByteStream`: plain socket calls, or TLS over one.
///
/// The stream calls it only on its own serial queue, never from two threads at once, and
/// calls `close()` once, after the event loop stopped watching `fileDescriptor`.
protocol ByteStreamIO: AnyObject, Sendable {
    /// The descriptor whose readiness says when `read` and `write` can move bytes again.
    var fileDescriptor: Int32 { get }

    /// Reads what is there, without waiting.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> ByteStreamIOResult

    /// Writes what can be written now, without waiting.
    func write(from bytes: UnsafeRawBufferPointer) -> ByteStreamIOResult

    /// Releases the connection and its descriptor.
    func close()
}

/// What one non-blocking `ByteStreamIO` call did.
enum ByteStreamIOResult {
    /// This many bytes moved (at least one, unless zero were asked for).
    case moved(Int)
    /// Nothing can move until the descriptor is ready again.
    case wouldBlock
    /// The peer closed its side (reads only).
    case end
    /// The connection failed.
    case failed(URLError)
}

/// Plain TCP: the socket calls themselves.
final class SocketByteStreamIO: ByteStreamIO, @unchecked Sendable {
    // Sendable: immutable; the descriptor is closed once, by the stream.

    /// The connected socket.
    let fileDescriptor: Int32

    /// Takes ownership of a connected, non-blocking socket.
    init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> ByteStreamIOResult {
        Self.result(ByteStreamSocket.read(fileDescriptor, into: buffer))
    }

    func write(from bytes: UnsafeRawBufferPointer) -> ByteStreamIOResult {
        Self.result(ByteStreamSocket.write(fileDescriptor, from: bytes))
    }

    func close() {
        ByteStreamSocket.close(fileDescriptor)
    }

    /// A socket call's outcome as the stream's.
    private static func result(_ transfer: ByteStreamSocket.Transfer) -> ByteStreamIOResult {
        switch transfer {
        case .moved(let count): .moved(count)
        case .wouldBlock: .wouldBlock
        case .end: .end
        case .failed(let code): .failed(ByteStreamErrors.socket(code, whileConnecting: false))
        }
    }
}
