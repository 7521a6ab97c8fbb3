import Foundation

extension LoopbackServer {
    /// The period of the byte pattern of `GET /bytes/{n}`: a prime, so that no power of two
    /// or plausible buffer size is a multiple of it and a download resumed at a wrong offset
    /// does not match by chance.
    package static let patternPeriod = 65_521

    /// The byte at `offset` of every `GET /bytes/{n}` body (and `LoopbackResponse.pattern`):
    /// `table[offset % patternPeriod]`, where the table holds the top bytes of successive
    /// states of the xorshift32 generator seeded with `0x2545_F491`. Tests verify downloads
    /// with it without the server. A negative offset counts from 0 as if it were positive.
    package static func patternByte(at offset: Int) -> UInt8 {
        patternTable[Int(offset.magnitude % UInt(patternPeriod))]
    }

    /// The pattern's bytes at `range` (negative bounds are clamped to 0).
    package static func patternBytes(in range: Range<Int>) -> Data {
        let start = max(0, range.lowerBound)
        var data = Data(count: max(0, range.upperBound - start))
        data.withUnsafeMutableBytes { fillPattern($0, from: start) }
        return data
    }

    /// Fills `buffer` with the pattern's bytes from `offset` on (with memory copies, not a
    /// loop per byte, so that it keeps up with the network).
    package static func fillPattern(_ buffer: UnsafeMutableRawBufferPointer, from offset: Int) {
        patternTable.withUnsafeBytes { table in
            var position = Int(offset.magnitude % UInt(patternPeriod))
            var written = 0
            while written < buffer.count {
                let count = min(buffer.count - written, patternPeriod - position)
                UnsafeMutableRawBufferPointer(rebasing: buffer[written..<written + count])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: table[position..<position + count]))
                written += count
                position = 0
            }
        }
    }

    private static let patternTable: [UInt8] = {
        var state: UInt32 = 0x2545_F491
        var table = [UInt8](repeating: 0, count: patternPeriod)
        for index in 0..<patternPeriod {
            state ^= state &<< 13
            state ^= state &>> 17
            state ^= state &<< 5
            table[index] = UInt8(truncatingIfNeeded: state &>> 24)
        }
        return table
    }()
}
