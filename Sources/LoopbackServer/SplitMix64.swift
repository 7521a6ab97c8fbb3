/// SplitMix64 (Steele, Lea and Flood, 2014): a few lines, and the same sequence for a seed on
/// every platform, which the system generator does not promise. For faults and payloads that
/// a seed reproduces: the idempotent route's lost answers, the outbox's crash test, the
/// WebSocket tests' random splits.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator that yields the same sequence for the same seed.
    package init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A value in 0..<1 from the top 53 bits.
    package mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }
}
