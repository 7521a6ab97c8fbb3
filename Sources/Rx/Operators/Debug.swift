#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

extension ObservableType {
    /// Prints the subscription, every event and the disposal of each subscription, and
    /// passes every event through.
    ///
    /// Each line reads `2024-01-31 12:34:56.789: identifier -> content`, with a local
    /// timestamp and a content of `subscribed`, `Event next(1)`, `Event completed`,
    /// `Event error(…)` or `isDisposed`.
    ///
    /// - Parameters:
    ///   - identifier: The name in each line; by default `File.swift:line (function)` of the
    ///     call site.
    ///   - trimOutput: Whether to shorten event descriptions longer than 40 characters to
    ///     their first and last 20.
    ///   - file: The call site's file, for the default identifier; leave it to the compiler.
    ///   - line: The call site's line, for the default identifier; leave it to the compiler.
    ///   - function: The call site's function, for the default identifier; leave it to the
    ///     compiler.
    /// - Returns: The source, logged.
    public func debug(
        _ identifier: String? = nil, trimOutput: Bool = false, file: String = #file, line: UInt = #line,
        function: String = #function
    ) -> Observable<Element> {
        debug(
            identifier: debugLogIdentifier(identifier, file: file, line: line, function: function),
            trimOutput: trimOutput
        ) { print($0) }
    }

    /// `debug`, writing its lines to `log` (tests read them from there).
    func debug(identifier: String, trimOutput: Bool, log: @escaping @Sendable (String) -> Void) -> Observable<Element> {
        let source = asObservable()
        return Observable<Element>.make { observer in
            let sink = DebugSink(identifier: identifier, trimOutput: trimOutput, log: log, downstream: observer)
            sink.run(source)
            return sink
        }
    }
}

/// The identifier `debug` prints: the one given, or the call site.
func debugLogIdentifier(_ identifier: String?, file: String, line: UInt, function: String) -> String {
    if let identifier { return identifier }
    let fileName = file.lastIndex(of: "/").map { String(file[file.index(after: $0)...]) } ?? file
    return "\(fileName):\(line) (\(function))"
}

/// The description of `event` that `debug` prints, shortened to its first and last 20
/// characters when `trim` is set and it is longer than 40.
func debugLogEventText<Element>(_ event: Event<Element>, trim: Bool) -> String {
    let maximumLength = 40
    let text = "\(event)"
    guard trim, text.count > maximumLength else { return text }
    return String(text.prefix(maximumLength / 2)) + "..." + String(text.suffix(maximumLength / 2))
}

/// The current local time as `yyyy-MM-dd HH:mm:ss.SSS`, the format of RxSwift's `debug`.
///
/// Formatted with `localtime_r` rather than a `DateFormatter`, which is costly to create and
/// not safe to share between the threads a subscription may log from.
func debugLogTimestamp() -> String {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    var seconds = now.tv_sec
    var parts = tm()
    localtime_r(&seconds, &parts)
    func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    let date =
        "\(padded(Int(parts.tm_year) + 1900, 4))-\(padded(Int(parts.tm_mon) + 1, 2))-\(padded(Int(parts.tm_mday), 2))"
    let time = "\(padded(Int(parts.tm_hour), 2)):\(padded(Int(parts.tm_min), 2)):\(padded(Int(parts.tm_sec), 2))"
    return "\(date) \(time).\(padded(Int(now.tv_nsec) / 1_000_000, 3))"
}

/// The sink of `debug`.
///
/// It keeps the source subscription itself rather than `attach`ing it, so that on disposal
/// it logs `isDisposed` before disposing the source, as RxSwift does (nested `debug`s log
/// their disposals from the outside in).
final class DebugSink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: immutable but for the subscription slot, behind its lock.
    private let identifier: String
    private let trimOutput: Bool
    private let log: @Sendable (String) -> Void
    private let subscription = LockedState(ErrorsDisposableSlot())

    init(
        identifier: String, trimOutput: Bool, log: @escaping @Sendable (String) -> Void,
        downstream: AnyObserver<Element>
    ) {
        self.identifier = identifier
        self.trimOutput = trimOutput
        self.log = log
        super.init(downstream: downstream)
    }

    func run(_ source: Observable<Element>) {
        write("subscribed")
        let disposable = source.run(AnyObserver { self.on($0) })
        subscription.withLock { $0.set(disposable, generation: 0) }?.dispose()
    }

    private func on(_ event: Event<Element>) {
        write("Event \(debugLogEventText(event, trim: trimOutput))")
        forwardEvent(event)
    }

    private func write(_ content: String) {
        log("\(debugLogTimestamp()): \(identifier) -> \(content)")
    }

    override func didDispose() {
        write("isDisposed")
        subscription.withLock { $0.dispose() }?.dispose()
    }
}
