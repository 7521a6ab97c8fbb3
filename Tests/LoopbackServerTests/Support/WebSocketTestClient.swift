import Foundation
import LoopbackServer

/// A frame the test client read off the wire.
struct ReceivedFrame: Equatable {
    var fin: Bool
    /// The RSV bits as a number: 4 is RSV1, 2 is RSV2, 1 is RSV3.
    var rsv: UInt8
    var opcode: UInt8
    var isMasked: Bool
    /// The payload, unmasked.
    var payload: [UInt8]

    var text: String { String(decoding: payload, as: UTF8.self) }
    /// A close frame's code, if its payload has one.
    var closeCode: UInt16? { payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil }
}

/// A WebSocket client written by hand over `RawClient`, for tests of the server: it sends
/// the frames a test builds (masked, or not, as it chooses) and reads the server's frames.
/// Reads time out with the raw client's timeout, so a test fails rather than hangs.
final class WebSocketTestClient {
    /// The key of RFC 6455 §1.3's example, and its accept value.
    static let exampleKey = "dGhlIHNhbXBsZSBub25jZQ=="
    static let exampleAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
    /// The masking key the client uses unless told otherwise.
    static let defaultMaskingKey: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]

    let raw: RawClient
    /// The server's answer to the opening handshake (its head).
    private(set) var handshake = RawResponse(status: 0, headers: [:], body: [], wasChunked: false, chunkSizes: [])
    /// Bytes received and not yet read as frames.
    private var buffer: [UInt8] = []

    /// Connects to `server` (or to `port`, a proxy in front of it) and sends an opening
    /// handshake for `target`, with `headers` added (or replacing the standard ones of the
    /// same name), then reads the answer's head unless `readAnswer` is false.
    init(
        server: LoopbackServer, port: Int? = nil, target: String = "/ws/echo", key: String = exampleKey,
        headers: [(String, String)] = [], readAnswer: Bool = true, receiveBufferSize: Int32? = nil
    ) throws {
        raw = try RawClient(port: port ?? server.port, receiveBufferSize: receiveBufferSize)
        var fields = LoopbackHeaders([
            ("Host", "127.0.0.1:\(server.port)"), ("Upgrade", "websocket"), ("Connection", "Upgrade"),
            ("Sec-WebSocket-Key", key), ("Sec-WebSocket-Version", "13"),
        ])
        for (name, value) in headers { fields[name] = value }
        var request = "GET \(target) HTTP/1.1\r\n"
        for field in fields { request += "\(field.name): \(field.value)\r\n" }
        try raw.send(request + "\r\n")
        if readAnswer { handshake = try raw.readHead() }
    }

    /// Sends one frame, masked with `maskingKey` (unmasked when nil).
    func send(
        opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0,
        maskingKey: [UInt8]? = defaultMaskingKey
    ) throws {
        try raw.send(Self.frame(opcode: opcode, payload, fin: fin, rsv: rsv, maskingKey: maskingKey))
    }

    /// Sends a text message as one masked frame.
    func sendText(_ text: String) throws {
        try send(opcode: 1, Array(text.utf8))
    }

    /// Sends a close frame with `code` (none when nil) and `reason`.
    func sendClose(_ code: UInt16?, reason: String = "") throws {
        let payload = code.map { [UInt8($0 >> 8), UInt8($0 & 0xFF)] + Array(reason.utf8) } ?? []
        try send(opcode: 8, payload)
    }

    /// The bytes of a frame as a client sends it.
    static func frame(
        opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0,
        maskingKey: [UInt8]? = defaultMaskingKey
    ) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | rsv << 4 | opcode]
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        if payload.count < 126 {
            bytes.append(maskBit | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            bytes += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        guard let maskingKey else { return bytes + payload }
        bytes += maskingKey
        for (index, byte) in payload.enumerated() { bytes.append(byte ^ maskingKey[index % 4]) }
        return bytes
    }

    /// Reads the next frame.
    /// - Throws: `RawClientError.closedEarly` when the server closes TCP first.
    func readFrame() throws -> ReceivedFrame {
        try fill(2)
        var headerLength = 2
        var length = Int(buffer[1] & 0x7F)
        if length == 126 {
            headerLength = 4
            try fill(headerLength)
            length = Int(buffer[2]) << 8 | Int(buffer[3])
        } else if length == 127 {
            headerLength = 10
            try fill(headerLength)
            length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
        }
        let isMasked = buffer[1] & 0x80 != 0
        let keyStart = headerLength
        if isMasked { headerLength += 4 }
        try fill(headerLength + length)
        var payload = Array(buffer[headerLength..<headerLength + length])
        if isMasked {
            for index in payload.indices { payload[index] ^= buffer[keyStart + index % 4] }
        }
        let frame = ReceivedFrame(
            fin: buffer[0] & 0x80 != 0, rsv: (buffer[0] >> 4) & 0x7, opcode: buffer[0] & 0x0F, isMasked: isMasked,
            payload: payload)
        buffer.removeFirst(headerLength + length)
        return frame
    }

    /// Reads until the server closes TCP; returns what arrived that was not read as frames.
    func readUntilClose() throws -> [UInt8] {
        defer { buffer.removeAll() }
        buffer += try raw.readUntilClose()
        return buffer
    }

    private func fill(_ count: Int) throws {
        while buffer.count < count {
            let bytes = try raw.receiveAvailable()
            guard !bytes.isEmpty else { throw RawClientError.closedEarly(received: buffer.count) }
            buffer += bytes
        }
    }
}
