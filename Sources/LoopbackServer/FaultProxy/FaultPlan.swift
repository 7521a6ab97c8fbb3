/// How a `FaultProxy` picks its faults: one for each request, by the number of the
/// connection it came on (0 for the first accepted) and its place on that connection (0 for
/// the first). A request can name its own fault instead, in the `X-Leash-Fault` header (see
/// `FaultProxy.faultHeader`).
///
/// The fault of a connection's first request is also the connection's: the kinds that act
/// before any request (`refuse`, `blackhole`, `delayConnect`) act only there, and count as
/// `none` for a later request.
package struct FaultPlan: Sendable {
    private let choose: @Sendable (_ connection: Int, _ request: Int) -> Fault

    /// A plan that asks `choose` for the fault of request number `request` on connection
    /// number `connection`.
    package init(_ choose: @escaping @Sendable (_ connection: Int, _ request: Int) -> Fault) {
        self.choose = choose
    }

    /// The fault of request number `request` (from 0) on connection number `connection`.
    package func fault(connection: Int, request: Int) -> Fault {
        choose(connection, request)
    }

    /// Everything forwarded untouched (requests may still name a fault).
    package static let none = FaultPlan { _, _ in .none }

    /// Every request gets `fault`.
    package static func always(_ fault: Fault) -> FaultPlan {
        FaultPlan { _, _ in fault }
    }

    /// Every request on connection `i` gets `faults[i]`; connections after the last are
    /// forwarded untouched.
    package static func sequence(_ faults: [Fault]) -> FaultPlan {
        FaultPlan { connection, _ in connection < faults.count ? faults[connection] : .none }
    }

    /// Request number `request` on connection number `connection` gets `fault`, and
    /// nothing else gets any: for example the second request on a kept-alive connection.
    package static func only(_ fault: Fault, connection: Int, request: Int) -> FaultPlan {
        FaultPlan { thisConnection, thisRequest in
            thisConnection == connection && thisRequest == request ? fault : .none
        }
    }

    /// Each request gets, with `probability`, a fault of one of `kinds` drawn from a
    /// generator seeded by `seed`, the connection's number and the request's place: the
    /// same seed gives the same faults to the same requests, run after run.
    package static func random(
        seed: UInt64, probability: Double = 1, kinds: [Fault.Kind] = Fault.Kind.allCases
    ) -> FaultPlan {
        FaultPlan { connection, request in
            let mixed = UInt64(connection) &* 0xD1B5_4A32_D192_ED03 &+ UInt64(request) &* 0x8CB9_2BA7_2F3D_8DD7
            var generator = SplitMix64(seed: seed ^ mixed)
            guard generator.nextUnit() < probability else { return .none }
            return Fault.random(from: kinds, using: &generator)
        }
    }
}
