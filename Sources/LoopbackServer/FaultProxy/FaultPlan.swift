/// How a `FaultProxy` picks the fault of each connection it accepts, by the connection's
/// number (0 for the first). A request can name its own fault instead, in the
/// `X-Leash-Fault` header (see `FaultProxy.faultHeader`).
public struct FaultPlan: Sendable {
    private let choose: @Sendable (_ connection: Int) -> Fault

    /// A plan that asks `choose` for the fault of connection number `connection`.
    public init(_ choose: @escaping @Sendable (_ connection: Int) -> Fault) {
        self.choose = choose
    }

    /// The fault of connection number `connection` (0 for the first).
    public func fault(forConnection connection: Int) -> Fault {
        choose(connection)
    }

    /// Every connection forwarded untouched (requests may still name a fault).
    public static let none = FaultPlan { _ in .none }

    /// Every connection gets `fault`.
    public static func always(_ fault: Fault) -> FaultPlan {
        FaultPlan { _ in fault }
    }

    /// Connection `i` gets `faults[i]`; the ones after the last are forwarded untouched.
    public static func sequence(_ faults: [Fault]) -> FaultPlan {
        FaultPlan { connection in connection < faults.count ? faults[connection] : .none }
    }

    /// Each connection gets, with `probability`, a fault of one of `kinds` drawn from a
    /// generator seeded by `seed` and the connection's number: the same seed gives the
    /// same fault to the same connection number, run after run.
    public static func random(
        seed: UInt64, probability: Double = 1, kinds: [Fault.Kind] = Fault.Kind.allCases
    ) -> FaultPlan {
        FaultPlan { connection in
            var generator = SplitMix64(seed: seed ^ (UInt64(connection) &* 0xD1B5_4A32_D192_ED03))
            guard generator.nextUnit() < probability else { return .none }
            return Fault.random(from: kinds, using: &generator)
        }
    }
}
