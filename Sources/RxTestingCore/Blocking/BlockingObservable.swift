import Foundation
import Rx

/// A sequence whose results are read by blocking the current thread until it ends, as
/// in RxBlocking: for tests and command-line tools, never for app code.
///
/// ```swift
/// let values = try observable.toBlocking(timeout: 1).toArray()
/// ```
///
/// The sequence is subscribed on the calling thread. Called on the main thread, the
/// blocking operators run the main run loop while they wait, so a sequence that
/// delivers on the main queue still finishes; on other threads they wait on a condition.
public struct BlockingObservable<Element>: Sendable {
    /// Seconds to wait before failing with `RxError.timeout`; `nil` waits for ever.
    let timeout: TimeInterval?
    /// The sequence.
    let source: Observable<Element>
}

extension ObservableConvertibleType {
    /// The sequence as a `BlockingObservable`, whose operators block the current thread.
    ///
    /// - Parameter timeout: Seconds to wait for the sequence to end before the operator
    ///   fails with `RxError.timeout`; `nil` (the default) waits for ever.
    public func toBlocking(timeout: TimeInterval? = nil) -> BlockingObservable<Element> {
        BlockingObservable(timeout: timeout, source: asObservable())
    }
}

/// How a sequence read by `BlockingObservable.materialize()` ended, with its elements.
public enum MaterializedSequenceResult<T> {
    /// The sequence completed, having emitted `elements`.
    case completed(elements: [T])
    /// The sequence failed with `error` (or timed out, with `RxError.timeout`) after
    /// emitting `elements`.
    case failed(elements: [T], error: Error)
}

extension MaterializedSequenceResult: Sendable where T: Sendable {}

extension BlockingObservable {
    /// All elements of the sequence, once it completes.
    ///
    /// - Throws: The sequence's error, or `RxError.timeout`.
    public func toArray() throws -> [Element] {
        try elementsOrThrow(materializeResult(max: nil, predicate: nil))
    }

    /// The first element, or `nil` if the sequence completes empty. Returns as soon as the
    /// first element arrives and disposes the subscription.
    ///
    /// - Throws: An error the sequence ends with before its first element, or `RxError.timeout`.
    public func first() throws -> Element? {
        try elementsOrThrow(materializeResult(max: 1, predicate: nil)).first
    }

    /// The last element, or `nil` if the sequence completes empty.
    ///
    /// - Throws: The sequence's error, or `RxError.timeout`.
    public func last() throws -> Element? {
        try elementsOrThrow(materializeResult(max: nil, predicate: nil)).last
    }

    /// The only element of the sequence.
    ///
    /// - Throws: `RxError.noElements` if it completes empty, `RxError.moreThanOneElement`
    ///   as soon as a second element arrives, the sequence's error, or `RxError.timeout`.
    public func single() throws -> Element {
        try single { _ in true }
    }

    /// The only element of the sequence for which `predicate` is true.
    ///
    /// `predicate` runs on the thread the sequence delivers on, one element at a time,
    /// while the caller is blocked; it is never called after this method returns.
    ///
    /// - Throws: `RxError.noElements` if no element matches, `RxError.moreThanOneElement`
    ///   as soon as a second one does, an error `predicate` throws, the sequence's error,
    ///   or `RxError.timeout`.
    public func single(_ predicate: @escaping (Element) throws -> Bool) throws -> Element {
        let elements = try elementsOrThrow(materializeResult(max: 2, predicate: predicate))
        if elements.count > 1 { throw RxError.moreThanOneElement }
        guard let element = elements.first else { throw RxError.noElements }
        return element
    }

    /// How the sequence ended, with the elements it emitted: never throws.
    ///
    /// A timeout gives `.failed(elements:error:)` with `RxError.timeout` and the elements
    /// received until then.
    public func materialize() -> MaterializedSequenceResult<Element> {
        materializeResult(max: nil, predicate: nil)
    }

    private func elementsOrThrow(_ result: MaterializedSequenceResult<Element>) throws -> [Element] {
        switch result {
        case .completed(let elements): return elements
        case .failed(_, let error): throw error
        }
    }

    /// Subscribes, blocks until the sequence ends, `max` matching elements arrived, an
    /// error, or the timeout, and reports what happened.
    private func materializeResult(max: Int?, predicate: ((Element) throws -> Bool)?)
        -> MaterializedSequenceResult<Element>
    {
        let collector = BlockingCollector<Element>(max: max, predicate: predicate)
        let subscription = SingleAssignmentDisposable()
        collector.subscription = subscription
        subscription.setDisposable(source.subscribe(AnyObserver { collector.on($0) }))
        collector.wait(timeout: timeout)
        subscription.dispose()
        return collector.result()
    }
}
