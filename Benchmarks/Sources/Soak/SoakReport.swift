import Foundation

/// The soak's report: per form, the counts and whether each invariant held; then the
/// process's resources, memory, token refreshes and the known-crash probes.
struct SoakReport {
    let options: SoakOptions
    let findings: Soak.Findings
    let probes: [KnownCrashProbe.Result]

    var memoryHeld: Bool { findings.memory.held(minutes: options.minutes) }

    var held: Bool {
        findings.counts.values.allSatisfy(\.held) && findings.end.isBack(to: findings.start) && memoryHeld
            && findings.tokens.redundant == 0 && probesHeld
    }

    /// Whether every probe through `HTTP1Transport` survived with its typed error.
    var probesHeld: Bool { probes.allSatisfy(\.held) }

    var text: String {
        var lines: [String] = []
        let total = findings.counts.values.reduce(0) { $0 + $1.started }
        lines.append(
            "transport: \(options.transport.name)"
                + (options.transport == .platformDefault ? " (the platform's default)" : " (chosen with --transport)"))
        lines.append(
            String(
                format: "%d executions in %.0f s (%.0f/s), %d through a fault, %d cancelAll()s", total,
                findings.seconds,
                Double(total) / max(findings.seconds, 1), findings.counts.values.reduce(0) { $0 + $1.faulted },
                findings.cancelAlls))
        lines.append("")
        lines.append(
            pad("form", 10) + pad("started", 9) + pad("ended", 8) + pad("twice", 6) + pad("untyped", 8)
                + pad("afterDisp", 10) + pad("sentLate", 9) + pad("hung", 5) + pad("values", 8) + pad("verified", 9)
                + pad("mismatch", 9) + pad("failed", 7) + pad("disposed", 9) + "ok")
        for form in Form.allCases {
            let counts = findings.counts[form] ?? FormCounts()
            lines.append(
                pad(form.rawValue, 10) + pad(counts.started, 9) + pad(counts.ended, 8) + pad(counts.endedTwice, 6)
                    + pad(counts.untyped, 8) + pad(counts.eventsAfterDispose, 10) + pad(counts.sentAfterEnd, 9)
                    + pad(counts.neverEnded, 5) + pad(counts.values, 8) + pad(counts.verified, 9)
                    + pad(counts.mismatched, 9) + pad(counts.failures, 7) + pad(counts.disposed, 9)
                    + (counts.held ? "yes" : "NO"))
        }
        let raced = findings.counts.values.reduce(0) { $0 + $1.racedDispose }
        lines.append(
            "one event in flight (an element or the end) reached its subscriber just after the dispose returned: "
                + "\(raced) time(s) (already past its sink's check, as in RxSwift; a second one would be counted above)"
        )
        lines.append("")
        lines.append("failures by kind:")
        var kinds: [String: Int] = [:]
        for counts in findings.counts.values { kinds.merge(counts.failureKinds, uniquingKeysWith: +) }
        for (kind, count) in kinds.sorted(by: { $0.value > $1.value }) { lines.append("  \(kind): \(count)") }
        let examples = Form.allCases.flatMap { form in
            (findings.counts[form]?.examples ?? []).map { "  \(form): \($0)" }
        }
        if !examples.isEmpty {
            lines.append("problems (first few per form):")
            lines.append(contentsOf: examples)
        }
        lines.append("")
        lines.append("resources at the start: \(findings.start)")
        lines.append(
            "resources at the end:   \(findings.end)  \(findings.end.isBack(to: findings.start) ? "back" : "NOT BACK")")
        if let leftOpen = findings.leftOpen { lines.append("  still open: \(leftOpen)") }
        lines.append(contentsOf: memoryLines)
        let tokens = findings.tokens
        lines.append(
            "token: \(tokens.expiries) expiries, \(tokens.refreshes) refreshes, \(tokens.redundant) while the token was "
                + "still good " + (tokens.redundant == 0 ? "(at most one per expiry)" : "(MORE THAN ONE PER EXPIRY)"))
        lines.append("")
        lines.append(
            "known crash probes, in a child process each (a clean close inside a response's head, which kills a "
                + "Linux process in FoundationNetworking): URLSessionTransport's reported, not judged; "
                + "HTTP1Transport's must survive with LeashError.transport(.networkConnectionLost)"
                + (probesHeld ? "" : " (AN HTTP1TRANSPORT PROBE FAILED)"))
        for probe in probes {
            lines.append("  \(probe.transport.name), cut after \(probe.cut) bytes of the head: \(probe.summary)")
        }
        lines.append("")
        lines.append(
            held
                ? "every invariant held (seed \(options.seed))" : "INVARIANTS BROKEN: rerun with --seed \(options.seed)"
        )
        return lines.joined(separator: "\n")
    }

    /// The heap judged (its growth, URLSession's leak taken out when the transport is
    /// URLSession's), then resident memory.
    private var memoryLines: [String] {
        let memory = findings.memory
        var lines: [String] = []
        let perTask = memory.urlSessionLeakPerTask.map { String(format: "%.0f", $0) }
        if let growth = memory.growth {
            let verdict =
                options.minutes < MemoryFindings.minutesToJudge
                ? "(not judged: a run under \(Int(MemoryFindings.minutesToJudge)) minutes is too short)"
                : memoryHeld ? "(under 10 MB)" : "(OVER 10 MB)"
            let floors =
                "heap in use, lowest point of the first minute after warm-up \(mb(growth.first.heapInUse)), of the "
                + "last minute \(mb(growth.last.heapInUse)): growth \(mb(growth.heap))"
            if let perTask {
                lines.append(
                    floors + ", of which URLSession's own leak \(mb(growth.urlSessionShare)) "
                        + "(\(growth.last.urlSessionTasks - growth.first.urlSessionTasks) tasks × \(perTask) B); "
                        + "the rest \(mb(growth.own)) \(verdict)")
            } else {
                lines.append(floors + ", all of it judged (no URLSession task, no leak of its to take out) \(verdict)")
            }
        } else {
            lines.append(
                "heap in use: under two minutes after the warm-up, growth not measured"
                    + (memoryHeld ? "" : " (RUN OF 5 MINUTES OR MORE WITHOUT A MEASURE)"))
        }
        lines.append("  lowest heap of each minute: " + memory.heapFloorByMinute.map(mb).joined(separator: ", "))
        if let perTask {
            lines.append(
                "  URLSession alone leaves \(perTask) B per task on the heap (FoundationNetworking: libcurl's parsed URL "
                    + "is never freed), measured before the run")
        } else {
            lines.append(
                "  URLSession's leak per task not measured: with \(options.transport.name) no request is a URLSession "
                    + "task")
        }
        let peaks = memory.residentPeaks
        lines.append(
            "resident memory: peak \(mb(peaks.warmUp)) during warm-up, \(mb(peaks.after)) after, last "
                + "\(mb(memory.samples.last?.resident ?? 0)); peak of each minute: "
                + memory.residentByMinute.map(mb).joined(separator: ", "))
        return lines
    }

    private func pad(_ value: CustomStringConvertible, _ width: Int) -> String {
        let text = value.description
        return text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private func mb(_ bytes: Int) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_048_576)
    }
}
