import Foundation

/// SHA-256 (FIPS 180-4), fed incrementally: the package has no dependencies, and CryptoKit
/// is not on every platform. For naming cache files and checking transferred bytes; not
/// for anything secret (it makes no effort against timing attacks).
///
/// ```swift
/// var hasher = SHA256()
/// hasher.update(Data("ab".utf8))
/// hasher.update(Data("c".utf8))
/// let hex = SHA256.hexString(hasher.finalize())  // "ba7816bf…"
/// let same = SHA256.hexDigest(Data("abc".utf8))
/// ```
///
/// Hashing costs no allocation per `update`: a partial block waits in the value itself.
public struct SHA256: Sendable {
    /// The length of a digest in bytes.
    public static let digestByteCount = 32

    private static let blockByteCount = 64

    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    // The eight hash words.
    private var h0: UInt32 = 0x6a09_e667
    private var h1: UInt32 = 0xbb67_ae85
    private var h2: UInt32 = 0x3c6e_f372
    private var h3: UInt32 = 0xa54f_f53a
    private var h4: UInt32 = 0x510e_527f
    private var h5: UInt32 = 0x9b05_688c
    private var h6: UInt32 = 0x1f83_d9ab
    private var h7: UInt32 = 0x5be0_cd19
    /// Bytes of an incomplete block, waiting for more.
    private var pending = SIMD64<UInt8>()
    private var pendingCount = 0
    /// Bytes hashed so far, the pending ones included.
    private var byteCount: UInt64 = 0

    /// A hasher that has seen no bytes yet.
    public init() {}

    // MARK: - Feeding

    /// Adds `bytes` to the message.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var input = bytes[...]
        byteCount &+= UInt64(input.count)
        if pendingCount > 0 {
            let taken = min(input.count, Self.blockByteCount - pendingCount)
            let offset = pendingCount
            withUnsafeMutableBytes(of: &pending) { block in
                UnsafeMutableRawBufferPointer(rebasing: block[offset..<offset + taken])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: input.prefix(taken)))
            }
            pendingCount += taken
            input = input.dropFirst(taken)
            guard pendingCount == Self.blockByteCount else { return }
            let block = pending
            withUnsafeBytes(of: block) { compressBlocks($0) }
            pendingCount = 0
        }
        let wholeBlocks = input.count - input.count % Self.blockByteCount
        compressBlocks(UnsafeRawBufferPointer(rebasing: input.prefix(wholeBlocks)))
        let rest = input.dropFirst(wholeBlocks)
        if !rest.isEmpty {
            withUnsafeMutableBytes(of: &pending) { block in
                UnsafeMutableRawBufferPointer(rebasing: block[0..<rest.count])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: rest))
            }
            pendingCount = rest.count
        }
    }

    /// Adds the bytes of `data` to the message.
    public mutating func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// Adds `bytes` to the message.
    public mutating func update<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil {
            Array(bytes).withUnsafeBytes { update($0) }
        }
    }

    // MARK: - Digests

    /// The digest of every byte added so far, 32 bytes. The hasher is not changed: more
    /// bytes may follow, and `finalize()` then gives the digest of the longer message.
    public func finalize() -> [UInt8] {
        var copy = self
        let bitLength = byteCount &* 8
        // Padding: a 1 bit, zeros up to 56 bytes mod 64, then the length in bits, big-endian.
        var padding = [UInt8](repeating: 0, count: pendingCount < 56 ? 64 - pendingCount : 128 - pendingCount)
        padding[0] = 0x80
        for index in 0..<8 {
            padding[padding.count - 1 - index] = UInt8(truncatingIfNeeded: bitLength >> UInt64(index * 8))
        }
        padding.withUnsafeBytes { copy.update($0) }
        var digest = [UInt8](repeating: 0, count: Self.digestByteCount)
        for (word, value) in [copy.h0, copy.h1, copy.h2, copy.h3, copy.h4, copy.h5, copy.h6, copy.h7].enumerated() {
            for byte in 0..<4 {
                digest[word * 4 + byte] = UInt8(truncatingIfNeeded: value >> UInt32(24 - byte * 8))
            }
        }
        return digest
    }

    /// The digest of every byte added so far, as 64 lowercase hexadecimal digits.
    public func finalizeHex() -> String {
        Self.hexString(finalize())
    }

    /// The digest of `bytes` (one shot).
    public static func digest<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// The digest of `bytes` (one shot), as 64 lowercase hexadecimal digits.
    public static func hexDigest<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        hexString(digest(bytes))
    }

    /// `bytes` as lowercase hexadecimal digits, two per byte.
    public static func hexString<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    // MARK: - The compression function

    /// Hashes the whole 64-byte blocks of `blocks` into the hash words.
    private mutating func compressBlocks(_ blocks: UnsafeRawBufferPointer) {
        guard let base = blocks.baseAddress, blocks.count >= Self.blockByteCount else { return }
        Self.roundConstants.withUnsafeBufferPointer { constants in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
                var offset = 0
                while offset + Self.blockByteCount <= blocks.count {
                    compress(base + offset, constants, schedule)
                    offset += Self.blockByteCount
                }
            }
        }
    }

    /// Hashes one 64-byte block at `block` into the hash words. Written with pointer loops,
    /// masking shifts (`&>>`; the plain `>>` is a generic call in debug builds) and no
    /// helper calls, so that it stays usable in debug builds, where tests hash hundreds of
    /// megabytes.
    private mutating func compress(
        _ block: UnsafeRawPointer, _ constants: UnsafeBufferPointer<UInt32>,
        _ schedule: UnsafeMutableBufferPointer<UInt32>
    ) {
        guard let k = constants.baseAddress, let w = schedule.baseAddress else { return }
        let bytes = block.assumingMemoryBound(to: UInt8.self)
        var index = 0
        while index < 16 {
            let p = bytes + index * 4
            w[index] = UInt32(p[0]) &<< 24 | UInt32(p[1]) &<< 16 | UInt32(p[2]) &<< 8 | UInt32(p[3])
            index += 1
        }
        while index < 64 {
            let early = w[index - 15]
            let late = w[index - 2]
            let s0 = (early &>> 7 | early &<< 25) ^ (early &>> 18 | early &<< 14) ^ (early &>> 3)
            let s1 = (late &>> 17 | late &<< 15) ^ (late &>> 19 | late &<< 13) ^ (late &>> 10)
            w[index] = w[index - 16] &+ s0 &+ w[index - 7] &+ s1
            index += 1
        }
        var a = h0
        var b = h1
        var c = h2
        var d = h3
        var e = h4
        var f = h5
        var g = h6
        var h = h7
        index = 0
        while index < 64 {
            let sum1 = (e &>> 6 | e &<< 26) ^ (e &>> 11 | e &<< 21) ^ (e &>> 25 | e &<< 7)
            let choice = (e & f) ^ (~e & g)
            let temp1 = h &+ sum1 &+ choice &+ k[index] &+ w[index]
            let sum0 = (a &>> 2 | a &<< 30) ^ (a &>> 13 | a &<< 19) ^ (a &>> 22 | a &<< 10)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            h = g
            g = f
            f = e
            e = d &+ temp1
            d = c
            c = b
            b = a
            a = temp1 &+ sum0 &+ majority
            index += 1
        }
        h0 &+= a
        h1 &+= b
        h2 &+= c
        h3 &+= d
        h4 &+= e
        h5 &+= f
        h6 &+= g
        h7 &+= h
    }
}
