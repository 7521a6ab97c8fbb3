import Foundation
import Leash
import LoopbackServer

/// A deterministic generator, so that random splits and payloads repeat run to run.
typealias WebSocketSeededGenerator = SplitMix64

/// The bytes of a frame written by hand, not by `WebSocketFrameEncoder`, so that decoder tests
/// do not depend on the encoder being right.
///
/// - Parameters:
///   - firstByte: FIN, the reserved bits and the opcode, as on the wire.
///   - payload: The unmasked payload.
///   - lengthForm: How many bytes the extended length takes (0, 2 or 8); `nil` for the minimal
///     form, so that non-minimal encodings can be built on purpose.
///   - maskingKey: The key to mask with, or `nil` for a server's unmasked frame.
func handWrittenFrame(
    firstByte: UInt8, payload: [UInt8], lengthForm: Int? = nil, maskingKey: [UInt8]? = nil
) -> [UInt8] {
    let count = payload.count
    let form = lengthForm ?? (count <= 125 ? 0 : count <= 0xFFFF ? 2 : 8)
    let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
    var bytes = [firstByte]
    switch form {
    case 0:
        bytes.append(maskBit | UInt8(count))
    case 2:
        bytes.append(maskBit | 126)
        bytes += [UInt8(count >> 8), UInt8(count & 0xFF)]
    default:
        bytes.append(maskBit | 127)
        bytes += (0..<8).reversed().map { UInt8((UInt64(count) >> UInt64($0 * 8)) & 0xFF) }
    }
    if let maskingKey {
        bytes += maskingKey
        bytes += payload.enumerated().map { $0.element ^ maskingKey[$0.offset % 4] }
    } else {
        bytes += payload
    }
    return bytes
}

/// `count` bytes that change from one position to the next, so that a misplaced byte shows.
func patternedPayload(count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
}

extension WebSocketFrameDecoder {
    /// Decodes `bytes` delivered in the chunks that `cuts` (sorted offsets) mark, collecting all
    /// frames and the violation, if any.
    mutating func decode(_ bytes: [UInt8], cutAt cuts: [Int]) -> Output {
        var result = Output()
        var start = 0
        for end in cuts + [bytes.count] where end >= start {
            let output = decode(bytes[start..<end])
            result.frames += output.frames
            if let violation = output.violation {
                result.violation = violation
                return result
            }
            start = end
        }
        return result
    }
}
