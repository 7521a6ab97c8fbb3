import Foundation

// The soak: executions of every form through a fault-injecting proxy, checking that each
// ends exactly once with a value or a typed error, that nothing arrives after a dispose,
// that no request is sent after its execution ended, that transfers lose no byte, and that
// the process gives back what it held. See Soak.swift; run with
//
//     swift run -c release --package-path Benchmarks soak --minutes 30 [--seed S]
//
// The transport is the platform's default (`Manager.defaultTransport`: HTTP1Transport on
// Linux) unless `--transport urlsession` (or `http1`) names one. Exit status 0 only when
// every invariant held; a failing run prints its seed.

switch SoakOptions.parse(Array(CommandLine.arguments.dropFirst())) {
case .failure(let error):
    FileHandle.standardError.write(Data((error.message + "\n").utf8))
    exit(2)
case .success(let options):
    if let probe = options.probe { exit(KnownCrashProbe.child(probe, transport: options.transport)) }
    if !options.only.isEmpty {
        do {
            print(try Soak(options: options).replay())
            exit(0)
        } catch {
            print("soak: could not start: \(error)")
            exit(2)
        }
    }
    let allocator = AllocatorSettings.apply()
    let transport =
        options.transport == .platformDefault ? "the platform's default" : "chosen with --transport"
    print(
        "soak: transport \(options.transport.name) (\(transport)), seed \(options.seed), \(options.minutes) min, "
            + "\(options.concurrency) at once, "
            + "faults on \(Int(options.faultProbability * 100))% of executions"
            + (allocator.map { "; \($0)" } ?? ""))
    do {
        let findings = try Soak(options: options).run()
        let probes = KnownCrashProbe.runAll()
        let report = SoakReport(options: options, findings: findings, probes: probes)
        print(report.text)
        exit(report.held ? 0 : 1)
    } catch {
        print("soak: could not start: \(error) (seed \(options.seed))")
        exit(2)
    }
}
