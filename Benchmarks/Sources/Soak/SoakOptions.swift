import Foundation

/// The soak's command line: `soak [--minutes N] [--seed S] [--concurrency C]
/// [--fault-probability P] [--transport http1|urlsession]`, or
/// `soak --probe close-in-head=N --transport T` (the known-crash probe's child).
struct SoakOptions {
    /// How long executions are started for.
    var minutes: Double = 1
    /// What every random choice derives from: the same seed makes the same choices for the
    /// same execution numbers.
    var seed: UInt64 = UInt64.random(in: 1...UInt64(UInt32.max))
    /// Executions in flight at once (one worker thread each).
    var concurrency = 12
    /// The share of executions that go through a fault.
    var faultProbability = 0.35
    /// How long, at most, an execution may take before it counts as one that never ended.
    var watchdogSeconds: Double = 60
    /// The transport the executions go through: the platform's default kind unless
    /// `--transport` names one.
    var transport = SoakTransport.platformDefault
    /// The child's mode: run one known crash and report how it ended.
    var probe: String?
    /// The forms drawn from: all of them unless `--forms` names some.
    var forms: [Form] = Form.allCases
    /// Runs only these executions (their plans drawn from the seed), one after the other,
    /// and prints each plan and what it did: how a failing run's execution is looked at.
    var only: [Int] = []

    static let usage = """
        usage: soak [--minutes N] [--seed S] [--concurrency C] [--fault-probability P] [--transport T]
               soak --seed S --execution N[,M…] [--transport T]   (replays those executions of a run, alone)
        --transport http1|urlsession: HTTP1Transport or URLSessionTransport (default: the platform's
        default transport, \(SoakTransport.platformDefault.name) here).
        --forms a,b,… draws from those forms only: \(Form.allCases.map(\.rawValue).joined(separator: ", ")).
        Drives executions of every form through a fault-injecting proxy and checks Leash's
        promises; exits 0 only when every invariant held. A failing run prints its seed.
        """

    /// Reads `arguments` (without the program's name); a message when they are wrong.
    static func parse(_ arguments: [String]) -> Result<SoakOptions, UsageError> {
        var options = SoakOptions()
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            guard let value = remaining.popFirst() else {
                return .failure(UsageError(message: "\(flag) needs a value\n\(usage)"))
            }
            switch flag {
            case "--minutes":
                guard let minutes = Double(value), minutes > 0 else {
                    return .failure(UsageError(message: "bad --minutes \(value)"))
                }
                options.minutes = minutes
            case "--seed":
                guard let seed = UInt64(value) else { return .failure(UsageError(message: "bad --seed \(value)")) }
                options.seed = seed
            case "--concurrency":
                guard let count = Int(value), count > 0 else {
                    return .failure(UsageError(message: "bad --concurrency \(value)"))
                }
                options.concurrency = count
            case "--fault-probability":
                guard let probability = Double(value), (0...1).contains(probability) else {
                    return .failure(UsageError(message: "bad --fault-probability \(value)"))
                }
                options.faultProbability = probability
            case "--watchdog":
                guard let seconds = Double(value), seconds > 0 else {
                    return .failure(UsageError(message: "bad --watchdog \(value)"))
                }
                options.watchdogSeconds = seconds
            case "--transport":
                guard let transport = SoakTransport(rawValue: value.lowercased()) else {
                    return .failure(UsageError(message: "bad --transport \(value) (http1 or urlsession)"))
                }
                options.transport = transport
            case "--probe":
                options.probe = value
            case "--forms":
                let forms = value.split(separator: ",").compactMap { Form(rawValue: String($0)) }
                guard !forms.isEmpty else { return .failure(UsageError(message: "bad --forms \(value)")) }
                options.forms = forms
            case "--execution":
                guard let numbers = Optional(value.split(separator: ",").compactMap { Int($0) }), !numbers.isEmpty
                else { return .failure(UsageError(message: "bad --execution \(value)")) }
                options.only = numbers
            default:
                return .failure(UsageError(message: "unknown option \(flag)\n\(usage)"))
            }
        }
        return .success(options)
    }
}

/// A command line the soak cannot read, and why.
struct UsageError: Error {
    let message: String
}
