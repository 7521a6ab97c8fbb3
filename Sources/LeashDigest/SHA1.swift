import Foundation

/// SHA-1 (FIPS 180-4), fed incrementally, in the shape of `SHA256`.
///
/// SHA-1 is broken for collision resistance; it is here because RFC 6455 names it for the
/// WebSocket handshake's `Sec-WebSocket-Accept` (see `WebSocketAccept`), which needs no
/// security from it. Use `SHA256` for anything else.
///
/// ```swift
/// var hasher = SHA1()
/// hasher.update(Data("ab".utf8))
/// hasher.update(Data("c".utf8))
/// let hex = SHA256.hexString(hasher.finalize())  // "a9993e36…"
/// let same = SHA1.digest("abc".utf8)
/// ```
public struct SHA1: Sendable {
    /// The length of a digest in bytes.
    public static let digestByteCount = 20

    private static let blockByteCount = 64

    // The five hash words.
    private var h0: UInt32 = 0x6745_2301
    private var h1: UInt32 = 0xefcd_ab89
    private var h2: UInt32 = 0x98ba_dcfe
    private var h3: UInt32 = 0x1032_5476
    private var h4: UInt32 = 0xc3d2_e1f0
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

    /// The digest of every byte added so far, 20 bytes. The hasher is not changed: more
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
        for (word, value) in [copy.h0, copy.h1, copy.h2, copy.h3, copy.h4].enumerated() {
            for byte in 0..<4 {
                digest[word * 4 + byte] = UInt8(truncatingIfNeeded: value >> UInt32(24 - byte * 8))
            }
        }
        return digest
    }

    /// The digest of every byte added so far, as 40 lowercase hexadecimal digits.
    public func finalizeHex() -> String {
        SHA256.hexString(finalize())
    }

    /// The digest of `bytes` (one shot).
    public static func digest<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        var hasher = SHA1()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// The digest of `bytes` (one shot), as 40 lowercase hexadecimal digits.
    public static func hexDigest<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        SHA256.hexString(digest(bytes))
    }

    // MARK: - The compression function

    /// Hashes the whole 64-byte blocks of `blocks` into the hash words.
    private mutating func compressBlocks(_ blocks: UnsafeRawBufferPointer) {
        guard let base = blocks.baseAddress, blocks.count >= Self.blockByteCount else { return }
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { schedule in
            var offset = 0
            while offset + Self.blockByteCount <= blocks.count {
                compress(base + offset, schedule)
                offset += Self.blockByteCount
            }
        }
    }

    /// Hashes one 64-byte block at `block` into the hash words; written like
    /// `SHA256.compress` (pointer loops, masking shifts) to stay quick in debug builds.
    private mutating func compress(_ block: UnsafeRawPointer, _ schedule: UnsafeMutableBufferPointer<UInt32>) {
        guard let w = schedule.baseAddress else { return }
        let bytes = block.assumingMemoryBound(to: UInt8.self)
        var index = 0
        while index < 16 {
            let p = bytes + index * 4
            w[index] = UInt32(p[0]) &<< 24 | UInt32(p[1]) &<< 16 | UInt32(p[2]) &<< 8 | UInt32(p[3])
            index += 1
        }
        while index < 80 {
            let mixed = w[index - 3] ^ w[index - 8] ^ w[index - 14] ^ w[index - 16]
            w[index] = mixed &<< 1 | mixed &>> 31
            index += 1
        }
        var a = h0
        var b = h1
        var c = h2
        var d = h3
        var e = h4
        index = 0
        while index < 80 {
            let f: UInt32
            let k: UInt32
            if index < 20 {
                f = (b & c) | (~b & d)
                k = 0x5a82_7999
            } else if index < 40 {
                f = b ^ c ^ d
                k = 0x6ed9_eba1
            } else if index < 60 {
                f = (b & c) | (b & d) | (c & d)
                k = 0x8f1b_bcdc
            } else {
                f = b ^ c ^ d
                k = 0xca62_c1d6
            }
            let temp = (a &<< 5 | a &>> 27) &+ f &+ e &+ k &+ w[index]
            e = d
            d = c
            c = b &<< 30 | b &>> 2
            b = a
            a = temp
            index += 1
        }
        h0 &+= a
        h1 &+= b
        h2 &+= c
        h3 &+= d
        h4 &+= e
    }
}
