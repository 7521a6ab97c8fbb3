import LoopbackServer

/// What one execution does, drawn from the seed and its number alone: the same seed and
/// number give the same plan, whatever ran before.
struct ExecutionPlan: Sendable {
    let number: Int
    let form: Form
    /// The fault the proxy applies to its requests (named in `X-Leash-Fault`).
    let fault: Fault
    /// When the soak disposes (or cancels) it, if it still runs then.
    let disposeAfter: Double?
    /// How long its subscriber takes over each element.
    let slowSubscriber: Double?
    /// The body's size, for the forms that move bytes.
    let size: Int
    /// Whether an upload sends a file rather than `Data`; whether a body is chunked.
    let variant: Bool

    static func draw(number: Int, options: SoakOptions) -> ExecutionPlan {
        var generator = SplitMix64(seed: options.seed ^ (UInt64(number) &* 0x9E37_79B9_7F4A_7C15))
        let faultProbability = options.faultProbability
        let form = options.forms[Int(generator.next() % UInt64(options.forms.count))]
        let fault = generator.nextUnit() < faultProbability ? survivableFault(using: &generator) : .none
        let disposeAfter = generator.nextUnit() < 0.15 ? generator.nextUnit() * 0.05 : nil
        let slowSubscriber = generator.nextUnit() < 0.2 ? 0.001 + generator.nextUnit() * 0.01 : nil
        let size: Int
        switch form {
        case .download: size = 10_000 + Int(generator.next() % 2_000_000)
        case .upload: size = 1 + Int(generator.next() % 300_000)
        default: size = Int(generator.next() % 40_000)
        }
        return ExecutionPlan(
            number: number, form: form, fault: fault, disposeAfter: disposeAfter, slowSubscriber: slowSubscriber,
            size: size, variant: generator.next() % 2 == 0)
    }

    /// A fault the process survives. A clean close inside a response's head ends a Linux
    /// process in FoundationNetworking (the known crash, run apart by the probe), so a close
    /// of the response becomes a truncated body (after its head), with every transport (a
    /// seed draws the same plans whichever runs; the probe runs that fault through
    /// `HTTP1Transport` too); and a corrupted byte
    /// falls in the request line, which the server refuses, since a byte corrupted in a
    /// body is delivered as it is (TCP's checksum, not HTTP, guards against that).
    static func survivableFault(using generator: inout SplitMix64) -> Fault {
        let kinds = Fault.Kind.allCases.filter { $0 != .closeInHead && $0 != .none }
        switch Fault.random(from: kinds, using: &generator) {
        case .close(let after, .response): return .truncateBody(after: after)
        case .corrupt(let at, _): return .corrupt(at: at % 12, .request)
        case let fault: return fault
        }
    }
}
